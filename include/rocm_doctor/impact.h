// Impact: how much a finding stops ROCm from working (checks/data/finding_impact.json).
// The causal stage ranks root causes by it; `tidy` and `advice` findings are
// listed under the report's `also`, never as root causes (docs/architecture.md#root-causes).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "rocm_doctor/finding.h"

namespace rocm_doctor {

// Ordered: a lower value matters more.
enum class Impact { blocks = 0, breaks = 1, degrades = 2, tidy = 3, advice = 4 };

std::string_view to_string(Impact impact);
std::optional<Impact> parse_impact(std::string_view text);
// blocks, breaks and degrades stop or hurt GPU work; tidy and advice do not.
inline bool is_fault(Impact impact) {
  return impact <= Impact::degrades;
}

// One id's entry: a class for every severity, or one per severity.
struct ImpactEntry {
  std::optional<Impact> any;
  std::map<Severity, Impact> by_severity;
};

struct ImpactTable {
  std::map<std::string, ImpactEntry, std::less<>> entries;
  std::map<Severity, Impact> severity_default;

  // The declared class for this id at this severity, if the table has one.
  [[nodiscard]] std::optional<Impact> declared(std::string_view id, Severity severity) const;
  // The declared class, else the severity default (a site plugin's own ids).
  [[nodiscard]] Impact of(std::string_view id, Severity severity) const;
};

// A finding_impact.json text; an error names the id and what is wrong.
tl::expected<ImpactTable, std::string> parse_impact_table(std::string_view json_text);
// The compiled-in (or overlaid) checks/data/finding_impact.json.
const ImpactTable& impact_table();
// The impact of a finding as reported (its id and its severity).
Impact impact_of(const Finding& finding);

}  // namespace rocm_doctor
