// The PyTorch ROCm wheel table (checks/data/torch_wheels.json), the choice of a
// wheel for the installed ROCm release, and the fix that installs it: the part of
// the `torch` check that knows wheels, apart from the part that judges a torch.
#include "torch_wheels.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "probe_support.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::torch_wheels {

constexpr std::string_view kCheckId = "torch";  // the fix belongs to the torch check

namespace {

int version_key(std::string_view version) {
  const auto text = major_minor_of(version);
  const auto dot = text.find('.');
  if (dot == std::string::npos) return 0;
  return static_cast<int>(parse_uint(text.substr(0, dot)).value_or(0) * 100 +
                          parse_uint(text.substr(dot + 1)).value_or(0));
}

}  // namespace

std::vector<Wheel> table() {
  static const std::vector<Wheel> wheels = [] {
    const auto json = nlohmann::json::parse(embedded::data_torch_wheels());
    const auto base = json.at("index_base").get<std::string>();
    std::vector<Wheel> rows;
    for (const auto& row : json.at("wheels")) {
      for (const auto& index : row.at("indexes")) {
        const auto name = index.get<std::string>();
        rows.push_back({row.at("torch").get<std::string>(), name, name.substr(4), base + name});
      }
    }
    return rows;
  }();
  return wheels;
}

WheelChoice choose_wheel(std::string_view rocm_release) {
  const auto wheels = table();
  WheelChoice choice;
  if (rocm_release.empty()) {
    choice.wheel = wheels.back();
    choice.exact = false;
    return choice;
  }
  const int wanted = version_key(rocm_release);
  // Newest torch published for the same major.minor.
  for (auto it = wheels.rbegin(); it != wheels.rend(); ++it) {
    if (version_key(it->rocm) == wanted) {
      choice.wheel = *it;
      choice.exact = true;
      return choice;
    }
  }
  // Nearest release; on a tie the older one (a wheel's user space older than the driver is the safe side).
  const Wheel* best = nullptr;
  int best_distance = 0;
  for (auto it = wheels.rbegin(); it != wheels.rend(); ++it) {
    const int distance = std::abs(version_key(it->rocm) - wanted);
    if (best == nullptr || distance < best_distance ||
        (distance == best_distance && version_key(it->rocm) < version_key(best->rocm))) {
      best = &*it;
      best_distance = distance;
    }
  }
  choice.wheel = *best;
  choice.exact = false;
  return choice;
}

// The exact commands that replace the installed torch by the ROCm wheel for this machine.
Fix wheel_fix(const CheckContext& ctx, const std::string& python) {
  const auto& install = ctx.fact<RocmInstallation>();
  const auto release = install.active ? install.active->version : std::string();
  const auto choice = torch_wheels::choose_wheel(release);
  const auto& wheel = choice.wheel;
  std::string description;
  if (release.empty()) {
    description = fmt::format(
        "No ROCm release is installed; a ROCm wheel brings its own user-space libraries, so "
        "install the newest one (torch {}, ROCm {}); the host needs only the amdgpu driver.",
        wheel.torch, wheel.rocm);
  } else if (choice.exact) {
    description = fmt::format("Install the ROCm wheel matching the installed ROCm {} (torch {} from the {} index).",
                              release, wheel.torch, wheel.index);
  } else {
    description = fmt::format(
        "No PyTorch wheel exists for ROCm {}; the nearest is {} (torch {}). ROCm wheels bundle "
        "their own ROCm libraries, so this works with the installed amdgpu driver.",
        major_minor_of(release), wheel.index, wheel.torch);
  }
  const auto py = shell_quote(python.empty() ? std::string("python3") : python);
  return make_fix(kCheckId, description,
                  {py + " -m pip uninstall -y torch torchvision torchaudio",
                   py + " -m pip install torch==" + wheel.torch + " --index-url " + wheel.url});
}

}  // namespace rocm_doctor::torch_wheels
