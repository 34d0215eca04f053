// --policy as CI gates meet it: exit codes, input errors, --list-checks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::run_doctor;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;
const std::string kExamples = std::string(ROCM_DOCTOR_SOURCE_DIR) + "/docs/examples";

std::string write_policy(const testing::TempDir& dir, const std::string& name, const std::string& text) {
  const auto path = dir.path() / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(CliPolicy, AFailingRuleFailsTheGateAndShowsInJson) {
  const auto result = run_doctor({"--replay", kScenarios + "/gpu-mi300x-x8", "--only", "os", "--policy",
                                  kExamples + "/mi300x-node.json", "--json"});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  const auto report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["policies"][0]["name"], "mi300x-node");
  const auto& entry = report["checks"].back();
  EXPECT_EQ(entry["id"], "policy");
  EXPECT_EQ(entry["status"], "error");
}

TEST(CliPolicy, APassingPolicyPassesTheImageGate) {
  const auto result = run_doctor({"--replay", kScenarios + "/image-rocm62-ci-gate", "--image", "--target-gfx",
                                  "gfx942,gfx90a", "--only", "os,rocm-install,libraries", "--policy",
                                  kExamples + "/inference-image.json", "--fail-on", "warning"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("Policies: inference-image"), std::string::npos) << result.out;
}

TEST(CliPolicy, MalformedPoliciesAreInputErrorsNamingFileAndPlace) {
  testing::TempDir dir;
  const auto syntax =
      write_policy(dir, "syntax.json", "{\n  \"rocm-doctor-policy\": 1,\n  \"rules\": {\"rocm\" \">=6.2\"}\n}\n");
  auto result = run_doctor({"--replay", kScenarios + "/gpu-mi300x-x8", "--policy", syntax});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.out.empty());
  EXPECT_NE(result.err.find(syntax + ":3:"), std::string::npos) << result.err;
  const auto range = write_policy(dir, "range.json", R"({"rocm-doctor-policy": 1, "rules": {"rocm": ">=6.x"}})");
  result = run_doctor({"--replay", kScenarios + "/gpu-mi300x-x8", "--policy", range});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find(range + ": /rules/rocm: bad version range"), std::string::npos) << result.err;
  const auto newer = write_policy(dir, "newer.json", R"({"rocm-doctor-policy": 2})");
  result = run_doctor({"--replay", kScenarios + "/gpu-mi300x-x8", "--policy", newer});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("policy format 2 is not supported"), std::string::npos) << result.err;
  result = run_doctor({"--replay", kScenarios + "/gpu-mi300x-x8", "--policy", (dir.path() / "absent.json").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("absent.json: no such file"), std::string::npos) << result.err;
  const auto skip =
      write_policy(dir, "skip.json", R"({"rocm-doctor-policy": 1, "skip": [{"check": "acess", "reason": "x"}]})");
  result = run_doctor({"--list-checks", "--policy", skip});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("unknown check 'acess' (did you mean 'access'?)"), std::string::npos) << result.err;
}

TEST(CliPolicy, ListChecksShowsTheActivePolicies) {
  const auto result = run_doctor({"--list-checks", "--policy", kExamples + "/pytorch-training-image.json"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("access "), std::string::npos);
  EXPECT_NE(result.out.find("Active policies (docs/policy-format.md):\npytorch-training-image ("), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("rule torch"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("skip smi: the training image carries no rocm-smi"), std::string::npos) << result.out;
  EXPECT_EQ(run_doctor({"--list-checks"}).out.find("Active policies"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor
