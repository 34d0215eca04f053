// Fields shared by the signature and family data files (read through their typed loaders,
// rocm_doctor/data_table.h): read with nlohmann, whose exceptions entries() turns into an
// error naming the file, the key and the entry.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom::data {

// The list of strings at `key`, empty when absent.
std::vector<std::string> strings(const nlohmann::json& entry, const char* key);
// The string at `key`, empty when absent.
std::string text(const nlohmann::json& entry, const char* key);
// The `causes` list: {cause, tell_apart, findings}.
std::vector<SignatureCause> causes(const nlohmann::json& entry);

// The entries of the list at top-level `key` of a data file, each read by `read`; an error
// names the file, the key, `what` (e.g. "error signature") and the entry's index.
template <typename Entry, typename Read>
tl::expected<std::vector<Entry>, std::string> entries(data_table::TableReader& reader, std::string_view key,
                                                      const std::string& what, Read read) {
  auto list = reader.at(key);
  if (!list) return tl::unexpected(list.error());
  if (!list->get().is_array()) return tl::unexpected(reader.error(key, "must be a list of " + what + "s"));
  std::vector<Entry> result;
  std::size_t index = 0;
  for (const auto& entry : list->get()) {
    try {
      result.push_back(read(entry));
    } catch (const nlohmann::json::exception& error) {
      return tl::unexpected(reader.error(key, what + " " + std::to_string(index) + ": " + error.what()));
    }
    ++index;
  }
  return result;
}

}  // namespace rocm_doctor::symptom::data
