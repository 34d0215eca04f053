// `rocm-doctor fleet`'s summary, folded one report at a time. What it keeps grows
// with the number of distinct finding ids, problem sets, versions and GPU models,
// never with the number of nodes: host names are kept as a bounded sample (the
// first ones in name order) beside the exact counts.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/report_digest.h"

namespace rocm_doctor {

inline constexpr std::size_t kFleetHostSample = 20;  // host names kept per entry
inline constexpr std::size_t kFleetDrainList = 20;   // nodes named in "drain first"

// How many nodes an entry has, and the first kFleetHostSample of their names.
class HostSample {
 public:
  void add(std::string_view host);
  void merge(const HostSample& other);
  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] const std::vector<std::string>& hosts() const { return hosts_; }  // sorted

 private:
  std::size_t count_ = 0;
  std::vector<std::string> hosts_;
};

struct FindingTally {
  std::string severity;  // the worst seen
  HostSample nodes;
};

// A root cause across the fleet: the nodes that have it, and those it alone
// breaks (fixing it repairs them).
struct RootCauseTally {
  std::string severity;  // the worst seen
  HostSample nodes;
  std::size_t repairs = 0;
};

// A node that should leave the scheduler first: the worse its root causes, and
// the more errors it has, the sooner.
struct DrainCandidate {
  int rank = 0;  // severity_rank of its worst root cause
  std::size_t errors = 0;
  std::string host;
  std::vector<std::string> root_causes;
};

struct GpuModelTally {
  std::size_t gpus = 0;
  std::size_t nodes = 0;
};

class FleetSummary {
 public:
  void add(const ReportDigest& report);
  void add_unreadable(std::string file, std::string why);
  // Another worker's summary: the result is the same whichever order reports came in.
  void merge(FleetSummary&& other);

  [[nodiscard]] std::size_t nodes() const { return nodes_; }
  [[nodiscard]] std::size_t worst_count(std::string_view severity) const;
  [[nodiscard]] const std::map<std::string, std::size_t, std::less<>>& worst() const { return worst_; }
  [[nodiscard]] const std::map<std::string, FindingTally>& findings() const { return findings_; }
  [[nodiscard]] const std::map<std::string, RootCauseTally>& root_causes() const { return root_causes_; }
  [[nodiscard]] const std::map<std::vector<std::string>, HostSample>& groups() const { return groups_; }
  [[nodiscard]] const std::map<std::string, std::map<std::string, std::size_t>>& versions() const { return versions_; }
  // (ROCm release, amdgpu driver) -> nodes; "" where a report does not say.
  [[nodiscard]] const std::map<std::pair<std::string, std::string>, std::size_t>& stacks() const { return stacks_; }
  [[nodiscard]] const std::map<std::string, GpuModelTally>& gpu_models() const { return gpu_models_; }
  // "AMD Instinct MI300X CPX/NPS4" -> physical GPUs in that mode, and their nodes.
  [[nodiscard]] const std::map<std::string, GpuModelTally>& partition_modes() const { return partition_modes_; }
  // Nodes to drain first, best first, at most kFleetDrainList; drain_total() counts them all.
  [[nodiscard]] const std::vector<DrainCandidate>& drain_first() const { return drain_; }
  [[nodiscard]] std::size_t drain_total() const { return drain_total_; }
  // The first unreadable files in name order (at most kFleetHostSample), and how many there were.
  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& unreadable() const { return unreadable_; }
  [[nodiscard]] std::size_t unreadable_total() const { return unreadable_total_; }

 private:
  void consider_for_drain(DrainCandidate candidate);

  std::size_t nodes_ = 0;
  std::map<std::string, std::size_t, std::less<>> worst_;
  std::map<std::string, FindingTally> findings_;
  std::map<std::string, RootCauseTally> root_causes_;
  std::map<std::vector<std::string>, HostSample> groups_;
  std::map<std::string, std::map<std::string, std::size_t>> versions_;
  std::map<std::pair<std::string, std::string>, std::size_t> stacks_;
  std::map<std::string, GpuModelTally> gpu_models_;
  std::map<std::string, GpuModelTally> partition_modes_;
  std::vector<DrainCandidate> drain_;
  std::size_t drain_total_ = 0;
  std::vector<std::pair<std::string, std::string>> unreadable_;
  std::size_t unreadable_total_ = 0;
};

// "node001, node002 and 38 more": the sample, and how many it leaves out.
std::string host_list(const HostSample& sample);

// The node's name in the summary: its hostname, else the report file's stem.
std::string fleet_node_name(const ReportDigest& report);

// The node's root causes at warning or worse: the report's `root_causes` when it has
// them, else its findings of the worst severity it has (in report order, once each).
std::vector<const DigestFinding*> fleet_root_causes(const ReportDigest& report);

}  // namespace rocm_doctor
