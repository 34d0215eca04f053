// Pure parsers of the `env` check (declared in env_lint.h, tested with tables in
// tests/checks/env_parsers_test.cpp): visibility lists, the PyTorch allocator config,
// target lists, and the known-variables table that judges a variable's name.
#include "env_lint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "env_variables_table.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/text_case.h"

namespace rocm_doctor::env_lint {

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::set<std::string> name_tokens(std::string_view name) {
  std::set<std::string> tokens;
  for (const auto part : split(name, '_')) tokens.emplace(part);
  return tokens;
}

bool is_bool_word(std::string_view value) {
  return value == "True" || value == "False";
}

bool power_of_two(std::uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

std::optional<double> parse_double(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Items separated by ',' outside brackets.
std::vector<std::string> alloc_items(std::string_view text) {
  std::vector<std::string> items(1);
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.emplace_back();
      continue;
    }
    items.back().push_back(c);
  }
  return items;
}

std::optional<AllocConfError> check_divisions(const std::string& item, std::string_view value) {
  if (value.empty()) return AllocConfError{item, "roundup_power2_divisions needs a value"};
  if (value.front() != '[') {
    const auto number = parse_uint(value);
    if (!number || (*number != 0 && !power_of_two(*number))) {
      return AllocConfError{item,
                            "roundup_power2_divisions must be 0 or a power of 2 (or a [size:divisions,...] list)"};
    }
    return std::nullopt;
  }
  if (value.back() != ']') return AllocConfError{item, "the [...] list is not closed"};
  for (const auto entry : split(value.substr(1, value.size() - 2), ',')) {
    const auto colon = entry.find(':');
    if (colon == std::string_view::npos) return AllocConfError{std::string(entry), "a list entry is size:divisions"};
    const auto size = entry.substr(0, colon);
    const auto divisions = parse_uint(entry.substr(colon + 1));
    const auto size_number = parse_uint(size);
    if (size != ">" && (!size_number || !power_of_two(*size_number))) {
      return AllocConfError{std::string(entry), "a list size must be a power of 2 (in MB) or '>'"};
    }
    if (!divisions || (*divisions != 0 && !power_of_two(*divisions))) {
      return AllocConfError{std::string(entry), "divisions must be 0 or a power of 2"};
    }
  }
  return std::nullopt;
}

}  // namespace

DeviceList parse_device_list(std::string_view value, bool allow_uuid) {
  DeviceList list;
  const auto text = trim(value);
  if (text.empty() || text == "-1") {
    list.hides_all = true;
    return list;
  }
  std::set<std::string> seen;
  for (const auto raw : split(text, ',')) {
    const auto token = trim(raw);
    DeviceToken parsed;
    parsed.text = std::string(token);
    if (token.empty()) {
      list.error = "an empty entry (two commas, or a trailing comma)";
      list.bad_token = std::string(text);
      return list;
    }
    if (all_digits(token)) {
      parsed.index = static_cast<unsigned>(parse_uint(token).value_or(0));
    } else if (token.size() > 4 && upper(token.substr(0, 4)) == "GPU-" &&
               std::all_of(token.begin() + 4, token.end(),
                           [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '-'; })) {
      if (!allow_uuid) {
        list.error = "a UUID, which only ROCR_VISIBLE_DEVICES accepts (this variable takes indices)";
        list.bad_token = parsed.text;
        return list;
      }
      for (char c : token.substr(4)) {
        if (c != '-') parsed.uuid.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      }
    } else {
      list.bad_token = parsed.text;
      if (token.find(' ') != std::string_view::npos)
        list.error = "indices separated by spaces: use commas";
      else if (token.front() == '-')
        list.error = "a negative index";
      else
        list.error = "not a device index" + std::string(allow_uuid ? " or a GPU-<uuid>" : "");
      return list;
    }
    if (!seen.insert(parsed.index ? std::to_string(*parsed.index) : parsed.uuid).second) {
      list.error = "listed twice";
      list.bad_token = parsed.text;
      return list;
    }
    list.tokens.push_back(std::move(parsed));
  }
  return list;
}

