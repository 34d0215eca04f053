// Compute partitions: KFD nodes grouped into physical GPUs, their modes and the partition count
// findings, on small built machines (hostile values included) and on the real captures.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "rocm_doctor/facts/gpu_inventory.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

// One MI300X-like KFD node: location 0x0500 + partition number, as real CPX nodes are.
std::string mi300x_node(std::uint64_t unique_id, unsigned partition, unsigned minor, unsigned xcc = 1,
                        std::uint64_t location_base = 0x0500) {
  return fmt::format(
      "cpu_cores_count 0\nsimd_count {}\nsimd_per_cu 4\ngfx_target_version 90402\nvendor_id 4098\n"
      "device_id 29857\nlocation_id {}\ndomain 0\ndrm_render_minor {}\nunique_id {}\nnum_xcc {}\n",
      152 * xcc, location_base + partition, minor, unique_id, xcc);
}

struct Machine {
  SnapshotBuilder snapshot;
  int next_node = 1;
  Machine() {
    snapshot.file("/sys/module/amdgpu/initstate", "live\n")
        .file("/sys/class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 96\nsimd_count 0\n");
  }
  Machine& node(const std::string& properties) {
    snapshot.file(fmt::format("/sys/class/kfd/kfd/topology/nodes/{}/properties", next_node++), properties);
    return *this;
  }
  Machine& gpu(std::uint64_t unique_id, unsigned partitions, unsigned first_minor, std::uint64_t location = 0x0500) {
    for (unsigned p = 0; p < partitions; ++p) node(mi300x_node(unique_id, p, first_minor + p, 1, location));
    return *this;
  }
  Machine& mode(const std::string& bdf, const std::string& compute, const std::string& memory) {
    snapshot.pci_device(bdf, "0x1002", "0x74a1", "0x120000", "amdgpu")
        .file("/sys/bus/pci/devices/" + bdf + "/current_compute_partition", compute)
        .file("/sys/bus/pci/devices/" + bdf + "/current_memory_partition", memory);
    return *this;
  }
  GpuInventory inventory() { return GpuInventory::collect(*snapshot.open()); }
};

TEST(GpuPartitions, CpxGpuIsOnePhysicalGpuWithEightPartitionsAtItsOwnAddress) {
  Machine machine;
  machine.gpu(111, 8, 128).mode("0000:05:00.0", "CPX\n", "NPS1\n");
  const auto inventory = machine.inventory();
  ASSERT_EQ(inventory.kfd_gpus().size(), 8u);
  ASSERT_EQ(inventory.physical.size(), 1u);
  const auto& physical = inventory.physical.front();
  EXPECT_EQ(physical.bdf, "0000:05:00.0");
  EXPECT_EQ(physical.compute_mode, "CPX");
  EXPECT_EQ(physical.memory_mode, "NPS1");
  EXPECT_EQ(physical.expected_partitions, 8u);
  for (const auto* gpu : inventory.kfd_gpus()) {
    EXPECT_EQ(gpu->bdf, "0000:05:00.0") << "no invented 0000:05:00.N address";
    ASSERT_TRUE(gpu->partition);
    EXPECT_EQ(gpu->partition->count, 8u);
    EXPECT_EQ(gpu->compute_units, 38u);
  }
  EXPECT_EQ(inventory.gpus[3].partition->number, 3u);
  EXPECT_EQ(inventory.gpus[3].render_node(), "/dev/dri/renderD131");
  EXPECT_EQ(inventory.pci_gpus().size(), 1u) << "one PCI function, not eight";
  EXPECT_TRUE(inventory.issues.empty());
}

TEST(GpuPartitions, HealthyPartitionedNodeGetsNoPartitionFinding) {
  Machine machine;
  machine.gpu(111, 8, 128).mode("0000:05:00.0", "CPX\n", "NPS1\n");
  machine.gpu(222, 8, 136, 0x2600).mode("0000:26:00.0", "CPX\n", "NPS1\n");
  const auto host = machine.snapshot.open();
  const auto report = run_on(*host, {"gpu-arch"});
  EXPECT_EQ(find_finding(report, "gpu.partition-count-mismatch"), nullptr);
  EXPECT_EQ(find_finding(report, "gpu.partition-mode-mixed"), nullptr);
  EXPECT_EQ(find_finding(report, "gpu.kfd-mismatch"), nullptr);
}

TEST(GpuPartitions, FewerPartitionsThanTheModeMakesIsAFinding) {
  Machine machine;
  machine.gpu(111, 7, 128).mode("0000:05:00.0", "CPX\n", "NPS1\n");
  const auto host = machine.snapshot.open();
  const auto report = run_on(*host, {"gpu-arch"});
  const auto* finding = find_finding(report, "gpu.partition-count-mismatch");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  EXPECT_NE(finding->summary.find("shows 7 partition(s)"), std::string::npos) << finding->summary;
}

