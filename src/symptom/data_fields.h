// Fields shared by the signature and family data files: read with nlohmann,
// whose exceptions the callers turn into an error naming the entry.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom::data {

// The list of strings at `key`, empty when absent.
std::vector<std::string> strings(const nlohmann::json& entry, const char* key);
// The string at `key`, empty when absent.
std::string text(const nlohmann::json& entry, const char* key);
// The `causes` list: {cause, tell_apart, findings}.
std::vector<SignatureCause> causes(const nlohmann::json& entry);

// The entries of the list at `key` of a data file, each read by `read`; an
// error names `what` (e.g. "error signature") and the entry's index.
template <typename Entry, typename Read>
tl::expected<std::vector<Entry>, std::string> entries(std::string_view json_text, const char* key,
                                                      const std::string& what, Read read) {
  const auto document = nlohmann::json::parse(json_text, nullptr, false);
  if (document.is_discarded() || !document.is_object() || !document.contains(key)) {
    return tl::unexpected(what + "s: not a JSON object with a '" + key + "' list");
  }
  std::vector<Entry> result;
  std::size_t index = 0;
  for (const auto& entry : document.at(key)) {
    try {
      result.push_back(read(entry));
    } catch (const nlohmann::json::exception& error) {
      return tl::unexpected(what + " " + std::to_string(index) + ": " + error.what());
    }
    ++index;
  }
  return result;
}

}  // namespace rocm_doctor::symptom::data
