// Shared inside src/policy/: the parser's error type and its JSON entry point.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "rocm_doctor/policy.h"

namespace rocm_doctor::policy {

// A problem in a policy's content: where (a JSON pointer, "" for the document) and what.
struct PathError {
  std::string path;
  std::string problem;
};

template <typename T>
using Parsed = tl::expected<T, PathError>;

// A parsed JSON document -> Policy; `label` names the file (and gives the default name).
Parsed<Policy> parse_policy_json(const nlohmann::json& root, std::string_view label);

}  // namespace rocm_doctor::policy
