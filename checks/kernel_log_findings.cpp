// `kernel-log`: one finding per finding id of the matched patterns, naming the GPUs the lines
// name, with the repeats collapsed (count, first and last time) and the table's fixes.
#include "kernel_log_findings.h"

#include <algorithm>

#include "rocm_doctor/text.h"

namespace rocm_doctor::kernel_log {

namespace {

constexpr std::string_view kGenericId = "driver.kernel-log";

template <typename T>
void add_unique(std::vector<T>& list, const T& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

std::string devices_text(const std::vector<std::string>& devices) {
  if (devices.empty()) return "";
  return " on " + join(devices, ", ");
}

// The generic finding keeps its summary of pattern ids (driver.kernel-log's contract since
// the first release); the hardware findings say what happened and where.
std::string summary(const std::string& id, const std::vector<const Hit*>& hits) {
  std::vector<std::string> ids, devices;
  for (const auto* hit : hits) {
    add_unique(ids, hit->pattern->id);
    if (!hit->device.empty()) add_unique(devices, hit->device);
  }
  if (id == kGenericId) return "Kernel log: " + join(ids, ", ") + devices_text(devices);
  // Short: a Slurm drain reason and a node-problem-detector line keep the first 80-100 characters.
  return table().findings.at(id).summary + devices_text(devices);
}

Finding one_finding(const std::string& id, const std::string& source, const std::string& window,
                    const std::vector<const Hit*>& hits) {
  Severity worst = Severity::ok;
  std::vector<std::string> meanings, fixes;
  std::size_t lines = 0;
  for (const auto* hit : hits) {
    worst = std::max(worst, hit->pattern->severity);
    add_unique(meanings, hit->pattern->id + ": " + hit->pattern->meaning);
    add_unique(fixes, hit->pattern->fix);
    lines += hit->group.count;
  }
  auto finding = make_finding(id, worst, summary(id, hits))
                     .because("The kernel log " + window + " has " + std::to_string(lines) + " line(s) of this kind. " +
                              join(meanings, " "));
  for (std::size_t i = 0; i < hits.size() && i < kMaxQuoted; ++i) {
    const auto& hit = *hits[i];
    finding.with_evidence(source, (hit.device.empty() ? "" : hit.device + ": ") + quote(hit.group));
  }
  if (hits.size() > kMaxQuoted) {
    finding.with_evidence(source, std::to_string(hits.size() - kMaxQuoted) + " more distinct line(s) not shown");
  }
  if (worst < Severity::warning) return finding;
  std::vector<std::string> advice;
  for (const auto& fix : fixes) advice.push_back(table().fixes.at(fix));
  const std::string command = id == kGenericId ? "sudo dmesg --ctime | grep -iE 'amdgpu|kfd|drm'"
                                               : "sudo dmesg --ctime | grep -iE 'amdgpu|kfd|pcieport|Hardware Error'";
  return finding.with_fix(make_fix(kCheckId, join(advice, " "), {command}, {.root = true}));
}

}  // namespace

std::vector<Finding> hit_findings(const std::string& source, const std::string& window, const std::vector<Hit>& hits) {
  std::vector<std::string> order;
  for (const auto& hit : hits) add_unique(order, hit.pattern->finding);
  std::vector<Finding> findings;
  for (const auto& id : order) {
    std::vector<const Hit*> mine;
    for (const auto& hit : hits) {
      if (hit.pattern->finding == id) mine.push_back(&hit);
    }
    // The worst lines first: a fleet operator reads the first evidence line.
    std::stable_sort(mine.begin(), mine.end(),
                     [](const Hit* a, const Hit* b) { return a->pattern->severity > b->pattern->severity; });
    findings.push_back(one_finding(id, source, window, mine));
  }
  return findings;
}

}  // namespace rocm_doctor::kernel_log
