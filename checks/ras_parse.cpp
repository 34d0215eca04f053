// Parsers of the `ras` and `pcie-aer` checks (ras.h).
#include <charconv>
#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "ras.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::ras {

std::optional<ErrorCount> parse_error_count(std::string_view text) {
  std::optional<std::uint64_t> ue, ce, de;
  for (const auto line : lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const auto key = trim(line.substr(0, colon));
    const auto value = parse_uint(trim(line.substr(colon + 1)));
    if (!value) continue;
    if (key == "ue") ue = value;
    if (key == "ce") ce = value;
    if (key == "de") de = value;
  }
  if (!ue || !ce) return std::nullopt;
  return ErrorCount{*ue, *ce, de};
}

std::optional<std::uint64_t> parse_feature_mask(std::string_view text) {
  constexpr std::string_view kPrefix = "feature mask:";
  const auto line = trim(text);
  if (!line.starts_with(kPrefix)) return std::nullopt;
  auto value = trim(line.substr(kPrefix.size()));
  if (!value.starts_with("0x")) return std::nullopt;
  return parse_uint(value.substr(2), 16);
}

BadPages parse_bad_pages(std::string_view text) {
  BadPages pages;
  for (const auto line : lines(text)) {
    if (trim(line).empty()) continue;
    const auto fields = split(line, ':');
    if (fields.size() != 3 || !trim(fields[0]).starts_with("0x") || !trim(fields[1]).starts_with("0x")) {
      ++pages.malformed;
      continue;
    }
    const auto flag = trim(fields[2]);
    if (flag == "R") {
      ++pages.reserved;
    } else if (flag == "P") {
      ++pages.pending;
    } else if (flag == "F") {
      ++pages.failed;
    } else {
      ++pages.malformed;
    }
  }
  return pages;
}

std::optional<std::map<std::string, std::uint64_t>> parse_aer_counters(std::string_view text) {
  std::map<std::string, std::uint64_t> counters;
  for (const auto line : lines(text)) {
    const auto words = split_words(line);
    if (words.size() != 2) continue;
    if (const auto value = parse_uint(words[1])) counters[std::string(words[0])] = *value;
  }
  if (counters.empty()) return std::nullopt;
  return counters;
}

Thresholds parse_thresholds(std::string_view json_text) {
  const auto json = nlohmann::json::parse(json_text);
  Thresholds t;
  t.uncorrectable_above = json.at("uncorrectable_error_above").get<std::uint64_t>();
  t.deferred_above = json.at("deferred_warning_above").get<std::uint64_t>();
  t.correctable_above = json.at("correctable_warning_above").get<std::uint64_t>();
  t.bad_page_fallback = json.at("bad_page_threshold_fallback").get<std::uint64_t>();
  t.bad_page_warn_fraction = json.at("bad_page_warn_fraction").get<double>();
  const auto& aer = json.at("aer");
  t.aer_fatal_above = aer.at("fatal_error_above").get<std::uint64_t>();
  t.aer_nonfatal_above = aer.at("nonfatal_error_above").get<std::uint64_t>();
  t.aer_correctable_above = aer.at("correctable_warning_above").get<std::uint64_t>();
  for (const auto& [key, text] : json.at("fixes").items()) t.fixes[key] = text.get<std::string>();
  return t;
}

const Thresholds& thresholds() {
  static const Thresholds parsed = parse_thresholds(embedded::data_ras());
  return parsed;
}

PageThreshold page_threshold(std::optional<std::string_view> module_parameter, std::uint64_t fallback) {
  const auto fallback_text = "fallback " + std::to_string(fallback);
  if (!module_parameter) return {fallback, fallback_text + " (amdgpu.bad_page_threshold unreadable)"};
  const auto text = trim(*module_parameter);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return {fallback, fallback_text + " (amdgpu.bad_page_threshold='" + std::string(text) + "' is not a number)"};
  if (value == 0) return {std::nullopt, "amdgpu.bad_page_threshold=0: bad page retirement is off"};
  if (value > 0) return {static_cast<std::uint64_t>(value), "amdgpu.bad_page_threshold=" + std::to_string(value)};
  return {fallback, fallback_text + " (amdgpu.bad_page_threshold=" + std::to_string(value) + ")"};
}

}  // namespace rocm_doctor::ras
