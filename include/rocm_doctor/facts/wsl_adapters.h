// The Windows GPU adapters a WSL2 machine reaches, as the dxcore probe read
// them through WSL's libdxcore.so (src/probe/dxcore_probe.h): PCI ids, the
// Windows driver version, the description and the memory a workload may use.
// Shared by the `wsl` check and the report's `gpus` section, where the AMD
// adapters are rows with `wsl: true` (docs/report-format.md#gpus).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

struct WslAdapter {
  int index = -1;  // DXCore's adapter list order
  std::optional<std::uint32_t> vendor_id;
  std::optional<std::uint32_t> device_id;
  std::optional<std::uint32_t> subsystem_vendor_id;
  std::optional<std::uint32_t> subsystem_device_id;
  std::optional<std::uint32_t> revision;
  std::string description;                               // the Windows driver's adapter name
  std::string driver_version;                            // Windows (WDDM) driver version, "32.0.21013.1000"
  std::optional<std::uint64_t> dedicated_memory;         // DedicatedAdapterMemory (VRAM)
  std::optional<std::uint64_t> dedicated_system_memory;  // DedicatedSystemMemory (carve-out)
  std::optional<std::uint64_t> shared_memory;            // SharedSystemMemory
  std::optional<bool> hardware;
  std::optional<bool> integrated;
  // From the PCI id table (checks/data/pci_ids.json) when the device is known.
  std::string name;
  std::string gfx;

  [[nodiscard]] bool amd() const;
  // The adapter's name: the PCI table's, else the Windows driver's description.
  [[nodiscard]] std::string display_name() const;
  // Memory a workload can use: dedicated (VRAM and carve-out) plus shared system memory.
  [[nodiscard]] std::optional<std::uint64_t> usable_memory() const;
};

struct WslAdapters {
  // Why there is no adapter list (the probe did not run, failed or loaded no
  // libdxcore); empty when `adapters` is DXCore's answer (possibly no adapter).
  std::string unavailable;
  std::vector<WslAdapter> adapters;

  // The AMD adapters as `gpus` rows (docs/report-format.md#gpus).
  [[nodiscard]] nlohmann::ordered_json gpu_rows() const;

  static WslAdapters collect(const CheckContext& ctx);
};

// Pure: the adapters of a dxcore probe outcome (its `result`), or why there are none.
WslAdapters parse_wsl_adapters(const std::optional<nlohmann::json>& outcome);

}  // namespace rocm_doctor
