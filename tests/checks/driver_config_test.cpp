// The driver-config check: modprobe.d, the SecureBoot efivar, the DKMS tree.
#include "../../checks/driver_config.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using driver_config::ModprobeRule;
using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

struct ModprobeCase {
  std::string text;
  std::vector<int> lines;  // lines of the rules found
};

TEST(DriverConfigParse, FindsAmdgpuBlacklists) {
  const std::vector<ModprobeCase> cases = {
      {"blacklist amdgpu\n", {1}},
      {"# blacklist amdgpu\nblacklist radeon\n", {}},
      {"blacklist nouveau\n\nblacklist  amdgpu  \n", {3}},
      {"install amdgpu /bin/false\n", {1}},
      {"install amdgpu /bin/true\ninstall amdgpu /sbin/modprobe --ignore-install amdgpu $CMDLINE_OPTS\n", {1}},
      {"options amdgpu ppfeaturemask=0xffffffff\n", {}},
      {"blacklist amdgpu_foo\nblacklist amd-gpu\n", {}},
      {"install \\\n  amdgpu /bin/false\nblacklist amdgpu\n", {1, 3}},
      {"blacklist amdgpu extra\n", {}},
  };
  for (const auto& test : cases) {
    const auto rules = driver_config::parse_modprobe_conf(test.text, "amdgpu");
    std::vector<int> lines;
    for (const auto& rule : rules) lines.push_back(rule.line);
    EXPECT_EQ(lines, test.lines) << test.text;
  }
  const auto rules = driver_config::parse_modprobe_conf("install amdgpu /bin/false", "amdgpu");
  ASSERT_EQ(rules.size(), 1U);
  EXPECT_EQ(rules[0].kind, ModprobeRule::Kind::install_disabled);
  EXPECT_EQ(rules[0].text, "install amdgpu /bin/false");
}

TEST(DriverConfigParse, ReadsTheSecureBootVariable) {
  using namespace std::string_literals;
  EXPECT_EQ(driver_config::parse_secure_boot_efivar("\x06\x00\x00\x00\x01"s), true);
  EXPECT_EQ(driver_config::parse_secure_boot_efivar("\x06\x00\x00\x00\x00"s), false);
  EXPECT_EQ(driver_config::parse_secure_boot_efivar("\x06\x00\x00\x00"s), std::nullopt);
  EXPECT_EQ(driver_config::parse_secure_boot_efivar("\x06\x00\x00\x00\x02"s), std::nullopt);
  EXPECT_EQ(driver_config::parse_secure_boot_efivar("1"), std::nullopt);
}

TEST(DriverConfigParse, NamesHeaderPackagesPerDistribution) {
  using driver_config::Family;
  EXPECT_EQ(driver_config::header_package(Family::debian, "6.8.0-48-generic"), "linux-headers-6.8.0-48-generic");
  EXPECT_EQ(driver_config::header_package(Family::rhel, "5.14.0-427.13.1.el9_4.x86_64"),
            "kernel-devel-5.14.0-427.13.1.el9_4.x86_64");
  EXPECT_EQ(driver_config::header_package(Family::suse, "5.14.21-150500.55.39-default"),
            "kernel-default-devel-5.14.21-150500.55.39");
  EXPECT_EQ(driver_config::header_package(Family::other, "6.9.1-arch1-1"), "");
  EXPECT_TRUE(driver_config::is_module_file("amdgpu.ko.zst", "amdgpu"));
  EXPECT_FALSE(driver_config::is_module_file("amdgpu.ko.bak", "amdgpu"));
}

SnapshotBuilder amd_machine() {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.file("/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.8.0-48-generic ro quiet splash\n");
  builder.pci_device("0000:03:00.0", "0x1002", "0x744c", "0x030000");
  return builder;
}

Report run_check(SnapshotBuilder& builder, RunOptions options = {}) {
  auto host = builder.open();
  return run_on(*host, {"driver-config"}, std::move(options));
}

