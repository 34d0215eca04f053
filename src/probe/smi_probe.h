// The rocm-smi probe, run inside the probe child: loads librocm_smi64 by
// soname and reads per-GPU telemetry and error counters.
#pragma once

#include <nlohmann/json.hpp>

namespace rocm_doctor::probe {

nlohmann::json run_smi_probe();

}  // namespace rocm_doctor::probe
