// Parses checks/data/causal_rules.json (docs/architecture.md#root-causes).
#include <nlohmann/json.hpp>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/diagnosis.h"

namespace rocm_doctor {

namespace {

using Json = nlohmann::json;

tl::expected<std::vector<std::string>, std::string> id_list(const Json& rule, const char* key, bool required) {
  if (!rule.contains(key)) {
    if (required) return tl::unexpected(std::string("'") + key + "' is missing");
    return std::vector<std::string>{};
  }
  const auto& value = rule.at(key);
  if (!value.is_array()) return tl::unexpected(std::string("'") + key + "' is not a list");
  std::vector<std::string> ids;
  for (const auto& item : value) {
    if (!item.is_string() || item.get<std::string>().empty())
      return tl::unexpected(std::string("'") + key + "' holds a non-string or empty entry");
    ids.push_back(item.get<std::string>());
  }
  return ids;
}

tl::expected<CausalCondition, std::string> parse_condition(const Json& raw) {
  if (!raw.is_object()) return tl::unexpected(std::string("an 'only_when' entry is not an object"));
  CausalCondition condition;
  const auto of = raw.value("finding", "effect");
  if (of == "cause") {
    condition.of = CausalCondition::Of::cause;
  } else if (of == "effect") {
    condition.of = CausalCondition::Of::effect;
  } else {
    return tl::unexpected("'finding' must be \"cause\" or \"effect\", not \"" + of + "\"");
  }
  const auto field = raw.value("field", "evidence");
  if (field == "summary") {
    condition.field = CausalCondition::Field::summary;
  } else if (field == "detail") {
    condition.field = CausalCondition::Field::detail;
  } else if (field == "evidence") {
    condition.field = CausalCondition::Field::evidence;
  } else {
    return tl::unexpected("'field' must be summary, detail or evidence, not \"" + field + "\"");
  }
  if (!raw.contains("matches") || !raw.at("matches").is_string())
    return tl::unexpected(std::string("'matches' (a regular expression) is missing"));
  condition.pattern = raw.at("matches").get<std::string>();
  try {
    condition.regex = std::regex(condition.pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& error) {
    return tl::unexpected("'matches' is not a valid regular expression: " + std::string(error.what()));
  }
  return condition;
}

tl::expected<CausalRule, std::string> parse_rule(const Json& raw) {
  if (!raw.is_object()) return tl::unexpected(std::string("not an object"));
  CausalRule rule;
  if (!raw.contains("cause") || !raw.at("cause").is_string() || raw.at("cause").get<std::string>().empty())
    return tl::unexpected(std::string("'cause' (a finding id) is missing"));
  rule.cause = raw.at("cause").get<std::string>();
  auto explains = id_list(raw, "explains", true);
  if (!explains) return tl::unexpected(explains.error());
  if (explains->empty()) return tl::unexpected(std::string("'explains' is empty"));
  rule.explains = std::move(*explains);
  auto except = id_list(raw, "except", false);
  if (!except) return tl::unexpected(except.error());
  rule.except = std::move(*except);
  if (raw.contains("only_when")) {
    if (!raw.at("only_when").is_array()) return tl::unexpected(std::string("'only_when' is not a list"));
    for (const auto& item : raw.at("only_when")) {
      auto condition = parse_condition(item);
      if (!condition) return tl::unexpected(condition.error());
      rule.only_when.push_back(std::move(*condition));
    }
  }
  rule.drop_fixes = raw.value("drop_fixes", false);
  rule.reason = raw.value("reason", "");
  rule.source = raw.value("source", "");
  if (rule.reason.empty()) return tl::unexpected(std::string("'reason' is missing (say why the cause explains them)"));
  if (rule.source.empty()) return tl::unexpected(std::string("'source' is missing (name where the rule comes from)"));
  return rule;
}

constexpr std::string_view kCausalRulesFile = "causal_rules.json";

// Errors: "causal_rules.json: rules: rule N: what is wrong" (N counts from 1).
tl::expected<std::vector<CausalRule>, std::string> read_causal_rules_table(data_table::TableReader& reader) {
  auto list = reader.at("rules");
  if (!list) return tl::unexpected(list.error());
  const Json& raw_rules = list->get();
  if (!raw_rules.is_array()) return tl::unexpected(reader.error("rules", "must be a list"));
  std::vector<CausalRule> rules;
  for (std::size_t index = 0; index < raw_rules.size(); ++index) {
    auto rule = parse_rule(raw_rules[index]);
    if (!rule) return tl::unexpected(reader.error("rules", "rule " + std::to_string(index + 1) + ": " + rule.error()));
    rules.push_back(std::move(*rule));
  }
  return rules;
}

[[maybe_unused]] const bool kCausalRulesLoaderRegistered =
    data_table::register_table_loader<std::vector<CausalRule>, &read_causal_rules_table>(kCausalRulesFile);

}  // namespace

tl::expected<std::vector<CausalRule>, std::string> parse_causal_rules(std::string_view json_text) {
  return data_table::read_text<std::vector<CausalRule>, &read_causal_rules_table>(kCausalRulesFile, json_text);
}

// Parsed once per table text (overlays included). The built-in table is held valid by
// tests/core/diagnosis_test.cpp; a broken one explains nothing, as before the loader.
const std::vector<CausalRule>& causal_rules() {
  static const std::vector<CausalRule> kNoRules;
  const auto& loaded = data_table::load<std::vector<CausalRule>, &read_causal_rules_table>(kCausalRulesFile);
  return loaded ? *loaded : kNoRules;
}

}  // namespace rocm_doctor
