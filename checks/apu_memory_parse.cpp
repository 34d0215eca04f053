// Parsers of the `apu-memory` check (declared in apu_memory.h): kernel command
// line and modprobe.d settings, /proc/meminfo, KFD mem_banks.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apu_memory.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"
#include "table_loader.h"

namespace rocm_doctor::apu_memory {

namespace {

// Throws "apu_memory.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
Data apu_memory_from(data_table::TableReader& reader) {
  Data result;
  result.page_size = check_tables::value_of<std::uint64_t>(reader, "page_size");
  result.small_apu_gtt_kernel = check_tables::value_of<std::string>(reader, "small_apu_gtt_kernel");
  result.pool_too_small = check_tables::value_of<std::uint64_t>(reader, "pool_too_small_bytes");
  result.pool_capped_ratio = check_tables::value_of<double>(reader, "pool_capped_ratio");
  result.modprobe_dirs = check_tables::value_of<std::vector<std::string>>(reader, "modprobe_dirs");
  result.ttm_modules = check_tables::value_of<std::vector<std::string>>(reader, "ttm_modules");
  result.ttm_params = check_tables::value_of<std::vector<std::string>>(reader, "ttm_params");
  if (result.page_size == 0) throw std::invalid_argument(reader.error("page_size", "must not be 0"));
  result.capped_pool_fixed_in = check_tables::read_key(reader, "capped_pool_fixed_in", [](const nlohmann::json& rows) {
    std::vector<CappedPoolFix> fixes;
    for (const auto& row : rows) {
      fixes.push_back(
          {row.at("gfx").get<std::string>(), row.at("kernel").get<std::string>(), row.at("source").get<std::string>()});
    }
    return fixes;
  });
  return result;
}

const check_tables::TableLoader<Data, &apu_memory_from> kApuMemoryTable("apu_memory.json");

}  // namespace

const Data& data() {
  return kApuMemoryTable.get();
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

// The TTM modules and their parameters are the table's (ttm_modules, ttm_params), as the
// check's fixes name them; amdgpu.gttsize is the one amdgpu parameter.
bool is_memory_param(std::string_view module, std::string_view param) {
  const auto listed = [](const std::vector<std::string>& list, std::string_view name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  const auto& table = data();
  if (listed(table.ttm_modules, module)) return listed(table.ttm_params, param);
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
