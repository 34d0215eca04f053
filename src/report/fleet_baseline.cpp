#include "report/fleet_baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "core/node_config.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// Lists are kept as words joined by '\n': displayable() turns a newline inside a
// value into \x0a, so no value holds one.
constexpr char kWordSeparator = '\n';
constexpr std::size_t kMaxBaselineValueBytes = 160;

std::string shown_baseline_text(std::string_view text) {
  return displayable(text, kMaxBaselineValueBytes, false);
}

std::optional<std::string> version(const ReportDigest& report, const char* key) {
  const auto it = report.versions.find(key);
  if (it == report.versions.end()) return std::nullopt;
  return it->second;
}

std::string joined_words(const std::set<std::string>& words) {
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) out += kWordSeparator;
    out += word;
  }
  return out;
}

const nlohmann::json* member(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string string_of(const nlohmann::json* value) {
  return value != nullptr && value->is_string() ? shown_baseline_text(value->get<std::string>()) : std::string();
}

std::vector<const nlohmann::json*> config_gpus(const nlohmann::json& config) {
  std::vector<const nlohmann::json*> gpus;
  if (const auto* list = member(config, "gpus"); list != nullptr && list->is_array()) {
    for (const auto& gpu : *list)
      if (gpu.is_object()) gpus.push_back(&gpu);
  }
  return gpus;
}

// vbios=... and every firmware block=version of every GPU, once each.
std::string firmware_words(const std::vector<const nlohmann::json*>& gpus) {
  std::set<std::string> words;
  for (const auto* gpu : gpus) {
    if (auto vbios = string_of(member(*gpu, "vbios_version")); !vbios.empty()) words.insert("vbios=" + vbios);
    const auto* firmware = member(*gpu, "firmware");
    if (firmware == nullptr || !firmware->is_object()) continue;
    for (const auto& [block, value] : firmware->items()) {
      if (value.is_string())
        words.insert(shown_baseline_text(block) + "=" + shown_baseline_text(value.get<std::string>()));
    }
  }
  return joined_words(words);
}

// "x16 (7 GPUs), x8 (1 GPU)": each link value with how many GPUs have it.
std::string link_counts(const std::vector<const nlohmann::json*>& gpus, const char* file, bool speed) {
  std::map<std::string, std::size_t> counts;
  for (const auto* gpu : gpus) {
    const auto* pcie = member(*gpu, "pcie");
    auto text = string_of(pcie == nullptr ? nullptr : member(*pcie, file));
    if (!text.empty()) ++counts[speed ? link_speed_label(text) : link_width_label(text)];
  }
  if (counts.empty()) return "none";
  std::vector<std::string> parts;
  for (const auto& [value, count] : counts)
    parts.push_back(fmt::format("{} ({} GPU{})", value, count, count == 1 ? "" : "s"));
  return join(parts, ", ");
}

std::string environment_words(const nlohmann::json* environment) {
  std::set<std::string> words;
  if (environment != nullptr && environment->is_object()) {
    for (const auto& [name, value] : environment->items()) {
      if (value.is_string())
        words.insert(shown_baseline_text(name) + "=" + shown_baseline_text(value.get<std::string>()));
    }
  }
  return joined_words(words);
}

std::optional<std::string> cmdline_words(const nlohmann::json* cmdline) {
  if (cmdline == nullptr || !cmdline->is_string()) return std::nullopt;
  std::set<std::string> words;
  for (auto& word : comparable_cmdline(cmdline->get<std::string>())) words.insert(shown_baseline_text(word));
  return joined_words(words);
}

// A list's words by their key (before '='); a key may have several values (GPUs that differ).
std::map<std::string, std::set<std::string>> words_by_key(const std::string& list) {
  std::map<std::string, std::set<std::string>> out;
  for (auto& word : list_words(list)) {
    auto key = word.substr(0, word.find('='));
    out[std::move(key)].insert(std::move(word));
  }
  return out;
}

std::string words_text(const std::set<std::string>& words) {
  return join(std::vector<std::string>(words.begin(), words.end()), " ");
}

// "adds a=1, lacks b, c=2 instead of c=3".
std::string list_delta(const std::string& value, const std::string& baseline) {
  const auto mine = words_by_key(value);
  const auto theirs = words_by_key(baseline);
  std::vector<std::string> added, lacking, changed;
  for (const auto& [key, words] : mine) {
    const auto it = theirs.find(key);
    if (it == theirs.end()) {
      added.push_back(words_text(words));
    } else if (it->second != words) {
      std::vector<std::string> values;
      for (const auto& word : it->second)
        values.push_back(word.size() > key.size() ? word.substr(key.size() + 1) : word);
      changed.push_back(words_text(words) + " instead of " + join(values, " "));
    }
  }
  for (const auto& [key, words] : theirs)
    if (!mine.contains(key)) lacking.push_back(words_text(words));
  std::vector<std::string> parts;
  if (!added.empty()) parts.push_back("adds " + join(added, ", "));
  if (!lacking.empty()) parts.push_back("lacks " + join(lacking, ", "));
  for (auto& change : changed) parts.push_back(std::move(change));
  return join(parts, "; ");
}

std::string list_text(const std::string& list) {
  if (list.empty()) return "none";
  std::string out = list;
  std::replace(out.begin(), out.end(), kWordSeparator, ' ');
  return out;
}

}  // namespace

