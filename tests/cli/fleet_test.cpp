// `diff` between two reports and `fleet` over many.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

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

TEST(Fleet, NoReadableReportIsAUsageError) {
  testing::TempDir folder;
  EXPECT_EQ(run_doctor({"fleet", folder.path().string()}).exit_code, 2);
}

}  // namespace
}  // namespace rocm_doctor
