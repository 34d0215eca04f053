#include "core/runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>

#include "core/node_config.h"
#include "core/report_versions.h"
#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/job_gpus.h"
#include "rocm_doctor/facts/rocm_installs.h"
#include "rocm_doctor/facts/wsl_adapters.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "version.h"

namespace rocm_doctor {

namespace {

std::vector<std::string> all_check_ids() {
  std::vector<std::string> ids;
  for (const Check* check : registered_checks()) ids.emplace_back(check->id());
  return ids;
}

tl::expected<void, std::string> validate_ids(const std::vector<std::string>& ids, const char* option) {
  const auto known = all_check_ids();
  for (const auto& id : ids) {
    if (find_check(id) != nullptr) continue;
    std::string message = std::string(option) + ": unknown check '" + id + "'";
    if (auto suggestion = closest_match(id, known, std::max<std::size_t>(1, id.size() / 3)))
      message += " (did you mean '" + *suggestion + "'?)";
    message += "; see --list-checks";
    return tl::unexpected(message);
  }
  return {};
}

CheckResult skipped_by_policy(const Check& check, std::string reason) {
  CheckResult result;
  result.id = check.id();
  result.title = check.title();
  result.status = CheckStatus::skipped;
  result.skipped_reason = std::move(reason);
  return result;
}

}  // namespace

tl::expected<std::vector<const Check*>, std::string> select_checks(const Selection& selection) {
  if (auto valid = validate_ids(selection.only, "--only"); !valid) return tl::unexpected(valid.error());
  if (auto valid = validate_ids(selection.skip, "--skip"); !valid) return tl::unexpected(valid.error());
  const std::set<std::string> only(selection.only.begin(), selection.only.end());
  const std::set<std::string> skip(selection.skip.begin(), selection.skip.end());
  std::vector<const Check*> chosen;
  for (const Check* check : registered_checks()) {
    const std::string id(check->id());
    if ((only.empty() || only.contains(id)) && !skip.contains(id)) chosen.push_back(check);
  }
  return chosen;
}

namespace {

// Findings quote machine files and variables, which a hostile or corrupt input
// can make megabytes long or fill with terminal control sequences; every
// renderer gets them bounded and printable (fix commands are the checks' own,
// already shell-quoted, and left alone).
constexpr std::size_t kMaxSummaryBytes = 400;
constexpr std::size_t kMaxEvidenceBytes = 4096;

void make_displayable(Finding& finding) {
  finding.summary = displayable(finding.summary, kMaxSummaryBytes, false);
  finding.detail = displayable(finding.detail, kMaxEvidenceBytes, true);
  for (auto& evidence : finding.evidence) {
    evidence.source = displayable(evidence.source, kMaxSummaryBytes, false);
    evidence.value = displayable(evidence.value, kMaxEvidenceBytes, true);
  }
}

}  // namespace

CheckResult run_check(const Check& check, const CheckContext& ctx) {
  CheckResult result;
  result.id = check.id();
  result.title = check.title();
  const auto start = std::chrono::steady_clock::now();
  try {
    auto outcome = check.run(ctx);
    if (outcome.skipped_reason) {
      result.status = CheckStatus::skipped;
      result.skipped_reason = *outcome.skipped_reason;
    } else {
      result.findings = std::move(outcome.findings);
      for (auto& finding : result.findings) make_displayable(finding);
      result.status = status_from(result.findings);
    }
  } catch (const std::exception& error) {
    result.status = CheckStatus::internal_error;
    result.internal_error = error.what();
    spdlog::error("check '{}' failed: {}", result.id, error.what());
  } catch (...) {
    result.status = CheckStatus::internal_error;
    result.internal_error = "unknown exception";
    spdlog::error("check '{}' failed with an unknown exception", result.id);
  }
  result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  spdlog::debug("check '{}': {} in {:.2f} ms", result.id, to_string(result.status), result.duration_ms);
  return result;
}

HostSummary summarize_host(const Host& host) {
  const auto facts = SystemFacts::collect(host);
  HostSummary summary;
  summary.hostname = facts.hostname;
  summary.os = facts.os_pretty_name;
  summary.os_id = facts.os_id;
  summary.os_version = facts.os_version_id;
  summary.kernel = facts.kernel_release;
  summary.container = facts.container;
  summary.wsl = facts.wsl;
  return summary;
}

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

Report run_checks(const Host& host, const RunOptions& options, const std::vector<const Check*>& checks) {
  Report report;
  report.tool_version = kVersion;
  report.generated_at = utc_timestamp();
  report.source = std::string(host.source());
  report.host = summarize_host(host);
  const CheckContext ctx(host, options);
  const bool with_policies = options.policies && !options.policies->empty();
  for (const Check* check : checks) {
    if (with_policies) {
      if (auto reason = policy::skip_reason(*options.policies, check->id())) {
        report.checks.push_back(skipped_by_policy(*check, std::move(*reason)));
        continue;
      }
    }
    report.checks.push_back(run_check(*check, ctx));
  }
  // Site policies judge the same facts the checks used (issue 12).
  if (with_policies) {
    auto judged = policy::evaluate(*options.policies, ctx);
    for (auto& finding : judged.findings) make_displayable(finding);  // rule names and messages are the policy's text
    report.checks.push_back(std::move(judged));
  }
  // The GPU inventory, when a check read it (issue 3): the runner reads nothing the
  // checks did not, so `capture --only os` records no KFD, DRM or PCI tree. The GPU
  // checks list the section even when it is empty ("no GPU" is their answer).
  const bool gpu_checks = std::any_of(checks.begin(), checks.end(), [](const Check* check) {
    return check->id() == "gpu-arch" || check->id() == "libraries";
  });
  if (const auto* inventory = ctx.computed_fact<GpuInventory>();
      inventory && (gpu_checks || !inventory->gpus.empty())) {
    report.sections["gpus"] = inventory->to_json();
    report.sections["physical_gpus"] = inventory->physical_json();
  }
  // Under WSL the Windows adapters the wsl check read (DXCore): rows marked `wsl: true`.
  if (const auto* wsl = ctx.computed_fact<WslAdapters>(); wsl && !wsl->gpu_rows().empty()) {
    auto rows = wsl->gpu_rows();
    auto& gpus = report.sections["gpus"];
    if (!gpus.is_array()) gpus = nlohmann::ordered_json::array();
    for (auto& row : rows) gpus.push_back(std::move(row));
  }
  // The GPUs this job may use, when a check looked (the job check): docs/report-format.md#job.
  if (const auto* job = ctx.computed_fact<JobGpus>(); job && (job->job || job->confined())) {
    report.sections["job"] = job->to_json();
  }
  // Every ROCm on the machine, when a check looked (issue 27): docs/report-format.md#rocm.
  if (const auto* installs = ctx.computed_fact<RocmInstalls>()) report.sections["rocm"] = installs->to_json();
  // After the checks and policies: it only reads the facts they computed.
  try {
    report.versions = collect_versions(ctx, checks);
  } catch (const std::exception& error) {
    spdlog::error("versions failed: {}", error.what());
  }
  // What fleet --baseline compares and no check reports (docs/report-format.md#node_config).
  try {
    if (auto config = collect_node_config(ctx); !config.is_null()) report.sections["node_config"] = std::move(config);
  } catch (const std::exception& error) {
    spdlog::error("node_config failed: {}", error.what());
  }
  if (with_policies) policy::apply_to_report(*options.policies, report);
  // Last: which finding explains which, on the findings as policies left them (issue 17).
  diagnose(report);
  return report;
}

}  // namespace rocm_doctor
