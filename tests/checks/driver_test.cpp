// The driver check: cmdline and sysfs parsers, and the check on small snapshots.
#include "../../checks/driver.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::Node;
using testing::run_on;
using testing::SnapshotBuilder;

struct CmdlineCase {
  std::string text;
  bool disables;
  bool blacklisted;
};

TEST(DriverCmdline, ParsesModesetWords) {
  const std::vector<CmdlineCase> cases = {
      {"BOOT_IMAGE=/boot/vmlinuz-6.8.0-48-generic root=UUID=3f1b ro quiet splash vt.handoff=7\n", false, false},
      {"BOOT_IMAGE=/boot/vmlinuz-6.8.0-48-generic ro quiet splash nomodeset vt.handoff=7", true, false},
      {"ro amdgpu.modeset=0", true, false},
      {"ro amdgpu.modeset=1", false, false},
      {"ro nomodeset amdgpu.modeset=1", false, false},         // amdgpu.modeset=1 overrides nomodeset
      {"ro amdgpu.modeset=0 amdgpu.modeset=1", false, false},  // the last one wins
      {"ro amdgpu.dc=0 amdgpu.ppfeaturemask=0xffffffff", false, false},
      {"ro modprobe.blacklist=nouveau,amdgpu", false, true},
      {"ro module_blacklist=amdgpu", false, true},
      {"ro modprobe.blacklist=radeon", false, false},
      {"ro xnomodeset nomodeset2", false, false},
      {"ro dyndbg=\"file amdgpu nomodeset\" quiet", false, false},  // inside a quoted value
      {"ro -- nomodeset", false, false},                            // after "--" belongs to init
      {"", false, false},
  };
  for (const auto& c : cases) {
    const auto parsed = driver::parse_kernel_cmdline(c.text);
    EXPECT_EQ(parsed.disables_modeset(), c.disables) << c.text;
    EXPECT_EQ(parsed.amdgpu_blacklisted, c.blacklisted) << c.text;
  }
}

TEST(DriverSysfs, ParsesHexValues) {
  const std::vector<std::pair<std::string, std::optional<std::uint32_t>>> cases = {
      {"0x030000\n", 0x030000}, {"0x1002", 0x1002},   {"0x744c\n", 0x744c}, {"1002", 0x1002},
      {"", std::nullopt},       {"0x", std::nullopt}, {"zz", std::nullopt}, {"0x123456789", std::nullopt},
  };
  for (const auto& [text, expected] : cases) EXPECT_EQ(driver::parse_sysfs_hex(text), expected) << text;
}

TEST(DriverSysfs, KnowsGpuClassesAndVendors) {
  const auto& knowledge = driver::pci_knowledge();
  EXPECT_TRUE(knowledge.is_amd_gpu(0x1002, 0x030000));   // VGA
  EXPECT_TRUE(knowledge.is_amd_gpu(0x1002, 0x038000));   // display controller (Instinct MI210)
  EXPECT_TRUE(knowledge.is_amd_gpu(0x1002, 0x120000));   // processing accelerator (MI300X)
  EXPECT_FALSE(knowledge.is_amd_gpu(0x1002, 0x040300));  // the card's HDMI audio
  EXPECT_FALSE(knowledge.is_amd_gpu(0x1022, 0x030000));  // AMD's CPU vendor id is not a GPU
  EXPECT_FALSE(knowledge.is_amd_gpu(0x10de, 0x030000));
  EXPECT_EQ(knowledge.vendor_name(0x10de), "NVIDIA");
  EXPECT_EQ(knowledge.vendor_name(0x8086), "Intel");
  EXPECT_EQ(knowledge.vendor_name(0xabcd), "vendor 0xabcd");
}

SnapshotBuilder amd_machine() {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.file("/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.8.0-48-generic ro quiet splash\n");
  builder.pci_device("0000:03:00.0", "0x1002", "0x744c", "0x030000", "amdgpu");
  return builder;
}

Report run_driver(SnapshotBuilder& builder, RunOptions options = {}) {
  auto host = builder.open();
  return run_on(*host, {"driver"}, std::move(options));
}

TEST(DriverCheck, HealthyInTreeDriverNamesTheKernel) {
  auto builder = amd_machine();
  builder.file("/sys/module/amdgpu/initstate", "live\n").node("/dev/kfd", Node{"char", "0660", 0, 110, false, ""});
  const auto report = run_driver(builder);
  const auto* ok = find_finding(report, "driver.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_NE(ok->summary.find("in-tree driver of kernel 6.8.0-48-generic"), std::string::npos) << ok->summary;
}

TEST(DriverCheck, DkmsVersionIsNamed) {
  auto builder = amd_machine();
  builder.file("/sys/module/amdgpu/version", "6.8.5\n").node("/dev/kfd", Node{"char", "0660", 0, 110, false, ""});
  const auto report = run_driver(builder);
  const auto* ok = find_finding(report, "driver.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_NE(ok->summary.find("6.8.5"), std::string::npos) << ok->summary;
}

TEST(DriverCheck, NoAmdGpuNamesTheOthers) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.pci_device("0000:00:02.0", "0x8086", "0xa780", "0x030000", "i915");
  builder.pci_device("0000:01:00.0", "0x10de", "0x2684", "0x030000", "nvidia");
  builder.pci_device("0000:01:00.1", "0x10de", "0x22ba", "0x040300", "snd_hda_intel");
  const auto report = run_driver(builder);
  const auto* finding = find_finding(report, "driver.no-amd-gpu");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_NE(finding->summary.find("NVIDIA [10de:2684] at 0000:01:00.0"), std::string::npos) << finding->summary;
  EXPECT_NE(finding->summary.find("Intel [8086:a780] at 0000:00:02.0"), std::string::npos) << finding->summary;
  EXPECT_EQ(finding->summary.find("22ba"), std::string::npos) << "audio functions are no GPUs";
}

TEST(DriverCheck, NomodesetIsTheCauseNotAMissingModule) {
  auto builder = amd_machine();
  builder.file("/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.8.0-48-generic ro quiet splash nomodeset\n");
  const auto report = run_driver(builder);
  const auto* finding = find_finding(report, "driver.nomodeset");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(find_finding(report, "driver.amdgpu-not-loaded"), nullptr);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_TRUE(finding->fixes[0].needs_reboot);
  EXPECT_EQ(finding->fixes[0].commands[1], "sudo update-grub");
}

TEST(DriverCheck, NomodesetOnFedoraUsesGrubby) {
  auto builder = amd_machine();
  builder.os_release("fedora", "40", "Fedora Linux 40 (Workstation Edition)");
  builder.file("/proc/cmdline",
               "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.10.6-200.fc40.x86_64 ro rhgb quiet amdgpu.modeset=0\n");
  const auto report = run_driver(builder);
  const auto* finding = find_finding(report, "driver.nomodeset");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes[0].commands[0], "sudo grubby --update-kernel=ALL --remove-args=amdgpu.modeset=0");
}