bool is_list_attribute(Attribute attribute) {
  return attribute == Attribute::firmware || attribute == Attribute::kernel_cmdline ||
         attribute == Attribute::environment;
}

std::vector<std::string> list_words(const std::string& value) {
  std::vector<std::string> words;
  for (const auto word : split(value, kWordSeparator))
    if (!word.empty()) words.emplace_back(word);
  return words;
}

std::string_view attribute_key(Attribute attribute) {
  static constexpr std::array<std::string_view, kAttributeCount> kKeys = {
      "amdgpu",    "rocm",       "kernel",     "firmware",       "partition_mode",
      "gpu_count", "pcie_width", "pcie_speed", "kernel_cmdline", "environment"};
  return kKeys[static_cast<std::size_t>(attribute)];
}

std::string_view attribute_label(Attribute attribute) {
  static constexpr std::array<std::string_view, kAttributeCount> kLabels = {
      "amdgpu",     "ROCm",           "kernel",
      "firmware",   "partition mode", "GPU count",
      "PCIe width", "PCIe speed",     "kernel command line",
      "environment"};
  return kLabels[static_cast<std::size_t>(attribute)];
}

NodeProfile node_profile(const ReportDigest& report) {
  NodeProfile profile;
  const auto at = [&](Attribute attribute) -> std::optional<std::string>& {
    return profile[static_cast<std::size_t>(attribute)];
  };
  at(Attribute::amdgpu) = version(report, "amdgpu");
  at(Attribute::rocm) = version(report, "rocm");
  at(Attribute::kernel) = version(report, "kernel");
  const std::set<std::string> modes(report.partition_modes.begin(), report.partition_modes.end());
  at(Attribute::partition_mode) = modes.empty() ? "none" : join({modes.begin(), modes.end()}, ", ");
  at(Attribute::gpu_count) = std::to_string(report.gpus.size());
  const auto& config = report.node_config;
  if (!config.is_object()) return profile;  // an older report: the rest is unknown
  const auto gpus = config_gpus(config);
  at(Attribute::firmware) = firmware_words(gpus);
  at(Attribute::pcie_width) = link_counts(gpus, "current_link_width", false);
  at(Attribute::pcie_speed) = link_counts(gpus, "current_link_speed", true);
  at(Attribute::kernel_cmdline) = cmdline_words(member(config, "kernel_cmdline"));
  at(Attribute::environment) = environment_words(member(config, "environment"));
  return profile;
}