TEST(GpuPartitions, ModeSaysDpxButKfdShowsFourIsAFinding) {
  Machine machine;
  machine.gpu(111, 4, 128).mode("0000:05:00.0", "DPX\n", "NPS1\n");
  const auto inventory = machine.inventory();
  EXPECT_EQ(inventory.physical.front().expected_partitions, 2u);
  const auto host = machine.snapshot.open();
  const auto report = run_on(*host, {"gpu-arch"});
  EXPECT_NE(find_finding(report, "gpu.partition-count-mismatch"), nullptr);
}

TEST(GpuPartitions, WithoutModeFilesTheXcdsPerPartitionTellTheCount) {
  Machine machine;
  machine.gpu(111, 8, 128);  // no PCI folder at all: num_xcc 1 of 8 XCDs -> 8
  machine.gpu(222, 3, 136, 0x2600);
  const auto inventory = machine.inventory();
  ASSERT_EQ(inventory.physical.size(), 2u);
  EXPECT_EQ(inventory.physical[0].expected_partitions, 8u);
  EXPECT_EQ(inventory.physical[0].compute_mode, "");
  EXPECT_EQ(inventory.physical[1].partitions.size(), 3u);
  const auto host = machine.snapshot.open();
  const auto report = run_on(*host, {"gpu-arch"});
  const auto* finding = find_finding(report, "gpu.partition-count-mismatch");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->summary.find("0000:26:00.0"), std::string::npos) << finding->summary;
}

TEST(GpuPartitions, MixedModesAcrossOneModelAreAFinding) {
  Machine machine;
  machine.gpu(111, 8, 128).mode("0000:05:00.0", "CPX\n", "NPS1\n");
  machine.gpu(222, 1, 136, 0x2600);
  machine.snapshot.pci_device("0000:26:00.0", "0x1002", "0x74a1", "0x120000", "amdgpu")
      .file("/sys/bus/pci/devices/0000:26:00.0/current_compute_partition", "SPX\n");
  const auto host = machine.snapshot.open();
  const auto report = run_on(*host, {"gpu-arch"});
  const auto* finding = find_finding(report, "gpu.partition-mode-mixed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->summary.find("memory"), std::string::npos) << "only the compute modes differ";
  EXPECT_EQ(find_finding(report, "gpu.partition-count-mismatch"), nullptr);
}

TEST(GpuPartitions, RepeatedPartitionNumbersAndHostileModeFilesAreNotTrusted) {
  Machine machine;
  machine.node(mi300x_node(111, 0, 128)).node(mi300x_node(111, 0, 129));  // partition 0 twice
  machine.mode("0000:05:00.0", std::string("CPX\x1b[2J", 7), std::string(5000, 'N'));
  const auto inventory = machine.inventory();
  ASSERT_EQ(inventory.physical.size(), 1u);
  EXPECT_EQ(inventory.physical.front().compute_mode, "") << "an escape sequence is not a mode";
  EXPECT_EQ(inventory.physical.front().memory_mode, "");
  ASSERT_EQ(inventory.physical.front().inconsistencies.size(), 1u);
  const auto host = machine.snapshot.open();
  const auto report = run_on(*host, {"gpu-arch"});
  EXPECT_NE(find_finding(report, "gpu.partition-count-mismatch"), nullptr);
}

TEST(GpuPartitions, NodesWithoutUniqueIdStayGpusOfTheirOwn) {
  Machine machine;
  machine.node(mi300x_node(0, 0, 128)).node(mi300x_node(0, 1, 129));
  const auto inventory = machine.inventory();
  EXPECT_EQ(inventory.physical.size(), 2u);
  EXPECT_FALSE(inventory.gpus[0].partition);
  EXPECT_EQ(inventory.gpus[1].bdf, "0000:05:00.1") << "without unique_id KFD's own address stands";
}

TEST(GpuPartitions, ModeListsParse) {
  EXPECT_EQ(parse_partition_modes("SPX, DPX, QPX, CPX\n"), (std::vector<std::string>{"SPX", "DPX", "QPX", "CPX"}));
  EXPECT_EQ(parse_partition_modes("nps1 nps4"), (std::vector<std::string>{"NPS1", "NPS4"}));
  EXPECT_TRUE(parse_partition_modes("").empty());
  EXPECT_EQ(partitions_for_mode("CPX", 6), 6u);
  EXPECT_EQ(partitions_for_mode("CPX", std::nullopt), std::nullopt);
  EXPECT_EQ(partitions_for_mode("TPX", 6), 3u);
  EXPECT_EQ(partitions_for_mode("XPX", 8), std::nullopt);
}

TEST(GpuPartitions, OldKernelNodeWithoutGfxTargetVersionIsAGpuFromThePciIdTable) {
  Machine machine;
  machine.node(
      "cpu_cores_count 0\nsimd_count 256\nsimd_per_cu 4\nvendor_id 4098\ndevice_id 26720\n"
      "location_id 6400\ndrm_render_minor 128\n");
  const auto inventory = machine.inventory();
  ASSERT_EQ(inventory.kfd_gpus().size(), 1u);
  EXPECT_EQ(inventory.gpus[0].gfx, "gfx900");
  EXPECT_EQ(inventory.gpus[0].gfx_source, "pci-id table");
}

}  // namespace
}  // namespace rocm_doctor
