// Compute partitions: how the KFD GPUs of a node map onto its physical GPUs (gpu_partitions.cpp).
// Internal to the GPU inventory (src/facts/gpu_inventory.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/host.h"

namespace rocm_doctor {

// Groups the KFD GPUs of `inventory.gpus` into `inventory.physical`: nodes sharing a nonzero
// unique_id, device id and PCI bus/device are partitions of one GPU. Partitions take the physical
// GPU's PCI address (function 0: later partitions have no PCI function of their own) and their
// number from the location_id function bits.
void group_partitions(GpuInventory& inventory);
// The partition number a physical GPU's first partition has (0 on real GPUs).
unsigned first_partition_number(const GpuInventory& inventory, const Gpu& gpu);
// Names, gfx and memory from the partitions, the modes from the PCI device folder
// (current_compute_partition, available_compute_partition, current_memory_partition,
// available_memory_partition) and the partition count the mode implies.
void describe_physical_gpus(GpuInventory& inventory, const Host& host);
// The `partition` object of a `gpus` row (null when not partitioned).
nlohmann::ordered_json partition_json(const Gpu& gpu);

}  // namespace rocm_doctor