std::string shown_value(const std::optional<std::string>& value) {
  return value ? list_text(*value) : "not in the report";
}

std::string describe_difference(Attribute attribute, const std::optional<std::string>& value,
                                const std::optional<std::string>& baseline) {
  const auto label = attribute_label(attribute);
  if (is_list_attribute(attribute) && value && baseline) {
    if (auto delta = list_delta(*value, *baseline); !delta.empty()) return fmt::format("{}: {}", label, delta);
  }
  return fmt::format("{} {} instead of {}", label, shown_value(value), shown_value(baseline));
}

void BaselineTally::add(const NodeProfile& profile, std::string_view host) {
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    auto& values = values_[i];
    if (const auto it = values.find(profile[i]); it != values.end()) {
      ++it->second;
    } else if (values.size() < kBaselineMaxValues) {
      values.emplace(profile[i], 1);
    }
  }
  if (const auto it = profiles_.find(profile); it != profiles_.end()) {
    it->second.add(host);
  } else if (profiles_.size() < kBaselineMaxProfiles) {
    profiles_[profile].add(host);
  } else {
    overflowed_ = true;
  }
}

void BaselineTally::merge(BaselineTally&& other) {
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    for (const auto& [value, count] : other.values_[i]) {
      if (const auto it = values_[i].find(value); it != values_[i].end()) {
        it->second += count;
      } else if (values_[i].size() < kBaselineMaxValues) {
        values_[i].emplace(value, count);
      }
    }
  }
  overflowed_ = overflowed_ || other.overflowed_;
  for (auto& [profile, hosts] : other.profiles_) {
    if (const auto it = profiles_.find(profile); it != profiles_.end()) {
      it->second.merge(hosts);
    } else if (profiles_.size() < kBaselineMaxProfiles) {
      profiles_.emplace(profile, std::move(hosts));
    } else {
      overflowed_ = true;
    }
  }
}

NodeProfile BaselineTally::majority() const {
  NodeProfile baseline;
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    std::size_t best = 0;
    for (const auto& [value, count] : values_[i]) {
      if (count > best || (count == best && !baseline[i] && value)) {
        best = count;
        baseline[i] = value;
      }
    }
  }
  return baseline;
}

void FleetDrift::add(const NodeProfile& profile, std::string_view host) {
  HostSample one;
  one.add(host);
  add(profile, one);
}

void FleetDrift::add(const NodeProfile& profile, const HostSample& hosts) {
  bool differs = false;
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    if (profile[i] == baseline_[i]) continue;
    differs = true;
    add_difference(static_cast<Attribute>(i), profile[i], hosts);
  }
  if (differs) {
    differing_.merge(hosts);
  } else {
    matching_ += hosts.count();
  }
}

void FleetDrift::add_difference(Attribute attribute, const std::optional<std::string>& value, const HostSample& hosts) {
  auto key = std::make_pair(attribute, value);
  if (const auto it = differences_.find(key); it != differences_.end()) {
    it->second.merge(hosts);
  } else if (differences_.size() < kBaselineMaxDifferences) {
    differences_[std::move(key)].merge(hosts);
  } else {
    other_differences_ += hosts.count();
  }
}

void FleetDrift::merge(FleetDrift&& other) {
  differing_.merge(other.differing_);
  matching_ += other.matching_;
  for (const auto& [key, hosts] : other.differences_) add_difference(key.first, key.second, hosts);
  other_differences_ += other.other_differences_;
}

std::vector<DifferenceTally> FleetDrift::differences() const {
  std::vector<DifferenceTally> list;
  for (const auto& [key, hosts] : differences_) list.push_back({key.first, key.second, hosts});
  std::stable_sort(list.begin(), list.end(), [](const DifferenceTally& a, const DifferenceTally& b) {
    return a.nodes.count() > b.nodes.count();
  });
  return list;
}

}  // namespace rocm_doctor
