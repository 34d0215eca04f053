// The policy parser's JSON value readers: strings, lists, ranges, severities,
// gfx lists and numbers, each failing with the JSON path and what is wrong.
#include <algorithm>
#include <cmath>
#include <regex>

#include "policy/policy_parse.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::policy {

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

}  // namespace rocm_doctor::policy
