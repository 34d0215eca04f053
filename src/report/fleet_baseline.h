// `rocm-doctor fleet --baseline`: the nodes whose configuration differs from a
// baseline (one report, or the most common value of each attribute across the
// fleet), grouped by difference. Like fleet_summary.h, what it keeps grows with
// the number of distinct configurations, never with the number of nodes.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/fleet_summary.h"
#include "report/report_digest.h"

namespace rocm_doctor {

// What nodes compare, in the order they are shown.
enum class Attribute {
  amdgpu,
  rocm,
  kernel,
  firmware,
  partition_mode,
  gpu_count,
  pcie_width,
  pcie_speed,
  kernel_cmdline,
  environment,
};
inline constexpr std::size_t kAttributeCount = 10;

// "amdgpu", "rocm", ... (JSON keys) and "amdgpu", "ROCm", "PCIe width", ... (text).
std::string_view attribute_key(Attribute attribute);
std::string_view attribute_label(Attribute attribute);

// One node's value of each attribute; nullopt where its report does not say (an older
// report has no node_config; a report with no amdgpu-dkms driver has no `amdgpu`).
// Lists (firmware, kernel command line, environment) are space-separated `key=value`
// words, sorted; PCIe links are counted per value ("7x x16, 1x x8"); "none" for no GPU.
using NodeProfile = std::array<std::optional<std::string>, kAttributeCount>;
NodeProfile node_profile(const ReportDigest& report);

// "amdgpu 6.8.5 instead of 6.10.5"; for lists what the node adds, lacks or changes:
// "kernel command line: adds amdgpu.ppfeaturemask=0xffffffff, lacks iommu=pt".
std::string describe_difference(Attribute attribute, const std::optional<std::string>& value,
                                const std::optional<std::string>& baseline);
// Firmware, kernel command line and environment: lists of words.
bool is_list_attribute(Attribute attribute);
// A list's words ("" is none).
std::vector<std::string> list_words(const std::string& value);
// "6.10.5", or "not in the report".
std::string shown_value(const std::optional<std::string>& value);

inline constexpr std::size_t kBaselineMaxProfiles = 1024;  // distinct configurations kept
inline constexpr std::size_t kBaselineMaxValues = 1024;    // distinct values kept per attribute
inline constexpr std::size_t kBaselineMaxDifferences = 1024;

// The fleet's configurations as they stream by, for `--baseline auto`: each distinct
// profile with its nodes, and per attribute how many nodes have each value.
class BaselineTally {
 public:
  void add(const NodeProfile& profile, std::string_view host);
  void merge(BaselineTally&& other);
  // Each attribute's most common value (ties: the smaller value, nullopt first).
  [[nodiscard]] NodeProfile majority() const;
  // More distinct profiles than kept: the grouping needs a second pass over the reports.
  [[nodiscard]] bool overflowed() const { return overflowed_; }
  [[nodiscard]] const std::map<NodeProfile, HostSample>& profiles() const { return profiles_; }

 private:
  std::map<NodeProfile, HostSample> profiles_;
  bool overflowed_ = false;
  std::array<std::map<std::optional<std::string>, std::size_t>, kAttributeCount> values_;
};

// One difference from the baseline and the nodes that show it.
struct DifferenceTally {
  Attribute attribute;
  std::optional<std::string> value;
  HostSample nodes;
};

// Every node compared with the baseline.
class FleetDrift {
 public:
  explicit FleetDrift(NodeProfile baseline) : baseline_(std::move(baseline)) {}
  void add(const NodeProfile& profile, std::string_view host);
  // Nodes that share one profile (BaselineTally::profiles).
  void add(const NodeProfile& profile, const HostSample& hosts);
  void merge(FleetDrift&& other);

  [[nodiscard]] const NodeProfile& baseline() const { return baseline_; }
  [[nodiscard]] const HostSample& differing() const { return differing_; }
  [[nodiscard]] std::size_t matching() const { return matching_; }
  // Most nodes first, then in attribute order.
  [[nodiscard]] std::vector<DifferenceTally> differences() const;
  // Nodes with a difference beyond the kBaselineMaxDifferences kept.
  [[nodiscard]] std::size_t other_differences() const { return other_differences_; }

 private:
  void add_difference(Attribute attribute, const std::optional<std::string>& value, const HostSample& hosts);

  NodeProfile baseline_;
  HostSample differing_;
  std::size_t matching_ = 0;
  std::map<std::pair<Attribute, std::optional<std::string>>, HostSample> differences_;
  std::size_t other_differences_ = 0;
};

}  // namespace rocm_doctor
