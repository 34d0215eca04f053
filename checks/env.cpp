// `env`: the ROCm / HIP / HSA / PyTorch / RCCL variables of this environment:
// GPU visibility lists, debugging switches left on, the PyTorch allocator
// config, build target lists, misspelled or invented names, install paths.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "env_lint.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::embedded {
std::string_view data_env_variables();
}  // namespace rocm_doctor::embedded

namespace rocm_doctor::env_lint {

namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

struct Invented {
  std::string why;
  std::string instead;
};

struct EnvTable {
  std::vector<std::string> prefixes;
  std::vector<std::string> strict_prefixes;
  std::vector<std::string> known;
  std::vector<std::string> patterns;
  std::map<std::string, Invented> invented;
};

const EnvTable& table() {
  static const EnvTable parsed = [] {
    const auto json = nlohmann::json::parse(embedded::data_env_variables());
    EnvTable t;
    t.prefixes = json.at("prefixes").get<std::vector<std::string>>();
    t.strict_prefixes = json.at("strict_distance_prefixes").get<std::vector<std::string>>();
    t.known = json.at("known").get<std::vector<std::string>>();
    t.patterns = json.at("patterns").get<std::vector<std::string>>();
    for (const auto& row : json.at("invented")) {
      t.invented[row.at("name").get<std::string>()] = {row.at("why").get<std::string>(),
                                                       row.at("instead").get<std::string>()};
    }
    return t;
  }();
  return parsed;
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
  return std::any_of(table().prefixes.begin(), table().prefixes.end(),
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
  const auto& t = table();
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

namespace rocm_doctor {
namespace {

using namespace env_lint;

constexpr std::string_view kCheckId = "env";

// The environment this check judges: the values of the variables it may read.
struct Environment {
  std::map<std::string, std::string> values;  // only ROCm-looking names and the few others we judge
  [[nodiscard]] std::optional<std::string> get(const std::string& name) const {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
};

Environment read_environment(const Host& host) {
  static const std::vector<std::string> others = {
      "CUDA_VISIBLE_DEVICES",    "GPU_DEVICE_ORDINAL", "PYTORCH_HIP_ALLOC_CONF",
      "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_ROCM_ARCH",
      "AMDGPU_TARGETS",          "GPU_TARGETS",        "PATH",
      "LD_LIBRARY_PATH"};
  Environment env;
  for (const auto& name : host.env_names()) {
    const bool wanted = looks_like_rocm(name) || std::find(others.begin(), others.end(), name) != others.end();
    if (!wanted) continue;  // never read (so never recorded) an unrelated value
    if (auto value = host.env(name)) env.values[name] = *value;
  }
  return env;
}

// "GPU-<16 hex digits>" of each KFD GPU, from its topology `unique_id`.
std::vector<std::string> gpu_uuids(const Host& host, const GpuInventory& inventory) {
  std::vector<std::string> uuids;
  for (const auto* gpu : inventory.kfd_gpus()) {
    if (!gpu->node_id) continue;
    auto text = host.read_file(fmt::format("/sys/class/kfd/kfd/topology/nodes/{}/properties", *gpu->node_id));
    if (!text) continue;
    auto node = parse_kfd_properties(*gpu->node_id, *text);
    if (!node) continue;
    if (auto id = node->get("unique_id"); id && *id != 0) uuids.push_back(fmt::format("{:016x}", *id));
  }
  return uuids;
}

void visibility_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings) {
  const auto& inventory = ctx.fact<GpuInventory>();
  const int kfd_count = static_cast<int>(inventory.kfd_gpus().size());
  const bool judge_existence = !ctx.options().image_mode && kfd_count > 0;
  const auto uuids = gpu_uuids(ctx.host(), inventory);
  std::optional<int> rocr_count;  // GPUs left after ROCR_VISIBLE_DEVICES
  std::map<std::string, DeviceList> parsed;
  const auto invalid = [&](const std::string& name, const std::string& value, const std::string& what,
                           const std::string& token) {
    auto finding = make_finding("env.visible-devices-invalid", Severity::error,
                                fmt::format("{}={} is invalid: {}", name, value, what))
                       .because(fmt::format("The runtime reads {} at start-up; an entry it cannot use hides GPUs "
                                            "(or all of them) from every application started from this environment.",
                                            name))
                       .with_evidence("env " + name, value);
    if (!token.empty()) finding.with_evidence("bad entry", token);
    if (judge_existence)
      finding.with_evidence("/sys/class/kfd/kfd/topology/nodes", fmt::format("{} GPU(s)", kfd_count));
    std::vector<std::string> all;
    for (int i = 0; i < kfd_count; ++i) all.push_back(std::to_string(i));
    std::vector<std::string> commands = {"unset " + name};
    if (kfd_count > 0) commands.push_back("export " + name + "=" + join(all, ","));
    finding.with_fix(make_fix(
        kCheckId,
        "Unset it (every GPU is visible), or list valid comma-separated indices" +
            std::string(name == "ROCR_VISIBLE_DEVICES" ? " or GPU-<uuid> values (rocminfo | grep Uuid)" : "") + ".",
        commands));
    findings.push_back(std::move(finding));
  };
  for (const std::string name :
       {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}) {
    const auto value = env.get(name);
    if (!value) continue;
    auto list = parse_device_list(*value, name == "ROCR_VISIBLE_DEVICES");
    if (!list.error.empty()) {
      invalid(name, *value, list.error, list.bad_token);
      continue;
    }
    if (list.hides_all) {
      invalid(name, *value, trim(*value).empty() ? "an empty list hides every GPU" : "-1 hides every GPU", "");
      continue;
    }
    parsed[name] = list;
    if (name != "ROCR_VISIBLE_DEVICES") continue;
    if (!judge_existence) continue;
    bool ok = true;
    for (const auto& token : list.tokens) {
      if (token.index && static_cast<int>(*token.index) >= kfd_count) {
        invalid(name, *value,
                fmt::format("there is no GPU {} (the driver lists {} GPU(s): 0 to {})", *token.index, kfd_count,
                            kfd_count - 1),
                token.text);
        ok = false;
        break;
      }
      if (!token.uuid.empty() && !uuids.empty() &&
          std::none_of(uuids.begin(), uuids.end(), [&](const std::string& u) { return u == token.uuid; })) {
        invalid(name, *value, "no GPU has this UUID (rocminfo | grep Uuid lists them)", token.text);
        ok = false;
        break;
      }
    }
    if (ok)
      rocr_count = static_cast<int>(list.tokens.size());
    else
      parsed.erase(name);
  }
  // HIP-level lists index the GPUs ROCR left visible.
  const int hip_base = rocr_count.value_or(kfd_count);
  for (const std::string name : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}) {
    const auto it = parsed.find(name);
    if (it == parsed.end() || !judge_existence) continue;
    for (const auto& token : it->second.tokens) {
      if (!token.index || static_cast<int>(*token.index) < hip_base) continue;
      const auto value = *env.get(name);
      if (rocr_count) {
        const auto rocr = *env.get("ROCR_VISIBLE_DEVICES");
        auto finding =
            make_finding("env.visible-devices-conflict", Severity::warning,
                         fmt::format("ROCR_VISIBLE_DEVICES={} leaves {} GPU(s), so {}={} names a GPU that is gone",
                                     rocr, *rocr_count, name, value))
                .because(fmt::format("The filters compose: ROCR_VISIBLE_DEVICES filters first (at the HSA level) and "
                                     "renumbers what it keeps from 0; {} then picks from that renumbered list. "
                                     "Index {} does not exist after the first filter, so the application sees fewer "
                                     "GPUs than meant (or none).",
                                     name, *token.index))
                .with_evidence("env ROCR_VISIBLE_DEVICES", rocr)
                .with_evidence("env " + name, value);
        finding.with_fix(make_fix(kCheckId,
                                  "Use one variable: keep ROCR_VISIBLE_DEVICES (recommended on Linux) and drop the "
                                  "other, or index the renumbered list (0 to " +
                                      std::to_string(*rocr_count - 1) + ").",
                                  {"unset " + name}));
        findings.push_back(std::move(finding));
      } else {
        invalid(name, value,
                fmt::format("there is no GPU {} (the driver lists {} GPU(s): 0 to {})", *token.index, kfd_count,
                            kfd_count - 1),
                token.text);
      }
      break;
    }
  }
  // HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES both set, differently.
  const auto hip = env.get("HIP_VISIBLE_DEVICES");
  const auto cuda = env.get("CUDA_VISIBLE_DEVICES");
  if (hip && cuda && parsed.contains("HIP_VISIBLE_DEVICES") && parsed.contains("CUDA_VISIBLE_DEVICES") &&
      trim(*hip) != trim(*cuda)) {
    auto finding = make_finding("env.visible-devices-conflict", Severity::warning,
                                fmt::format("HIP_VISIBLE_DEVICES={} and CUDA_VISIBLE_DEVICES={} disagree", *hip, *cuda))
                       .because(
                           "Both select GPUs at the HIP level; HIP uses HIP_VISIBLE_DEVICES and the other is "
                           "ignored, so scripts that set CUDA_VISIBLE_DEVICES (launchers, schedulers) do not get "
                           "the GPUs they asked for. ROCR_VISIBLE_DEVICES, when set, filters before both.")
                       .with_evidence("env HIP_VISIBLE_DEVICES", *hip)
                       .with_evidence("env CUDA_VISIBLE_DEVICES", *cuda);
    finding.with_fix(make_fix(kCheckId, "Keep one of them.", {"unset CUDA_VISIBLE_DEVICES"}));
    findings.push_back(std::move(finding));
  }
}

void debug_switch_findings(const Environment& env, std::vector<Finding>& findings) {
  if (auto value = env.get("HIP_LAUNCH_BLOCKING"); value && switch_on(*value)) {
    auto finding = make_finding("env.launch-blocking", Severity::warning,
                                "HIP_LAUNCH_BLOCKING=" + *value + " makes every kernel launch wait for the GPU")
                       .because(
                           "HIP_LAUNCH_BLOCKING is a debugging switch: each launch blocks until the kernel ends, "
                           "so CPU and GPU never overlap and training runs several times slower. It does not "
                           "tune all-reduce or multi-GPU communication (a widely copied tuning guide says it "
                           "does: that advice is wrong). Set it only while hunting which kernel faults.")
                       .with_evidence("env HIP_LAUNCH_BLOCKING", *value);
    finding.with_fix(
        make_fix(kCheckId, "Unset it (and remove it from ~/.bashrc or /etc/profile.d if it is exported there).",
                 {"unset HIP_LAUNCH_BLOCKING",
                  "grep -n HIP_LAUNCH_BLOCKING ~/.bashrc ~/.profile /etc/profile /etc/profile.d/* 2>/dev/null"}));
    findings.push_back(std::move(finding));
  }
  for (const std::string name : {"AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY"}) {
    const auto value = env.get(name);
    if (!value || !switch_on(*value)) continue;
    auto finding = make_finding("env.serialize", Severity::warning,
                                name + "=" + *value + " serializes " +
                                    (name == "AMD_SERIALIZE_KERNEL" ? "kernel launches" : "memory copies"))
                       .because(
                           "A debugging switch of the HIP runtime (1: wait before, 2: wait after, 3: both): "
                           "every operation waits for the previous one, which costs a large slowdown. Leave it "
                           "off outside a debugging session.")
                       .with_evidence("env " + name, *value);
    finding.with_fix(make_fix(kCheckId, "Unset it.", {"unset " + name}));
    findings.push_back(std::move(finding));
  }
  if (auto value = env.get("AMD_LOG_LEVEL")) {
    const auto level = parse_uint(trim(*value));
    if (level && *level >= 3) {
      auto finding =
          make_finding("env.serialize", Severity::warning, "AMD_LOG_LEVEL=" + *value + " logs every HIP call")
              .because(
                  "Levels 3 (info) and 4 (debug) print a line for every runtime call to stderr: a "
                  "debugging aid that slows everything down and floods logs. 0 (the default) or 1 "
                  "(errors) are meant for normal runs.")
              .with_evidence("env AMD_LOG_LEVEL", *value);
      finding.with_fix(
          make_fix(kCheckId, "Unset it (or use AMD_LOG_LEVEL=1 for errors only).", {"unset AMD_LOG_LEVEL"}));
      findings.push_back(std::move(finding));
    }
  }
}

void alloc_conf_findings(const Environment& env, std::vector<Finding>& findings) {
  for (const std::string name : {"PYTORCH_HIP_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
    const auto value = env.get(name);
    if (!value) continue;
    const auto error = check_alloc_conf(*value);
    if (!error) continue;
    auto finding = make_finding("env.alloc-conf-invalid", Severity::error,
                                fmt::format("{}: '{}' is invalid: {}", name, error->token, error->reason))
                       .because(
                           "PyTorch parses the caching allocator config on the first GPU allocation and stops "
                           "with a RuntimeError on an option it does not accept, so every script fails at its "
                           "first tensor on the GPU. Options are key:value pairs separated by commas.")
                       .with_evidence("env " + name, *value)
                       .with_evidence("bad token", error->token);
    finding.with_fix(make_fix(kCheckId,
                              "Correct the token (e.g. garbage_collection_threshold:0.8,max_split_size_mb:512,"
                              "expandable_segments:True), or unset the variable.",
                              {"unset " + name}));
    findings.push_back(std::move(finding));
  }
}

// The gfx targets this machine needs: each GPU's own, or its override's.
std::vector<std::string> needed_targets(const CheckContext& ctx, const Environment& env) {
  if (ctx.options().image_mode) return ctx.options().target_gfx;
  std::vector<std::string> targets;
  std::optional<std::string> global_override;
  if (auto value = env.get("HSA_OVERRIDE_GFX_VERSION")) {
    if (auto version = parse_override_value(trim(*value))) global_override = gfx_name(*version);
  }
  for (const auto* gpu : ctx.fact<GpuInventory>().kfd_gpus()) {
    std::optional<std::string> target = global_override;
    if (gpu->node_id) {
      if (auto value = env.get(fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *gpu->node_id))) {
        if (auto version = parse_override_value(trim(*value))) target = gfx_name(*version);
      }
    }
    if (!target && !gpu->gfx.empty()) target = gpu->gfx;
    if (target && std::find(targets.begin(), targets.end(), *target) == targets.end()) targets.push_back(*target);
  }
  return targets;
}

void arch_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings) {
  const auto needed = needed_targets(ctx, env);
  for (const std::string name : {"PYTORCH_ROCM_ARCH", "AMDGPU_TARGETS", "GPU_TARGETS"}) {
    const auto value = env.get(name);
    if (!value) continue;
    const auto listed = parse_arch_list(*value);
    std::vector<std::string> unknown;
    std::vector<std::string> missing;
    for (const auto& target : listed) {
      if (kb::knowledge_base().target(base_target(target)) == nullptr) unknown.push_back(target);
    }
    for (const auto& target : needed) {
      if (std::none_of(listed.begin(), listed.end(), [&](const std::string& t) { return base_target(t) == target; })) {
        missing.push_back(target);
      }
    }
    if (unknown.empty() && missing.empty()) continue;
    std::vector<std::string> problems;
    if (!missing.empty()) problems.push_back(fmt::format("lacks {} (this machine's GPUs)", join(missing, ", ")));
    if (!unknown.empty()) problems.push_back(fmt::format("names {} (no such gfx target)", join(unknown, ", ")));
    auto finding = make_finding("env.rocm-arch-mismatch", Severity::warning,
                                fmt::format("{}={} {}", name, *value, join(problems, " and ")))
                       .because(name +
                                " chooses the GPU targets code is compiled for (a PyTorch or extension "
                                "source build, CMake projects): a binary without this GPU's target fails at "
                                "run time with hipErrorNoBinaryForGpu / 'invalid device function'.")
                       .with_evidence("env " + name, *value);
    if (!needed.empty()) finding.with_evidence("needed targets", join(needed, ", "));
    std::vector<std::string> fixed;
    for (const auto& target : listed) {
      if (kb::knowledge_base().target(base_target(target)) != nullptr) fixed.push_back(target);
    }
    for (const auto& target : missing) fixed.push_back(target);
    const char separator = name == "PYTORCH_ROCM_ARCH" ? ';' : ';';
    std::string joined;
    for (const auto& target : fixed) joined += (joined.empty() ? "" : std::string(1, separator)) + target;
    if (!joined.empty())
      finding.with_fix(make_fix(kCheckId, "List this machine's targets (semicolon-separated).",
                                {"export " + name + "=" + shell_quote(joined)}));
    findings.push_back(std::move(finding));
  }
}

// Whether `unset NAME` can be pasted as it is: a name of letters, digits and '_'
// not starting with a digit. Any other name (the environment allows any bytes but
// '=') stays out of fix commands, where it could inject shell syntax.
bool is_shell_name(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<std::string> unset_commands(const std::string& name) {
  if (is_shell_name(name)) return {"unset " + name};
  return {};
}

void name_findings(const Environment& env, std::vector<Finding>& findings) {
  for (const auto& [name, value] : env.values) {
    const auto judgement = judge_variable(name);
    if (judgement.verdict == NameVerdict::invented) {
      auto finding = make_finding("env.unknown-variable", Severity::warning, name + " is not a real variable")
                         .because(judgement.why + " " + judgement.instead)
                         .with_evidence("env " + name, value);
      finding.with_fix(make_fix(kCheckId, "Remove it (it has no effect).", unset_commands(name)));
      findings.push_back(std::move(finding));
    } else if (judgement.verdict == NameVerdict::misspelled) {
      std::string summary = fmt::format("{} is not a ROCm variable: did you mean {}?", name, judgement.suggestion);
      std::string detail = "A misspelled variable is silently ignored: the setting it was meant to make never happens.";
      if (judgement.why == "case") detail += " Environment variable names are case-sensitive.";
      if (judgement.why == "suffix") {
        detail += " The per-device form takes the KFD topology node number (/sys/class/kfd/kfd/topology/nodes/<n>).";
      }
      auto finding = make_finding("env.unknown-variable", Severity::warning, summary)
                         .because(detail)
                         .with_evidence("env " + name, value);
      std::vector<std::string> commands = unset_commands(name);
      if (is_shell_name(judgement.suggestion)) {
        commands.push_back("export " + judgement.suggestion + "=" + shell_quote(value));
      }
      finding.with_fix(make_fix(kCheckId, "Rename it.", commands));
      findings.push_back(std::move(finding));
    } else if (judgement.verdict == NameVerdict::unknown) {
      findings.push_back(make_finding("env.unknown-variable", Severity::info,
                                      name + " looks like a ROCm variable but is not one rocm-doctor knows")
                             .because("No documented ROCm, HIP, MIOpen or RCCL variable is close to this name; if it "
                                      "is meant for ROCm, check its spelling in the component's documentation.")
                             .with_evidence("env " + name, value));
    }
  }
}

// Files that show a folder is a ROCm (or HIP) install.
bool looks_like_rocm_install(const Host& host, const std::string& folder) {
  for (const char* marker :
       {"/.info/version", "/bin/hipcc", "/bin/hipconfig", "/include/hip/hip_runtime.h", "/share/hip/version",
        "/lib/libamdhip64.so", "/lib/x86_64-linux-gnu/libamdhip64.so", "/lib/cmake/hip", "/lib64/libamdhip64.so"}) {
    if (host.exists(folder + marker)) return true;
  }
  return false;
}

void path_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings) {
  const auto& install = ctx.fact<RocmInstallation>();
  for (const std::string name : {"ROCM_PATH", "HIP_PATH", "ROCM_HOME"}) {
    const auto value = env.get(name);
    if (!value) continue;
    auto folder = std::string(trim(*value));
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    std::string problem;
    if (folder.empty() || folder.front() != '/')
      problem = "is not an absolute path";
    else if (!ctx.host().exists(folder))
      problem = "does not exist";
    else if (!looks_like_rocm_install(ctx.host(), folder))
      problem = "holds no ROCm install (no .info/version, hipcc or libamdhip64)";
    if (problem.empty()) continue;
    auto finding = make_finding("env.path-invalid", Severity::error, fmt::format("{}={} {}", name, *value, problem))
                       .because(name +
                                " tells build tools (hipcc, CMake, PyTorch extensions via ROCM_HOME) where "
                                "ROCm is; pointing it at nothing makes them fail or silently pick another "
                                "release. /opt/rocm/hip was removed in ROCm 6.0: HIP lives in /opt/rocm itself.")
                       .with_evidence("env " + name, *value);
    std::vector<std::string> commands;
    if (install.active && !install.active->prefix.empty()) {
      const auto prefix =
          install.opt_rocm_target || ctx.host().exists("/opt/rocm") ? std::string("/opt/rocm") : install.active->prefix;
      commands.push_back("export " + name + "=" +
                         shell_quote(install.active->distro_packaged ? install.active->prefix : prefix));
      finding.with_evidence("installed ROCm", install.active->prefix + " " + install.active->version);
    } else {
      commands.push_back("unset " + name);
    }
    finding.with_fix(make_fix(
        kCheckId, "Point it at the installed release (or unset it: the tools default to /opt/rocm).", commands));
    findings.push_back(std::move(finding));
  }
}

// "/opt/rocm-6.1.2/lib" -> "6.1.2".
std::optional<std::string> release_in_path(std::string_view entry) {
  for (const auto part : split(entry, '/')) {
    if (auto version = parse_versioned_folder(part)) return version;
  }
  return std::nullopt;
}

void mixed_release_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings) {
  const auto& install = ctx.fact<RocmInstallation>();
  if (!install.active || install.active->version.empty()) return;
  const auto active = install.active->version;
  for (const std::string name : {"PATH", "LD_LIBRARY_PATH"}) {
    const auto value = env.get(name);
    if (!value) continue;
    for (const auto& entry : split_search_path(*value, name == "LD_LIBRARY_PATH")) {
      const auto release = release_in_path(entry);
      if (!release || compare_versions(*release, active) == 0) continue;
      const bool installed = std::any_of(install.releases.begin(), install.releases.end(), [&](const RocmRelease& r) {
        return compare_versions(r.version, *release) == 0;
      });
      auto finding =
          make_finding("env.mixed-releases", Severity::warning,
                       fmt::format("{} has {} (ROCm {}) but the active release is {}", name, entry, *release, active))
              .because(std::string(installed ? "Two ROCm releases are mixed: "
                                             : "A release that is no longer installed is still listed: ") +
                       (name == "PATH" ? "tools (hipcc, rocminfo) come from one release"
                                       : "libraries come from one release") +
                       " and the rest from another, which breaks builds and gives errors such as "
                       "undefined symbols or 'invalid device function'.")
              .with_evidence("env " + name, *value)
              .with_evidence(install.active->evidence.empty() ? install.active->prefix : install.active->evidence,
                             active);
      const auto replacement = install.active->prefix + entry.substr(entry.find(*release) + release->size());
      std::string fixed;
      for (const auto& other : split_search_path(*value, name == "LD_LIBRARY_PATH")) {
        fixed += (fixed.empty() ? "" : ":") + (other == entry ? replacement : other);
      }
      finding.with_fix(make_fix(
          kCheckId, "Use the active release's folder (and fix the line in ~/.bashrc or /etc/profile.d that adds it).",
          {"export " + name + "=" + shell_quote(fixed)}));
      findings.push_back(std::move(finding));
      break;
    }
  }
}

class EnvCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm environment variables"; }
  int order() const override { return 80; }
  std::vector<std::string_view> finding_ids() const override {
    return {"env.visible-devices-invalid", "env.visible-devices-conflict",
            "env.launch-blocking",         "env.serialize",
            "env.alloc-conf-invalid",      "env.rocm-arch-mismatch",
            "env.unknown-variable",        "env.path-invalid",
            "env.mixed-releases",          "env.ok"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto env = read_environment(ctx.host());
    std::vector<Finding> findings;
    visibility_findings(ctx, env, findings);
    debug_switch_findings(env, findings);
    alloc_conf_findings(env, findings);
    arch_findings(ctx, env, findings);
    name_findings(env, findings);
    path_findings(ctx, env, findings);
    mixed_release_findings(ctx, env, findings);
    if (std::none_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity >= Severity::warning; })) {
      std::vector<std::string> names;
      for (const auto& [name, value] : env.values) {
        if (looks_like_rocm(name) || name.starts_with("PYTORCH_") || name.find("VISIBLE") != std::string::npos)
          names.push_back(name);
      }
      findings.push_back(make_finding("env.ok", Severity::ok,
                                      names.empty() ? std::string("No ROCm variables are set (the defaults apply)")
                                                    : fmt::format("ROCm variables look right: {}", join(names, ", ")))
                             .because("Visibility lists, debugging switches, allocator config, target lists, "
                                      "names and install paths were checked."));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::EnvCheck)
