// The HIP probe, run inside the probe child: loads the HIP runtime by soname
// (never linked), asks it for versions and devices through the C calls whose
// ABI is stable across ROCm 5.x-7.x, and optionally runs a copy smoke test.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

namespace rocm_doctor::probe {

struct HipProbeOptions {
  bool smoke = false;  // --level full
  std::size_t smoke_bytes = 64 * 1024 * 1024;
};

nlohmann::json run_hip_probe(const HipProbeOptions& options);

// "5.2.21153" from hipRuntimeGetVersion's MAJOR*10000000 + MINOR*100000 + PATCH.
std::string hip_version_text(int version);

}  // namespace rocm_doctor::probe
