// The `topology` check: tables for link speeds, link judgement, io_links, BARs, the IOMMU
// mode and GRUB lines; then runs on small PCI snapshots (a card at x4, a small BAR).
#include "../../checks/topology.h"

#include <gtest/gtest.h>

#include "rocm_doctor/kernel_cmdline_fix.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;
using namespace topology;

TEST(TopologyParsers, LinkSpeedAndWidth) {
  struct Case {
    const char* text;
    std::optional<double> speed;
  } cases[] = {
      {"16.0 GT/s PCIe\n", 16.0},
      {"8.0 GT/s PCIe", 8.0},
      {"2.5 GT/s PCIe", 2.5},
      {"32.0 GT/s PCIe", 32.0},
      {"5 GT/s", 5.0},
      {"Unknown", std::nullopt},
      {"", std::nullopt},
      {"16.0 GB/s", std::nullopt},
  };
  for (const auto& c : cases) EXPECT_EQ(parse_link_speed(c.text), c.speed) << c.text;
  EXPECT_EQ(parse_link_width("16\n"), 16U);
  EXPECT_EQ(parse_link_width("4"), 4U);
  EXPECT_EQ(parse_link_width("0"), std::nullopt);
  EXPECT_EQ(parse_link_width("x16"), std::nullopt);
}

TEST(TopologyParsers, JudgeLink) {
  struct Case {
    LinkState link;
    bool width, speed, idle;
  } cases[] = {
      // healthy Gen4 x16
      {{16.0, 16.0, 16.0, 16, 16, 16}, false, false, false},
      // card in a x4 slot: the port above can do only x4 -> not the card's fault... but below its own max
      {{16.0, 16.0, 16.0, 4, 16, 4}, false, false, false},
      // x16 slot, link trained at x4
      {{16.0, 16.0, 16.0, 4, 16, 16}, true, false, false},
      // port unreadable: own max decides
      {{16.0, 16.0, std::nullopt, 8, 16, std::nullopt}, true, false, false},
      // idle power saving at 2.5 GT/s
      {{2.5, 16.0, 16.0, 16, 16, 16}, false, true, true},
      // riser at Gen3
      {{8.0, 16.0, 16.0, 16, 16, 16}, false, true, false},
      // Gen4 card in a Gen3 board: the port's max is 8 GT/s
      {{8.0, 16.0, 8.0, 16, 16, 16}, false, false, false},
  };
  for (const auto& c : cases) {
    const auto verdict = judge_link(c.link, 2.5);
    EXPECT_EQ(verdict.width_degraded, c.width);
    EXPECT_EQ(verdict.speed_degraded, c.speed);
    EXPECT_EQ(verdict.speed_maybe_idle, c.idle);
  }
}

TEST(TopologyParsers, IoLinksBarsIommuGrub) {
  const auto link = parse_io_link(
      "type 11\nversion_major 0\nversion_minor 0\nnode_from 2\nnode_to 3\nweight 15\n"
      "min_latency 0\nmax_latency 0\nmin_bandwidth 312\nmax_bandwidth 64000\n");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->type, 11U);
  EXPECT_EQ(link->node_from, 2);
  EXPECT_EQ(link->node_to, 3);
  EXPECT_FALSE(parse_io_link("weight 20\n"));

  EXPECT_EQ(parse_bar0_size("0x0000007800000000 0x0000007fffffffff 0x000000000014220c\n"), 32ULL << 30);
  EXPECT_EQ(parse_bar0_size("0x00000000e0000000 0x00000000efffffff 0x000000000014220c\n"), 256ULL << 20);
  EXPECT_EQ(parse_bar0_size("0x0000000000000000 0x0000000000000000 0x0000000000000000\n"), std::nullopt);
  EXPECT_EQ(parse_bar0_size(""), std::nullopt);

  EXPECT_EQ(iommu_mode_from_group_type("identity\n"), IommuMode::passthrough);
  EXPECT_EQ(iommu_mode_from_group_type("DMA-FQ"), IommuMode::translated);
  EXPECT_EQ(iommu_mode_from_group_type("DMA"), IommuMode::translated);
  EXPECT_EQ(iommu_mode_from_group_type("unmanaged"), IommuMode::unknown);

  const std::vector<std::string> args = {"iommu=pt", "amd_iommu=off", "iommu=off"};
  EXPECT_EQ(cmdline_iommu_arg("BOOT_IMAGE=/vmlinuz ro quiet iommu=pt", args), "iommu=pt");
  EXPECT_EQ(cmdline_iommu_arg("ro quiet amd_iommu=on", args), std::nullopt);
  EXPECT_EQ(cmdline_iommu_arg("ro iommu=pt amd_iommu=off", args), "amd_iommu=off");

  constexpr std::string_view kDefault = "GRUB_CMDLINE_LINUX_DEFAULT";
  EXPECT_EQ(
      grub_variable("GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\nGRUB_CMDLINE_LINUX=\"\"\n", kDefault),
      "quiet splash");
  EXPECT_EQ(grub_variable("GRUB_CMDLINE_LINUX_DEFAULT=''\n", kDefault), "");
  EXPECT_EQ(grub_variable("GRUB_CMDLINE_LINUX=\"rhgb quiet\"\n", kDefault), std::nullopt);

  EXPECT_EQ(resolve_link("/sys/bus/pci/devices", "../../../devices/pci0000:00/0000:00:01.1/0000:03:00.0"),
            "/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0");
  EXPECT_EQ(parent_path("/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0"), "/sys/devices/pci0000:00/0000:00:01.1");
}

