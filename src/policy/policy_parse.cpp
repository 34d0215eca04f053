// Policy JSON -> Policy. Every problem is a value naming the JSON path
// ("/rules/rocm") and what is wrong; the caller adds the file name.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>

#include "policy/policy_internal.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::policy {

namespace {

using Json = nlohmann::json;

tl::unexpected<PathError> fail(std::string path, std::string problem) {
  return tl::unexpected(PathError{std::move(path), std::move(problem)});
}

std::string type_name(const Json& value) {
  return value.type_name();
}

std::string suggestion(std::string_view word, const std::vector<std::string>& known) {
  const auto match = closest_match(word, known, std::max<std::size_t>(1, word.size() / 3));
  return match ? " (did you mean '" + *match + "'?)" : "";
}

Parsed<void> only_keys(const Json& object, const std::string& path, const std::vector<std::string>& allowed) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    return fail(path + "/" + key,
                "unknown key '" + key + "'" + suggestion(key, allowed) + "; expected one of: " + join(allowed, ", "));
  }
  return {};
}

Parsed<std::string> text_of(const Json& value, const std::string& path) {
  if (!value.is_string()) return fail(path, "expected a string, found " + type_name(value));
  return value.get<std::string>();
}

Parsed<std::vector<std::string>> texts_of(const Json& value, const std::string& path) {
  if (!value.is_array()) return fail(path, "expected an array of strings, found " + type_name(value));
  std::vector<std::string> result;
  for (std::size_t i = 0; i < value.size(); ++i) {
    auto text = text_of(value[i], path + "/" + std::to_string(i));
    if (!text) return tl::unexpected(text.error());
    result.push_back(std::move(*text));
  }
  return result;
}

Parsed<versions::Range> range_of(const Json& value, const std::string& path) {
  auto text = text_of(value, path);
  if (!text) return tl::unexpected(text.error());
  auto range = versions::parse_range(*text);
  if (!range) return fail(path, "bad version range: " + range.error());
  return std::move(*range);
}

Parsed<Severity> severity_of(const Json& value, const std::string& path, bool allow_ok) {
  auto text = text_of(value, path);
  if (!text) return tl::unexpected(text.error());
  const auto severity = parse_severity(*text);
  if (!severity || (!allow_ok && *severity == Severity::ok)) {
    return fail(path, "'" + *text + "' is not a severity; expected " + (allow_ok ? "ok, " : std::string()) +
                          "info, warning or error");
  }
  return *severity;
}

// gfx names as the kernel and ROCm spell them: gfx942, gfx90a, gfx1100 (feature suffixes are not targets).
Parsed<std::vector<std::string>> gfx_list(const Json& value, const std::string& path) {
  auto names = texts_of(value, path);
  if (!names) return names;
  static const std::regex kGfx("gfx[0-9]{1,2}[0-9a-f]{2}");
  for (std::size_t i = 0; i < names->size(); ++i) {
    if (!std::regex_match((*names)[i], kGfx)) {
      return fail(path + "/" + std::to_string(i),
                  "'" + (*names)[i] + "' is not a gfx target such as gfx942 or gfx1100");
    }
  }
  return names;
}

Parsed<int> positive_int(const Json& value, const std::string& path) {
  if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > 1'000'000) {
    return fail(path, "expected a whole number of at least 1, found " + value.dump());
  }
  return static_cast<int>(value.get<long long>());
}

Parsed<double> positive_number(const Json& value, const std::string& path) {
  if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>())) {
    return fail(path, "expected a number greater than 0, found " + value.dump());
  }
  return value.get<double>();
}

// ---- one parser per rule kind: the shorthand value, or the object's own keys ----

Parsed<RuleSpec> parse_version_rule(const Json& value, const std::string& path) {
  if (value.is_object()) {
    if (!value.contains("version")) return fail(path, "missing \"version\" (a range such as \">=6.2,<6.3\")");
    auto range = range_of(value["version"], path + "/version");
    if (!range) return tl::unexpected(range.error());
    return VersionRule{std::move(*range)};
  }
  auto range = range_of(value, path);
  if (!range) return tl::unexpected(range.error());
  return VersionRule{std::move(*range)};
}

// The amdgpu-driver and torch rules: a bare range means "version", an object
// gives "version" and/or "rocm" (the ROCm release the driver or wheel is for).
template <typename Rule>
Parsed<RuleSpec> parse_version_and_rocm_rule(const Json& value, const std::string& path) {
  Rule rule;
  if (!value.is_object()) {
    auto range = range_of(value, path);
    if (!range) return tl::unexpected(range.error());
    rule.version = std::move(*range);
    return rule;
  }
  for (const auto& [key, target] : {std::pair{"version", &rule.version}, std::pair{"rocm", &rule.rocm}}) {
    if (!value.contains(key)) continue;
    auto range = range_of(value[key], path + "/" + key);
    if (!range) return tl::unexpected(range.error());
    *target = std::move(*range);
  }
  if (!rule.version && !rule.rocm) return fail(path, "needs \"version\" and/or \"rocm\"");
  return rule;
}

