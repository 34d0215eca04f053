#include "rocm_doctor/plugin_answer.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>

#include "plugins/plugin_runner.h"
#include "rocm_doctor/check.h"

namespace rocm_doctor::plugins {

namespace {

using Json = nlohmann::json;
template <typename T>
using Parsed = tl::expected<T, std::string>;

enum class Lines { one, many };

// Control characters would let a plugin rewrite the user's terminal through
// the text report: only newlines and tabs, and only where text may span lines.
std::optional<std::string> control_character(std::string_view text, Lines lines) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool allowed_space = lines == Lines::many && (c == '\n' || c == '\t');
    const bool c0 = c < 0x20 || c == 0x7F;
    const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if ((c0 && !allowed_space) || c1) {
      return fmt::format("contains the control character U+{:04X}",
                         c1 ? static_cast<unsigned char>(text[i + 1]) : static_cast<unsigned>(c));
    }
  }
  return std::nullopt;
}

Parsed<void> only_keys(const Json& object, std::initializer_list<std::string_view> keys, const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return tl::unexpected(fmt::format("{} has the unknown field '{}'", where.empty() ? "the answer" : where, key));
    }
  }
  return {};
}

Parsed<std::string> text(const Json& object, const std::string& key, const std::string& where, bool required,
                         Lines lines = Lines::one) {
  const std::string field = where + "." + key;
  if (!object.contains(key)) {
    if (required) return tl::unexpected(fmt::format("{} is missing", field));
    return std::string();
  }
  const auto& value = object.at(key);
  if (!value.is_string()) return tl::unexpected(fmt::format("{} is not a string", field));
  auto result = value.get<std::string>();
  if (result.size() > kMaxText) return tl::unexpected(fmt::format("{} is longer than {} bytes", field, kMaxText));
  if (auto problem = control_character(result, lines)) return tl::unexpected(fmt::format("{} {}", field, *problem));
  return result;
}

Parsed<bool> flag(const Json& object, const std::string& key, const std::string& where) {
  if (!object.contains(key)) return false;
  if (!object.at(key).is_boolean()) return tl::unexpected(fmt::format("{}.{} is not true or false", where, key));
  return object.at(key).get<bool>();
}

Parsed<const Json*> array(const Json& object, const std::string& key, const std::string& where, std::size_t limit) {
  static const Json empty = Json::array();
  if (!object.contains(key)) return &empty;
  const auto& value = object.at(key);
  if (!value.is_array()) return tl::unexpected(fmt::format("{}.{} is not an array", where, key));
  if (value.size() > limit) return tl::unexpected(fmt::format("{}.{} has more than {} entries", where, key, limit));
  return &value;
}

Parsed<Evidence> parse_evidence(const Json& json, const std::string& where) {
  if (!json.is_object()) return tl::unexpected(where + " is not an object");
  if (auto keys = only_keys(json, {"source", "value"}, where); !keys) return tl::unexpected(keys.error());
  Evidence evidence;
  auto source = text(json, "source", where, true);
  if (!source) return tl::unexpected(source.error());
  auto value = text(json, "value", where, true, Lines::many);
  if (!value) return tl::unexpected(value.error());
  evidence.source = std::move(*source);
  evidence.value = std::move(*value);
  return evidence;
}

Parsed<Fix> parse_fix(const Json& json, const std::string& where) {
  if (!json.is_object()) return tl::unexpected(where + " is not an object");
  if (auto keys =
          only_keys(json, {"description", "commands", "needs_root", "needs_reboot", "needs_relogin", "verify"}, where);
      !keys) {
    return tl::unexpected(keys.error());
  }
  Fix fix;
  auto description = text(json, "description", where, true);
  if (!description) return tl::unexpected(description.error());
  fix.description = std::move(*description);
  auto commands = array(json, "commands", where, 20);
  if (!commands) return tl::unexpected(commands.error());
  for (std::size_t i = 0; i < (*commands)->size(); ++i) {
    const auto& command = (**commands)[i];
    const auto field = fmt::format("{}.commands[{}]", where, i);
    if (!command.is_string()) return tl::unexpected(field + " is not a string");
    const auto line = command.get<std::string>();
    if (line.size() > kMaxText) return tl::unexpected(fmt::format("{} is longer than {} bytes", field, kMaxText));
    if (auto problem = control_character(line, Lines::one)) return tl::unexpected(field + " " + *problem);
    fix.commands.push_back(line);
  }
  for (const auto& [key, target] :
       {std::pair{"needs_root", &fix.needs_root}, std::pair{"needs_reboot", &fix.needs_reboot},
        std::pair{"needs_relogin", &fix.needs_relogin}}) {
    auto value = flag(json, key, where);
    if (!value) return tl::unexpected(value.error());
    *target = *value;
  }
  auto verify = text(json, "verify", where, false);
  if (!verify) return tl::unexpected(verify.error());
  fix.verify = verify->empty() ? verify_command("plugins") : std::move(*verify);
  return fix;
}

