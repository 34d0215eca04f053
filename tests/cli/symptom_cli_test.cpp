// `why TEXT`, --symptom, --log and `run -- CMD` as users meet them (issue 17):
// the report's symptom section, the user's command isolated and bounded, and
// bad input as a usage error. Replays keep every case off the live machine.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "probe/child_process.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::run_doctor;

const std::string kNoOverride = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/gpu-rx6700xt-no-override";

fs::path script(const testing::TempDir& folder, const std::string& name, const std::string& body) {
  const auto path = folder.path() / name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

nlohmann::json symptom_of(const testing::CommandResult& result) {
  return nlohmann::json::parse(result.out).at("symptom");
}

TEST(SymptomCli, WhyNamesTheCauseTheMachineShowsFirst) {
  const auto result = run_doctor(
      {"why", "RuntimeError: HIP error: hipErrorNoBinaryForGpu", "--replay", kNoOverride, "--format", "json"});
  ASSERT_EQ(result.exit_code, 1) << result.err;  // the exit code still follows the findings
  const auto symptom = symptom_of(result);
  EXPECT_EQ(symptom["text_source"], "argument");
  ASSERT_EQ(symptom["matches"].size(), 1U);
  EXPECT_EQ(symptom["matches"][0]["signature"], "hip-no-binary-for-gpu");
  EXPECT_EQ(symptom["matches"][0]["line"], 1);
  ASSERT_FALSE(symptom["causes"].empty());
  EXPECT_EQ(symptom["causes"][0]["finding"], "gpu.override-needed");
}

TEST(SymptomCli, WhyDashReadsTheErrorFromStdin) {
  probe::ChildOptions options;
  options.input = "Loading...\nRuntimeError: HIP error: hipErrorNoBinaryForGpu\n";
  const auto result =
      probe::run_child({ROCM_DOCTOR_BINARY, "why", "-", "--replay", kNoOverride, "--format", "json"}, options);
  ASSERT_TRUE(result.started) << result.exec_error;
  const auto symptom = nlohmann::json::parse(result.out).at("symptom");
  EXPECT_EQ(symptom["text_source"], "stdin");
  ASSERT_FALSE(symptom["matches"].empty());
  EXPECT_EQ(symptom["matches"][0]["line"], 2);
}

TEST(SymptomCli, TheTextReportOpensWithTheUsersError) {
  const auto result = run_doctor({"--symptom", "hipErrorNoBinaryForGpu", "--replay", kNoOverride, "--no-color"});
  const auto error_block = result.out.find("Your error (argument):");
  ASSERT_NE(error_block, std::string::npos) << result.out;
  EXPECT_LT(error_block, result.out.find("Root cause"));
}

TEST(SymptomCli, TheNextStepCommandIsPrintedWholeToBePasted) {
  const std::string healthy = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/hip-healthy-rx7900xtx";
  const auto json = run_doctor({"--symptom", "hipErrorNoBinaryForGpu", "--replay", healthy, "--format", "json"});
  const auto command = nlohmann::json::parse(json.out).at("symptom").at("next_step").at("command").get<std::string>();
  ASSERT_GT(command.size(), 80U) << "a command longer than a line, which wrapping would break";
  const auto text = run_doctor({"--symptom", "hipErrorNoBinaryForGpu", "--replay", healthy, "--no-color"});
  EXPECT_NE(text.out.find("\n      $ " + command + "\n"), std::string::npos) << text.out;
}

TEST(SymptomCli, ALogMatchesAcrossLinesAndNamesTheLine) {
  testing::TempDir folder;
  const auto log = folder.path() / "train.log";
  std::ofstream(log) << "epoch 1\nNCCL version 2.19.3+cuda12.3\n"
                     << "Memory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f00.\n"
                     << "Reason: Page not present or supervisor privilege.\n";
  const auto result = run_doctor({"--log", log.string(), "--replay", kNoOverride, "--json"});
  const auto symptom = symptom_of(result);
  ASSERT_EQ(symptom["matches"].size(), 1U) << symptom.dump(1);
  EXPECT_EQ(symptom["matches"][0]["signature"], "memory-access-fault-page-not-present");
  EXPECT_EQ(symptom["matches"][0]["line"], 3);
}

TEST(SymptomCli, RedactKeepsOnlyTheLogsFileName) {
  testing::TempDir folder;
  const auto log = folder.path() / "train.log";
  std::ofstream(log) << "hipErrorNoBinaryForGpu\n";
  const auto result = run_doctor({"--log", log.string(), "--redact", "--replay", kNoOverride, "--json"});
  EXPECT_EQ(symptom_of(result)["text_source"], "log train.log");
}

TEST(SymptomCli, BadSymptomInputIsAUsageError) {
  testing::TempDir folder;
  const auto missing = run_doctor({"--log", (folder.path() / "none.log").string(), "--replay", kNoOverride});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read log"), std::string::npos) << missing.err;
  EXPECT_TRUE(missing.out.empty());
  const auto folder_log = run_doctor({"--log", folder.path().string(), "--replay", kNoOverride});
  EXPECT_EQ(folder_log.exit_code, 2);
  const auto empty = run_doctor({"why", "  ", "--replay", kNoOverride});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("empty"), std::string::npos) << empty.err;
}

