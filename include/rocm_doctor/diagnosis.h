// Root causes: which finding explains which (checks/data/causal_rules.json),
// applied to a report after the checks and policies. Renderers and
// `rocm-doctor fix` read the result through root_causes() below.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/report.h"

namespace rocm_doctor {

// "A explains B only when ...": a regular expression over one field of the
// cause or of the explained finding.
struct CausalCondition {
  enum class Of { cause, effect };
  enum class Field { summary, detail, evidence };  // evidence: each "source: value"
  Of of = Of::effect;
  Field field = Field::evidence;
  std::string pattern;  // as written in the data file
  std::regex regex;
};

struct CausalRule {
  std::string cause;                  // a finding id
  std::vector<std::string> explains;  // finding ids; "prefix.*" and "*" match many
  std::vector<std::string> except;    // the same syntax, left out of `explains`
  std::vector<CausalCondition> only_when;
  bool drop_fixes = false;  // the explained finding's fixes do not apply (removed)
  std::string reason;       // why the cause explains them (shown with the folded finding)
  std::string source;
};

// The rules of a causal_rules.json text; an error names the file, the rule and field.
tl::expected<std::vector<CausalRule>, std::string> parse_causal_rules(std::string_view json_text);
// checks/data/causal_rules.json (overlays included), parsed once per table text.
const std::vector<CausalRule>& causal_rules();

// Sets every warning-or-error finding's `caused_by` and the report's
// `root_causes` (ranked: docs/architecture.md#root-causes), and removes the
// fixes of findings a `drop_fixes` rule explains. Run once, after policies.
void diagnose(Report& report, const std::vector<CausalRule>& rules);
void diagnose(Report& report);
// Moves these ids (root causes that explain the user's error text) to the
// front of `root_causes`, keeping the order of the rest.
void put_first(Report& report, const std::vector<std::string>& ids);

// A root cause and what it explains (directly or through other findings), in
// report order. Each explained finding is listed under the first root cause
// (in `root_causes` order) that reaches it.
struct RootCause {
  const Finding* finding = nullptr;
  std::vector<const Finding*> explained;
};

// The report's root causes in rank order, from `root_causes` and `caused_by`
// (so it also works on a report read back from JSON).
std::vector<RootCause> root_causes(const Report& report);
// The report's `also` entries (tidying and advice) with what each explains.
std::vector<RootCause> also_worth_doing(const Report& report);
// Why `cause` explains `effect`: the first matching rule's reason, or empty.
std::string causal_reason(std::string_view cause, std::string_view effect);

}  // namespace rocm_doctor
