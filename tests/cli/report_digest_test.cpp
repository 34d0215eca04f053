// parse_report_digest reads reports with a SAX handler: it must give exactly
// what reading the whole document gives (the reference below), on every
// scenario's report and on reports with odd shapes.
#include "report/report_digest.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "render/render.h"
#include "rocm_doctor/text.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

using nlohmann::json;

// Words as diff and fleet print them: control characters escaped.
std::string shown(const std::string& text) {
  return displayable(text, std::string::npos, false);
}

std::string text(const json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? shown(it->get<std::string>()) : std::string();
}

// The digest as the document says it: the reading the SAX handler must reproduce.
tl::expected<ReportDigest, std::string> document_digest(const std::string& input) {
  const auto report = json::parse(input, nullptr, false);
  if (report.is_discarded()) return tl::unexpected(std::string("not valid JSON"));
  if (!report.is_object() || text(report, "schema") != "rocm-doctor/report")
    return tl::unexpected(std::string("not a report"));
  ReportDigest digest;
  const auto& host = report.contains("host") ? report["host"] : json();
  digest.hostname = text(host, "hostname");
  digest.generated_at = text(report, "generated_at");
  digest.worst = report.contains("summary") ? text(report["summary"], "worst") : "";
  if (digest.worst.empty()) digest.worst = "ok";
  if (const auto os = text(host, "os"); !os.empty()) digest.versions["os"] = os;
  if (const auto kernel = text(host, "kernel"); !kernel.empty()) digest.versions["kernel"] = kernel;
  if (report.contains("tool")) digest.versions["rocm-doctor"] = text(report["tool"], "version");
  if (const auto it = report.find("versions"); it != report.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      if (value.is_string()) digest.versions[shown(key)] = shown(value.get<std::string>());
    }
  }
  if (const auto it = report.find("checks"); it != report.end() && it->is_array()) {
    for (const auto& check : *it) {
      const auto id = text(check, "id");
      digest.check_status[id] = text(check, "status");
      if (!check.contains("findings") || !check["findings"].is_array()) continue;
      for (const auto& finding : check["findings"]) {
        digest.findings.push_back({text(finding, "id"), id, text(finding, "severity"), text(finding, "summary")});
      }
    }
  }
  if (const auto it = report.find("gpus"); it != report.end() && it->is_array()) {
    for (const auto& gpu : *it) {
      std::string line = text(gpu, "pci_address") + " " + text(gpu, "name");
      if (const auto gfx = text(gpu, "gfx"); !gfx.empty()) line += " (" + gfx + ")";
      digest.gpus.push_back(std::move(line));
    }
  }
  if (const auto it = report.find("physical_gpus"); it != report.end() && it->is_array()) {
    for (const auto& gpu : *it) {
      if (!gpu.is_object()) continue;
      auto mode = partition_mode({text(gpu, "name"), text(gpu, "compute_partition"), text(gpu, "memory_partition")});
      if (!mode.empty()) digest.partition_modes.push_back(shown(mode));
    }
  }
  if (const auto it = report.find("root_causes"); it != report.end() && it->is_array()) {
    digest.has_root_causes = true;
    for (const auto& id : *it) {
      if (id.is_string()) digest.root_causes.push_back(shown(id.get<std::string>()));
    }
  }
  return digest;
}

void expect_same(const std::string& input, const std::string& what) {
  const auto expected = document_digest(input);
  const auto got = parse_report_digest(input);
  ASSERT_EQ(got.has_value(), expected.has_value()) << what << ": " << (got ? "" : got.error());
  if (!expected) return;
  EXPECT_EQ(got->hostname, expected->hostname) << what;
  EXPECT_EQ(got->generated_at, expected->generated_at) << what;
  EXPECT_EQ(got->worst, expected->worst) << what;
  EXPECT_EQ(got->versions, expected->versions) << what;
  EXPECT_EQ(got->check_status, expected->check_status) << what;
  EXPECT_EQ(got->gpus, expected->gpus) << what;
  EXPECT_EQ(got->has_root_causes, expected->has_root_causes) << what;
  EXPECT_EQ(got->root_causes, expected->root_causes) << what;
  EXPECT_EQ(got->partition_modes, expected->partition_modes) << what;
  ASSERT_EQ(got->findings.size(), expected->findings.size()) << what;
  for (std::size_t i = 0; i < got->findings.size(); ++i) {
    const auto& a = got->findings[i];
    const auto& b = expected->findings[i];
    EXPECT_EQ(std::tie(a.id, a.check, a.severity, a.summary), std::tie(b.id, b.check, b.severity, b.summary)) << what;
  }
}

