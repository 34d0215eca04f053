// Runs the selected checks against a host and assembles the report.
#pragma once

#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/check.h"
#include "rocm_doctor/report.h"

namespace rocm_doctor {

struct Selection {
  std::vector<std::string> only;  // empty: every check
  std::vector<std::string> skip;
};

// The checks a selection names, in report order; an unknown id is an error
// naming it (with a "did you mean" suggestion).
tl::expected<std::vector<const Check*>, std::string> select_checks(const Selection& selection);

// Runs one check, turning an exception into an internal-error result.
CheckResult run_check(const Check& check, const CheckContext& ctx);

Report run_checks(const Host& host, const RunOptions& options, const std::vector<const Check*>& checks);

// Host summary for the report header.
HostSummary summarize_host(const Host& host);

// Current time as RFC 3339 UTC ("2026-11-30T07:00:00Z").
std::string utc_timestamp();

}  // namespace rocm_doctor
