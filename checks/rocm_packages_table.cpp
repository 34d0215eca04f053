// The typed loader of checks/data/rocm_packages.json (rocm_packages_table.h).
#include "rocm_packages_table.h"

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/text_case.h"

namespace rocm_doctor::packages {
namespace {

constexpr std::string_view kRocmPackagesFile = "rocm_packages.json";

tl::expected<RocmPackagesTable, std::string> read_rocm_packages_table(data_table::TableReader& reader) {
  RocmPackagesTable table;
  const std::pair<std::string_view, std::vector<std::string>*> lists[] = {
      {"repo_hosts", &table.legacy_hosts},
      {"package_prefixes", &table.package_prefixes},
      {"package_exclude_prefixes", &table.package_exclude_prefixes},
      {"broken_states", &table.broken_states},
  };
  for (const auto& [key, list] : lists) {
    auto values = reader.strings(key);
    if (!values) return tl::unexpected(values.error());
    *list = std::move(*values);
  }
  if (table.legacy_hosts.empty()) return tl::unexpected(reader.error("repo_hosts", "must name at least one host"));
  for (auto& host : table.legacy_hosts) host = lower(host);
  for (auto* field : {&table.key_url, &table.keyring}) {
    auto value = reader.text(field == &table.key_url ? "key_url" : "keyring");
    if (!value) return tl::unexpected(value.error());
    *field = std::move(*value);
  }
  const auto& channels = reader.optional("core_sdk_channels");  // before ROCm 7.14 there are none
  if (!channels.is_null() && !channels.is_object()) {
    return tl::unexpected(reader.error("core_sdk_channels", "must be an object"));
  }
  if (channels.is_object() && channels.contains("hosts")) {
    const auto& hosts = channels["hosts"];
    for (const auto& host : hosts) {
      if (!host.is_string()) return tl::unexpected(reader.error("core_sdk_channels", "hosts: must be strings"));
      table.core_sdk_hosts.push_back(lower(host.get<std::string>()));
    }
  }
  return table;
}

[[maybe_unused]] const bool kRocmPackagesLoaderRegistered =
    data_table::register_table_loader<RocmPackagesTable, &read_rocm_packages_table>(kRocmPackagesFile);

}  // namespace

const RocmPackagesTable& rocm_packages_table() {
  return data_table::require(data_table::load<RocmPackagesTable, &read_rocm_packages_table>(kRocmPackagesFile));
}

}  // namespace rocm_doctor::packages
