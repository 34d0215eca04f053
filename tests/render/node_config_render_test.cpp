// The report's node_config (issue 29) on a real amdgpu PCI folder, and the drift metrics
// Prometheus gets from it; odd sysfs values stay bounded and printable.
#include <gtest/gtest.h>

#include "render/formats.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::run_doctor;

// prometheus/procfs' amdgpu fixture: vbios_version 115-D050PIL-100, an 8.0 GT/s x16 link.
const std::string kVega64 = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/real-rx-vega64-procfs";

std::string run_on(const std::string& snapshot, const std::string& format) {
  const auto result = run_doctor({"--replay", snapshot, "--level", "quick", "--format", format});
  EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
  return result.out;
}

TEST(NodeConfig, RealAmdgpuFolderGivesVbiosAndLink) {
  const auto report = nlohmann::json::parse(run_on(kVega64, "json"));
  ASSERT_TRUE(report.contains("node_config")) << report.dump(1);
  const auto& config = report["node_config"];
  ASSERT_EQ(config["gpus"].size(), 1u) << config;
  const auto& gpu = config["gpus"][0];
  EXPECT_EQ(gpu["pci_address"], "0000:09:00.0");
  EXPECT_EQ(gpu["vbios_version"], "115-D050PIL-100");
  EXPECT_EQ(gpu["pcie"]["current_link_speed"], "8.0 GT/s PCIe");
  EXPECT_EQ(gpu["pcie"]["current_link_width"], "16");
  EXPECT_EQ(gpu["firmware"], nlohmann::json::object());  // the fixture has no fw_version folder
  EXPECT_TRUE(config["kernel_cmdline"].is_string()) << config;
  EXPECT_EQ(config["environment"], nlohmann::json::object());
}

TEST(NodeConfig, PrometheusHasTheDriftMetrics) {
  const auto metrics = run_on(kVega64, "prometheus");
  EXPECT_NE(metrics.find(
                "rocm_doctor_gpu_pcie_links{name=\"AMD Radeon RX Vega (56/64)\",speed=\"8.0 GT/s\",width=\"x16\"} 1\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("component=\"vbios\",version=\"115-D050PIL-100\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("# TYPE rocm_doctor_kernel_cmdline_info gauge\n"), std::string::npos) << metrics;
}

// A GPU's firmware blocks, the key variables set, and a command line whose root disk is left
// out of the metric; a value with control bytes stays printable, a huge one is left out.
TEST(NodeConfig, FirmwareEnvironmentAndOddValues) {
  testing::SnapshotBuilder snapshot;
  snapshot.os_release("debian", "12", "Debian GNU/Linux 12 (bookworm)")
      .kernel("6.1.0-18-amd64")
      .pci_device("0000:03:00.0", "0x1002", "0x740f", "0x038000", "amdgpu")
      .file("/sys/bus/pci/devices/0000:03:00.0/fw_version/sos_fw_version", "0x00270080\n")
      .file("/sys/bus/pci/devices/0000:03:00.0/fw_version/mec_fw_version", "0x0000003f\n")
      .file("/sys/bus/pci/devices/0000:03:00.0/fw_version/smc_fw_version", "0x0044\x1b[2J\n")
      .file("/sys/bus/pci/devices/0000:03:00.0/fw_version/uevent", "")
      .file("/sys/bus/pci/devices/0000:03:00.0/vbios_version", std::string(5000, 'v'))
      .file("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro iommu=pt\n")
      .env("HSA_XNACK", "1")
      .env("ROCR_VISIBLE_DEVICES", "0");
  const auto folder = snapshot.write().string();
  const auto report = nlohmann::json::parse(run_on(folder, "json"));
  const auto& config = report["node_config"];
  EXPECT_EQ(config["environment"], nlohmann::json({{"HSA_XNACK", "1"}}));
  EXPECT_EQ(config["kernel_cmdline"], "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro iommu=pt");
  ASSERT_EQ(config["gpus"].size(), 1u) << config;
  const auto& firmware = config["gpus"][0]["firmware"];
  EXPECT_EQ(firmware["sos"], "0x00270080");
  EXPECT_EQ(firmware["mec"], "0x0000003f");
  ASSERT_TRUE(firmware["smc"].is_string()) << config;
  EXPECT_EQ(firmware["smc"].get<std::string>().find('\x1b'), std::string::npos) << firmware;
  EXPECT_FALSE(firmware.contains("uevent"));
  // Larger than any real one (the read stops at 4 KiB): unknown, not 5,000 bytes in the report.
  EXPECT_TRUE(config["gpus"][0]["vbios_version"].is_null()) << config;
  const auto metrics = run_on(folder, "prometheus");
  EXPECT_NE(metrics.find("rocm_doctor_kernel_cmdline_info{cmdline=\"iommu=pt ro\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("component=\"sos\",version=\"0x00270080\"} 1\n"), std::string::npos) << metrics;
}

}  // namespace
}  // namespace rocm_doctor
