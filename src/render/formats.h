// Every output format of a report, by name: `--format NAME` and `--output NAME=FILE`.
// text and json live in render.h; the consumer formats (issue 8) are declared here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "render/render.h"

namespace rocm_doctor {

enum class Format { text, json, markdown, junit, prometheus, npd, html };

// Names in the order `--help` and the completions list them.
const std::vector<std::string>& format_names();
std::optional<Format> parse_format(std::string_view name);
std::string_view to_string(Format format);

struct RenderOptions {
  Color color = Color::off;
  Verbosity verbosity = Verbosity::normal;
  Severity fail_on = Severity::error;  // junit failures, npd's NonOK
};

std::string render_report(const Report& report, Format format, const RenderOptions& options);

// A GitHub/GitLab issue comment: summary, GPU table, findings with fixes in <details>.
std::string render_markdown(const Report& report, const RenderOptions& options);
// JUnit XML: one <testcase> per check (GitLab, Jenkins, GitHub test reporters).
std::string render_junit(const Report& report, Severity fail_on);
// node_exporter textfile-collector format (Prometheus text exposition 0.0.4).
std::string render_prometheus(const Report& report);
// node-problem-detector custom plugin: one line on stdout, at most kNpdMaxOutput bytes.
inline constexpr std::size_t kNpdMaxOutput = 80;  // NPD's default max_output_length
std::string render_npd(const Report& report, Severity fail_on);
// The plugin's exit code: 0 OK, 1 NonOK (a finding at or above fail_on), 2 Unknown.
int npd_exit_code(const Report& report, Severity fail_on);
// One self-contained HTML page: no external resource of any kind.
std::string render_html(const Report& report);

// A reviewable POSIX sh script with every fix of the report's warnings and errors.
std::string render_fix_script(const Report& report);

// Helpers shared by the formats (render/format_support.cpp).
namespace render_support {

// One row of the report's `gpus` section, with unknowns as empty strings.
struct GpuRow {
  std::string index;  // "0", or "" when ROCm does not see it
  std::string pci_address;
  std::string name;
  std::string gfx;
  std::string family;
  std::string vram;  // "192 GiB", or ""
  std::string numa_node;
  std::string hive;  // XGMI hive id, or ""
  std::string render_node;
  std::string driver;
  bool integrated = false;
  std::string physical;  // index into `physical_gpus` when partitioned, else ""
};
std::vector<GpuRow> gpu_rows(const Report& report);

// One partition of a physical GPU (a row of `physical_gpus[].partitions`), unknowns as "".
struct PartitionRow {
  std::string number;
  std::string index;  // HIP/ROCm device index
  std::string kfd_node;
  std::string render_node;
  std::string compute_units;
};
// One row of the report's `physical_gpus` section (docs/report-format.md), unknowns as "".
struct PhysicalGpuRow {
  std::string pci_address;
  std::string name;
  std::string gfx;
  std::string vram;
  std::string compute_mode;    // "CPX"
  std::string memory_mode;     // "NPS1"
  std::string expected_count;  // what the mode implies, "" when unknown
  std::vector<PartitionRow> partitions;
  [[nodiscard]] bool partitioned() const {
    return partitions.size() > 1 || (!compute_mode.empty() && compute_mode != "SPX");
  }
  [[nodiscard]] std::string mode() const;           // "CPX/NPS1", "CPX", "" when neither is known
  [[nodiscard]] std::string indices() const;        // HIP indices as ranges: "0-7", "0-3,5"
  [[nodiscard]] std::string compute_units() const;  // "38" when all partitions agree, else ""
};
std::vector<PhysicalGpuRow> physical_gpu_rows(const Report& report);
// Whether any physical GPU of the report is partitioned.
bool any_partitioned(const std::vector<PhysicalGpuRow>& rows);
// The text report's GPU table: one line per GPU, a partitioned GPU on one line with its mode and
// partitions (each partition on a line of its own when verbose). text_report_gpus.cpp.
std::string text_gpu_table(const Report& report, Verbosity verbosity);
// The ROCm installs block after the GPU table (report.rocm.installs, issue 27): one line per install;
// "" when the report has none.
std::string text_installs_block(const Report& report, Verbosity verbosity);
// The HTML report's topology picture as inline SVG; partitions grouped under their GPU (html_topology.cpp).
std::string topology_svg(const std::vector<GpuRow>& rows, const std::vector<PhysicalGpuRow>& physical);

std::string xml_escape(std::string_view text);  // also for HTML text and attributes
// "Accepted by policy 'x' (was warning): reason", or "" when no policy accepted the finding.
std::string acceptance_note(const Finding& finding);
// "1 problem (2 consequences), 1 thing worth tidying · 2 errors, 1 warning, 3 info."
// Causes and consequences counted apart; "No problems found (...)." when healthy.
std::string summary_line(const Report& report);
// "2 things worth tidying".
std::string worth_tidying(std::size_t count);
// The report's `versions` as short phrases for a header line, unescaped:
// {"ROCm 6.2.4", "HIP 6.2.41134", "amdgpu 6.8.5", "torch 2.5.1+rocm6.2"}; empty when none.
std::vector<std::string> version_phrases(const Report& report);
// The report's `symptom` section (the user's error text) as plain, unescaped
// lines for each format to escape: level 0 a heading, 1 an item, 2 its detail.
// Empty when the run had no symptom.
struct SymptomLine {
  int level = 1;
  std::string text;
  bool command = false;  // a command to paste: shown whole, never wrapped
};
std::vector<SymptomLine> symptom_lines(const Report& report);
// RFC 3339 "2026-11-30T07:00:00Z" -> seconds since the epoch.
std::optional<long long> parse_rfc3339(std::string_view text);

}  // namespace render_support

}  // namespace rocm_doctor
