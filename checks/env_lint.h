// The environment-variable lint (`env` check) and its pure parsers, tested with tables.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor::env_lint {

// One entry of a *_VISIBLE_DEVICES list.
struct DeviceToken {
  std::string text;               // as written, trimmed
  std::optional<unsigned> index;  // "2"
  std::string uuid;               // "GPU-4b2c1a9f..." -> lower-case hex digits only ("4b2c1a9f...")
};

struct DeviceList {
  std::vector<DeviceToken> tokens;
  std::string error;       // empty when the list is well formed
  std::string bad_token;   // the token the error is about
  bool hides_all = false;  // "" or "-1": no GPU at all (well formed, but nothing is visible)
};

// "0,2", "GPU-deadbeefdeadbeef,1" (UUIDs only when allow_uuid: ROCR_VISIBLE_DEVICES).
DeviceList parse_device_list(std::string_view value, bool allow_uuid);

struct AllocConfError {
  std::string token;   // the offending token, as written
  std::string reason;  // what is wrong with it
};

// Strict PYTORCH_HIP_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF syntax: key:value[,key:value...]
// (roundup_power2_divisions also takes [size:divisions,...,>:divisions]); nullopt when valid.
std::optional<AllocConfError> check_alloc_conf(std::string_view value);

// PYTORCH_ROCM_ARCH / AMDGPU_TARGETS / GPU_TARGETS: split on ';', ',' and spaces.
std::vector<std::string> parse_arch_list(std::string_view value);
// "gfx90a:xnack-" -> "gfx90a".
std::string_view base_target(std::string_view target);

// What the known-variables table (checks/data/env_variables.json) says about a name.
enum class NameVerdict { not_rocm, known, invented, misspelled, unknown };
struct NameJudgement {
  NameVerdict verdict = NameVerdict::not_rocm;
  std::string suggestion;  // misspelled: the real name
  std::string why;         // invented: what is wrong; misspelled: "case" or "distance"
  std::string instead;     // invented: what to do instead
};
NameJudgement judge_variable(std::string_view name);
// Whether a name starts like ROCm's (HSA_, HIP_, ROCR_, ... compared case-insensitively).
bool looks_like_rocm(std::string_view name);
// A pattern of the table: "HSA_OVERRIDE_GFX_VERSION_<n>", "MIOPEN_DEBUG_*".
bool pattern_matches(std::string_view pattern, std::string_view name);

// Whether a switch value turns the switch on ("1", "true", "yes", "on"; anything but 0/false/no/off/"").
bool switch_on(std::string_view value);

}  // namespace rocm_doctor::env_lint