TEST(ReportDigest, EveryScenarioReportReadsAsItsDocument) {
  int reports = 0;
  int with_rocm = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ROCM_DOCTOR_SCENARIOS_DIR)) {
    if (!std::filesystem::exists(entry.path() / "snapshot.json")) continue;
    auto host = SnapshotHost::open(entry.path());
    ASSERT_TRUE(host) << host.error();
    const auto json = render_json(run_on(**host));
    expect_same(json, entry.path().filename().string());
    if (const auto digest = parse_report_digest(json); digest && digest->versions.contains("rocm")) ++with_rocm;
    ++reports;
  }
  EXPECT_GT(reports, 50);
  EXPECT_GT(with_rocm, 30) << "the reports' versions reach the digest";
}

TEST(ReportDigest, OddShapesReadAsTheirDocument) {
  const std::string head = R"({"schema": "rocm-doctor/report", )";
  const std::vector<std::string> cases = {
      head + R"("host": {"hostname": "a", "os": "Debian", "kernel": 6}, "tool": 1})",
      head + R"("host": {"hostname": "a"}, "host": {"os": "b"}, "summary": {"worst": "error"}, "summary": 3})",
      head +
          R"("versions": {"rocm": "6.2", "driver": 5, "os": "override", "rocm": {"x": 1}}, "tool": {"version": "9"}})",
      head + R"("checks": [1, "x", [], {"id": "a", "status": "ok", "findings": [{"id": "f", "severity": "error",)"
             R"( "summary": "s", "detail": {"deep": [1, {"id": "no"}]}}, 7, {"id": ["no"]}]},)"
             R"( {"findings": [{"id": "before"}], "id": "b", "status": "warning", "findings": {"id": "no"}},)"
             R"( {"id": "c", "findings": [{"id": "g"}], "findings": [{"id": "h", "summary": "last"}]}]})",
      head + R"("checks": [{"id": "a", "findings": [{"id": "x"}]}], "checks": {"id": "b"}})",
      head + R"("gpus": [{"pci_address": "0000:03:00.0", "name": "MI300X", "gfx": "gfx942"}, 5, {"name": "n"}]})",
      head + R"("gpus": [{"gfx": ""}], "gpus": [{"pci_address": "p", "gfx": "gfx90a", "gfx": null}]})",
      head +
          R"("host": {"hostname": "h\u001b[2J", "os": "a\nb"}, "versions": {"ro\u0007cm": "6\r"},)"
          R"( "checks": [{"id": "c\t", "status": "ok", "findings": [{"id": "f", "summary": "x\u001b]0;t\u0007\nFORGED"}]}],)"
          R"( "gpus": [{"pci_address": "p", "name": "n\u001b[31m"}]})",
      head + R"("root_causes": ["driver.not-loaded", 3, {"id": "no"}, ["no"], "access.group-missing"]})",
      head + R"("root_causes": ["a"], "root_causes": "b"})",
      head + R"("root_causes": {"id": "a"}})",
      head + R"("root_causes": "a", "root_causes": []})",
      head + R"("root_causes": ["r\u001b[2J"]})",
      head + R"("physical_gpus": [{"name": "AMD Instinct MI300X", "compute_partition": "CPX", "memory_partition":)"
             R"( "NPS4", "available_compute_partitions": ["SPX", "CPX"], "partitions": [{"name": "no"}]},)"
             R"( {"name": "RX 7900 XTX", "compute_partition": null, "memory_partition": null}, 3,)"
             R"( {"compute_partition": "SPX"}, {"name": "x", "memory_partition": "NPS1", "name": ["no"]}]})",
      head + R"("physical_gpus": [{"name": "a", "compute_partition": "DPX"}], "physical_gpus": {"name": "b"}})",
      head + R"("schema": "other"})",
      R"({"schema": 5})",
      R"([{"schema": "rocm-doctor/report"}])",
      R"("rocm-doctor/report")",
      head + R"("checks": [)",
      head + R"("a": 1} trailing)",
      "",
  };
  for (const auto& input : cases) expect_same(input, input);
}

// diff and fleet print the digest on a terminal: a report with escape sequences
// and newlines in its words gives them back escaped, never raw.
TEST(ReportDigest, ControlCharactersOfAReportAreEscaped) {
  const auto got = parse_report_digest(
      R"({"schema": "rocm-doctor/report", "host": {"hostname": "h\u001b[2J"},)"
      R"( "checks": [{"id": "c", "status": "ok", "findings": [{"id": "f", "summary": "x\nFORGED"}]}]})");
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ(got->hostname, "h\\x1b[2J");
  ASSERT_EQ(got->findings.size(), 1U);
  EXPECT_EQ(got->findings[0].summary, "x\\x0aFORGED");
}

}  // namespace
}  // namespace rocm_doctor::testing
