// The typed table loaders' shared half (include/rocm_doctor/data_table.h): the reader that
// records which top-level keys are read, and the registry of loaders the key test runs.
#include "rocm_doctor/data_table.h"

#include <fmt/format.h>

#include "rocm_doctor/knowledge.h"

namespace rocm_doctor::data_table {
namespace {

struct KeysReadRegistry {
  std::mutex mutex;
  std::map<std::string, std::set<std::string>, std::less<>> keys;
};

KeysReadRegistry& keys_read_registry() {
  static KeysReadRegistry instance;
  return instance;
}

std::multimap<std::string, LoaderProbe>& loader_registry() {
  static std::multimap<std::string, LoaderProbe> instance;
  return instance;
}

const char* json_type_name(const nlohmann::json& value) {
  return value.is_null() ? "null" : value.type_name();
}

}  // namespace

TableReader::TableReader(std::string_view file, const nlohmann::json& root) : file_(file), root_(root) {}

std::string TableReader::error(std::string_view key, std::string_view what) const {
  return fmt::format("{}: {}: {}", file_, key, what);
}

tl::expected<std::reference_wrapper<const nlohmann::json>, std::string> TableReader::at(std::string_view key) {
  note_key_read(file_, key);
  const auto it = root_.find(key);
  if (it == root_.end()) return tl::unexpected(error(key, "missing"));
  return std::cref(*it);
}

const nlohmann::json& TableReader::optional(std::string_view key) {
  static const nlohmann::json kAbsent;
  note_key_read(file_, key);
  const auto it = root_.find(key);
  return it == root_.end() ? kAbsent : *it;
}

tl::expected<std::string, std::string> TableReader::text(std::string_view key) {
  auto value = at(key);
  if (!value) return tl::unexpected(value.error());
  if (!value->get().is_string()) {
    return tl::unexpected(error(key, fmt::format("must be a string, is {}", json_type_name(value->get()))));
  }
  return value->get().get<std::string>();
}

tl::expected<std::vector<std::string>, std::string> TableReader::strings(std::string_view key) {
  auto value = at(key);
  if (!value) return tl::unexpected(value.error());
  const nlohmann::json& list = value->get();
  if (!list.is_array()) return tl::unexpected(error(key, fmt::format("must be a list, is {}", json_type_name(list))));
  std::vector<std::string> result;
  for (const auto& entry : list) {
    if (!entry.is_string()) {
      return tl::unexpected(
          error(key, fmt::format("row {}: must be a string, is {}", result.size(), json_type_name(entry))));
    }
    result.push_back(entry.get<std::string>());
  }
  return result;
}

tl::expected<double, std::string> TableReader::number(std::string_view key) {
  auto value = at(key);
  if (!value) return tl::unexpected(value.error());
  if (!value->get().is_number()) {
    return tl::unexpected(error(key, fmt::format("must be a number, is {}", json_type_name(value->get()))));
  }
  return value->get().get<double>();
}

tl::expected<std::string, std::string> TableReader::text_or(std::string_view key, std::string_view fallback) {
  const auto& value = optional(key);
  if (value.is_null()) return std::string(fallback);
  if (!value.is_string()) return tl::unexpected(error(key, fmt::format("must be a string, is {}", value.type_name())));
  return value.get<std::string>();
}

std::string text_field(const nlohmann::json& row, std::string_view field) {
  if (!row.is_object()) return {};
  const auto it = row.find(field);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::set<std::string> keys_read(std::string_view file) {
  auto& registry = keys_read_registry();
  const std::lock_guard lock(registry.mutex);
  const auto it = registry.keys.find(file);
  return it == registry.keys.end() ? std::set<std::string>{} : it->second;
}

void note_key_read(std::string_view file, std::string_view key) {
  auto& registry = keys_read_registry();
  const std::lock_guard lock(registry.mutex);
  auto it = registry.keys.find(file);
  if (it == registry.keys.end()) it = registry.keys.emplace(std::string(file), std::set<std::string>{}).first;
  it->second.emplace(key);
}

bool register_loader(std::string_view file, LoaderProbe probe) {
  loader_registry().emplace(std::string(file), std::move(probe));
  return true;
}

const std::multimap<std::string, LoaderProbe>& registered_loaders() {
  return loader_registry();
}

tl::expected<nlohmann::json, std::string> parse_table_text(std::string_view file, std::string_view text) {
  if (text.empty()) return tl::unexpected(fmt::format("{}: no such knowledge table", file));
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return tl::unexpected(fmt::format("{}: not valid JSON", file));
  if (!parsed.is_object()) return tl::unexpected(fmt::format("{}: not a JSON object", file));
  return parsed;
}

namespace detail {
std::string_view current_text(std::string_view file) {
  return knowledge::table_text(file);
}
}  // namespace detail

}  // namespace rocm_doctor::data_table
