// Policy JSON -> Policy. Every problem is a value naming the JSON path
// ("/rules/rocm") and what is wrong; the caller adds the file name.
#include "policy/policy_parse.h"

#include <nlohmann/json.hpp>

#include "policy/policy_internal.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::policy {

namespace {

Parsed<std::vector<Rule>> parse_rules(const Json& rules) {
  if (!rules.is_object()) return fail("/rules", "expected an object of rule name -> rule, found " + type_name(rules));
  std::vector<std::string> names;
  for (const auto& kind : rule_kinds()) names.emplace_back(kind.name);
  if (auto valid = only_keys(rules, "/rules", names); !valid) return tl::unexpected(valid.error());
  std::vector<Rule> result;
  for (const auto& kind : rule_kinds()) {  // evaluation order is the table's, not the file's
    const std::string key(kind.name);
    if (!rules.contains(key)) continue;
    auto rule = parse_rule(kind, rules[key], "/rules/" + key);
    if (!rule) return tl::unexpected(rule.error());
    result.push_back(std::move(*rule));
  }
  return result;
}

Parsed<std::string> reason_of(const Json& entry, const std::string& path) {
  if (!entry.contains("reason")) return fail(path, "missing \"reason\": say why, it is shown in every report");
  auto reason = text_of(entry["reason"], path + "/reason");
  if (reason && trim(*reason).empty()) return fail(path + "/reason", "is empty: say why, it is shown in every report");
  return reason;
}

Parsed<std::vector<Tolerance>> parse_tolerate(const Json& list) {
  if (!list.is_array()) return fail("/tolerate", "expected an array, found " + type_name(list));
  std::vector<Tolerance> result;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto path = "/tolerate/" + std::to_string(i);
    const auto& entry = list[i];
    if (!entry.is_object()) return fail(path, "expected an object, found " + type_name(entry));
    if (auto valid = only_keys(entry, path, {"finding", "max-severity", "reason"}); !valid) {
      return tl::unexpected(valid.error());
    }
    if (!entry.contains("finding"))
      return fail(path, "missing \"finding\" (a finding id such as env.serialize-kernel)");
    auto finding = text_of(entry["finding"], path + "/finding");
    if (!finding) return tl::unexpected(finding.error());
    if (!entry.contains("max-severity")) return fail(path, "missing \"max-severity\" (info, warning or error)");
    auto severity = severity_of(entry["max-severity"], path + "/max-severity", false);
    if (!severity) return tl::unexpected(severity.error());
    auto reason = reason_of(entry, path);
    if (!reason) return tl::unexpected(reason.error());
    result.push_back({std::move(*finding), *severity, std::move(*reason)});
  }
  return result;
}

Parsed<std::vector<SkippedCheck>> parse_skip(const Json& list) {
  if (!list.is_array()) return fail("/skip", "expected an array, found " + type_name(list));
  std::vector<SkippedCheck> result;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto path = "/skip/" + std::to_string(i);
    const auto& entry = list[i];
    if (!entry.is_object()) return fail(path, "expected {\"check\": ..., \"reason\": ...}, found " + type_name(entry));
    if (auto valid = only_keys(entry, path, {"check", "reason"}); !valid) return tl::unexpected(valid.error());
    if (!entry.contains("check")) return fail(path, "missing \"check\" (a check id, see --list-checks)");
    auto check = text_of(entry["check"], path + "/check");
    if (!check) return tl::unexpected(check.error());
    auto reason = reason_of(entry, path);
    if (!reason) return tl::unexpected(reason.error());
    result.push_back({std::move(*check), std::move(*reason)});
  }
  return result;
}

Parsed<void> check_format_version(const Json& root) {
  const std::string key(kFormatKey);
  if (!root.contains(key)) {
    return fail("",
                "not a rocm-doctor policy: the \"" + key + "\": " + std::to_string(kFormatVersion) + " key is missing");
  }
  const auto& version = root[key];
  if (!version.is_number_integer())
    return fail("/" + key, "expected an integer format version, found " + version.dump());
  if (version.get<long long>() != kFormatVersion) {
    return fail("/" + key, "policy format " + version.dump() + " is not supported: this rocm-doctor reads format " +
                               std::to_string(kFormatVersion) + " (docs/policy-format.md)");
  }
  return {};
}

std::string default_name(std::string_view label) {
  auto name = label.substr(label.find_last_of('/') == std::string_view::npos ? 0 : label.find_last_of('/') + 1);
  if (name.ends_with(".json")) name.remove_suffix(5);
  return std::string(name);
}

}  // namespace

Parsed<Policy> parse_policy_json(const Json& root, std::string_view label) {
  if (!root.is_object()) return fail("", "expected a JSON object, found " + type_name(root));
  if (auto version = check_format_version(root); !version) return tl::unexpected(version.error());
  if (auto valid = only_keys(root, "", {std::string(kFormatKey), "name", "description", "rules", "tolerate", "skip"});
      !valid) {
    return tl::unexpected(valid.error());
  }
  Policy policy;
  policy.file = std::string(label);
  policy.name = default_name(label);
  for (const auto& [key, target] : {std::pair{"name", &policy.name}, std::pair{"description", &policy.description}}) {
    if (!root.contains(key)) continue;
    auto text = text_of(root[key], std::string("/") + key);
    if (!text) return tl::unexpected(text.error());
    *target = std::move(*text);
  }
  if (root.contains("rules")) {
    auto rules = parse_rules(root["rules"]);
    if (!rules) return tl::unexpected(rules.error());
    policy.rules = std::move(*rules);
  }
  if (root.contains("tolerate")) {
    auto tolerate = parse_tolerate(root["tolerate"]);
    if (!tolerate) return tl::unexpected(tolerate.error());
    policy.tolerate = std::move(*tolerate);
  }
  if (root.contains("skip")) {
    auto skip = parse_skip(root["skip"]);
    if (!skip) return tl::unexpected(skip.error());
    policy.skip = std::move(*skip);
  }
  return policy;
}

const std::vector<std::string_view>& rule_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> result;
    for (const auto& kind : rule_kinds()) result.push_back(kind.name);
    return result;
  }();
  return names;
}

std::vector<std::string> finding_ids() {
  std::vector<std::string> ids;
  for (const auto name : rule_names()) ids.push_back("policy." + std::string(name));
  return ids;
}

}  // namespace rocm_doctor::policy