TEST(DriverConfigCheck, BlacklistNamesFileAndLine) {
  auto builder = amd_machine();
  builder.file("/etc/modprobe.d/blacklist-amdgpu.conf", "# added by installer\nblacklist amdgpu\n");
  const auto report = run_check(builder);
  const auto* finding = find_finding(report, "driver.blacklisted");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_EQ(finding->evidence.at(0).source, "/etc/modprobe.d/blacklist-amdgpu.conf:2");
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo sed -i '2s/^/# /' /etc/modprobe.d/blacklist-amdgpu.conf");
}

TEST(DriverConfigCheck, EtcFileHidesTheSameNameInUsrLib) {
  auto builder = amd_machine();
  builder.file("/usr/lib/modprobe.d/amdgpu.conf", "blacklist amdgpu\n");
  builder.file("/etc/modprobe.d/amdgpu.conf", "options amdgpu si_support=1\n");
  const auto report = run_check(builder);
  EXPECT_EQ(find_finding(report, "driver.blacklisted"), nullptr);
}

TEST(DriverConfigCheck, HeadersMissingGivesThePackage) {
  auto builder = amd_machine();
  builder.file("/var/lib/dkms/amdgpu/6.8.5-2041575.22.04/source/dkms.conf", "PACKAGE_NAME=amdgpu\n");
  builder.file("/var/lib/dkms/amdgpu/6.8.5-2041575.22.04/6.5.0-45-generic/x86_64/module/amdgpu.ko.zst", "");
  const auto report = run_check(builder);
  const auto* not_built = find_finding(report, "driver.dkms-not-built");
  const auto* headers = find_finding(report, "driver.headers-missing");
  ASSERT_NE(not_built, nullptr);
  ASSERT_NE(headers, nullptr);
  EXPECT_EQ(headers->fixes.at(0).commands.at(0), "sudo apt install linux-headers-6.8.0-48-generic");
  const auto& commands = not_built->fixes.at(0).commands;
  EXPECT_NE(
      std::find(commands.begin(), commands.end(), "sudo dkms install amdgpu/6.8.5-2041575.22.04 -k 6.8.0-48-generic"),
      commands.end());
}

TEST(DriverConfigCheck, BuiltModuleIsFine) {
  auto builder = amd_machine();
  builder.file("/var/lib/dkms/amdgpu/6.8.5-2041575.22.04/source/dkms.conf", "PACKAGE_NAME=amdgpu\n");
  builder.file("/var/lib/dkms/amdgpu/6.8.5-2041575.22.04/6.8.0-48-generic/x86_64/module/amdgpu.ko.zst", "");
  builder.file("/sys/module/amdgpu/version", "6.8.5\n");
  const auto report = run_check(builder);
  EXPECT_EQ(find_finding(report, "driver.dkms-not-built"), nullptr);
  EXPECT_EQ(find_finding(report, "driver.secure-boot-unsigned"), nullptr);
}

TEST(DriverConfigCheck, SecureBootOnlyWhenTheModuleIsRefused) {
  using namespace std::string_literals;
  auto builder = amd_machine();
  builder.file("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c", "\x06\x00\x00\x00\x01"s);
  builder.file("/lib/modules/6.8.0-48-generic/updates/dkms/amdgpu.ko.zst", "");
  builder.file("/var/lib/shim-signed/mok/MOK.der", "x");
  const auto report = run_check(builder);
  const auto* finding = find_finding(report, "driver.secure-boot-unsigned");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo mokutil --import /var/lib/shim-signed/mok/MOK.der");

  builder.file("/sys/module/amdgpu/initstate", "live\n");
  const auto loaded = run_check(builder);
  EXPECT_EQ(find_finding(loaded, "driver.secure-boot-unsigned"), nullptr);
}

TEST(DriverConfigCheck, SkippedInImageMode) {
  auto builder = amd_machine();
  builder.file("/etc/modprobe.d/blacklist-amdgpu.conf", "blacklist amdgpu\n");
  RunOptions options;
  options.image_mode = true;
  const auto report = run_check(builder, options);
  EXPECT_EQ(find_finding(report, "driver.blacklisted"), nullptr);
}

}  // namespace
}  // namespace rocm_doctor