TEST(SymptomCli, RunDiagnosesWhatTheCommandPrintedAndItsExitStatus) {
  testing::TempDir folder;
  const auto failing = script(folder, "train.sh",
                              "echo loading\n"
                              "echo 'hipErrorNoBinaryForGpu: Unable to find code object for all current devices!' >&2\n"
                              "exit 1\n");
  const auto result = run_doctor({"run", "--replay", kNoOverride, "--json", "--", failing.string(), "--epochs", "3"});
  const auto symptom = symptom_of(result);
  EXPECT_EQ(symptom["command"]["exit_code"], 1);
  EXPECT_EQ(symptom["command"]["timed_out"], false);
  EXPECT_EQ(symptom["command"]["argv"].back(), "3");
  ASSERT_FALSE(symptom["matches"].empty());
  EXPECT_EQ(symptom["matches"][0]["signature"], "hip-no-binary-for-gpu");
  EXPECT_EQ(symptom["causes"][0]["finding"], "gpu.override-needed");
}

TEST(SymptomCli, RunKillsAHangingCommandAtTheProbeTimeout) {
  testing::TempDir folder;
  // The child of the script keeps running unless the whole group is killed.
  const auto hanging = script(folder, "hang.sh", "echo 'HSA_STATUS_ERROR_OUT_OF_RESOURCES' >&2\nsleep 300 &\nwait\n");
  const auto result =
      run_doctor({"run", "--replay", kNoOverride, "--json", "--probe-timeout", "0.5", "--", hanging.string()});
  const auto symptom = symptom_of(result);
  EXPECT_EQ(symptom["command"]["timed_out"], true);
  EXPECT_TRUE(symptom["command"]["exit_code"].is_null());
}

TEST(SymptomCli, RunKeepsABoundedTailOfAFloodedStderr) {
  testing::TempDir folder;
  const auto flooding = script(folder, "flood.sh",
                               "head -c 8000000 /dev/zero | tr '\\000' 'x' >&2\n"
                               "echo >&2\n"
                               "echo 'RuntimeError: HIP error: hipErrorNoBinaryForGpu' >&2\nexit 1\n");
  const auto result = run_doctor({"run", "--replay", kNoOverride, "--json", "--", flooding.string()});
  const auto symptom = symptom_of(result);
  EXPECT_EQ(symptom["command"]["output_truncated"], true);
  EXPECT_GT(symptom["command"]["stderr_bytes"].get<long long>(), 8000000);
  ASSERT_FALSE(symptom["matches"].empty());
  EXPECT_EQ(symptom["matches"][0]["signature"], "hip-no-binary-for-gpu");
}

TEST(SymptomCli, RunWithAnUnknownCommandIsAUsageError) {
  const auto result = run_doctor({"run", "--replay", kNoOverride, "--", "no-such-command-rocm-doctor"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("command not found"), std::string::npos) << result.err;
}

TEST(SymptomCli, ExplainKnowsSignaturesByNameIdAndLiteralMessage) {
  for (const auto* asked :
       {"hipErrorNoBinaryForGpu", "hip-no-binary-for-gpu", "RuntimeError: HIP error: hipErrorNoBinaryForGpu"}) {
    const auto result = run_doctor({"explain", asked});
    EXPECT_EQ(result.exit_code, 0) << asked << ": " << result.err;
    EXPECT_NE(result.out.find("## hip-no-binary-for-gpu"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("Usual causes"), std::string::npos);
    EXPECT_NE(result.out.find("AMD_LOG_LEVEL=3"), std::string::npos);
  }
  const auto unknown = run_doctor({"explain", "hip-no-binary-for-gpx"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("did you mean 'hip-no-binary-for-gpu'"), std::string::npos) << unknown.err;
}

TEST(SymptomCli, ListChecksListsTheErrorSignatures) {
  const auto result = run_doctor({"--list-checks"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("Error signatures"), std::string::npos);
  EXPECT_NE(result.out.find("hip-no-binary-for-gpu"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor
