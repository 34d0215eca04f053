// GPU inventory: pure sysfs parsers (tables of cases) and the KFD/DRM/PCI join on scenario snapshots.
#include "rocm_doctor/facts/gpu_inventory.h"

#include <gtest/gtest.h>

#include "host/snapshot_host.h"

namespace rocm_doctor {
namespace {

std::unique_ptr<SnapshotHost> scenario(const std::string& name) {
  auto host = SnapshotHost::open(std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/" + name);
  if (!host) throw std::runtime_error(host.error());
  return std::move(*host);
}

TEST(GpuInventoryParsers, LocationIdToBdf) {
  const std::vector<std::tuple<std::uint64_t, std::uint64_t, std::string>> cases = {
      {768, 0, "0000:03:00.0"},
      {0x2900, 0, "0000:29:00.0"},
      {0x0e00, 0, "0000:0e:00.0"},
      {(0xc1 << 8) | (2 << 3) | 1, 1, "0001:c1:02.1"},
      {0, 0, "0000:00:00.0"}};
  for (const auto& [location, domain, bdf] : cases) EXPECT_EQ(bdf_from_location(location, domain), bdf);
}

TEST(GpuInventoryParsers, HexIdsAndClasses) {
  EXPECT_EQ(parse_hex_id("0x744c\n"), 0x744cu);
  EXPECT_EQ(parse_hex_id("0x1002"), 0x1002u);
  EXPECT_FALSE(parse_hex_id("29663"));  // KFD's decimal ids are not sysfs hex ids
  EXPECT_FALSE(parse_hex_id(""));
  EXPECT_TRUE(is_gpu_class("0x030000"));
  EXPECT_TRUE(is_gpu_class("0x038000"));
  EXPECT_TRUE(is_gpu_class("0x120000"));
  EXPECT_FALSE(is_gpu_class("0x040300"));  // HDMI audio
  EXPECT_EQ(link_basename("../../../0000:03:00.0"), "0000:03:00.0");
  EXPECT_EQ(link_basename("../../bus/pci/drivers/amdgpu/"), "amdgpu");
}

TEST(GpuInventoryParsers, KfdPropertiesTellCpuFromGpu) {
  const auto cpu = parse_kfd_properties(0, "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n");
  ASSERT_TRUE(cpu);
  EXPECT_FALSE(cpu->is_gpu());
  const auto gpu = parse_kfd_properties(1,
                                        "cpu_cores_count 0\nsimd_count 80\ngfx_target_version 100301\n"
                                        "vendor_id 4098\ndevice_id 29663\nbogus line without value\n");
  ASSERT_TRUE(gpu);
  EXPECT_TRUE(gpu->is_gpu());
  EXPECT_EQ(gpu->get("device_id"), 29663u);
  EXPECT_FALSE(parse_kfd_properties(2, ""));
}

TEST(GpuInventory, JoinsKfdDrmAndPci) {
  const auto host = scenario("gpu-rx6700xt-no-override");
  const auto inventory = GpuInventory::collect(*host);
  ASSERT_EQ(inventory.gpus.size(), 1u);
  const auto& gpu = inventory.gpus.front();
  EXPECT_EQ(gpu.index, 0);
  EXPECT_EQ(gpu.node_id, 1);
  EXPECT_EQ(gpu.bdf, "0000:03:00.0");
  EXPECT_EQ(gpu.device_id, 0x73dfu);
  EXPECT_EQ(gpu.gfx, "gfx1031");
  EXPECT_EQ(gpu.name, "AMD Radeon RX 6700 XT");
  EXPECT_EQ(gpu.family, "RDNA2");
  EXPECT_EQ(gpu.compute_units, 40u);
  EXPECT_EQ(gpu.render_node(), "/dev/dri/renderD128");
  EXPECT_EQ(gpu.card, "card0");
  EXPECT_EQ(gpu.subsystem_vendor_id, 0x1da2u);
  EXPECT_TRUE(gpu.vram_total.has_value());
  EXPECT_TRUE(inventory.issues.empty());
}

TEST(GpuInventory, OrdersGpusByKfdNodeAfterCpuNodes) {
  const auto host = scenario("gpu-mi250x-x4");
  const auto inventory = GpuInventory::collect(*host);
  ASSERT_EQ(inventory.gpus.size(), 8u);
  EXPECT_EQ(inventory.kfd_node_count, 10);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(inventory.gpus[i].index, i);
    EXPECT_EQ(inventory.gpus[i].node_id, i + 2);
    EXPECT_EQ(inventory.gpus[i].gfx, "gfx90a");
    EXPECT_TRUE(inventory.gpus[i].hive_id.has_value());
  }
}

TEST(GpuInventory, ReportsUnknownDeviceIdsAndPciOnlyGpus) {
  const auto unknown = GpuInventory::collect(*scenario("gpu-unknown-device-id"));
  ASSERT_EQ(unknown.gpus.size(), 1u);
  EXPECT_FALSE(unknown.gpus[0].name_known);
  EXPECT_EQ(unknown.gpus[0].name, "unknown AMD GPU (device 0x744d)");
  EXPECT_EQ(unknown.gpus[0].gfx, "gfx1100");

  const auto mismatch = GpuInventory::collect(*scenario("gpu-busy-vram-and-kfd-mismatch"));
  ASSERT_EQ(mismatch.gpus.size(), 2u);
  EXPECT_EQ(mismatch.gpus[1].index, -1);
  EXPECT_EQ(mismatch.gpus[1].gfx_source, "pci-id table");
  ASSERT_EQ(mismatch.issues.size(), 1u);
  EXPECT_NE(mismatch.issues[0].summary.find("0000:07:00.0"), std::string::npos);
  EXPECT_EQ(mismatch.to_json()[1]["index"], nullptr);
}

TEST(GpuInventory, MarksIntegratedGpus) {
  const auto inventory = GpuInventory::collect(*scenario("gpu-apu-plus-rx7900xtx"));
  ASSERT_EQ(inventory.gpus.size(), 2u);
  EXPECT_FALSE(inventory.gpus[0].apu);
  EXPECT_TRUE(inventory.gpus[1].apu);
  EXPECT_EQ(inventory.gpus[1].gfx, "gfx1036");
}

}  // namespace
}  // namespace rocm_doctor