TEST(DriverCheck, NomodesetIgnoredWhenTheDriverWorksAnyway) {
  auto builder = amd_machine();
  builder.file("/proc/cmdline", "ro nomodeset amdgpu.modeset=1\n").file("/sys/module/amdgpu/initstate", "live\n");
  builder.node("/dev/kfd", Node{"char", "0660", 0, 110, false, ""});
  const auto report = run_driver(builder);
  EXPECT_NE(find_finding(report, "driver.ok"), nullptr);
  EXPECT_EQ(find_finding(report, "driver.nomodeset"), nullptr);
}

TEST(DriverCheck, NotLoadedNeverAdvisesPurging) {
  auto builder = amd_machine();
  builder.file("/lib/modules/6.8.0-48-generic/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.zst", "");
  const auto report = run_driver(builder);
  const auto* finding = find_finding(report, "driver.amdgpu-not-loaded");
  ASSERT_NE(finding, nullptr);
  for (const auto& fix : finding->fixes) {
    for (const auto& command : fix.commands) {
      EXPECT_EQ(command.find("purge"), std::string::npos) << command;
      EXPECT_EQ(command.find("remove"), std::string::npos) << command;
    }
  }
  EXPECT_EQ(finding->fixes[0].commands[0], "sudo modprobe amdgpu");
}

TEST(DriverCheck, BlacklistOnCmdlineIsNamed) {
  auto builder = amd_machine();
  builder.file("/proc/cmdline", "ro quiet modprobe.blacklist=amdgpu\n");
  const auto report = run_driver(builder);
  const auto* finding = find_finding(report, "driver.amdgpu-not-loaded");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->fixes[0].description.find("modprobe.blacklist=amdgpu"), std::string::npos);
}

TEST(DriverCheck, KfdMissingInContainerAsksForDeviceFlags) {
  auto builder = amd_machine();
  builder.file("/.dockerenv", "").file("/sys/module/amdgpu/initstate", "live\n");
  const auto report = run_driver(builder);
  const auto* finding = find_finding(report, "driver.kfd-missing");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->fixes[0].commands[0].find("--device=/dev/kfd --device=/dev/dri"), std::string::npos);
}

TEST(DriverCheck, ContainerWithoutModuleInfoButWithKfdIsFine) {
  auto builder = amd_machine();
  builder.file("/.dockerenv", "").node("/dev/kfd", Node{"char", "0660", 0, 110, false, ""});
  const auto report = run_driver(builder);
  EXPECT_NE(find_finding(report, "driver.ok"), nullptr);
  EXPECT_EQ(find_finding(report, "driver.amdgpu-not-loaded"), nullptr);
}

TEST(DriverCheck, ContainerWithHiddenPciBusButKfdIsFine) {
  SnapshotBuilder builder;
  builder.file("/.dockerenv", "").node("/dev/kfd", Node{"char", "0660", 0, 110, false, ""});
  const auto report = run_driver(builder);
  EXPECT_NE(find_finding(report, "driver.ok"), nullptr);
  EXPECT_EQ(find_finding(report, "driver.no-amd-gpu"), nullptr);
}

TEST(DriverCheck, SkippedInImageModeAndUnderWsl) {
  auto image = amd_machine();
  RunOptions options;
  options.image_mode = true;
  const auto image_report = run_driver(image, options);
  ASSERT_EQ(image_report.checks.size(), 1U);
  EXPECT_EQ(image_report.checks[0].status, CheckStatus::skipped);
  EXPECT_TRUE(image_report.checks[0].findings.empty());

  SnapshotBuilder wsl;
  wsl.kernel("5.15.153.1-microsoft-standard-WSL2").node("/dev/dxg", Node{"char", "0666", 0, 0, false, ""});
  const auto wsl_report = run_driver(wsl);
  ASSERT_EQ(wsl_report.checks.size(), 1U);
  EXPECT_EQ(wsl_report.checks[0].status, CheckStatus::skipped);
  EXPECT_EQ(wsl_report.checks[0].skipped_reason, "WSL: the GPU is reached through /dev/dxg");
}

}  // namespace
}  // namespace rocm_doctor