std::optional<AllocConfError> check_alloc_conf(std::string_view value) {
  std::string text;
  for (char c : value) {
    if (!std::isspace(static_cast<unsigned char>(c))) text.push_back(c);
  }
  if (text.empty()) return AllocConfError{std::string(value), "empty"};
  static const std::vector<std::string> bool_keys = {"expandable_segments",
                                                     "release_lock_on_cudamalloc",
                                                     "release_lock_on_hipmalloc",
                                                     "pinned_use_cuda_host_register",
                                                     "pinned_use_hip_host_register",
                                                     "pinned_use_host_register",
                                                     "graph_capture_record_stream_reuse",
                                                     "pinned_use_background_threads",
                                                     "pinned_free_catch_all",
                                                     "throw_on_cudamalloc_oom"};
  static const std::vector<std::string> all_keys = [] {
    std::vector<std::string> keys = bool_keys;
    for (const char* key :
         {"max_split_size_mb", "max_non_split_rounding_mb", "garbage_collection_threshold", "roundup_power2_divisions",
          "backend", "pinned_num_register_threads", "pinned_reserve_segment_size_mb", "per_process_memory_fraction"}) {
      keys.emplace_back(key);
    }
    return keys;
  }();
  for (const auto& item : alloc_items(text)) {
    if (item.empty()) return AllocConfError{text, "an empty option (a stray comma)"};
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      const auto equals = item.find('=');
      return AllocConfError{
          item, equals != std::string::npos ? "options are key:value, not key=value" : "options are key:value"};
    }
    const auto key = item.substr(0, colon);
    const std::string_view val = std::string_view(item).substr(colon + 1);
    if (std::find(all_keys.begin(), all_keys.end(), key) == all_keys.end()) {
      auto close = closest_match(lower(key), all_keys, 3);
      return AllocConfError{key,
                            "not an allocator option" + (close ? "; did you mean " + *close + "?" : std::string())};
    }
    if (std::find(bool_keys.begin(), bool_keys.end(), key) != bool_keys.end()) {
      if (!is_bool_word(val)) return AllocConfError{item, key + " takes True or False (capitalised)"};
    } else if (key == "max_split_size_mb") {
      const auto number = parse_uint(val);
      if (!number) return AllocConfError{item, "max_split_size_mb takes a whole number of MB"};
      if (*number <= 20) return AllocConfError{item, "max_split_size_mb must be larger than 20"};
    } else if (key == "max_non_split_rounding_mb" || key == "pinned_reserve_segment_size_mb") {
      if (!parse_uint(val)) return AllocConfError{item, key + " takes a whole number of MB"};
    } else if (key == "garbage_collection_threshold") {
      const auto number = parse_double(val);
      if (!number) return AllocConfError{item, "garbage_collection_threshold takes a number between 0 and 1"};
      if (*number <= 0.0 || *number >= 1.0) {
        return AllocConfError{item, "garbage_collection_threshold must be above 0 and below 1 (0.8 means 80%)"};
      }
    } else if (key == "per_process_memory_fraction") {
      const auto number = parse_double(val);
      if (!number || *number < 0.0 || *number > 1.0) {
        return AllocConfError{item, "per_process_memory_fraction takes a number from 0 to 1"};
      }
    } else if (key == "roundup_power2_divisions") {
      if (auto error = check_divisions(item, val)) return error;
    } else if (key == "backend") {
      if (val != "native" && val != "cudaMallocAsync" && val != "hipMallocAsync") {
        return AllocConfError{item, "backend is native or cudaMallocAsync (hipMallocAsync)"};
      }
    } else if (key == "pinned_num_register_threads") {
      const auto number = parse_uint(val);
      if (!number || !power_of_two(*number) || *number > 128) {
        return AllocConfError{item, "pinned_num_register_threads must be a power of 2, at most 128"};
      }
    }
  }
  return std::nullopt;
}

