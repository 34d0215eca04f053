// rocm-doctor fix end to end: the dry run on a ticket's snapshot, and every
// refusal with its exit code (nothing is run on this machine here; the
// sandboxed apply test is integration.fix-apply).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "rocm_doctor/text.h"
#include "support/run_binary.h"

namespace rocm_doctor {
namespace {

using testing::run_doctor;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;
const std::string kGroupMissing = kScenarios + "/access-group-missing";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> result;
  for (const auto line : lines(text)) result.emplace_back(line);
  return result;
}

TEST(FixCommand, DryRunPrintsEveryFixCommandExactlyAsTheReportDoes) {
  for (const auto* scenario : {"access-group-missing", "lib-not-found", "driver-blacklisted-modprobe", "env-typos",
                               "gpu-rx6700xt-no-override"}) {
    const auto report = run_doctor({"--replay", kScenarios + "/" + scenario, "--format", "json"});
    ASSERT_TRUE(report.exit_code == 0 || report.exit_code == 1) << scenario << report.err;
    const auto json = nlohmann::json::parse(report.out);
    const auto dry = run_doctor({"fix", "--dry-run", "--replay", kScenarios + "/" + scenario});
    ASSERT_EQ(dry.exit_code, 0) << scenario << dry.err;
    const auto printed = lines_of(dry.out);
    // The findings the plan takes: "N. [severity] ID ..." step lines.
    std::set<std::string> planned;
    const std::regex step(R"(^\d+\. \[[a-z]+\] ([a-z0-9.-]+))");
    for (const auto& line : printed) {
      std::smatch match;
      if (std::regex_search(line, match, step)) planned.insert(match[1]);
    }
    for (const auto& cause : json["root_causes"]) {
      const auto id = cause.get<std::string>();
      bool has_fix = false;
      for (const auto& check : json["checks"]) {
        for (const auto& finding : check["findings"]) has_fix |= finding["id"] == id && !finding["fix"].empty();
      }
      if (has_fix) {
        EXPECT_TRUE(planned.contains(id)) << scenario << ": root cause " << id << " is not in the plan";
      }
    }
    std::size_t commands = 0;
    for (const auto& check : json["checks"]) {
      for (const auto& finding : check["findings"]) {
        if (!planned.contains(finding["id"].get<std::string>())) continue;
        for (const auto& fix : finding["fix"]) {
          for (const auto& command : fix["commands"]) {
            ++commands;
            const auto line = "    " + command.get<std::string>();
            EXPECT_NE(std::find(printed.begin(), printed.end(), line), printed.end())
                << scenario << ": the dry run does not print, byte for byte: " << line;
          }
        }
      }
    }
    EXPECT_GT(commands, 0U) << scenario << " has no fix command to compare";
    EXPECT_NE(dry.out.find("dry run: nothing is run"), std::string::npos);
  }
}

TEST(FixCommand, DryRunPutsTheRootCauseFirstAndSaysWhatEachFixNeeds) {
  const auto dry = run_doctor({"fix", "--dry-run", "--replay", kGroupMissing, "--only", "access"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("1. [error] access."), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("Needs: root, a new login"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("Verify: rocm-doctor --only access"), std::string::npos) << dry.out;
  EXPECT_TRUE(dry.err.empty()) << dry.err;
}

TEST(FixCommand, DryRunWritesThePlanAsFixLogIntoTheJsonReport) {
  char pattern[] = "/tmp/rocm-doctor-fixlog-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const std::string file = std::string(pattern) + "/report.json";
  const auto dry =
      run_doctor({"fix", "--dry-run", "--replay", kGroupMissing, "--only", "access", "-o", "json=" + file});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  std::ifstream stream(file);
  const auto json = nlohmann::json::parse(stream);
  const auto& log = json["fix_log"];
  EXPECT_EQ(log["dry_run"], true);
  ASSERT_FALSE(log["steps"].empty());
  EXPECT_EQ(log["steps"][0]["status"], "planned");
  EXPECT_EQ(log["steps"][0]["check"], "access");
  EXPECT_FALSE(log["steps"][0]["commands"].empty());
  std::filesystem::remove_all(pattern);
}

TEST(FixCommand, ApplyingToASnapshotIsRefusedWithExitThree) {
  const auto result = run_doctor({"fix", "--yes", "--replay", kGroupMissing});
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("this machine only"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());
}

TEST(FixCommand, ApplyingWhileBuildingAnImageIsRefusedWithExitThree) {
  const auto result = run_doctor({"fix", "--yes", "--image"});
  EXPECT_EQ(result.exit_code, 3) << result.err;
}

TEST(FixCommand, OffATerminalWithoutYesNothingRunsAndTheExitIsFive) {
  // run_doctor gives the child /dev/null as stdin: nobody can answer a prompt.
  const auto result = run_doctor({"fix", "--only", "os"});
  EXPECT_EQ(result.exit_code, 5) << result.err;
  EXPECT_NE(result.err.find("--yes"), std::string::npos) << result.err;
}

TEST(FixCommand, AnUnknownIdIsAUsageErrorWithExitTwo) {
  const auto result = run_doctor({"fix", "--dry-run", "--replay", kGroupMissing, "access.group-mising"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("did you mean access.group-missing?"), std::string::npos) << result.err;
}

TEST(FixCommand, AKnownIdThisMachineDoesNotRaiseIsNamedAndFixesNothing) {
  const auto result = run_doctor({"fix", "--dry-run", "--replay", kGroupMissing, "driver.nomodeset"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("Not found on this machine (nothing to fix): driver.nomodeset"), std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace rocm_doctor
