// Parsers of the `ras` and `pcie-aer` checks (ras.h).
#include <charconv>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "ras.h"
#include "rocm_doctor/data_table.h"
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

namespace {

constexpr std::string_view kRasFile = "ras.json";

// Throws on a missing key (std::invalid_argument naming file and key) or a mistyped value
// (a nlohmann::json exception).
Thresholds ras_thresholds_from(data_table::TableReader& reader) {
  const auto top = [&](std::string_view key) -> const nlohmann::json& {
    auto value = reader.at(key);
    if (!value) throw std::invalid_argument(value.error());
    return value->get();
  };
  Thresholds t;
  t.uncorrectable_above = top("uncorrectable_error_above").get<std::uint64_t>();
  t.deferred_above = top("deferred_warning_above").get<std::uint64_t>();
  t.correctable_above = top("correctable_warning_above").get<std::uint64_t>();
  t.bad_page_fallback = top("bad_page_threshold_fallback").get<std::uint64_t>();
  t.bad_page_warn_fraction = top("bad_page_warn_fraction").get<double>();
  const auto& aer = top("aer");
  t.aer_fatal_above = aer.at("fatal_error_above").get<std::uint64_t>();
  t.aer_nonfatal_above = aer.at("nonfatal_error_above").get<std::uint64_t>();
  t.aer_correctable_above = aer.at("correctable_warning_above").get<std::uint64_t>();
  const auto& fixes = top("fixes");
  for (const auto& [key, text] : fixes.items()) t.fixes[key] = text.get<std::string>();
  return t;
}

tl::expected<Thresholds, std::string> read_ras_table(data_table::TableReader& reader) {
  return data_table::read_catching(reader, ras_thresholds_from);
}

[[maybe_unused]] const bool kRasLoaderRegistered =
    data_table::register_table_loader<Thresholds, &read_ras_table>(kRasFile);

}  // namespace

Thresholds parse_thresholds(std::string_view json_text) {
  return data_table::read_text_or_throw<Thresholds, &read_ras_table>(kRasFile, json_text);
}

const Thresholds& thresholds() {
  return data_table::require(data_table::load<Thresholds, &read_ras_table>(kRasFile));
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
