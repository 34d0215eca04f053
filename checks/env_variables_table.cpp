// The typed loader of checks/data/env_variables.json (env_variables_table.h).
#include "env_variables_table.h"

#include "rocm_doctor/data_table.h"

namespace rocm_doctor::env_lint {
namespace {

constexpr std::string_view kEnvVariablesFile = "env_variables.json";

tl::expected<EnvVariablesTable, std::string> read_env_variables_table(data_table::TableReader& reader) {
  EnvVariablesTable table;
  const std::pair<std::string_view, std::vector<std::string>*> lists[] = {
      {"prefixes", &table.prefixes},
      {"strict_distance_prefixes", &table.strict_prefixes},
      {"known", &table.known},
      {"patterns", &table.patterns},
      {"visibility_variables", &table.visibility_variables},
      {"alloc_conf_variables", &table.alloc_conf_variables},
      {"arch_list_variables", &table.arch_list_variables},
      {"path_variables", &table.path_variables},
      {"tools", &table.tools},
  };
  for (const auto& [key, list] : lists) {
    auto values = reader.strings(key);
    if (!values) return tl::unexpected(values.error());
    *list = std::move(*values);
  }
  if (table.visibility_variables.empty() || table.visibility_variables.front() != "ROCR_VISIBLE_DEVICES") {
    return tl::unexpected(reader.error("visibility_variables", "must start with ROCR_VISIBLE_DEVICES"));
  }
  const auto& foreign = reader.optional("foreign");
  for (const auto& row : foreign) {
    auto name = data_table::text_field(row, "name");
    if (name.empty()) return tl::unexpected(reader.error("foreign", "a row has no name"));
    table.foreign.push_back(std::move(name));
  }
  auto invented = reader.at("invented");
  if (!invented) return tl::unexpected(invented.error());
  const nlohmann::json& invented_rows = invented->get();
  for (const auto& row : invented_rows) {
    const auto name = data_table::text_field(row, "name");
    if (name.empty()) return tl::unexpected(reader.error("invented", "a row has no name"));
    table.invented[name] = {data_table::text_field(row, "why"), data_table::text_field(row, "instead")};
  }
  return table;
}

[[maybe_unused]] const bool kEnvVariablesLoaderRegistered =
    data_table::register_table_loader<EnvVariablesTable, &read_env_variables_table>(kEnvVariablesFile);

}  // namespace

const EnvVariablesTable& env_variables_table() {
  return data_table::require(data_table::load<EnvVariablesTable, &read_env_variables_table>(kEnvVariablesFile));
}

}  // namespace rocm_doctor::env_lint
