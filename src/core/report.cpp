#include "rocm_doctor/report.h"

#include <algorithm>

namespace rocm_doctor {

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::ok: return "ok";
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "error";
}

std::optional<Severity> parse_severity(std::string_view text) {
  for (auto severity : {Severity::ok, Severity::info, Severity::warning, Severity::error}) {
    if (text == to_string(severity)) return severity;
  }
  return std::nullopt;
}

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::ok: return "ok";
    case CheckStatus::info: return "info";
    case CheckStatus::warning: return "warning";
    case CheckStatus::error: return "error";
    case CheckStatus::skipped: return "skipped";
    case CheckStatus::internal_error: return "internal-error";
  }
  return "internal-error";
}

SeverityCounts count_findings(const Report& report) {
  SeverityCounts counts;
  for (const auto& check : report.checks) {
    if (check.status == CheckStatus::skipped) ++counts.skipped;
    if (check.status == CheckStatus::internal_error) ++counts.internal_error;
    for (const auto& finding : check.findings) {
      switch (finding.severity) {
        case Severity::ok: ++counts.ok; break;
        case Severity::info: ++counts.info; break;
        case Severity::warning: ++counts.warning; break;
        case Severity::error: ++counts.error; break;
      }
    }
  }
  return counts;
}

Severity worst_severity(const Report& report) {
  Severity worst = Severity::ok;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) worst = std::max(worst, finding.severity);
  }
  return worst;
}

CheckStatus status_from(const std::vector<Finding>& findings) {
  Severity worst = Severity::ok;
  for (const auto& finding : findings) worst = std::max(worst, finding.severity);
  switch (worst) {
    case Severity::ok: return CheckStatus::ok;
    case Severity::info: return CheckStatus::info;
    case Severity::warning: return CheckStatus::warning;
    case Severity::error: return CheckStatus::error;
  }
  return CheckStatus::error;
}

ExitCode exit_code_for(const Report& report, Severity fail_on) {
  if (worst_severity(report) >= fail_on) return ExitCode::findings;
  const bool any_internal = std::any_of(report.checks.begin(), report.checks.end(), [](const CheckResult& check) {
    return check.status == CheckStatus::internal_error;
  });
  return any_internal ? ExitCode::internal : ExitCode::ok;
}

}  // namespace rocm_doctor