Parsed<RuleSpec> parse_driver_rule(const Json& value, const std::string& path) {
  return parse_version_and_rocm_rule<DriverRule>(value, path);
}

Parsed<RuleSpec> parse_gfx_rule(const Json& value, const std::string& path) {
  GfxRule rule;
  if (value.is_array()) {
    auto names = gfx_list(value, path);
    if (!names) return tl::unexpected(names.error());
    rule.require = std::move(*names);
  } else if (value.is_object()) {
    for (const auto& [key, target] : {std::pair{"require", &rule.require}, std::pair{"allow", &rule.allow}}) {
      if (!value.contains(key)) continue;
      auto names = gfx_list(value[key], path + "/" + key);
      if (!names) return tl::unexpected(names.error());
      *target = std::move(*names);
    }
  } else {
    return fail(path, "expected an array of gfx targets or an object, found " + type_name(value));
  }
  if (rule.require.empty() && rule.allow.empty()) return fail(path, "names no gfx target (\"require\" or \"allow\")");
  return rule;
}

Parsed<RuleSpec> parse_gpu_count_rule(const Json& value, const std::string& path) {
  const bool object = value.is_object();
  if (object && !value.contains("min")) return fail(path, "missing \"min\"");
  auto count = positive_int(object ? value["min"] : value, object ? path + "/min" : path);
  if (!count) return tl::unexpected(count.error());
  return GpuCountRule{*count};
}

Parsed<RuleSpec> parse_gpu_vram_rule(const Json& value, const std::string& path) {
  const bool object = value.is_object();
  if (object && !value.contains("min-gib")) return fail(path, "missing \"min-gib\"");
  auto gib = positive_number(object ? value["min-gib"] : value, object ? path + "/min-gib" : path);
  if (!gib) return tl::unexpected(gib.error());
  return GpuVramRule{*gib};
}

Parsed<RuleSpec> parse_torch_rule(const Json& value, const std::string& path) {
  return parse_version_and_rocm_rule<TorchRule>(value, path);
}

