// The apu-memory check: command-line and modprobe.d parsing, bad values, and the
// findings on small built machines (the scenarios cover real layouts).
#include "../../checks/apu_memory.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

TEST(ApuMemoryParse, CommandLineKeepsOnlyMemoryParameters) {
  const auto settings = apu_memory::parse_cmdline_settings(
      "BOOT_IMAGE=/vmlinuz ro quiet amdgpu.gttsize=117760 ttm.pages_limit=25165824 amdttm.page_pool_size=1 "
      "amdgpu.ppfeaturemask=0xffffffff ttm.pages_limit ttm=3\n");
  ASSERT_EQ(settings.size(), 3u);
  EXPECT_EQ(settings[0].module, "amdgpu");
  EXPECT_EQ(settings[0].param, "gttsize");
  EXPECT_EQ(settings[0].value, "117760");
  EXPECT_EQ(settings[1].param, "pages_limit");
  EXPECT_EQ(settings[2].module, "amdttm");
  EXPECT_EQ(settings[2].line, 0);
}

TEST(ApuMemoryParse, ModprobeOptionsCommentsAndContinuations) {
  const auto settings = apu_memory::parse_modprobe_settings(
      "# options ttm pages_limit=1\n"
      "options ttm pages_limit=12582912 # 48 GiB\n"
      "options amdttm \\\n  page_pool_size=7\noptions amd-ttm pages_limit=3\n"
      "blacklist radeon\noptions amdgpu gttsize=-1 ppfeaturemask=0x1\noptions\n",
      "/etc/modprobe.d/ttm.conf");
  ASSERT_EQ(settings.size(), 3u);
  EXPECT_EQ(settings[0].value, "12582912");
  EXPECT_EQ(settings[0].line, 2);
  EXPECT_EQ(settings[1].module, "amdttm");  // joined with its continuation line; amd_ttm is no module of ours
  EXPECT_EQ(settings[1].param, "page_pool_size");
  EXPECT_EQ(settings[1].line, 3);
  EXPECT_EQ(settings[2].value, "-1");
}

TEST(ApuMemoryParse, ValuesTheKernelRefuses) {
  EXPECT_EQ(apu_memory::parse_param_value("pages_limit", "25165824"), 25165824);
  EXPECT_FALSE(apu_memory::parse_param_value("pages_limit", "96G"));
  EXPECT_FALSE(apu_memory::parse_param_value("pages_limit", ""));
  EXPECT_FALSE(apu_memory::parse_param_value("pages_limit", "-5"));
  EXPECT_FALSE(apu_memory::parse_param_value("pages_limit", "99999999999999999999999"));
  EXPECT_EQ(apu_memory::parse_param_value("gttsize", "-1"), -1);
  EXPECT_FALSE(apu_memory::parse_param_value("gttsize", "120GB"));
}

TEST(ApuMemoryParse, MeminfoAndMemBanks) {
  EXPECT_EQ(apu_memory::parse_mem_total("MemTotal:       31948372 kB\nMemFree: 1 kB\n"), 31948372ULL * 1024);
  EXPECT_FALSE(apu_memory::parse_mem_total("MemTotal: lots\n"));
  EXPECT_FALSE(apu_memory::parse_mem_total("MemTotal: 99999999999999999999 kB\n"));
  EXPECT_FALSE(apu_memory::parse_mem_total(""));
  const auto bank = apu_memory::parse_mem_bank("heap_type 1\nsize_in_bytes 536870912\nflags 0\n");
  ASSERT_TRUE(bank);
  EXPECT_EQ(bank->size, 536870912u);
  EXPECT_FALSE(apu_memory::parse_mem_bank("heap_type 1\n"));
  EXPECT_FALSE(apu_memory::parse_mem_bank("heap_type x\nsize_in_bytes 5\n"));
}

TEST(ApuMemoryParse, KernelVersions) {
  EXPECT_EQ(apu_memory::kernel_older_than("6.8.0-49-generic", "6.10"), true);
  EXPECT_EQ(apu_memory::kernel_older_than("6.10.0", "6.10"), false);
  EXPECT_EQ(apu_memory::kernel_older_than("6.16.8-arch1", "6.16.9"), true);
  EXPECT_FALSE(apu_memory::kernel_older_than("garbage", "6.10"));
  EXPECT_EQ(apu_memory::human_bytes(536870912), "512 MiB");
  EXPECT_EQ(apu_memory::human_bytes(103079215104ULL), "96.0 GiB");
}

