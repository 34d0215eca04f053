// The PyTorch ROCm wheel table (checks/data/torch_wheels.json), the choice of a
// wheel for the installed ROCm release, and the fix that installs it: the part of
// the `torch` check that knows wheels, apart from the part that judges a torch.
#include "torch_wheels.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "probe_support.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"
#include "table_loader.h"

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

// Every (torch, index) pair of the table's wheels, oldest first. Throws "torch_wheels.json:
// KEY: what" on a missing or mistyped key or row field, or an index that is no "rocmX.Y"
// (the TableLoader makes it the error value); choose_wheel needs at least one wheel.
std::vector<Wheel> torch_wheels_from(data_table::TableReader& reader) {
  const auto base = check_tables::value_of<std::string>(reader, "index_base");
  auto rows = check_tables::read_key(reader, "wheels", [&](const nlohmann::json& wheels) {
    std::vector<Wheel> pairs;
    for (const auto& row : wheels) {
      for (const auto& index : row.at("indexes")) {
        const auto name = index.get<std::string>();
        if (!name.starts_with("rocm")) throw std::invalid_argument("index \"" + name + "\" is no rocmX.Y");
        pairs.push_back({row.at("torch").get<std::string>(), name, name.substr(4), base + name});
      }
    }
    return pairs;
  });
  if (rows.empty()) throw std::invalid_argument(reader.error("wheels", "must name at least one wheel"));
  return rows;
}

const check_tables::TableLoader<std::vector<Wheel>, &torch_wheels_from> kTorchWheelsTable("torch_wheels.json");

}  // namespace

std::vector<Wheel> table() {
  return kTorchWheelsTable.get();
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
