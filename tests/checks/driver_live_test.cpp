// The real binary on this GPU-less machine: `--only driver --json` must say
// driver.no-amd-gpu and exit 1.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct Run {
  int exit_code = -1;
  std::string out;
};

Run run_binary(const std::string& arguments) {
  Run run;
  const std::string command = std::string("'") + ROCM_DOCTOR_BINARY + "' " + arguments + " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer{};
  while (const auto count = std::fread(buffer.data(), 1, buffer.size(), pipe)) run.out.append(buffer.data(), count);
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  return run;
}

TEST(DriverLive, ThisMachineHasNoAmdGpu) {
  if (::access("/dev/kfd", F_OK) == 0) GTEST_SKIP() << "this machine has /dev/kfd: not the GPU-less CI machine";
  const auto run = run_binary("--only driver --json");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  const auto report = nlohmann::json::parse(run.out);
  ASSERT_EQ(report.at("checks").size(), 1U);
  const auto& check = report.at("checks")[0];
  EXPECT_EQ(check.at("id"), "driver");
  ASSERT_EQ(check.at("findings").size(), 1U);
  EXPECT_EQ(check.at("findings")[0].at("id"), "driver.no-amd-gpu");
  EXPECT_EQ(check.at("findings")[0].at("severity"), "error");
}

}  // namespace
