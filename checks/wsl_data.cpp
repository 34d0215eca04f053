// `wsl`: the typed loader of checks/data/wsl.json (rocm_doctor/wsl_table.h), shared by the
// check and the WSL interop probe.
#include <nlohmann/json.hpp>

#include "rocm_doctor/wsl_table.h"
#include "table_loader.h"

namespace rocm_doctor::wsl {

namespace {

std::vector<SupportRow> wsl_supported_rows(const nlohmann::json& rows) {
  std::vector<SupportRow> result;
  for (const auto& row : rows) {
    result.push_back({row.at("gfx").get<std::string>(), row.at("products").get<std::vector<std::string>>(),
                      row.at("since").get<std::string>(), row.value("note", std::string())});
  }
  return result;
}

std::vector<ReleaseRow> wsl_release_rows(const nlohmann::json& rows) {
  std::vector<ReleaseRow> result;
  for (const auto& row : rows) {
    result.push_back({row.at("rocm").get<std::string>(), row.at("runtime").get<std::string>(),
                      row.at("adrenalin").get<std::string>(), row.value("source", std::string())});
  }
  return result;
}

// The objects' fields (dxg_detection, windows, driver_store, interop); their errors name the key.
void read_wsl_objects(data_table::TableReader& reader, Data& d) {
  check_tables::read_key(reader, "dxg_detection", [&](const nlohmann::json& dxg) {
    d.dxg_required_before = dxg.at("required_before").get<std::string>();
    d.dxg_disable_value = dxg.at("disable_value").get<std::string>();
    d.dxg_source = dxg.at("source").get<std::string>();
  });
  check_tables::read_key(reader, "windows", [&](const nlohmann::json& windows) {
    d.windows_min_build = windows.at("min_build").get<unsigned>();
    d.windows_name = windows.at("name").get<std::string>();
    d.windows_source = windows.at("source").get<std::string>();
    d.inbox_kernels = windows.at("inbox_kernels").get<std::vector<std::string>>();
    d.inbox_kernels_source = windows.at("inbox_kernels_source").get<std::string>();
    d.min_kernel = windows.at("min_kernel").get<std::string>();
    d.min_kernel_note = windows.at("min_kernel_note").get<std::string>();
  });
  check_tables::read_key(reader, "driver_store", [&](const nlohmann::json& store) {
    d.driver_store_dir = store.at("dir").get<std::string>();
    d.amd_package_prefix = store.at("amd_package_prefix").get<std::string>();
  });
  check_tables::read_key(reader, "interop", [&](const nlohmann::json& interop) {
    d.interop_binfmt = interop.at("binfmt").get<std::vector<std::string>>();
    d.interop_windows_folder = interop.at("windows_folder").get<std::string>();
  });
}

// Throws "wsl.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
Data wsl_data_from(data_table::TableReader& reader) {
  Data d;
  d.libraries = check_tables::value_of<std::vector<std::string>>(reader, "runtime_libraries");
  d.legacy_package = check_tables::value_of<std::string>(reader, "legacy_runtime_package");
  d.enable_variable = check_tables::value_of<std::string>(reader, "enable_variable");
  d.lib_dir = check_tables::value_of<std::string>(reader, "wsl_lib_dir");
  d.dxcore = check_tables::value_of<std::string>(reader, "dxcore");
  d.driver_requirement = check_tables::value_of<std::string>(reader, "driver_requirement");
  d.driver_source = check_tables::value_of<std::string>(reader, "driver_requirement_source");
  d.supported = check_tables::read_key(reader, "supported", wsl_supported_rows);
  d.releases = check_tables::read_key(reader, "releases", wsl_release_rows);
  read_wsl_objects(reader, d);
  return d;
}

const check_tables::TableLoader<Data, &wsl_data_from> kWslTable("wsl.json");

}  // namespace

const data_table::LoadResult<Data>& load_table() {
  return kWslTable.load();
}

const Data& data() {
  return kWslTable.get();
}

}  // namespace rocm_doctor::wsl
