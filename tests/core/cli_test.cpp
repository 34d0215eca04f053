// The command line as users and CI gates meet it: exit codes, clean stdout, files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::run_doctor;

const std::string kWslScenario = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/os-wsl2-ubuntu2204";

std::string read_all(const fs::path& path) {
  std::ifstream stream(path);
  return {std::istreambuf_iterator<char>(stream), {}};
}

TEST(Cli, VersionNamesTheReleaseAndBuild) {
  const auto result = run_doctor({"--version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("rocm-doctor 0."), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("build"), std::string::npos);
}

TEST(Cli, UnknownOptionIsAUsageError) {
  const auto result = run_doctor({"--frobnicate"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.out.empty());
}

TEST(Cli, UnknownCheckIsAUsageErrorWithASuggestion) {
  const auto result = run_doctor({"--replay", kWslScenario, "--only", "acess"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("unknown check 'acess'"), std::string::npos) << result.err;
}

TEST(Cli, MissingSnapshotManifestIsAUsageErrorNamingTheFile) {
  testing::TempDir empty;
  const auto result = run_doctor({"--replay", empty.path().string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("snapshot.json"), std::string::npos) << result.err;
}

TEST(Cli, TruncatedSnapshotManifestIsAUsageError) {
  testing::TempDir folder;
  std::ofstream(folder.path() / "snapshot.json") << R"({"format": "rocm-doctor-snapshot", "vers)";
  const auto result = run_doctor({"--replay", folder.path().string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("not valid JSON"), std::string::npos) << result.err;
}

TEST(Cli, JsonReportOnStdoutIsTheWholeOutput) {
  const auto result = run_doctor({"--replay", kWslScenario, "--only", "os", "--json", "-v"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto report = nlohmann::json::parse(result.out);  // throws (fails) on any stray byte
  EXPECT_EQ(report["schema"], "rocm-doctor/report");
  EXPECT_EQ(report["schema_version"], 1);
  EXPECT_EQ(report["source"], "snapshot");
  EXPECT_EQ(report["host"]["wsl"], true);
  EXPECT_EQ(report["checks"][0]["id"], "os");
  EXPECT_FALSE(result.err.empty()) << "-v logs to stderr";
}

TEST(Cli, TextReportWithoutATerminalHasNoColourCodes) {
  const auto result = run_doctor({"--replay", kWslScenario, "--only", "os", "-v"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("Operating system"), std::string::npos);
  EXPECT_EQ(result.out.find('\x1b'), std::string::npos);
}

TEST(Cli, OutputFileReplacesAtomicallyAndStdoutStaysEmpty) {
  testing::TempDir folder;
  const auto target = folder.path() / "report.json";
  std::ofstream(target) << "old";
  const auto result = run_doctor({"--replay", kWslScenario, "--only", "os", "--format", "json", "-o", target.string()});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(result.out.empty());
  EXPECT_EQ(nlohmann::json::parse(read_all(target))["schema"], "rocm-doctor/report");
  for (const auto& entry : fs::directory_iterator(folder.path())) {
    EXPECT_EQ(entry.path().filename(), "report.json") << "temporary file left behind";
  }
}

TEST(Cli, UnwritableOutputFailsWithoutTouchingStdout) {
  const auto result = run_doctor({"--replay", kWslScenario, "--only", "os", "-o", "/nonexistent-dir/report.txt"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_TRUE(result.out.empty());
  EXPECT_NE(result.err.find("/nonexistent-dir/report.txt"), std::string::npos) << result.err;
}

TEST(Cli, ExplainPrintsTheDocumentedSection) {
  const auto known = run_doctor({"explain", "os.wsl"});
  EXPECT_EQ(known.exit_code, 0);
  EXPECT_NE(known.out.find("Severity: info"), std::string::npos);
  const auto unknown = run_doctor({"explain", "os.wls"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("did you mean 'os.wsl'"), std::string::npos) << unknown.err;
}

TEST(Cli, ListChecksNamesEveryCheck) {
  const auto result = run_doctor({"--list-checks"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("os "), std::string::npos);
}

// Issue 26: a report a person reads in ten seconds: the checks with nothing to say fold into one line.
TEST(Cli, TextReportFoldsPassedAndNotApplicableChecksIntoOneLine) {
  const auto quiet = run_doctor({"--replay", kWslScenario, "--only", "os,access"});
  EXPECT_EQ(quiet.out.find("Operating system"), std::string::npos) << quiet.out;
  EXPECT_NE(quiet.out.find("1 check passed, 1 does not apply here; -v lists them."), std::string::npos) << quiet.out;
  EXPECT_NE(quiet.out.find("Summary: No problems found"), std::string::npos) << quiet.out;
  const auto verbose = run_doctor({"--replay", kWslScenario, "--only", "os,access", "-v"});
  EXPECT_NE(verbose.out.find("Operating system"), std::string::npos);
  EXPECT_NE(verbose.out.find("(skipped: "), std::string::npos) << verbose.out;
}

// Issue 26: explain and --list-checks say how much each finding stops ROCm.
TEST(Cli, ExplainAndListChecksShowTheImpact) {
  const auto explained = run_doctor({"explain", "access.kfd-denied"});
  EXPECT_EQ(explained.exit_code, 0);
  EXPECT_NE(explained.out.find("Impact: `blocks`"), std::string::npos) << explained.out;
  const auto listed = run_doctor({"--list-checks"});
  EXPECT_NE(listed.out.find("access.kfd-denied"), std::string::npos);
  const std::regex row(R"(\n  access\.kfd-denied +blocks\n)");
  EXPECT_TRUE(std::regex_search(listed.out, row)) << listed.out.substr(0, 2000);
  const std::regex per_severity(R"(\n  driver\.dkms-not-built +blocks \(error\), degrades \(warning\)\n)");
  EXPECT_TRUE(std::regex_search(listed.out, per_severity));
}

TEST(Cli, CaptureRefusesANonEmptyFolder) {
  testing::TempDir folder;
  std::ofstream(folder.path() / "keep.txt") << "precious";
  const auto result = run_doctor({"capture", folder.path().string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(read_all(folder.path() / "keep.txt"), "precious");
}

}  // namespace
}  // namespace rocm_doctor
