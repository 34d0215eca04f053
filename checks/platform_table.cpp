// The typed loader of checks/data/platform.json (platform.h): os-release IDs to the
// distribution names of the ROCm support list, and the DMI names of hypervisors.
#include <nlohmann/json.hpp>

#include "platform.h"
#include "table_loader.h"

namespace rocm_doctor::platform {
namespace {

// Throws "platform.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
PlatformTable platform_table_from(data_table::TableReader& reader) {
  PlatformTable table;
  table.distributions = check_tables::value_of<std::map<std::string, std::string>>(reader, "distributions");
  table.like = check_tables::value_of<std::map<std::string, std::string>>(reader, "like");
  table.hypervisor_vendors = check_tables::read_key(reader, "hypervisor_vendors", [](const nlohmann::json& rows) {
    std::vector<HypervisorVendor> vendors;
    for (const auto& row : rows)
      vendors.push_back({row.at("match").get<std::string>(), row.at("name").get<std::string>()});
    return vendors;
  });
  return table;
}

const check_tables::TableLoader<PlatformTable, &platform_table_from> kPlatformTable("platform.json");

}  // namespace

const PlatformTable& platform_table() {
  return kPlatformTable.get();
}

}  // namespace rocm_doctor::platform
