// The result of a run: what every output format renders.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "rocm_doctor/finding.h"

namespace rocm_doctor {

enum class CheckStatus { ok, info, warning, error, skipped, internal_error };
std::string_view to_string(CheckStatus status);

struct CheckResult {
  std::string id;
  std::string title;
  CheckStatus status = CheckStatus::ok;
  double duration_ms = 0;
  std::vector<Finding> findings;
  std::string skipped_reason;  // when status == skipped
  std::string internal_error;  // when status == internal_error
};

struct HostSummary {
  std::string hostname;
  std::string os;  // PRETTY_NAME
  std::string os_id;
  std::string os_version;
  std::string kernel;
  std::string container;  // runtime name, empty when not in a container
  bool wsl = false;
};

struct Report {
  std::string tool_version;
  std::string generated_at;  // RFC 3339, UTC
  std::string source;        // "live" or "snapshot"
  HostSummary host;
  // The versions that matter at a glance ("rocm" -> "6.2.4", "amdgpu" -> "6.8.5"),
  // in display order; a key is absent when unknown (docs/report-format.md#versions).
  std::vector<std::pair<std::string, std::string>> versions;
  std::vector<CheckResult> checks;
  // The warning-or-error finding ids nothing else explains, most likely first
  // (set by the causal stage; docs/architecture.md#root-causes). Empty: healthy.
  std::vector<std::string> root_causes;
  // Warning-or-error findings nothing explains whose impact is `tidy` or
  // `advice` (rocm_doctor/impact.h): worth doing, never a root cause. Same order rules.
  std::vector<std::string> also;
  // Extra top-level sections contributed by later stages (e.g. "gpus").
  std::map<std::string, nlohmann::ordered_json> sections;
};

struct SeverityCounts {
  int ok = 0;
  int info = 0;
  int warning = 0;
  int error = 0;
  int skipped = 0;
  int internal_error = 0;
};

SeverityCounts count_findings(const Report& report);
// The worst severity among all findings (ok when there are none).
Severity worst_severity(const Report& report);
// A check's status from its findings: the worst of their severities.
CheckStatus status_from(const std::vector<Finding>& findings);

// The CLI's documented exit codes.
enum class ExitCode : int { ok = 0, findings = 1, usage = 2, internal = 3 };
ExitCode exit_code_for(const Report& report, Severity fail_on);

}  // namespace rocm_doctor
