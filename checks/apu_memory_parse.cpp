// Parsers of the `apu-memory` check (declared in apu_memory.h): kernel command
// line and modprobe.d settings, /proc/meminfo, KFD mem_banks.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apu_memory.h"
#include "embedded_data.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::apu_memory {

const Data& data() {
  static const Data parsed = [] {
    const auto json = nlohmann::json::parse(embedded::data_apu_memory());
    Data result;
    result.page_size = json.at("page_size").get<std::uint64_t>();
    result.small_apu_gtt_kernel = json.at("small_apu_gtt_kernel").get<std::string>();
    result.pool_too_small = json.at("pool_too_small_bytes").get<std::uint64_t>();
    result.pool_capped_ratio = json.at("pool_capped_ratio").get<double>();
    result.modprobe_dirs = json.at("modprobe_dirs").get<std::vector<std::string>>();
    result.ttm_modules = json.at("ttm_modules").get<std::vector<std::string>>();
    result.ttm_params = json.at("ttm_params").get<std::vector<std::string>>();
    for (const auto& row : json.at("capped_pool_fixed_in")) {
      result.capped_pool_fixed_in.push_back(
          {row.at("gfx").get<std::string>(), row.at("kernel").get<std::string>(), row.at("source").get<std::string>()});
    }
    return result;
  }();
  return parsed;
}

namespace {

std::string module_name(std::string_view text) {
  std::string name(text);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// "key=value" -> {key, value}; a word without '=' gives nullopt.
std::optional<std::pair<std::string, std::string>> key_value(std::string_view word) {
  const auto equals = word.find('=');
  if (equals == std::string_view::npos) return std::nullopt;
  return std::pair{module_name(word.substr(0, equals)), std::string(word.substr(equals + 1))};
}

// modprobe.d lines with '\' continuations joined; each keeps its first line number.
std::vector<std::pair<int, std::string>> logical_lines(std::string_view text) {
  std::vector<std::pair<int, std::string>> result;
  std::string pending;
  int first = 0;
  int number = 0;
  for (const auto raw : lines(text)) {
    ++number;
    auto line = std::string(raw);
    if (pending.empty()) first = number;
    if (!line.empty() && line.back() == '\\') {
      line.pop_back();
      pending += line + " ";
      continue;
    }
    pending += line;
    result.emplace_back(first, std::move(pending));
    pending.clear();
  }
  if (!pending.empty()) result.emplace_back(first, std::move(pending));
  return result;
}

}  // namespace

bool is_memory_param(std::string_view module, std::string_view param) {
  if (module == "ttm" || module == "amdttm") return param == "pages_limit" || param == "page_pool_size";
  return module == "amdgpu" && param == "gttsize";
}

std::vector<Setting> parse_cmdline_settings(std::string_view cmdline) {
  std::vector<Setting> settings;
  for (const auto word : split_words(trim(cmdline))) {
    const auto pair = key_value(word);
    if (!pair) continue;
    const auto dot = pair->first.find('.');
    if (dot == std::string::npos) continue;
    auto module = pair->first.substr(0, dot);
    auto param = pair->first.substr(dot + 1);
    if (!is_memory_param(module, param)) continue;
    settings.push_back({std::move(module), std::move(param), pair->second, "/proc/cmdline", 0});
  }
  return settings;
}

std::vector<Setting> parse_modprobe_settings(std::string_view text, std::string_view source) {
  std::vector<Setting> settings;
  for (const auto& [number, line] : logical_lines(text)) {
    const auto hash = line.find('#');
    const auto content = trim(std::string_view(line).substr(0, hash));
    const auto words = split_words(content);
    if (words.size() < 3 || words[0] != "options") continue;
    const auto module = module_name(words[1]);
    for (std::size_t i = 2; i < words.size(); ++i) {
      const auto pair = key_value(words[i]);
      if (!pair || !is_memory_param(module, pair->first)) continue;
      settings.push_back({module, pair->first, pair->second, std::string(source), number});
    }
  }
  return settings;
}

std::optional<std::int64_t> parse_param_value(std::string_view param, std::string_view value) {
  if (param == "gttsize") return parse_int(value);
  const auto count = parse_uint(value);
  if (!count || *count > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<std::int64_t>(*count);
}

std::optional<std::uint64_t> parse_mem_total(std::string_view meminfo) {
  for (const auto line : lines(meminfo)) {
    if (!line.starts_with("MemTotal:")) continue;
    const auto words = split_words(line.substr(9));
    if (words.size() != 2 || words[1] != "kB") return std::nullopt;
    const auto kib = parse_uint(words[0]);
    if (!kib || *kib > UINT64_MAX / 1024) return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

std::optional<MemBank> parse_mem_bank(std::string_view properties) {
  const auto values = parse_key_value_lines(properties);
  const auto heap = values.find("heap_type");
  const auto size = values.find("size_in_bytes");
  if (heap == values.end() || size == values.end()) return std::nullopt;
  const auto heap_type = parse_uint(heap->second);
  const auto bytes = parse_uint(size->second);
  if (!heap_type || !bytes) return std::nullopt;
  return MemBank{*heap_type, *bytes};
}

std::optional<bool> kernel_older_than(std::string_view kernel_release, std::string_view version) {
  if (kb::version_numbers(kernel_release).size() < 2 || kb::version_numbers(version).size() < 2) return std::nullopt;
  return kb::version_less(kernel_release, version);
}

std::string human_bytes(std::uint64_t bytes) {
  constexpr double kGib = 1024.0 * 1024.0 * 1024.0;
  char text[32];
  if (bytes >= (1ULL << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / kGib);
  } else {
    std::snprintf(text, sizeof text, "%llu MiB", static_cast<unsigned long long>(bytes >> 20));
  }
  return text;
}

}  // namespace rocm_doctor::apu_memory