Parsed<void> check_id(const std::string& id, std::string_view plugin_name,
                      const std::set<std::string, std::less<>>& builtin_ids, const std::string& where) {
  if (builtin_ids.contains(id)) {
    return tl::unexpected(
        fmt::format("{}.id '{}' is a built-in id; a plugin's ids start with 'site.{}.'", where, id, plugin_name));
  }
  if (!valid_plugin_finding_id(id, plugin_name)) {
    return tl::unexpected(fmt::format("{}.id '{}' is not of the form 'site.{}.<name>' ([a-z0-9-] words joined by dots)",
                                      where, id, plugin_name));
  }
  return {};
}

Parsed<Finding> parse_finding(const Json& json, std::string_view plugin_name,
                              const std::set<std::string, std::less<>>& builtin_ids, const std::string& where) {
  if (!json.is_object()) return tl::unexpected(where + " is not an object");
  if (auto keys = only_keys(json, {"id", "severity", "summary", "detail", "evidence", "fix"}, where); !keys) {
    return tl::unexpected(keys.error());
  }
  Finding finding;
  auto id = text(json, "id", where, true);
  if (!id) return tl::unexpected(id.error());
  if (auto valid = check_id(*id, plugin_name, builtin_ids, where); !valid) return tl::unexpected(valid.error());
  finding.id = std::move(*id);
  auto severity_text = text(json, "severity", where, true);
  if (!severity_text) return tl::unexpected(severity_text.error());
  const auto severity = parse_severity(*severity_text);
  if (!severity) {
    return tl::unexpected(
        fmt::format("{}.severity '{}' is not one of ok, info, warning, error", where, *severity_text));
  }
  finding.severity = *severity;
  auto summary = text(json, "summary", where, true);
  if (!summary) return tl::unexpected(summary.error());
  if (summary->find_first_not_of(' ') == std::string::npos) return tl::unexpected(where + ".summary is empty");
  finding.summary = std::move(*summary);
  auto detail = text(json, "detail", where, false, Lines::many);
  if (!detail) return tl::unexpected(detail.error());
  finding.detail = std::move(*detail);
  auto evidence = array(json, "evidence", where, 20);
  if (!evidence) return tl::unexpected(evidence.error());
  for (std::size_t i = 0; i < (*evidence)->size(); ++i) {
    auto item = parse_evidence((**evidence)[i], fmt::format("{}.evidence[{}]", where, i));
    if (!item) return tl::unexpected(item.error());
    finding.evidence.push_back(std::move(*item));
  }
  auto fixes = array(json, "fix", where, 10);
  if (!fixes) return tl::unexpected(fixes.error());
  for (std::size_t i = 0; i < (*fixes)->size(); ++i) {
    auto fix = parse_fix((**fixes)[i], fmt::format("{}.fix[{}]", where, i));
    if (!fix) return tl::unexpected(fix.error());
    finding.fixes.push_back(std::move(*fix));
  }
  return finding;
}

}  // namespace

bool valid_plugin_finding_id(std::string_view id, std::string_view plugin_name) {
  const std::string prefix = "site." + std::string(plugin_name) + ".";
  if (plugin_name.empty() || !id.starts_with(prefix) || id.size() > 128) return false;
  const auto rest = id.substr(prefix.size());
  if (rest.empty() || rest.front() == '.' || rest.back() == '.' || rest.find("..") != std::string_view::npos)
    return false;
  return std::all_of(rest.begin(), rest.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; });
}

tl::expected<std::vector<Finding>, std::string> parse_plugin_answer(
    const nlohmann::json& answer, std::string_view plugin_name, const std::set<std::string, std::less<>>& builtin_ids) {
  if (!answer.is_object()) return tl::unexpected(std::string("the answer is not a JSON object"));
  if (auto keys = only_keys(answer, {"protocol", "findings"}, ""); !keys) return tl::unexpected(keys.error());
  if (!answer.contains("protocol")) return tl::unexpected(std::string("the answer has no 'protocol'"));
  const auto& protocol = answer.at("protocol");
  if (!protocol.is_number_integer() || protocol.get<long long>() != kProtocol) {
    return tl::unexpected(
        fmt::format("the answer speaks protocol {}, the doctor speaks protocol {}", protocol.dump(), kProtocol));
  }
  if (!answer.contains("findings")) return tl::unexpected(std::string("the answer has no 'findings'"));
  if (!answer.at("findings").is_array()) return tl::unexpected(std::string("'findings' is not an array"));
  const auto& list = answer.at("findings");
  if (list.size() > kMaxFindings) {
    return tl::unexpected(fmt::format("the answer has {} findings, more than {}", list.size(), kMaxFindings));
  }
  std::vector<Finding> findings;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto finding = parse_finding(list[i], plugin_name, builtin_ids, fmt::format("findings[{}]", i));
    if (!finding) return tl::unexpected(finding.error());
    findings.push_back(std::move(*finding));
  }
  return findings;
}

}  // namespace rocm_doctor::plugins
