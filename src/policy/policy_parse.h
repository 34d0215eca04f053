// Shared by the policy parser's files: the JSON value readers every rule uses
// (policy_json_read.cpp), and the table of rule kinds with their parsers
// (policy_parse_rules.cpp). policy_parse.cpp reads the document around them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "policy/policy_internal.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/versions.h"

namespace rocm_doctor::policy {

using Json = nlohmann::json;

// ---- JSON value readers: each names the JSON path of what is wrong ----
tl::unexpected<PathError> fail(std::string path, std::string problem);
std::string type_name(const Json& value);
// " (did you mean 'x'?)" when a known word is close to `word`, else "".
std::string suggestion(std::string_view word, const std::vector<std::string>& known);
Parsed<void> only_keys(const Json& object, const std::string& path, const std::vector<std::string>& allowed);
Parsed<std::string> text_of(const Json& value, const std::string& path);
Parsed<std::vector<std::string>> texts_of(const Json& value, const std::string& path);
Parsed<versions::Range> range_of(const Json& value, const std::string& path);
Parsed<Severity> severity_of(const Json& value, const std::string& path, bool allow_ok);
// gfx names as the kernel and ROCm spell them: gfx942, gfx90a, gfx1100 (feature suffixes are not targets).
Parsed<std::vector<std::string>> gfx_list(const Json& value, const std::string& path);
Parsed<int> positive_int(const Json& value, const std::string& path);
Parsed<double> positive_number(const Json& value, const std::string& path);

// ---- the rule kinds ----
struct RuleKind {
  std::string_view name;
  Parsed<RuleSpec> (*parse)(const Json&, const std::string&);
  std::vector<std::string> object_keys;  // besides "severity" and "message"
};

// Every rule kind, in evaluation order.
const std::vector<RuleKind>& rule_kinds();
// One rule: its "severity" and "message" keys, then the kind's own parser.
Parsed<Rule> parse_rule(const RuleKind& kind, const Json& value, const std::string& path);

}  // namespace rocm_doctor::policy
