// Compute partitions in every output format (issue 22), on the real captures of an 8 x MI300X node
// in CPX mode whose last GPU shows 7 of its 8 partitions, and of an 8 x MI308X node in CPX mode;
// an unpartitioned node looks as it did before partitions were shown.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "render/formats.h"
#include "render/run_tool.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::find_tool;
using testing::read_text;
using testing::run_doctor;
using testing::run_tool;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;
const std::string kMi300xCpx = kScenarios + "/real-mi300x-cpx-x8";
const std::string kMi308xCpx = kScenarios + "/real-mi308x-cpx-x8";
const std::string kMi300x = kScenarios + "/gpu-mi300x-x8";  // unpartitioned
const std::string kHealthy = kScenarios + "/ubuntu2204-rx7900xtx-healthy";

std::string report_of(const std::string& scenario, const std::string& format, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--replay", scenario, "--level", "quick", "--no-color", "--format", format};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto result = run_doctor(args);
  EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
  return result.out;
}

// The lines of the text report's "GPUs:" table.
std::vector<std::string> gpu_table(const std::string& text) {
  std::vector<std::string> lines;
  const auto start = text.find("GPUs:\n");
  if (start == std::string::npos) return lines;
  std::size_t at = start + 6;
  while (at < text.size() && text[at] != '\n') {
    const auto end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::size_t count_matches(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(text.begin(), text.end(), re), {}));
}

TEST(PartitionsRender, TextShowsOneLinePerPhysicalGpu) {
  const auto table = gpu_table(report_of(kMi300xCpx, "text"));
  ASSERT_EQ(table.size(), 8U) << "8 physical GPUs, not 63 partitions";
  EXPECT_EQ(table.front(),
            "  0-7  0000:05:00.0  gfx942  AMD Instinct MI300X  16 GiB  CPX/NPS1, 8 partitions of 38 CUs");
  EXPECT_EQ(table.back(),
            "  56-62  0000:e5:00.0  gfx942  AMD Instinct MI300X  16 GiB  CPX/NPS1, 7 partitions (the mode makes 8) of "
            "38 CUs");
  const auto eights = std::count_if(
      table.begin(), table.end(), [](const auto& line) { return line.ends_with("CPX/NPS1, 8 partitions of 38 CUs"); });
  EXPECT_EQ(eights, 7);
  const auto mi308x = gpu_table(report_of(kMi308xCpx, "text"));
  ASSERT_EQ(mi308x.size(), 8U);
  for (const auto& line : mi308x) EXPECT_TRUE(line.ends_with("CPX/NPS1, 4 partitions of 20 CUs")) << line;
  EXPECT_TRUE(mi308x.back().starts_with("  28-31  0001:c9:00.0  gfx942  AMD Instinct MI308X")) << mi308x.back();
}

TEST(PartitionsRender, VerboseTextListsEveryPartition) {
  const auto text = report_of(kMi300xCpx, "text", {"-v"});
  const auto table = gpu_table(text);
  EXPECT_EQ(table.size(), 8U + 63U) << text.substr(0, 3000);
  EXPECT_NE(text.find("\n      partition 1: HIP 1  KFD node 3  /dev/dri/renderD129  38 CUs\n"), std::string::npos);
  EXPECT_EQ(count_matches(text, R"(\n      partition \d: HIP \d+  KFD node \d+  /dev/dri/renderD\d+  38 CUs)"), 63U);
  EXPECT_EQ(text.find("0000:05:00.1"), std::string::npos) << "no invented PCI address";
}

TEST(PartitionsRender, UnpartitionedGpusLookAsBefore) {
  const auto table = gpu_table(report_of(kMi300x, "text", {"-v"}));
  ASSERT_EQ(table.size(), 8U);
  EXPECT_EQ(table.front(), "  0  0000:05:00.0  gfx942  AMD Instinct MI300X  192 GiB");
  for (const auto& line : table) EXPECT_EQ(line.find("partition"), std::string::npos) << line;
  EXPECT_EQ(report_of(kMi300x, "markdown").find("Physical GPUs"), std::string::npos);
  EXPECT_EQ(report_of(kHealthy, "prometheus").find("partition"), std::string::npos);
  EXPECT_EQ(report_of(kMi300x, "html").find("physical-gpu"), std::string::npos);
  EXPECT_EQ(report_of(kHealthy, "npd"), "ROCm OK (1 GPU, 0 warnings)\n") << "no partitions counted";
}

