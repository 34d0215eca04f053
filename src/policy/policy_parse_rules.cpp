// One parser per policy rule kind (the shorthand value, or the object's own
// keys), and the table of rule kinds that the document parser walks.
#include <algorithm>
#include <cctype>
#include <regex>

#include "policy/policy_parse.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/text_case.h"

namespace rocm_doctor::policy {

namespace {

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

}  // namespace

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

}  // namespace rocm_doctor::policy
