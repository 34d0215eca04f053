// The real binary on a recorded GPU-less machine (a Debian 12 cloud VM with no AMD
// GPU on its PCI bus): `--only driver --json` says driver.no-amd-gpu and exits 1.
// A replay, so the test judges the snapshot and never the machine it runs on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/run_binary.h"

namespace rocm_doctor::testing {
namespace {

TEST(DriverBinary, AGpuLessMachineGetsNoAmdGpuAndExitCodeOne) {
  const std::string snapshot = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/hip-no-device-cloud-vm";
  const auto run = run_doctor({"--replay", snapshot, "--only", "driver", "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report.at("source"), "snapshot");
  ASSERT_EQ(report.at("checks").size(), 1U);
  const auto& check = report.at("checks")[0];
  EXPECT_EQ(check.at("id"), "driver");
  ASSERT_EQ(check.at("findings").size(), 1U) << check.dump(2);
  EXPECT_EQ(check.at("findings")[0].at("id"), "driver.no-amd-gpu");
  EXPECT_EQ(check.at("findings")[0].at("severity"), "error");
}

}  // namespace
}  // namespace rocm_doctor::testing