TEST(PartitionsRender, MarkdownHasAPhysicalGpusTable) {
  const auto markdown = report_of(kMi300xCpx, "markdown");
  EXPECT_NE(markdown.find("### Physical GPUs\n\n| PCI address | Name | gfx | Compute partition | Memory partition | "
                          "Partitions | HIP indices | CUs per partition |\n"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("\n| 0000:05:00.0 | AMD Instinct MI300X | gfx942 | CPX | NPS1 | 8 | 0-7 | 38 |\n"),
            std::string::npos);
  EXPECT_NE(markdown.find("\n| 0000:e5:00.0 | AMD Instinct MI300X | gfx942 | CPX | NPS1 | 7 (the mode makes 8) | "
                          "56-62 | 38 |\n"),
            std::string::npos);
  EXPECT_EQ(
      count_matches(markdown, R"(\n\| 0000:[0-9a-f]{2}:00\.0 \| AMD Instinct MI300X \| gfx942 \| CPX \| NPS1 \|)"), 8U);
  const auto cmark = find_tool("cmark");
  if (cmark.empty()) GTEST_SKIP() << "cmark is not installed (packaging/test-deps.txt)";
  testing::TempDir folder;
  const auto file = folder.path() / "report.md";
  write_text(file, markdown);
  const auto ast = run_tool({cmark, "--to", "xml", file.string()});
  ASSERT_EQ(ast.exit_code, 0) << ast.out;
  EXPECT_NE(ast.out.find("Physical GPUs"), std::string::npos);
}

TEST(PartitionsRender, PrometheusHasOneSeriesPerPhysicalGpu) {
  const auto text = report_of(kMi300xCpx, "prometheus");
  EXPECT_EQ(count_matches(text, R"(\nrocm_doctor_gpu_partition_info\{pci_address="[^"]+",name="AMD Instinct MI300X",)"
                                R"(gfx="gfx942",compute_partition="CPX",memory_partition="NPS1"\} 1(?=\n))"),
            8U)
      << text;
  EXPECT_NE(text.find("\n# HELP rocm_doctor_gpu_partition_info "), std::string::npos);
  EXPECT_NE(text.find("\n# TYPE rocm_doctor_gpu_partitions gauge\n"), std::string::npos);
  EXPECT_EQ(count_matches(text, R"(\nrocm_doctor_gpu_partitions\{[^}]+\} 8(?=\n))"), 7U);
  EXPECT_NE(text.find("\nrocm_doctor_gpu_partitions{pci_address=\"0000:e5:00.0\",name=\"AMD Instinct MI300X\"} 7\n"),
            std::string::npos);
  const auto mi308x = report_of(kMi308xCpx, "prometheus");
  EXPECT_EQ(count_matches(mi308x, R"(\nrocm_doctor_gpu_partitions\{[^}]+MI308X"\} 4(?=\n))"), 8U) << mi308x;
  const auto promtool = find_tool("promtool");
  if (promtool.empty()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  testing::TempDir folder;
  for (const auto* name : {"mi300x.prom", "mi308x.prom"}) {
    const auto file = folder.path() / name;
    write_text(file, std::string(name) == "mi300x.prom" ? text : mi308x);
    const auto check = run_tool({promtool, "check", "metrics"}, file.string());
    EXPECT_EQ(check.exit_code, 0) << check.out;
  }
}

TEST(PartitionsRender, NpdCountsPhysicalGpusAndPartitions) {
  const auto line = report_of(kMi300xCpx, "npd");
  EXPECT_EQ(line, "ROCm OK (8 GPUs, 63 partitions, 1 warning)\n");
  EXPECT_TRUE(report_of(kMi308xCpx, "npd").starts_with("ROCm OK (8 GPUs, 32 partitions, "));
}

TEST(PartitionsRender, HtmlTopologyGroupsPartitionsUnderTheirGpu) {
  const auto html = report_of(kMi300xCpx, "html");
  EXPECT_EQ(count_matches(html, R"(<g class="physical-gpu" data-pci-address="0000:[0-9a-f]{2}:00\.0">)"), 8U);
  EXPECT_EQ(count_matches(html, R"(<g class="partition">)"), 63U);
  EXPECT_NE(html.find(">CPX/NPS1 × 7</text>"), std::string::npos);
  EXPECT_NE(html.find("<title>GPU 1 · /dev/dri/renderD129</title>"), std::string::npos);
  EXPECT_NE(html.find("XGMI hive 0xd2ca1ad46147c377 (8 GPUs, all-to-all)"), std::string::npos)
      << "the hive joins the 8 physical GPUs";
}

// A hostile report: a name with markup and quotes, and two physical GPUs at one address.
Report hostile_report() {
  Report report;
  report.generated_at = "2026-11-30T07:00:00Z";
  const nlohmann::ordered_json partition = {
      {"number", 0}, {"index", 0}, {"kfd_node", 2}, {"render_node", "/dev/dri/renderD128"}, {"compute_units", 38}};
  nlohmann::ordered_json gpu = {
      {"pci_address", "0000:05:00.0"}, {"name", "MI|300\"X\n"},      {"gfx", "gfx942"},
      {"compute_partition", "C|PX"},   {"memory_partition", "NPS1"}, {"partitions", {partition, partition}}};
  report.sections["physical_gpus"] = nlohmann::ordered_json::array({gpu, gpu});
  return report;
}

TEST(PartitionsRender, HostileValuesAreEscapedAndNeverRepeatASeries) {
  const auto report = hostile_report();
  const auto prometheus = render_prometheus(report);
  EXPECT_EQ(count_matches(prometheus, R"(\nrocm_doctor_gpu_partition_info\{)"), 1U) << "no duplicate series";
  EXPECT_NE(prometheus.find("name=\"MI|300\\\"X\\n\",gfx=\"gfx942\",compute_partition=\"C|PX\""), std::string::npos)
      << prometheus;
  const auto markdown = render_markdown(report, RenderOptions{});
  EXPECT_NE(markdown.find("| 0000:05:00.0 | MI\\|300\"X  | gfx942 | C\\|PX | NPS1 | 2 | 0,0 | 38 |"), std::string::npos)
      << markdown;
}

}  // namespace
}  // namespace rocm_doctor