std::vector<std::string> known_library_names() {
  std::vector<std::string> names;
  for (const auto& library : kb::knowledge_base().libraries()) names.push_back(library.name);
  return names;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Names match without regard to case ("rocblas" is rocBLAS); the table's spelling is kept.
Parsed<std::string> library_name(const std::string& name, const std::string& path) {
  const auto known = known_library_names();
  std::vector<std::string> lowered;
  for (const auto& candidate : known) lowered.push_back(lower(candidate));
  const auto it = std::find(lowered.begin(), lowered.end(), lower(name));
  if (it != lowered.end()) return known[static_cast<std::size_t>(it - lowered.begin())];
  std::string hint;
  if (const auto match = closest_match(lower(name), lowered, std::max<std::size_t>(1, name.size() / 3))) {
    const auto index = std::find(lowered.begin(), lowered.end(), *match) - lowered.begin();
    hint = " (did you mean '" + known[static_cast<std::size_t>(index)] + "'?)";
  }
  return fail(path, "unknown library '" + name + "'" + hint + "; known: " + join(known, ", "));
}

bool has_kernel_files(std::string_view name) {
  const auto& libraries = kb::knowledge_base().libraries();
  const auto it = std::find_if(libraries.begin(), libraries.end(), [&](const auto& l) { return l.name == name; });
  return it != libraries.end() && it->kernels.has_value();
}

Parsed<RuleSpec> parse_libraries_rule(const Json& value, const std::string& path) {
  const Json& list = value.is_object() ? value.value("require", Json()) : value;
  const std::string list_path = value.is_object() ? path + "/require" : path;
  if (value.is_object() && !value.contains("require")) return fail(path, "missing \"require\"");
  LibrariesRule rule;
  if (list.is_array()) {
    auto names = texts_of(list, list_path);
    if (!names) return tl::unexpected(names.error());
    for (std::size_t i = 0; i < names->size(); ++i) {
      auto name = library_name((*names)[i], list_path + "/" + std::to_string(i));
      if (!name) return tl::unexpected(name.error());
      rule.require.push_back({std::move(*name), {}});
    }
  } else if (list.is_object() && value.is_object()) {
    for (const auto& [key, targets] : list.items()) {
      auto name = library_name(key, list_path + "/" + key);
      if (!name) return tl::unexpected(name.error());
      auto gfx = gfx_list(targets, list_path + "/" + key);
      if (!gfx) return tl::unexpected(gfx.error());
      if (!gfx->empty() && !has_kernel_files(*name)) {
        return fail(list_path + "/" + key, *name + " has no per-target kernel files the doctor can inspect; use []");
      }
      rule.require.push_back({std::move(*name), std::move(*gfx)});
    }
  } else {
    return fail(list_path, "expected an array of library names" +
                               std::string(value.is_object() ? " or an object of name -> gfx targets" : "") +
                               ", found " + type_name(list));
  }
  if (rule.require.empty()) return fail(list_path, "names no library");
  return rule;
}

bool valid_env_name(std::string_view name) {
  static const std::regex kName("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(std::string(name), kName);
}

using EnvMap = std::map<std::string, std::optional<std::string>>;

Parsed<EnvMap> env_map(const Json& value, const std::string& path) {
  EnvMap result;
  if (value.is_array()) {
    auto names = texts_of(value, path);
    if (!names) return tl::unexpected(names.error());
    for (auto& name : *names) result.emplace(std::move(name), std::nullopt);
  } else if (value.is_object()) {
    for (const auto& [name, wanted] : value.items()) {
      if (wanted.is_null()) {
        result.emplace(name, std::nullopt);
        continue;
      }
      auto text = text_of(wanted, path + "/" + name);
      if (!text) return fail(path + "/" + name, "expected a string value or null (any value)");
      result.emplace(name, std::move(*text));
    }
  } else {
    return fail(path, "expected an array of names or an object of name -> value, found " + type_name(value));
  }
  for (const auto& [name, wanted] : result) {
    if (!valid_env_name(name)) return fail(path, "'" + name + "' is not an environment variable name");
  }
  return result;
}

Parsed<RuleSpec> parse_env_rule(const Json& value, const std::string& path) {
  if (!value.is_object()) return fail(path, "expected an object with \"require\" and/or \"forbid\"");
  EnvRule rule;
  for (const auto& [key, target] : {std::pair{"require", &rule.require}, std::pair{"forbid", &rule.forbid}}) {
    if (!value.contains(key)) continue;
    auto map = env_map(value[key], path + "/" + key);
    if (!map) return tl::unexpected(map.error());
    *target = std::move(*map);
  }
  if (rule.require.empty() && rule.forbid.empty()) return fail(path, "names no variable (\"require\" or \"forbid\")");
  return rule;
}

Parsed<OsAllowed> os_entry(const Json& value, const std::string& path) {
  if (value.is_string()) return OsAllowed{value.get<std::string>(), std::nullopt};
  if (!value.is_object())
    return fail(path, "expected {\"id\": ..., \"version\": ...} or an id, found " + type_name(value));
  if (auto keys = only_keys(value, path, {"id", "version"}); !keys) return tl::unexpected(keys.error());
  if (!value.contains("id")) return fail(path, "missing \"id\" (the os-release ID, e.g. \"ubuntu\")");
  auto id = text_of(value["id"], path + "/id");
  if (!id) return tl::unexpected(id.error());
  OsAllowed entry{std::move(*id), std::nullopt};
  if (value.contains("version")) {
    auto range = range_of(value["version"], path + "/version");
    if (!range) return tl::unexpected(range.error());
    entry.version = std::move(*range);
  }
  return entry;
}

Parsed<RuleSpec> parse_os_rule(const Json& value, const std::string& path) {
  const Json& list = value.is_object() ? value.value("allow", Json()) : value;
  const std::string list_path = value.is_object() ? path + "/allow" : path;
  if (!list.is_array() || list.empty()) return fail(list_path, "expected a non-empty array of allowed systems");
  OsRule rule;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto entry = os_entry(list[i], list_path + "/" + std::to_string(i));
    if (!entry) return tl::unexpected(entry.error());
    rule.allow.push_back(std::move(*entry));
  }
  return rule;
}

struct RuleKind {
  std::string_view name;
  Parsed<RuleSpec> (*parse)(const Json&, const std::string&);
  std::vector<std::string> object_keys;  // besides "severity" and "message"
};

const std::vector<RuleKind>& rule_kinds() {
  static const std::vector<RuleKind> kinds = {
      {"rocm", parse_version_rule, {"version"}},
      {"amdgpu-driver", parse_driver_rule, {"version", "rocm"}},
      {"gfx", parse_gfx_rule, {"require", "allow"}},
      {"gpu-count", parse_gpu_count_rule, {"min"}},
      {"gpu-vram", parse_gpu_vram_rule, {"min-gib"}},
      {"torch", parse_torch_rule, {"version", "rocm"}},
      {"libraries", parse_libraries_rule, {"require"}},
      {"env", parse_env_rule, {"require", "forbid"}},
      {"os", parse_os_rule, {"allow"}},
  };
  return kinds;
}

Parsed<Rule> parse_rule(const RuleKind& kind, const Json& value, const std::string& path) {
  Rule rule;
  rule.name = std::string(kind.name);
  rule.written = value.dump();
  if (value.is_object()) {
    auto keys = kind.object_keys;
    keys.insert(keys.end(), {"severity", "message"});
    if (auto valid = only_keys(value, path, keys); !valid) return tl::unexpected(valid.error());
    if (value.contains("severity")) {
      auto severity = severity_of(value["severity"], path + "/severity", false);
      if (!severity) return tl::unexpected(severity.error());
      rule.severity = *severity;
    }
    if (value.contains("message")) {
      auto message = text_of(value["message"], path + "/message");
      if (!message) return tl::unexpected(message.error());
      rule.message = std::move(*message);
    }
  }
  auto spec = kind.parse(value, path);
  if (!spec) return tl::unexpected(spec.error());
  rule.spec = std::move(*spec);
  return rule;
}

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
