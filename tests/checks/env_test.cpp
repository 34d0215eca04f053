// The `env` check as a whole, on small snapshots: each finding group judged
// from the environment, its fixes, and the quiet result when all is right.
// (The pure parsers have their tables in env_parsers_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

Report run_env(const std::vector<std::pair<std::string, std::string>>& variables) {
  SnapshotBuilder b;
  b.env("PATH", "/usr/bin:/bin");
  for (const auto& [name, value] : variables) b.env(name, value);
  return run_on(*b.open(), {"env"});
}

std::vector<std::string> ids_at_least_warning(const Report& report) {
  std::vector<std::string> ids;
  for (const auto& finding : all_findings(report)) {
    if (finding.severity >= Severity::warning) ids.push_back(finding.id);
  }
  return ids;
}

TEST(EnvCheck, NothingSetIsOkAndSaysTheDefaultsApply) {
  const auto report = run_env({});
  const auto* ok = find_finding(report, "env.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->summary, "No ROCm variables are set (the defaults apply)");
  EXPECT_TRUE(ids_at_least_warning(report).empty());
}

TEST(EnvCheck, HarmlessSettingsAreListedInTheOkFinding) {
  const auto report = run_env({{"AMD_LOG_LEVEL", "1"}, {"HSA_ENABLE_SDMA", "0"}});
  EXPECT_TRUE(ids_at_least_warning(report).empty());
  const auto* ok = find_finding(report, "env.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->summary, "ROCm variables look right: AMD_LOG_LEVEL, HSA_ENABLE_SDMA");
}

TEST(EnvCheck, LaunchBlockingIsAWarningWithAnUnsetFix) {
  const auto report = run_env({{"HIP_LAUNCH_BLOCKING", "1"}});
  const auto* finding = find_finding(report, "env.launch-blocking");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  ASSERT_EQ(finding->fixes.size(), 1U);
  EXPECT_EQ(finding->fixes[0].commands.at(0), "unset HIP_LAUNCH_BLOCKING");
  EXPECT_EQ(finding->fixes[0].verify, "rocm-doctor --only env");
}

TEST(EnvCheck, SwitchedOffDebugSwitchesSayNothing) {
  EXPECT_TRUE(ids_at_least_warning(run_env({{"HIP_LAUNCH_BLOCKING", "0"}, {"AMD_SERIALIZE_KERNEL", "0"}})).empty());
}

TEST(EnvCheck, SerializationIsEnvSerialize) {
  const auto report = run_env({{"AMD_SERIALIZE_COPY", "3"}});
  const auto* finding = find_finding(report, "env.serialize");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->summary, "AMD_SERIALIZE_COPY=3 serializes memory copies");
  EXPECT_EQ(find_finding(report, "env.debug-logging"), nullptr);
}

// AMD_LOG_LEVEL was reported as env.serialize until issue 23; logging has its own id now.
TEST(EnvCheck, VerboseRuntimeLoggingIsEnvDebugLoggingNotSerialize) {
  const auto report = run_env({{"AMD_LOG_LEVEL", "4"}});
  const auto* finding = find_finding(report, "env.debug-logging");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "unset AMD_LOG_LEVEL");
  EXPECT_EQ(find_finding(report, "env.serialize"), nullptr);
}

TEST(EnvCheck, QuietLogLevelsAreNotDebugLogging) {
  for (const char* level : {"0", "1", "2"}) {
    const auto report = run_env({{"AMD_LOG_LEVEL", level}});
    EXPECT_EQ(find_finding(report, "env.debug-logging"), nullptr) << level;
  }
}

TEST(EnvCheck, ABadAllocatorConfigIsAnError) {
  const auto report = run_env({{"PYTORCH_HIP_ALLOC_CONF", "expandable_segments:maybe"}});
  const auto* finding = find_finding(report, "env.alloc-conf-invalid");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
}

TEST(EnvCheck, AMisspelledNameGetsARenameFix) {
  const auto report = run_env({{"HSA_OVERIDE_GFX_VERSION", "11.0.0"}});
  const auto* finding = find_finding(report, "env.unknown-variable");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->summary.find("did you mean HSA_OVERRIDE_GFX_VERSION?"), std::string::npos) << finding->summary;
  const auto& commands = finding->fixes.at(0).commands;
  EXPECT_NE(std::find(commands.begin(), commands.end(), "export HSA_OVERRIDE_GFX_VERSION=11.0.0"), commands.end());
}

TEST(EnvCheck, RocmPathToNothingIsAnErrorAndUnsetWithoutAnInstall) {
  const auto report = run_env({{"ROCM_PATH", "/opt/rocm-9.9"}});
  const auto* finding = find_finding(report, "env.path-invalid");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->summary, "ROCM_PATH=/opt/rocm-9.9 does not exist");
  EXPECT_EQ(finding->fixes.at(0).commands, std::vector<std::string>{"unset ROCM_PATH"});
}

TEST(EnvCheck, ARelativeRocmPathIsNotAnAbsolutePath) {
  const auto report = run_env({{"HIP_PATH", "rocm"}});
  const auto* finding = find_finding(report, "env.path-invalid");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->summary, "HIP_PATH=rocm is not an absolute path");
}

TEST(EnvCheck, UnrelatedVariablesAreNeverRead) {
  // A value that would be an error if the check judged it: env only reads ROCm-looking names.
  const auto report = run_env({{"MY_APP_ALLOC_CONF", "garbage"}, {"EDITOR", "vi"}});
  EXPECT_TRUE(ids_at_least_warning(report).empty());
}

}  // namespace
}  // namespace rocm_doctor::testing