// A Radeon 780M (gfx1103) as KFD and DRM show it, with a carve-out, GTT and a pool.
SnapshotBuilder apu(const std::string& kernel, std::uint64_t pool) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "24.04", "Ubuntu 24.04.1 LTS").kernel(kernel);
  builder.pci_device("0000:c5:00.0", "0x1002", "0x15bf", "0x030000", "amdgpu");
  builder.file("/sys/bus/pci/devices/0000:c5:00.0/revision", "0xc1\n");
  builder.file("/sys/module/amdgpu/initstate", "live\n");
  const std::string kfd = "/sys/class/kfd/kfd/topology/nodes/1";
  builder.file("/sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 16\nsimd_count 0\n");
  builder.file(kfd + "/properties",
               "cpu_cores_count 0\nsimd_count 24\ngfx_target_version 110003\nvendor_id 4098\ndevice_id 5567\n"
               "location_id 50432\ndomain 0\ndrm_render_minor 128\n");
  builder.file(kfd + "/mem_banks/0/properties", "heap_type 1\nsize_in_bytes " + std::to_string(pool) + "\n");
  builder.symlink("/sys/class/drm/card0/device", "/sys/bus/pci/devices/0000:c5:00.0");
  builder.file("/sys/bus/pci/devices/0000:c5:00.0/mem_info_vram_total", "536870912\n");
  builder.file("/sys/bus/pci/devices/0000:c5:00.0/mem_info_gtt_total", "16356200448\n");
  builder.file("/proc/meminfo", "MemTotal:       31948372 kB\n");
  builder.file("/sys/module/ttm/parameters/pages_limit", "3993546\n");
  return builder;
}

TEST(ApuMemoryCheck, SmallPoolOnOldKernelWarnsWithTheKernelFix) {
  auto builder = apu("6.8.0-49-generic", 536870912);
  auto host = builder.open();
  const auto report = run_on(*host, {"apu-memory"});
  const auto* small = find_finding(report, "apu.memory-small");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->severity, Severity::warning);
  EXPECT_EQ(small->fixes.at(0).commands.at(0), "sudo apt install linux-generic-hwe-24.04");
}

TEST(ApuMemoryCheck, GttPoolOnNewKernelIsQuiet) {
  auto builder = apu("6.11.0-19-generic", 16356200448ULL);
  auto host = builder.open();
  const auto report = run_on(*host, {"apu-memory"});
  EXPECT_NE(find_finding(report, "apu.memory"), nullptr);
  EXPECT_EQ(find_finding(report, "apu.memory-small"), nullptr);
}

TEST(ApuMemoryCheck, ReadsNothingItCannotParse) {
  auto builder = apu("6.11.0-19-generic", 16356200448ULL);
  builder.file("/proc/meminfo", "\x01\x02garbage");
  builder.file("/sys/module/ttm/parameters/pages_limit", "many\n");
  builder.file("/etc/modprobe.d/ttm.conf", "options ttm pages_limit=\n");
  builder.file("/sys/class/kfd/kfd/topology/nodes/1/mem_banks/0/properties", "heap_type\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"apu-memory"});
  const auto* summary = find_finding(report, "apu.memory");
  ASSERT_NE(summary, nullptr);
  EXPECT_NE(summary->summary.find("pool unknown"), std::string::npos);
  EXPECT_NE(find_finding(report, "apu.memory-param-invalid"), nullptr);
  EXPECT_EQ(find_finding(report, "apu.ttm-not-applied"), nullptr);
  EXPECT_EQ(find_finding(report, "apu.gtt-over-ram"), nullptr);
}

TEST(ApuMemoryCheck, ConfiguredButNotRebootedQuotesTheFile) {
  auto builder = apu("6.11.0-19-generic", 16356200448ULL);
  builder.file("/etc/modprobe.d/it's ttm.conf", "options ttm pages_limit=6291456\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"apu-memory"});
  const auto* finding = find_finding(report, "apu.ttm-not-applied");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->evidence.at(0).source, "/etc/modprobe.d/it's ttm.conf:1");
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo update-initramfs -u");
}

TEST(ApuMemoryCheck, SkipsWithoutAnApu) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "24.04", "Ubuntu 24.04.1 LTS").kernel("6.8.0-49-generic");
  auto host = builder.open();
  const auto report = run_on(*host, {"apu-memory"});
  EXPECT_EQ(find_finding(report, "apu.memory"), nullptr);
}

}  // namespace
}  // namespace rocm_doctor