std::vector<std::string> parse_arch_list(std::string_view value) {
  std::vector<std::string> targets;
  std::string current;
  for (char c : value) {
    if (c == ';' || c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      if (!current.empty()) targets.push_back(std::exchange(current, {}));
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) targets.push_back(current);
  return targets;
}

std::string_view base_target(std::string_view target) {
  return target.substr(0, target.find(':'));
}

bool looks_like_rocm(std::string_view name) {
  const auto name_upper = upper(name);
  if (name_upper.starts_with("ROCM_DOCTOR_")) return false;  // this tool's own knobs
  const auto& foreign = env_variables_table().foreign;
  if (std::find(foreign.begin(), foreign.end(), name) != foreign.end()) return false;
  return std::any_of(env_variables_table().prefixes.begin(), env_variables_table().prefixes.end(),
                     [&](const std::string& prefix) { return name_upper.starts_with(prefix); });
}

bool pattern_matches(std::string_view pattern, std::string_view name) {
  if (pattern.ends_with("*")) return name.starts_with(pattern.substr(0, pattern.size() - 1));
  if (pattern.ends_with("<n>")) {
    const auto stem = pattern.substr(0, pattern.size() - 3);
    return name.starts_with(stem) && all_digits(name.substr(stem.size()));
  }
  return pattern == name;
}

NameJudgement judge_variable(std::string_view name) {
  NameJudgement judgement;
  if (!looks_like_rocm(name)) return judgement;
  const auto& t = env_variables_table();
  const std::string text(name);
  if (std::find(t.known.begin(), t.known.end(), text) != t.known.end() ||
      std::any_of(t.patterns.begin(), t.patterns.end(),
                  [&](const std::string& p) { return pattern_matches(p, text); })) {
    judgement.verdict = NameVerdict::known;
    return judgement;
  }
  if (const auto it = t.invented.find(text); it != t.invented.end()) {
    judgement.verdict = NameVerdict::invented;
    judgement.why = it->second.why;
    judgement.instead = it->second.instead;
    return judgement;
  }
  const auto name_upper = upper(name);
  // Right name, wrong case: variable names are case-sensitive.
  if (std::find(t.known.begin(), t.known.end(), name_upper) != t.known.end() ||
      std::any_of(t.patterns.begin(), t.patterns.end(),
                  [&](const std::string& p) { return pattern_matches(p, name_upper); })) {
    judgement.verdict = NameVerdict::misspelled;
    judgement.suggestion = name_upper;
    judgement.why = "case";
    return judgement;
  }
  const bool strict = std::any_of(t.strict_prefixes.begin(), t.strict_prefixes.end(),
                                  [&](const std::string& p) { return name_upper.starts_with(p); });
  const std::size_t limit = strict ? 1 : (name.size() >= 12 ? 2 : 1);
  // One pair of neighbouring letters swapped (NCCL_DEGUB).
  for (const auto& known : t.known) {
    if (known.size() != name_upper.size()) continue;
    std::size_t first = 0;
    while (first < known.size() && known[first] == name_upper[first]) ++first;
    if (first + 1 < known.size() && known[first] == name_upper[first + 1] && known[first + 1] == name_upper[first] &&
        known.substr(first + 2) == name_upper.substr(first + 2)) {
      judgement.verdict = NameVerdict::misspelled;
      judgement.suggestion = known;
      judgement.why = "distance";
      return judgement;
    }
  }
  if (auto close = closest_match(name_upper, t.known, limit)) {
    judgement.verdict = NameVerdict::misspelled;
    judgement.suggestion = *close;
    judgement.why = "distance";
    return judgement;
  }
  // The same words in another order (HSA_GFX_OVERRIDE_VERSION).
  const auto tokens = name_tokens(name_upper);
  for (const auto& known : t.known) {
    if (name_tokens(known) == tokens) {
      judgement.verdict = NameVerdict::misspelled;
      judgement.suggestion = known;
      judgement.why = "order";
      return judgement;
    }
  }
  // A per-device override with a non-numeric suffix (HSA_OVERRIDE_GFX_VERSION_GPU0).
  if (name_upper.starts_with("HSA_OVERRIDE_GFX_VERSION")) {
    judgement.verdict = NameVerdict::misspelled;
    judgement.suggestion = "HSA_OVERRIDE_GFX_VERSION or HSA_OVERRIDE_GFX_VERSION_<KFD node id>";
    judgement.why = "suffix";
    return judgement;
  }
  judgement.verdict = NameVerdict::unknown;
  return judgement;
}

bool switch_on(std::string_view value) {
  const auto text = lower(trim(value));
  return !(text.empty() || text == "0" || text == "false" || text == "no" || text == "off");
}

}  // namespace rocm_doctor::env_lint
