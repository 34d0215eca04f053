// `wsl`: checks/data/wsl.json, parsed once.
#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "wsl.h"

namespace rocm_doctor::wsl {

namespace {

Data parse() {
  const auto json = nlohmann::json::parse(embedded::data_wsl());
  Data d;
  d.libraries = json.at("runtime_libraries").get<std::vector<std::string>>();
  d.legacy_package = json.at("legacy_runtime_package").get<std::string>();
  d.enable_variable = json.at("enable_variable").get<std::string>();
  d.lib_dir = json.at("wsl_lib_dir").get<std::string>();
  d.dxcore = json.at("dxcore").get<std::string>();
  d.driver_requirement = json.at("driver_requirement").get<std::string>();
  d.driver_source = json.at("driver_requirement_source").get<std::string>();
  for (const auto& row : json.at("supported")) {
    d.supported.push_back({row.at("gfx").get<std::string>(), row.at("products").get<std::vector<std::string>>(),
                           row.at("since").get<std::string>(), row.value("note", std::string())});
  }
  for (const auto& row : json.at("releases")) {
    d.releases.push_back({row.at("rocm").get<std::string>(), row.at("runtime").get<std::string>(),
                          row.at("adrenalin").get<std::string>(), row.value("source", std::string())});
  }
  const auto& dxg = json.at("dxg_detection");
  d.dxg_required_before = dxg.at("required_before").get<std::string>();
  d.dxg_disable_value = dxg.at("disable_value").get<std::string>();
  d.dxg_source = dxg.at("source").get<std::string>();
  const auto& windows = json.at("windows");
  d.windows_min_build = windows.at("min_build").get<unsigned>();
  d.windows_name = windows.at("name").get<std::string>();
  d.windows_source = windows.at("source").get<std::string>();
  d.inbox_kernels = windows.at("inbox_kernels").get<std::vector<std::string>>();
  d.inbox_kernels_source = windows.at("inbox_kernels_source").get<std::string>();
  d.min_kernel = windows.at("min_kernel").get<std::string>();
  d.min_kernel_note = windows.at("min_kernel_note").get<std::string>();
  d.driver_store_dir = json.at("driver_store").at("dir").get<std::string>();
  d.amd_package_prefix = json.at("driver_store").at("amd_package_prefix").get<std::string>();
  d.interop_binfmt = json.at("interop").at("binfmt").get<std::vector<std::string>>();
  return d;
}

}  // namespace

const Data& data() {
  static const Data parsed = parse();
  return parsed;
}

}  // namespace rocm_doctor::wsl
