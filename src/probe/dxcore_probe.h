// The DXCore probe, run inside the probe child under WSL: loads WSL's
// libdxcore.so (the Windows GPU paravirtualization's adapter API, never
// linked), lists the Windows GPU adapters that can run compute and reads
// each one's PCI ids, driver version, description and memory sizes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace rocm_doctor::probe {

nlohmann::json run_dxcore_probe();

// "32.0.21013.1000" from DXCore's DriverVersion (four 16-bit parts, most significant first).
std::string windows_driver_version_text(std::uint64_t version);

}  // namespace rocm_doctor::probe
