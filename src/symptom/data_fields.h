// Fields shared by the signature and family data files: read with nlohmann,
// whose exceptions the callers turn into an error naming the entry.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom::data {

// The list of strings at `key`, empty when absent.
std::vector<std::string> strings(const nlohmann::json& entry, const char* key);
// The string at `key`, empty when absent.
std::string text(const nlohmann::json& entry, const char* key);
// The `causes` list: {cause, tell_apart, findings}.
std::vector<SignatureCause> causes(const nlohmann::json& entry);

}  // namespace rocm_doctor::symptom::data
