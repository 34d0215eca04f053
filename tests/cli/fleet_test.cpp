// `diff` between two reports and `fleet` over many.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "render/run_tool.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::run_doctor;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;

nlohmann::json report_of(const std::string& scenario) {
  const auto result = run_doctor({"--replay", kScenarios + "/" + scenario, "--level", "quick", "--json"});
  return nlohmann::json::parse(result.out);
}

fs::path save(const fs::path& path, const nlohmann::json& report) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << report.dump();
  return path;
}

TEST(Diff, SameReportIsNoDifference) {
  testing::TempDir folder;
  const auto a = save(folder.path() / "a.json", report_of("ubuntu2204-rx7900xtx-healthy"));
  const auto result = run_doctor({"diff", a.string(), a.string()});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("No differences."), std::string::npos);
}

TEST(Diff, FindingsAppearedDisappearedAndVersionsChanged) {
  testing::TempDir folder;
  auto before = report_of("access-render-not-relogged");
  auto after = report_of("access-group-missing");
  after["host"]["kernel"] = "6.8.0-31-generic";
  const auto a = save(folder.path() / "a.json", before);
  const auto b = save(folder.path() / "b.json", after);
  const auto text = run_doctor({"diff", a.string(), b.string()});
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_NE(text.out.find("Findings that appeared"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("+ [error] access.group-missing"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("- [error] access.relogin-required"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("-> 6.8.0-31-generic"), std::string::npos) << text.out;
  const auto json = run_doctor({"diff", a.string(), b.string(), "--format", "json"});
  const auto parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed["schema"], "rocm-doctor/diff");
  EXPECT_FALSE(parsed["same"].get<bool>());
  EXPECT_FALSE(parsed["appeared"].empty());
}

TEST(Diff, ReportsAChangedROCmRelease) {
  testing::TempDir folder;
  const auto before = report_of("gpu-mi250x-x4");  // ROCm 6.0.2
  const auto after = report_of("gpu-mi300x-x8");   // ROCm 6.2.4
  ASSERT_EQ(before["versions"]["rocm"], "6.0.2") << before["versions"];
  ASSERT_EQ(after["versions"]["rocm"], "6.2.4") << after["versions"];
  const auto a = save(folder.path() / "a.json", before);
  const auto b = save(folder.path() / "b.json", after);
  const auto text = run_doctor({"diff", a.string(), b.string()});
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_NE(text.out.find("  rocm: 6.0.2 -> 6.2.4\n"), std::string::npos) << text.out;
  const auto json = nlohmann::json::parse(run_doctor({"diff", a.string(), b.string(), "--format", "json"}).out);
  const nlohmann::json rocm = {{"id", "rocm"}, {"before", "6.0.2"}, {"after", "6.2.4"}};
  const auto& changed = json["versions_changed"];
  EXPECT_NE(std::find(changed.begin(), changed.end(), rocm), changed.end()) << changed;
}

TEST(Diff, UnreadableReportIsAUsageError) {
  testing::TempDir folder;
  std::ofstream(folder.path() / "bad.json") << "{";
  const auto result =
      run_doctor({"diff", (folder.path() / "bad.json").string(), (folder.path() / "bad.json").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("not valid JSON"), std::string::npos);
}

TEST(Fleet, CountsFindingsGroupsNodesAndVersionSpread) {
  testing::TempDir folder;
  const auto healthy = report_of("ubuntu2204-rx7900xtx-healthy");
  const auto broken = report_of("access-group-missing");
  for (int i = 0; i < 60; ++i) {
    auto report = i % 3 == 0 ? broken : healthy;
    report["host"]["hostname"] = fmt::format("node{:03}", i);
    if (i % 2 == 0) report["host"]["kernel"] = "6.8.0-31-generic";
    save(folder.path() / "reports" / fmt::format("sub{}", i % 4) / fmt::format("node{:03}.json", i), report);
  }
  std::ofstream(folder.path() / "reports" / "junk.json") << "not json";
  const auto json = run_doctor({"fleet", (folder.path() / "reports").string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto fleet = nlohmann::json::parse(json.out);
  EXPECT_EQ(fleet["nodes"], 60);
  EXPECT_EQ(fleet["unreadable"].size(), 1U);
  bool found = false;
  for (const auto& finding : fleet["findings"]) {
    if (finding["id"] == "access.group-missing") {
      EXPECT_EQ(finding["nodes"], 20);
      found = true;
    }
  }
  EXPECT_TRUE(found) << fleet["findings"];
  EXPECT_EQ(fleet["groups"][0]["nodes"], 40) << "the 40 healthy nodes form the largest group";
  EXPECT_EQ(fleet["versions"]["kernel"]["6.8.0-31-generic"], 30);

  for (const auto* format : {"text", "markdown"}) {
    const auto out = run_doctor({"fleet", (folder.path() / "reports").string(), "--format", format});
    EXPECT_EQ(out.exit_code, 0);
    EXPECT_NE(out.out.find("60 nodes: 20 with errors"), std::string::npos) << out.out;
  }
  const auto cmark = testing::find_tool("cmark");
  if (!cmark.empty()) {
    const auto file = folder.path() / "fleet.md";
    ASSERT_EQ(run_doctor({"fleet", (folder.path() / "reports").string(), "--format", "markdown", "-o", file.string()})
                  .exit_code,
              0);
    EXPECT_EQ(testing::run_tool({cmark, file.string()}).exit_code, 0);
  }
}

TEST(Fleet, ShowsTheSpreadOfROCmReleasesAndDrivers) {
  testing::TempDir folder;
  const auto older = report_of("gpu-mi250x-x4");         // ROCm 6.0.2, amdgpu 6.3.6
  const auto newer = report_of("env-healthy-settings");  // ROCm 6.2.4, amdgpu 6.8.5
  for (int i = 0; i < 5; ++i) {
    auto report = i < 2 ? older : newer;
    report["host"]["hostname"] = fmt::format("node{}", i);
    save(folder.path() / fmt::format("node{}.json", i), report);
  }
  const auto json = run_doctor({"fleet", folder.path().string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto versions = nlohmann::json::parse(json.out)["versions"];
  EXPECT_EQ(versions["rocm"], (nlohmann::json{{"6.0.2", 2}, {"6.2.4", 3}})) << versions;
  EXPECT_EQ(versions["amdgpu"], (nlohmann::json{{"6.3.6", 2}, {"6.8.5", 3}})) << versions;
  EXPECT_EQ(versions["amdgpu_rocm"], (nlohmann::json{{"6.0", 2}, {"6.2", 3}})) << versions;
  const auto text = run_doctor({"fleet", folder.path().string()});
  EXPECT_NE(text.out.find("  rocm           6.0.2 (2), 6.2.4 (3)\n"), std::string::npos) << text.out;
}

// A report whose diagnosis named its root causes (the `root_causes` field).
nlohmann::json with_root_causes(nlohmann::json report, const std::vector<std::string>& ids) {
  report["root_causes"] = ids;
  return report;
}

std::vector<std::string> error_ids(const nlohmann::json& report) {
  std::vector<std::string> ids;
  for (const auto& check : report["checks"])
    for (const auto& finding : check["findings"])
      if (finding["severity"] == "error") ids.push_back(finding["id"]);
  return ids;
}

TEST(Fleet, GroupsNodesByRootCauseAndSaysWhatToDrainFirst) {
  testing::TempDir folder;
  const auto healthy = report_of("ubuntu2204-rx7900xtx-healthy");
  const auto broken = report_of("access-group-missing");
  const auto errors = error_ids(broken);
  ASSERT_GE(errors.size(), 2U) << broken.dump();
  // 6 nodes whose one root cause is errors[0]; 3 where errors[1] joins it and that
  // have one error more (a repeated finding); 11 healthy.
  auto worse = with_root_causes(broken, {errors[1], errors[0]});
  bool repeated = false;
  for (auto& check : worse["checks"]) {
    for (const auto& finding : check["findings"]) {
      if (finding["severity"] != "error" || repeated) continue;
      const auto copy = finding;
      check["findings"].push_back(copy);
      repeated = true;
      break;
    }
  }
  ASSERT_TRUE(repeated);
  for (int i = 0; i < 20; ++i) {
    auto report = i < 6 ? with_root_causes(broken, {errors[0]}) : i < 9 ? worse : healthy;
    report["host"]["hostname"] = fmt::format("{}{:02}", i < 6 ? "a" : i < 9 ? "z" : "h", i);
    save(folder.path() / fmt::format("node{:02}.json", i), report);
  }
  const auto json = run_doctor({"fleet", folder.path().string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto fleet = nlohmann::json::parse(json.out);
  EXPECT_EQ(fleet["schema_version"], 2);
  const auto& causes = fleet["root_causes"];
  ASSERT_EQ(causes.size(), 2U) << causes;
  EXPECT_EQ(causes[0]["id"], errors[0]);
  EXPECT_EQ(causes[0]["nodes"], 9);
  EXPECT_EQ(causes[0]["repairs"], 6) << "fixing it repairs the nodes it alone breaks";
  EXPECT_EQ(causes[1]["id"], errors[1]);
  EXPECT_EQ(causes[1]["nodes"], 3);
  EXPECT_EQ(causes[1]["repairs"], 0);
  EXPECT_EQ(fleet["drain_first"]["nodes"], 9);
  const auto& first = fleet["drain_first"]["hosts"][0];
  EXPECT_EQ(first["host"], "z06") << "nodes with more errors drain first, then by name: " << fleet["drain_first"];
  EXPECT_EQ(first["root_causes"], (nlohmann::json{errors[1], errors[0]}));
  EXPECT_EQ(fleet["drain_first"]["hosts"][3]["host"], "a00");

  const auto text = run_doctor({"fleet", folder.path().string()});
  EXPECT_NE(text.out.find("Drain first (9 nodes with errors):\n  z06 "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(fmt::format("       9      6  error    {}\n", errors[0])), std::string::npos) << text.out;
}

TEST(Fleet, WithoutRootCausesTheWorstFindingsStandForThem) {
  testing::TempDir folder;
  const auto broken = report_of("access-group-missing");
  ASSERT_FALSE(broken.contains("root_causes") && broken["root_causes"].is_array() && broken["root_causes"].empty());
  auto report = broken;
  report.erase("root_causes");
  save(folder.path() / "a.json", report);
  const auto fleet = nlohmann::json::parse(run_doctor({"fleet", folder.path().string(), "--format", "json"}).out);
  std::vector<std::string> ids;
  for (const auto& cause : fleet["root_causes"]) {
    EXPECT_EQ(cause["severity"], "error") << cause;
    ids.push_back(cause["id"]);
  }
  auto expected = error_ids(report);
  std::sort(expected.begin(), expected.end());
  expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, expected) << "the node's error findings, not its warnings";
}

TEST(Fleet, HostListsAreASampleButCountsAreExact) {
  testing::TempDir folder;
  const auto broken = report_of("access-group-missing");
  for (int i = 0; i < 45; ++i) {
    auto report = broken;
    report["host"]["hostname"] = fmt::format("n{:03}", 44 - i);
    save(folder.path() / fmt::format("r{:03}.json", i), report);
  }
  const auto fleet = nlohmann::json::parse(run_doctor({"fleet", folder.path().string(), "--format", "json"}).out);
  const auto& group = fleet["groups"][0];
  EXPECT_EQ(group["nodes"], 45);
  ASSERT_EQ(group["hosts"].size(), 20U);
  EXPECT_EQ(group["hosts"][0], "n000");
  EXPECT_EQ(group["hosts"][19], "n019") << "the first hosts in name order";
  EXPECT_EQ(fleet["findings"][0]["nodes"], 45);
  EXPECT_EQ(fleet["drain_first"]["hosts"].size(), 20U);
  EXPECT_EQ(fleet["drain_first"]["nodes"], 45);
  const auto text = run_doctor({"fleet", folder.path().string()});
  EXPECT_NE(text.out.find("n018, n019 and 25 more"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  and 25 more\n"), std::string::npos) << text.out;
}

TEST(Fleet, GroupsNodesByROCmAndDriverAndGpuModel) {
  testing::TempDir folder;
  const auto older = report_of("gpu-mi250x-x4");         // ROCm 6.0.2, amdgpu 6.3.6, 4 MI250X
  const auto newer = report_of("env-healthy-settings");  // ROCm 6.2.4, amdgpu 6.8.5
  for (int i = 0; i < 5; ++i) {
    auto report = i < 2 ? older : newer;
    report["host"]["hostname"] = fmt::format("node{}", i);
    save(folder.path() / fmt::format("node{}.json", i), report);
  }
  const auto fleet = nlohmann::json::parse(run_doctor({"fleet", folder.path().string(), "--format", "json"}).out);
  const nlohmann::json old_stack = {{"rocm", "6.0.2"}, {"amdgpu", "6.3.6"}, {"nodes", 2}};
  const nlohmann::json new_stack = {{"rocm", "6.2.4"}, {"amdgpu", "6.8.5"}, {"nodes", 3}};
  EXPECT_EQ(fleet["stacks"], (nlohmann::json{old_stack, new_stack})) << fleet["stacks"];
  bool mi250x = false;
  for (const auto& model : fleet["gpu_models"]) {
    if (model["model"].get<std::string>().find("MI250X") == std::string::npos) continue;
    mi250x = true;
    EXPECT_EQ(model["nodes"], 2) << model;
    EXPECT_EQ(model["gpus"].get<int>() % 2, 0) << model;
  }
  EXPECT_TRUE(mi250x) << fleet["gpu_models"];
  const auto text = run_doctor({"fleet", folder.path().string()});
  EXPECT_NE(text.out.find("       2  ROCm 6.0.2, amdgpu 6.3.6\n"), std::string::npos) << text.out;
}

TEST(Fleet, GroupsGpusByPartitionMode) {
  testing::TempDir folder;
  const auto base = report_of("gpu-mi300x-x8");
  for (int i = 0; i < 5; ++i) {
    auto report = base;
    report["host"]["hostname"] = fmt::format("mi300x-{}", i);
    // physical_gpus as docs/report-format.md gives them: two GPUs per node here.
    const char* mode = i < 3 ? "SPX" : "CPX";
    const char* memory = i < 3 ? "NPS1" : "NPS4";
    report["physical_gpus"] = nlohmann::json::array();
    for (int g = 0; g < 2; ++g)
      report["physical_gpus"].push_back(
          {{"name", "AMD Instinct MI300X"}, {"compute_partition", mode}, {"memory_partition", memory}});
    save(folder.path() / fmt::format("n{}.json", i), report);
  }
  const auto fleet = nlohmann::json::parse(run_doctor({"fleet", folder.path().string(), "--format", "json"}).out);
  const nlohmann::json expected = {{{"mode", "AMD Instinct MI300X CPX/NPS4"}, {"gpus", 4}, {"nodes", 2}},
                                   {{"mode", "AMD Instinct MI300X SPX/NPS1"}, {"gpus", 6}, {"nodes", 3}}};
  EXPECT_EQ(fleet["partition_modes"], expected) << fleet["partition_modes"];
  const auto text = run_doctor({"fleet", folder.path().string()}).out;
  EXPECT_NE(text.find("Partition modes (GPUs, nodes):\n       4      2  AMD Instinct MI300X CPX/NPS4\n"),
            std::string::npos)
      << text;
}

TEST(Fleet, MarkdownTablesEscapeThePipe) {
  testing::TempDir folder;
  auto report = report_of("gpu-mi250x-x4");
  report["host"]["hostname"] = "rack|7";
  report["versions"]["rocm"] = "6.0|2";
  save(folder.path() / "a.json", report);
  const auto out = run_doctor({"fleet", folder.path().string(), "--format", "markdown"}).out;
  EXPECT_NE(out.find("rack\\|7"), std::string::npos) << out;
  EXPECT_NE(out.find("| rocm | 6.0\\|2 | 1 |"), std::string::npos) << out;
  // Every row of a table has as many unescaped pipes as its header.
  std::size_t columns = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("|")) {
      columns = 0;
      continue;
    }
    std::size_t pipes = 0;
    for (std::size_t i = 0; i < line.size(); ++i) pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    if (columns == 0) columns = pipes;
    EXPECT_EQ(pipes, columns) << line;
  }
}

TEST(Fleet, NoReadableReportIsAUsageError) {
  testing::TempDir folder;
  EXPECT_EQ(run_doctor({"fleet", folder.path().string()}).exit_code, 2);
}

}  // namespace
}  // namespace rocm_doctor
