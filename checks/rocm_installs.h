// Pure parts of the `rocm-installs` check (checks/rocm_installs.cpp): which GPUs a program
// will use (ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES, in ROCm's order), the family
// TheRock's rocm_sdk picks, and an application's own environment (its systemd unit).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rocm_doctor/facts/rocm_installs.h"

namespace rocm_doctor::rocm_installs_check {

// One GPU ROCm lists, as a program would see it.
struct SeenGpu {
  int index = -1;       // ROCm device index on the machine (KFD order)
  std::string gfx;      // what the GPU is ("gfx1036")
  std::string runs_as;  // what code it runs: gfx, or HSA_OVERRIDE_GFX_VERSION's target
  std::string label;    // "GPU 1 AMD Radeon AI PRO R9700 (gfx1201)"
};

// The environment a program of the install gets: variable -> value (only the GPU-related ones).
using Environment = std::map<std::string, std::string>;

// The GPUs left after ROCR_VISIBLE_DEVICES (HSA level, what offload-arch sees) and, with
// `hip_level`, HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES (numbered within what ROCR left).
// UUID entries keep every GPU (the doctor cannot map them without rocminfo).
std::vector<SeenGpu> visible(const std::vector<SeenGpu>& all, const Environment& env, bool hip_level);

// rocm_sdk's family on this machine: ROCM_SDK_TARGET_FAMILY, else every family the first
// matching offload-arch line could give (a Python set: the order is not fixed), else the default.
struct FamilyPick {
  std::vector<std::string> candidates;
  std::string reason;  // "ROCM_SDK_TARGET_FAMILY", "offload-arch", "DEFAULT_TARGET_FAMILY"
};
FamilyPick pick_family(const TheRockFamilies& sdk, const std::vector<SeenGpu>& offload_arch, const Environment& env);

// `Environment=` assignments of a systemd unit and its drop-ins, in order (later wins).
// `Environment="A=1" B=2` -> {A: 1, B: 2}.
Environment parse_unit_environment(std::string_view unit_text);

}  // namespace rocm_doctor::rocm_installs_check
