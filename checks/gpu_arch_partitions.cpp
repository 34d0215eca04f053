// `gpu-arch`: compute and memory partitions of MI300-series GPUs. A partitioned GPU is healthy
// when it shows as many KFD GPUs as its mode makes and every GPU of the model runs the same mode;
// the inventory (src/facts/gpu_partitions.cpp) groups the partitions, this file judges them.
#include <fmt/format.h>

#include <map>

#include "gpu_arch.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::gpu_arch {

namespace {

std::string partition_list(const GpuInventory& inventory, const PhysicalGpu& physical) {
  std::vector<std::string> parts;
  for (const auto member : physical.partitions) {
    const auto& gpu = inventory.gpus[member];
    parts.push_back(fmt::format("{} (KFD node {}, {})", gpu.partition ? gpu.partition->number : 0u,
                                gpu.node_id.value_or(-1),
                                gpu.render_node().empty() ? "no render node" : gpu.render_node()));
  }
  return join(parts, ", ");
}

Finding count_mismatch(const GpuInventory& inventory, const PhysicalGpu& physical) {
  const auto found = physical.partitions.size();
  std::string summary = physical.expected_partitions && found != *physical.expected_partitions
                            ? fmt::format("{} at {} shows {} partition(s) to ROCm; {} makes {}", physical.name,
                                          physical.bdf, found, physical.expected_because, *physical.expected_partitions)
                            : fmt::format("{} at {}: its KFD partitions are inconsistent ({})", physical.name,
                                          physical.bdf, join(physical.inconsistencies, "; "));
  auto finding =
      make_finding("gpu.partition-count-mismatch", Severity::warning, summary)
          .because(
              "Each compute partition of an MI300-series GPU is a KFD node and a ROCm device of its own. A partition "
              "without a KFD node cannot run work and shifts the device numbers schedulers hand out. On 8-GPU nodes "
              "in CPX mode the 64th partition is commonly the one lost: the kernel's DRM core numbers at most 64 "
              "primary nodes (card0-card63) and a BMC display adapter can take one of them (ROCm/amdsmi issue 99, "
              "AMD's MI300X partitioning troubleshooting guide).")
          .with_evidence("/sys/bus/pci/devices/" + physical.bdf,
                         fmt::format("compute partition {}, memory partition {}",
                                     physical.compute_mode.empty() ? "unknown" : physical.compute_mode,
                                     physical.memory_mode.empty() ? "unknown" : physical.memory_mode))
          .with_evidence("/sys/class/kfd/kfd/topology/nodes", "partitions " + partition_list(inventory, physical));
  for (const auto& inconsistency : physical.inconsistencies) finding.with_evidence("KFD unique_id", inconsistency);
  return finding.with_fix(make_fix(kCheckId,
                                   "Find why the partition did not register in the kernel log, and count the "
                                   "render nodes the driver created",
                                   {"sudo dmesg | grep -iE 'amdgpu.*(xcp|partition)|drm.*minor'", "ls /sys/class/drm"},
                                   FixNeeds{.root = true}));
}

// Physical GPUs of one model by their mode (compute or memory).
using ModeGroups = std::map<std::string, std::vector<const PhysicalGpu*>>;

std::string mode_groups_text(const ModeGroups& groups) {
  std::vector<std::string> parts;
  for (const auto& [mode, gpus] : groups) {
    std::vector<std::string> addresses;
    for (const auto* gpu : gpus) addresses.push_back(gpu->bdf);
    parts.push_back(fmt::format("{} on {}", mode, join(addresses, ", ")));
  }
  return join(parts, "; ");
}

std::string most_common(const ModeGroups& groups) {
  std::string best;
  std::size_t count = 0;
  for (const auto& [mode, gpus] : groups) {
    if (gpus.size() > count) best = mode, count = gpus.size();
  }
  return best;
}

std::optional<Finding> mixed_modes(const std::string& model, const ModeGroups& compute, const ModeGroups& memory) {
  if (compute.size() < 2 && memory.size() < 2) return std::nullopt;
  std::vector<std::string> what;
  std::vector<std::string> commands;
  if (compute.size() > 1) {
    what.push_back("compute partition " + mode_groups_text(compute));
    commands.push_back("sudo amd-smi set --gpu all --compute-partition " + most_common(compute));
  }
  if (memory.size() > 1) {
    what.push_back("memory partition " + mode_groups_text(memory));
    commands.push_back("sudo amd-smi set --gpu all --memory-partition " + most_common(memory));
  }
  auto finding =
      make_finding("gpu.partition-mode-mixed", Severity::warning,
                   fmt::format("The {} GPUs of this node run different partition modes: {}", model, join(what, "; ")))
          .because(
              "GPUs of one model in different modes give devices of different sizes (compute units, memory) under one "
              "name: Slurm gres, the Kubernetes device plugin and ROCR_VISIBLE_DEVICES lists count them as equals. A "
              "mode change that did not reach every GPU (one failed, or a GPU was reset) leaves a node like this.")
          .with_evidence("/sys/bus/pci/devices/*/current_compute_partition", mode_groups_text(compute))
          .with_evidence("/sys/bus/pci/devices/*/current_memory_partition", mode_groups_text(memory));
  return finding.with_fix(make_fix(kCheckId,
                                   "Put every GPU in the mode most of them run (no GPU work may run meanwhile)",
                                   std::move(commands), FixNeeds{.root = true}));
}

}  // namespace

std::vector<Finding> partition_findings(const GpuInventory& inventory) {
  std::vector<Finding> findings;
  std::map<std::string, std::pair<ModeGroups, ModeGroups>> by_model;  // name -> (compute, memory)
  for (const auto& physical : inventory.physical) {
    const bool wrong_count =
        physical.expected_partitions && physical.partitions.size() != *physical.expected_partitions;
    if (wrong_count || !physical.inconsistencies.empty()) findings.push_back(count_mismatch(inventory, physical));
    auto& [compute, memory] = by_model[physical.name];
    if (!physical.compute_mode.empty()) compute[physical.compute_mode].push_back(&physical);
    if (!physical.memory_mode.empty()) memory[physical.memory_mode].push_back(&physical);
  }
  for (const auto& [model, modes] : by_model) {
    if (auto finding = mixed_modes(model, modes.first, modes.second)) findings.push_back(std::move(*finding));
  }
  return findings;
}

}  // namespace rocm_doctor::gpu_arch
