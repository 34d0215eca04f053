// The text report's ROCm installs block (issue 27): every ROCm on the machine, one line each,
// from the report's `rocm.installs` (docs/report-format.md#rocm); -v adds who uses each.
#include <fmt/format.h>

#include "render/formats.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::render_support {

namespace {

// Machine text goes to a terminal: control characters become \xNN (as in text_report.cpp).
std::string shown_json_string(const nlohmann::ordered_json& value) {
  return value.is_string() ? displayable(value.get<std::string>(), 200, false) : std::string("?");
}

// "  ollama           ROCm 7.2    /usr/lib/ollama/rocm_v7_2  gfx1151 gfx1201".
std::string install_line(const nlohmann::ordered_json& install) {
  const auto version = install.value("version", nlohmann::ordered_json());
  std::string line =
      fmt::format("  {:<16} {:<11} {}", shown_json_string(install.value("kind", nlohmann::ordered_json())),
                  version.is_string() ? "ROCm " + shown_json_string(version) : std::string("ROCm ?"),
                  shown_json_string(install.value("prefix", nlohmann::ordered_json())));
  std::vector<std::string> targets;
  for (const auto& gfx : install.value("gfx_targets", nlohmann::ordered_json::array()))
    targets.push_back(shown_json_string(gfx));
  if (!targets.empty()) line += "  " + join(targets, " ");
  if (install.value("hip_runtime", nlohmann::ordered_json()).is_null()) line += "  (no HIP runtime of its own)";
  const auto selected = install.value("selected_by", nlohmann::ordered_json());
  if (selected.is_string()) line += "  [" + shown_json_string(selected) + "]";
  return line + "\n";
}

}  // namespace

std::string text_installs_block(const Report& report, Verbosity verbosity) {
  const auto section = report.sections.find("rocm");
  if (section == report.sections.end() || !section->second.is_object()) return "";
  const auto installs = section->second.value("installs", nlohmann::ordered_json::array());
  if (!installs.is_array() || installs.empty()) return "";
  std::string out = "ROCm installs:\n";
  for (const auto& install : installs) {
    if (!install.is_object()) continue;
    out += install_line(install);
    if (verbosity != Verbosity::verbose) continue;
    for (const auto& user : install.value("used_by", nlohmann::ordered_json::array())) {
      out += "      used by " + shown_json_string(user) + "\n";
    }
  }
  return out + "\n";
}

}  // namespace rocm_doctor::render_support
