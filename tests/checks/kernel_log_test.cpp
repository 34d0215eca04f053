// The kernel-log check: /dev/kmsg and syslog line formats, patterns, grouping.
#include "../../checks/kernel_log.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

struct LineCase {
  std::string line;
  bool parsed;
  double seconds;  // < 0: none
  std::string message;
};

TEST(KernelLogParse, KmsgRecords) {
  const std::vector<LineCase> cases = {
      {"6,1234,5678901,-;amdgpu: GPU reset begin!", true, 5.678901, "amdgpu: GPU reset begin!"},
      {"3,812,4518231,-,caller=T1;amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init", true, 4.518231,
       "amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init"},
      {" SUBSYSTEM=pci", false, -1, ""},
      {" DEVICE=+pci:0000:03:00.0", false, -1, ""},
      {"garbage without fields", false, -1, ""},
      {"x,1,2,-;msg", false, -1, ""},
  };
  for (const auto& test : cases) {
    const auto line = kernel_log::parse_kmsg_record(test.line);
    ASSERT_EQ(line.has_value(), test.parsed) << test.line;
    if (!line) continue;
    EXPECT_NEAR(*line->seconds, test.seconds, 1e-6) << test.line;
    EXPECT_EQ(line->message, test.message);
  }
}

TEST(KernelLogParse, SyslogAndDmesgLines) {
  const std::vector<LineCase> cases = {
      {"[   12.345678] amdgpu: GPU reset begin!", true, 12.345678, "amdgpu: GPU reset begin!"},
      {"Nov 30 07:00:01 ws kernel: [    4.518231] amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init", true,
       4.518231, "amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init"},
      {"2024-11-30T07:00:01.123456+00:00 ws kernel: kfd kfd: amdgpu: PCIE atomic ops is not supported", true, -1,
       "kfd kfd: amdgpu: PCIE atomic ops is not supported"},
      {"Nov 30 07:00:01 ws systemd[1]: Started Session 3 of User alice.", false, -1, ""},
      {"", false, -1, ""},
  };
  for (const auto& test : cases) {
    const auto line = kernel_log::parse_syslog_line(test.line);
    ASSERT_EQ(line.has_value(), test.parsed) << test.line;
    if (!line) continue;
    EXPECT_EQ(line->seconds.has_value(), test.seconds >= 0) << test.line;
    if (line->seconds) {
      EXPECT_NEAR(*line->seconds, test.seconds, 1e-6);
    }
    EXPECT_EQ(line->message, test.message);
  }
}

TEST(KernelLogParse, SyslogKeepsOnlyTheCurrentBoot) {
  const std::string log =
      "Nov 29 09:00:00 ws kernel: [    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02) #45~22.04.1-Ubuntu\n"
      "Nov 29 09:10:00 ws kernel: [  600.000000] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
      "Nov 30 07:00:00 ws kernel: [    0.000000] Linux version 6.8.0-48-generic (buildd@lcy02) #48~22.04.1-Ubuntu\n"
      "Nov 30 07:00:04 ws kernel: [    4.000000] [drm] amdgpu kernel modesetting enabled.\n";
  const auto lines = kernel_log::parse_log(log, kernel_log::Format::syslog);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[1].message, "[drm] amdgpu kernel modesetting enabled.");
}

TEST(KernelLogParse, PatternsMatchRealLines) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init", "fatal-init"},
      {"[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=26123, emitted seq=26125",
       "ring-timeout"},
      {"amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", "gpu-reset"},
      {"amdgpu 0000:03:00.0: amdgpu: VRAM is lost due to GPU reset!", "vram-lost"},
      {"kfd kfd: amdgpu: PCIE atomic ops is not supported", "atomics-unsupported"},
      {"kfd kfd: amdgpu: skipped device 1002:699f, PCI rejects atomics 730<0", "atomics-rejected"},
      {"amdgpu 0000:c3:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:169 vmid:0 pasid:0)", "page-fault"},
      {"kfd kfd: amdgpu: PITCAIRN  not supported in kfd", "not-supported-in-kfd"},
      {"[drm] amdgpu kernel modesetting enabled.", ""},
      {"amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!", ""},
      {"kfd kfd: amdgpu: added device 1002:744c", ""},
  };
  for (const auto& [message, id] : cases) {
    const auto* pattern = kernel_log::match(message, kernel_log::patterns());
    EXPECT_EQ(pattern ? pattern->id : "", id) << message;
  }
}

TEST(KernelLogParse, FirmwareNamesAndGrouping) {
  EXPECT_EQ(kernel_log::missing_firmware(
                "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_mes_2.bin failed with error -2"),
            "amdgpu/gc_11_0_0_mes_2.bin");
  EXPECT_EQ(kernel_log::missing_firmware("iwlwifi 0000:00:14.3: Direct firmware load for iwlwifi-so-a0-gf-a0-86.ucode "
                                         "failed with error -2"),
            std::nullopt);
  EXPECT_EQ(kernel_log::missing_firmware("amdgpu: GPU reset begin!"), std::nullopt);
  const std::vector<kernel_log::LogLine> lines = {
      {1.5, "amdgpu: GPU reset begin!"}, {2.0, "other"}, {3.0, "amdgpu: GPU reset begin!"}};
  const auto groups = kernel_log::group_lines(lines);
  ASSERT_EQ(groups.size(), 2U);
  EXPECT_EQ(groups[0].count, 2U);
  EXPECT_EQ(kernel_log::quote(groups[0]), "[    1.500000] amdgpu: GPU reset begin! (x2, last [    3.000000])");
  EXPECT_EQ(kernel_log::quote({std::string(300, 'a'), 1, std::nullopt, std::nullopt}).size(), 200U);
}

TEST(KernelLogCheck, UnreadableIsInfoWithTheSudoLine) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  auto host = builder.open();
  const auto report = run_on(*host, {"kernel-log"});
  const auto* finding = find_finding(report, "driver.kernel-log");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo dmesg --ctime | grep -iE 'amdgpu|kfd|drm'");
}

TEST(KernelLogCheck, KmsgResetsGroupedAsError) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.file("/dev/kmsg",
               "6,900,4100000,-;[drm] amdgpu kernel modesetting enabled.\n"
               "3,1500,812000000,-;[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled "
               "seq=26123, emitted seq=26125\n"
               " SUBSYSTEM=pci\n"
               "4,1501,812000100,-;amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
               "4,1600,900000100,-;amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"kernel-log"});
  const auto* finding = find_finding(report, "driver.kernel-log");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  ASSERT_EQ(finding->evidence.size(), 2U);
  // The error (the ring timeout) first; the two resets of one device collapse into one line
  // with their count and first and last time; the address no GPU has names the device.
  EXPECT_TRUE(finding->evidence[0].value.find("ring gfx_0.0.0 timeout") != std::string::npos);
  EXPECT_EQ(finding->evidence[1].value,
            "0000:03:00.0: [  812.000100] amdgpu 0000:03:00.0: amdgpu: GPU reset begin! (x2, last [  900.000100])");
}

TEST(KernelLogCheck, FirmwareOnDiskMeansInitramfs) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.file("/dev/kmsg",
               "3,700,3900000,-;amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_11_0_0_mes_2.bin failed with "
               "error -2\n");
  builder.file("/lib/firmware/amdgpu/gc_11_0_0_mes_2.bin.zst", "x");
  auto host = builder.open();
  const auto report = run_on(*host, {"kernel-log"});
  const auto* finding = find_finding(report, "driver.firmware-missing");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo update-initramfs -u -k 6.8.0-48-generic");
}

}  // namespace
}  // namespace rocm_doctor