// One Radeon at 0000:03:00.0 behind root port 0000:00:01.1, with link files.
SnapshotBuilder one_card(const std::string& width, const std::string& speed) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-41-generic");
  b.pci_device("0000:03:00.0", "0x1002", "0x744c", "0x030000", "amdgpu");
  const std::string dev = "/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0";
  const std::string port = "/sys/devices/pci0000:00/0000:00:01.1";
  b.file(dev + "/current_link_width", width + "\n").file(dev + "/max_link_width", "16\n");
  b.file(dev + "/current_link_speed", speed + "\n").file(dev + "/max_link_speed", "16.0 GT/s PCIe\n");
  b.file(port + "/max_link_width", "16\n").file(port + "/max_link_speed", "16.0 GT/s PCIe\n");
  b.file(dev + "/mem_info_vram_total", "25753026560\n");
  return b;
}

TEST(TopologyCheck, HealthyCardHasNoWarning) {
  auto b = one_card("16", "16.0 GT/s PCIe");
  b.file("/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0/mem_info_vis_vram_total", "25753026560\n");
  auto host = b.open();
  const auto report = run_on(*host, {"topology"});
  for (const auto& finding : testing::all_findings(report))
    EXPECT_LT(finding.severity, Severity::warning) << finding.id;
  ASSERT_NE(find_finding(report, "topology.large-bar"), nullptr);
  EXPECT_EQ(find_finding(report, "pcie.link-degraded"), nullptr);
}

TEST(TopologyCheck, CardAtX4) {
  auto b = one_card("4", "16.0 GT/s PCIe");
  auto host = b.open();
  const auto report = run_on(*host, {"topology"});
  const auto* finding = find_finding(report, "pcie.link-degraded");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  EXPECT_NE(finding->summary.find("width x4 of x16"), std::string::npos) << finding->summary;
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo lspci -vv -s 0000:03:00.0 | grep -E 'LnkCap|LnkSta'");
}

TEST(TopologyCheck, IdleSpeedIsOnlyInfo) {
  auto b = one_card("16", "2.5 GT/s PCIe");
  auto host = b.open();
  const auto report = run_on(*host, {"topology"});
  const auto* finding = find_finding(report, "pcie.link-degraded");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_NE(finding->detail.find("idle"), std::string::npos);
}

TEST(TopologyCheck, SmallBarOnOneCardIsInfo) {
  auto b = one_card("16", "16.0 GT/s PCIe");
  b.file("/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0/mem_info_vis_vram_total", "268435456\n");
  auto host = b.open();
  const auto report = run_on(*host, {"topology"});
  const auto* finding = find_finding(report, "topology.large-bar");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_NE(finding->summary.find("256 MiB of 24 GiB"), std::string::npos) << finding->summary;
}

TEST(TopologyCheck, ImageModeAndWslSkip) {
  auto b = one_card("16", "16.0 GT/s PCIe");
  auto host = b.open();
  RunOptions options;
  options.image_mode = true;
  EXPECT_EQ(run_on(*host, {"topology"}, options).checks.at(0).status, CheckStatus::skipped);
}

}  // namespace
}  // namespace rocm_doctor
