// The `wsl` check: WSL1 vs WSL2 kernels, the support list, and runs on WSL snapshots
// (healthy with librocdxg, no /dev/dxg, runtime missing, unsupported card).
#include "../../checks/wsl.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

TEST(WslParsers, Wsl1Kernel) {
  struct Case {
    const char* release;
    bool wsl1;
  } cases[] = {
      {"4.4.0-19041-Microsoft", true},
      {"4.4.0-22621-Microsoft", true},
      {"5.15.153.1-microsoft-standard-WSL2", false},
      {"6.6.87.2-microsoft-standard-WSL2", false},
      {"4.19.128-microsoft-standard", false},
      {"6.5.0-41-generic", false},
  };
  for (const auto& c : cases) EXPECT_EQ(wsl::is_wsl1_kernel(c.release), c.wsl1) << c.release;
}

TEST(WslParsers, SupportList) {
  const std::vector<wsl::SupportRow> rows = {{"gfx1100", {"Radeon RX 7900 XTX"}}, {"gfx1201", {"Radeon RX 9070 XT"}}};
  EXPECT_EQ(wsl::supported_entry(rows, "gfx1100"), "gfx1100");
  EXPECT_EQ(wsl::supported_entry(rows, "gfx1030"), std::nullopt);
  EXPECT_EQ(wsl::supported_entry(rows, ""), std::nullopt);
}

SnapshotBuilder wsl2() {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("5.15.153.1-microsoft-standard-WSL2");
  b.env("WSL_DISTRO_NAME", "Ubuntu-22.04");
  b.env("HOME", "/home/alice");
  b.node("/dev/dxg", testing::Node::chr("0666", 0, 0));
  b.file("/usr/lib/wsl/lib/libdxcore.so", "");
  return b;
}

TEST(WslCheck, SkippedOutsideWsl) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-41-generic");
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  ASSERT_EQ(report.checks.size(), 1U);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
}

TEST(WslCheck, HealthyWithLibrocdxg) {
  auto b = wsl2();
  b.file("/opt/rocm-7.2.0/.info/version", "7.2.0-43\n");
  b.symlink("/opt/rocm", "rocm-7.2.0");
  b.file("/opt/rocm-7.2.0/lib/librocdxg.so", "");
  b.env("HSA_ENABLE_DXG_DETECTION", "1");
  b.probe("hip",
          {{"status", "ok"}, {"devices", {{{"index", 0}, {"name", "AMD Radeon RX 7900 XTX"}, {"gfx", "gfx1100"}}}}});
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  EXPECT_NE(find_finding(report, "wsl.ok"), nullptr);
  ASSERT_NE(find_finding(report, "wsl.driver"), nullptr);
  EXPECT_EQ(find_finding(report, "wsl.driver")->severity, Severity::info);
  EXPECT_EQ(find_finding(report, "wsl.runtime-missing"), nullptr);
}

TEST(WslCheck, Wsl1HasNoDxg) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "20.04", "Ubuntu 20.04.6 LTS").kernel("4.4.0-19041-Microsoft");
  b.env("WSL_DISTRO_NAME", "Ubuntu-20.04");
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.no-dxg");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "wsl --set-version Ubuntu-20.04 2");
}

// The fix for librocdxg installed without its variable, with HOME set to `home`.
std::string enable_variable_command(const std::string& home) {
  auto b = wsl2();
  b.env("HOME", home);
  b.file("/opt/rocm-7.2.0/.info/version", "7.2.0-43\n");
  b.symlink("/opt/rocm", "rocm-7.2.0");
  b.file("/opt/rocm-7.2.0/lib/librocdxg.so", "");
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.runtime-missing");
  if (finding == nullptr || finding->fixes.empty() || finding->fixes[0].commands.empty()) return "(no fix)";
  return finding->fixes[0].commands[0];
}

TEST(WslCheck, RuntimeMissingAndEnableVariable) {
  auto b = wsl2();
  b.file("/opt/rocm-6.1.3/.info/version", "6.1.3-122\n");
  b.symlink("/opt/rocm", "rocm-6.1.3");
  auto host = b.open();
  auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.runtime-missing");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms");

  EXPECT_EQ(enable_variable_command("/home/alice"), "echo 'export HSA_ENABLE_DXG_DETECTION=1' >> /home/alice/.bashrc");
  // Without HOME the shell that runs the fix expands it: a quoted '~' would not be.
  EXPECT_EQ(enable_variable_command(""), "echo 'export HSA_ENABLE_DXG_DETECTION=1' >> \"$HOME\"/.bashrc");
}

TEST(WslCheck, UnsupportedGpuFromTheProbe) {
  auto b = wsl2();
  b.file("/var/lib/dpkg/status",
         "Package: hsa-runtime-rocr4wsl-amdgpu\nStatus: install ok installed\n"
         "Version: 1.13.0.60103-122~22.04\n\n");
  b.probe("hip",
          {{"status", "ok"}, {"devices", {{{"index", 0}, {"name", "AMD Radeon RX 6800 XT"}, {"gfx", "gfx1030"}}}}});
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.unsupported-gpu");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_EQ(find_finding(report, "wsl.runtime-missing"), nullptr);
}

TEST(WslCheck, DriverAndAccessStayQuietUnderWsl) {
  auto b = wsl2();
  auto host = b.open();
  const auto report = run_on(*host, {"driver", "access", "topology", "container"});
  for (const auto& check : report.checks) EXPECT_EQ(check.status, CheckStatus::skipped) << check.id;
}

}  // namespace
}  // namespace rocm_doctor
