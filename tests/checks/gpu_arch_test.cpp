// gpu-arch: fix commands and evidence on the scenario machines (expected ids live in the scenarios).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;

Report run_scenario(const std::string& name, RunOptions options = {}) {
  auto host = SnapshotHost::open(std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/" + name);
  if (!host) throw std::runtime_error(host.error());
  return run_on(**host, {"gpu-arch"}, std::move(options));
}

TEST(GpuArch, OverrideNeededGivesTheValueAndPersistsItInTheUsersProfile) {
  const auto report = run_scenario("gpu-rx6700xt-no-override");
  const auto* finding = find_finding(report, "gpu.override-needed");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->summary.find("gfx1031"), std::string::npos);
  EXPECT_NE(finding->summary.find("ROCm 6.0.2"), std::string::npos);
  ASSERT_GE(finding->fixes.size(), 2u);
  const auto& commands = finding->fixes[0].commands;
  EXPECT_EQ(commands.front(), "export HSA_OVERRIDE_GFX_VERSION=10.3.0");
  EXPECT_EQ(commands.back(), "echo 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' >> /home/alice/.profile");
  EXPECT_FALSE(finding->fixes[0].needs_root);
  EXPECT_NE(finding->fixes[1].commands.front().find("/etc/profile.d/"), std::string::npos);
  bool rocblas_evidence = false;
  for (const auto& evidence : finding->evidence) {
    rocblas_evidence = rocblas_evidence || evidence.value.find("rocBLAS Tensile files") != std::string::npos;
  }
  EXPECT_TRUE(rocblas_evidence);
}

// Without a passwd entry the home folder is unknown: the shell expands $HOME
// (a quoted '~/.profile' would create a file named '~' in the current folder).
// A scenario replayed with an empty passwd file: the user's home folder is unknown.
Report run_without_passwd(const std::string& name) {
  testing::TempDir copy;
  const std::filesystem::path scenario = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/" + name;
  std::filesystem::copy(scenario, copy.path(),
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  std::ofstream(copy.path() / "root/etc/passwd", std::ios::trunc) << "";
  auto host = SnapshotHost::open(copy.path());
  if (!host) throw std::runtime_error(host.error());
  return run_on(**host, {"gpu-arch"});
}

TEST(GpuArch, OverrideFixUsesHomeVariableWhenTheHomeFolderIsUnknown) {
  const auto report = run_without_passwd("gpu-rx6700xt-no-override");
  const auto* finding = find_finding(report, "gpu.override-needed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes[0].commands.back(), "echo 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' >> \"$HOME\"/.profile");
}

// The same for the integrated-GPU fix that persists ROCR_VISIBLE_DEVICES.
TEST(GpuArch, IntegratedGpuFixUsesHomeVariableWhenTheHomeFolderIsUnknown) {
  const auto report = run_without_passwd("gpu-apu-plus-rx7900xtx");
  const auto* finding = find_finding(report, "gpu.igpu-present");
  ASSERT_NE(finding, nullptr);
  ASSERT_FALSE(finding->fixes.empty());
  const auto& last = finding->fixes[0].commands.back();
  EXPECT_TRUE(last.starts_with("echo 'export ROCR_VISIBLE_DEVICES=")) << last;
  EXPECT_TRUE(last.ends_with(" >> \"$HOME\"/.profile")) << last;
}

TEST(GpuArch, InvalidOverrideNamesTheFileAndLine) {
  const auto report = run_scenario("gpu-rx6700xt-override-gfx-name");
  const auto* finding = find_finding(report, "gpu.override-invalid");
  ASSERT_NE(finding, nullptr);
  bool located = false;
  for (const auto& evidence : finding->evidence) located = located || evidence.source == "/etc/profile.d/rocm.sh:2";
  EXPECT_TRUE(located);
  ASSERT_FALSE(finding->fixes.empty());
  const auto& commands = finding->fixes[0].commands;
  EXPECT_NE(std::find(commands.begin(), commands.end(), "sudo sed -i.bak '2s/^/# /' /etc/profile.d/rocm.sh"),
            commands.end());
  EXPECT_TRUE(finding->fixes[0].needs_root);
}

TEST(GpuArch, OfficialListIsTheFallbackEvidence) {
  const auto report = run_scenario("gpu-rx7600-hip-only");
  const auto* finding = find_finding(report, "gpu.override-needed");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->detail.find("official support list"), std::string::npos);
  EXPECT_NE(finding->summary.find("11.0.0"), std::string::npos);
}

TEST(GpuArch, UnsupportedNamesTheLastRelease) {
  const auto report = run_scenario("gpu-rx580-rocm6");
  const auto* finding = find_finding(report, "gpu.unsupported");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->detail.find("5.7"), std::string::npos);
}

TEST(GpuArch, ImageModeWithoutTargetsIsSkipped) {
  RunOptions options;
  options.image_mode = true;
  const auto report = run_scenario("gpu-mi300x-x8", options);
  ASSERT_EQ(report.checks.size(), 1u);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
}

TEST(GpuArch, EmptyOverrideHidesEveryGpu) {
  // An RX 7900 XTX with HSA_OVERRIDE_GFX_VERSION set to the empty string.
  testing::SnapshotBuilder builder;
  builder.env("HSA_OVERRIDE_GFX_VERSION", "");
  builder.file("/sys/class/kfd/kfd/topology/nodes/0/properties",
               "cpu_cores_count 8\nsimd_count 0\ngfx_target_version 0\n");
  builder.file("/sys/class/kfd/kfd/topology/nodes/1/properties",
               "cpu_cores_count 0\nsimd_count 192\nsimd_per_cu 2\ngfx_target_version 110000\nvendor_id 4098\n"
               "device_id 29772\nlocation_id 768\ndomain 0\ndrm_render_minor 128\n");
  builder.file("/sys/module/amdgpu/initstate", "live\n");
  const auto snapshot = builder.open();
  const auto report = run_on(*snapshot, {"gpu-arch"});
  const auto* finding = find_finding(report, "gpu.override-invalid");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->summary.find("empty"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor
