// The pure judgements of `rocm-installs` (rocm_installs.h): GPU visibility, rocm_sdk's family
// pick (TheRock _dist_info.py determine_target_family) and systemd Environment= lines.
#include <algorithm>
#include <set>

#include "env_lint.h"
#include "rocm_doctor/text.h"
#include "rocm_installs.h"

namespace rocm_doctor::rocm_installs_check {

namespace {

std::vector<SeenGpu> filter(const std::vector<SeenGpu>& gpus, const std::string& value) {
  const auto list = env_lint::parse_device_list(value, true);
  if (!list.error.empty()) return gpus;  // the env check reports a malformed list
  if (list.hides_all) return {};
  std::vector<SeenGpu> kept;
  for (const auto& token : list.tokens) {
    if (!token.index) return gpus;  // a UUID: not resolvable from files
    if (*token.index < gpus.size()) kept.push_back(gpus[*token.index]);
  }
  return kept;
}

}  // namespace

std::vector<SeenGpu> visible(const std::vector<SeenGpu>& all, const Environment& env, bool hip_level) {
  auto gpus = all;
  if (const auto rocr = env.find("ROCR_VISIBLE_DEVICES"); rocr != env.end()) gpus = filter(gpus, rocr->second);
  if (!hip_level) return gpus;
  // HIP reads HIP_VISIBLE_DEVICES, and CUDA_VISIBLE_DEVICES when that is unset.
  for (const char* name : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
    if (const auto hip = env.find(name); hip != env.end()) return filter(gpus, hip->second);
  }
  return gpus;
}

FamilyPick pick_family(const TheRockFamilies& sdk, const std::vector<SeenGpu>& offload_arch, const Environment& env) {
  FamilyPick pick;
  if (const auto forced = env.find("ROCM_SDK_TARGET_FAMILY"); forced != env.end() && !forced->second.empty()) {
    pick.candidates.push_back(forced->second);
    pick.reason = "ROCM_SDK_TARGET_FAMILY";
    return pick;
  }
  std::set<std::string> families;
  for (const auto& gpu : offload_arch) {
    // offload-arch names the hardware: an override changes what HIP runs, not what it lists.
    if (auto family = family_for_arch(gpu.gfx, sdk.available); !family.empty()) families.insert(family);
  }
  if (!families.empty()) {
    pick.candidates.assign(families.begin(), families.end());
    pick.reason = "offload-arch";
    return pick;
  }
  if (!sdk.default_family.empty()) {
    pick.candidates.push_back(sdk.default_family);
    pick.reason = "DEFAULT_TARGET_FAMILY";
  }
  return pick;
}

Environment parse_unit_environment(std::string_view unit_text) {
  Environment env;
  for (const auto raw : lines(unit_text)) {
    const auto line = trim(raw);
    if (!line.starts_with("Environment=")) continue;
    auto rest = line.substr(12);
    // Words, each optionally double-quoted: Environment="A=1 2" B=3.
    while (!rest.empty()) {
      rest = trim(rest);
      if (rest.empty()) break;
      std::string word;
      if (rest.front() == '"') {
        const auto close = rest.find('"', 1);
        word = std::string(rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
        rest = close == std::string_view::npos ? std::string_view() : rest.substr(close + 1);
      } else {
        const auto space = rest.find(' ');
        word = std::string(rest.substr(0, space));
        rest = space == std::string_view::npos ? std::string_view() : rest.substr(space);
      }
      const auto equals = word.find('=');
      if (equals == std::string::npos || equals == 0) continue;
      env[word.substr(0, equals)] = word.substr(equals + 1);
    }
  }
  return env;
}

}  // namespace rocm_doctor::rocm_installs_check
