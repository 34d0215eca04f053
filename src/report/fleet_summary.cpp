#include "report/fleet_summary.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

namespace rocm_doctor {

namespace {

// Best first: the worse root cause, then more errors, then the name.
bool drains_before(const DrainCandidate& a, const DrainCandidate& b) {
  return std::tie(b.rank, b.errors, a.host) < std::tie(a.rank, a.errors, b.host);
}

void keep_worst(std::string& kept, const std::string& severity) {
  if (kept.empty() || severity_rank(severity) > severity_rank(kept)) kept = severity;
}

std::string gpu_model(const std::string& gpu) {
  const auto space = gpu.find(' ');  // "0000:03:00.0 AMD Radeon RX 7900 XTX (gfx1100)"
  return space == std::string::npos ? gpu : gpu.substr(space + 1);
}

std::string version_or_empty(const ReportDigest& report, const char* key) {
  const auto it = report.versions.find(key);
  return it == report.versions.end() ? std::string() : it->second;
}

// Each entry counts once per GPU and once per node that has it.
void count_per_node(const std::vector<std::string>& entries, std::map<std::string, GpuModelTally>& tallies) {
  for (const auto& entry : entries) ++tallies[entry].gpus;
  for (const auto& entry : std::set<std::string>(entries.begin(), entries.end())) ++tallies[entry].nodes;
}

void merge_tallies(const std::map<std::string, GpuModelTally>& from, std::map<std::string, GpuModelTally>& into) {
  for (const auto& [key, tally] : from) {
    into[key].gpus += tally.gpus;
    into[key].nodes += tally.nodes;
  }
}

}  // namespace

void HostSample::add(std::string_view host) {
  ++count_;
  if (hosts_.size() == kFleetHostSample && host >= hosts_.back()) return;
  hosts_.insert(std::upper_bound(hosts_.begin(), hosts_.end(), host), std::string(host));
  if (hosts_.size() > kFleetHostSample) hosts_.pop_back();
}

void HostSample::merge(const HostSample& other) {
  const std::size_t count = count_ + other.count_;
  for (const auto& host : other.hosts_) add(host);
  count_ = count;
}

std::string host_list(const HostSample& sample) {
  std::string out;
  for (const auto& host : sample.hosts()) out += (out.empty() ? "" : ", ") + host;
  if (sample.count() > sample.hosts().size())
    out += " and " + std::to_string(sample.count() - sample.hosts().size()) + " more";
  return out;
}

std::string fleet_node_name(const ReportDigest& report) {
  return report.hostname.empty() ? std::filesystem::path(report.file).stem().string() : report.hostname;
}

std::vector<const DigestFinding*> fleet_root_causes(const ReportDigest& report) {
  std::vector<const DigestFinding*> causes;
  const auto add_once = [&](const DigestFinding& finding) {
    if (severity_rank(finding.severity) < severity_rank("warning")) return;
    for (const auto* seen : causes)
      if (seen->id == finding.id) return;
    causes.push_back(&finding);
  };
  if (report.has_root_causes) {
    for (const auto& id : report.root_causes) {
      const auto it = std::find_if(report.findings.begin(), report.findings.end(),
                                   [&](const DigestFinding& finding) { return finding.id == id; });
      if (it != report.findings.end()) add_once(*it);
    }
    return causes;
  }
  int worst = severity_rank("warning");
  for (const auto& finding : report.findings) worst = std::max(worst, severity_rank(finding.severity));
  for (const auto& finding : report.findings)
    if (severity_rank(finding.severity) == worst) add_once(finding);
  return causes;
}

std::size_t FleetSummary::worst_count(std::string_view severity) const {
  const auto it = worst_.find(severity);
  return it == worst_.end() ? 0 : it->second;
}

void FleetSummary::add(const ReportDigest& report) {
  const auto node = fleet_node_name(report);
  ++nodes_;
  ++worst_[report.worst];

  std::set<std::string> problems;
  std::size_t errors = 0;
  for (const auto& finding : report.findings) {
    if (severity_rank(finding.severity) < severity_rank("warning")) continue;
    if (finding.severity == "error") ++errors;
    auto& tally = findings_[finding.id];
    keep_worst(tally.severity, finding.severity);
    if (problems.insert(finding.id).second) tally.nodes.add(node);  // a node counts once per id
  }
  groups_[{problems.begin(), problems.end()}].add(node);

  const auto causes = fleet_root_causes(report);
  DrainCandidate candidate{0, errors, node, {}};
  for (const auto* cause : causes) {
    auto& tally = root_causes_[cause->id];
    keep_worst(tally.severity, cause->severity);
    tally.nodes.add(node);
    // Fixing it alone repairs the node when nothing else is wrong there: with a
    // diagnosis, the node's other findings are its consequences; without one, it
    // must be the node's only problem.
    if (causes.size() == 1 && (report.has_root_causes || problems.size() == 1)) ++tally.repairs;
    candidate.rank = std::max(candidate.rank, severity_rank(cause->severity));
    candidate.root_causes.push_back(cause->id);
  }
  if (candidate.rank >= severity_rank("error")) consider_for_drain(std::move(candidate));

  for (const auto& [key, value] : report.versions) ++versions_[key][value];
  ++stacks_[{version_or_empty(report, "rocm"), version_or_empty(report, "amdgpu")}];
  std::vector<std::string> models;
  for (const auto& gpu : report.gpus) models.push_back(gpu_model(gpu));
  count_per_node(models, gpu_models_);
  count_per_node(report.partition_modes, partition_modes_);
}

void FleetSummary::consider_for_drain(DrainCandidate candidate) {
  ++drain_total_;
  if (drain_.size() == kFleetDrainList && !drains_before(candidate, drain_.back())) return;
  drain_.insert(std::upper_bound(drain_.begin(), drain_.end(), candidate, drains_before), std::move(candidate));
  if (drain_.size() > kFleetDrainList) drain_.pop_back();
}

void FleetSummary::add_unreadable(std::string file, std::string why) {
  ++unreadable_total_;
  std::pair<std::string, std::string> entry{std::move(file), std::move(why)};
  if (unreadable_.size() == kFleetHostSample && entry >= unreadable_.back()) return;
  unreadable_.insert(std::upper_bound(unreadable_.begin(), unreadable_.end(), entry), std::move(entry));
  if (unreadable_.size() > kFleetHostSample) unreadable_.pop_back();
}

void FleetSummary::merge(FleetSummary&& other) {
  nodes_ += other.nodes_;
  for (const auto& [severity, count] : other.worst_) worst_[severity] += count;
  for (const auto& [id, tally] : other.findings_) {
    auto& mine = findings_[id];
    keep_worst(mine.severity, tally.severity);
    mine.nodes.merge(tally.nodes);
  }
  for (const auto& [id, tally] : other.root_causes_) {
    auto& mine = root_causes_[id];
    keep_worst(mine.severity, tally.severity);
    mine.nodes.merge(tally.nodes);
    mine.repairs += tally.repairs;
  }
  for (const auto& [problems, nodes] : other.groups_) groups_[problems].merge(nodes);
  for (const auto& [key, values] : other.versions_) {
    for (const auto& [value, count] : values) versions_[key][value] += count;
  }
  for (const auto& [stack, count] : other.stacks_) stacks_[stack] += count;
  merge_tallies(other.gpu_models_, gpu_models_);
  merge_tallies(other.partition_modes_, partition_modes_);
  const std::size_t drain_total = drain_total_ + other.drain_total_;
  for (auto& candidate : other.drain_) consider_for_drain(std::move(candidate));
  drain_total_ = drain_total;
  const std::size_t unreadable_total = unreadable_total_ + other.unreadable_total_;
  for (auto& [file, why] : other.unreadable_) add_unreadable(std::move(file), std::move(why));
  unreadable_total_ = unreadable_total;
}

}  // namespace rocm_doctor
