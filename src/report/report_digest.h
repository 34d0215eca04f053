// What `diff` and `fleet` need from a JSON report (docs/report-format.md),
// read without the rest of it.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

namespace rocm_doctor {

struct DigestFinding {
  std::string id;
  std::string check;
  std::string severity;
  std::string summary;
};

struct ReportDigest {
  std::string file;
  std::string hostname;
  std::string generated_at;
  std::string worst;  // "ok", "info", "warning", "error"
  // "os", "kernel", "rocm-doctor", and every string of a `versions` section
  // (e.g. "rocm", "driver", "firmware") when the report has one.
  std::map<std::string, std::string> versions;
  std::vector<DigestFinding> findings;
  std::map<std::string, std::string> check_status;  // check id -> status
  std::vector<std::string> gpus;                    // "0000:03:00.0 AMD Radeon RX 7900 XTX (gfx1100)"
  // One per physical GPU of `physical_gpus` with a compute or memory partition mode:
  // "AMD Instinct MI300X CPX/NPS4" (partition_mode below).
  std::vector<std::string> partition_modes;
  // The report's `root_causes` (finding ids, ranked), when it has that field.
  bool has_root_causes = false;
  std::vector<std::string> root_causes;
  // The report's `node_config` object as written (null when it has none); its strings
  // are the other machine's, not yet made displayable (fleet_baseline.h does).
  nlohmann::json node_config;
};

// A physical GPU's modes, as `physical_gpus` (docs/report-format.md) gives them ("" when null).
struct PhysicalGpuModes {
  std::string name;
  std::string compute_partition;  // "SPX", "CPX", ...
  std::string memory_partition;   // "NPS1", "NPS4", ...
};
// "AMD Instinct MI300X CPX/NPS4" ("CPX" or "NPS1" alone when only one is known), or ""
// when neither is.
std::string partition_mode(const PhysicalGpuModes& gpu);

// The text of a JSON report, as `diff` and `fleet` read it (untrusted input); the error
// says why it is none (not JSON, not a report).
tl::expected<ReportDigest, std::string> parse_report_digest(std::string_view text);
tl::expected<ReportDigest, std::string> load_report_digest(const std::filesystem::path& file);

// Severity order of the words: ok < info < warning < error.
int severity_rank(std::string_view severity);

}  // namespace rocm_doctor
