#include "fix/fix_plan.h"

#include <algorithm>
#include <set>

#include "fix/command_kinds.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/impact.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

struct Located {
  const CheckResult* check;
  const Finding* finding;
  std::size_t order;  // position in the report: check order, then the check's own
};

std::vector<Located> located_findings(const Report& report) {
  std::vector<Located> found;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) found.push_back({&check, &finding, found.size()});
  }
  return found;
}

// Site plugins' findings (site.*) and policies' (policy.*): site code, whose
// fixes fix never runs. The plugins check's own plugin.* findings are the doctor's.
bool is_site_finding(std::string_view check_id, std::string_view finding_id) {
  return check_id == "policy" || finding_id.starts_with("site.") || finding_id.starts_with("policy.");
}

// The root causes' ids, most likely first (the diagnosis's ranking); for a
// report without one, every warning and error, worst first.
std::vector<std::string> ranked_causes(const Report& report, const std::vector<Located>& findings) {
  std::vector<std::string> ids;
  for (const auto& root : root_causes(report)) ids.push_back(root.finding->id);
  if (!ids.empty() || !report.root_causes.empty() || !report.also.empty()) return ids;
  std::vector<Located> alarms;
  for (const auto& located : findings) {
    if (located.finding->severity >= Severity::warning) alarms.push_back(located);
  }
  std::stable_sort(alarms.begin(), alarms.end(),
                   [](const Located& a, const Located& b) { return a.finding->severity > b.finding->severity; });
  for (const auto& located : alarms) ids.push_back(located.finding->id);
  return ids;
}

// The findings a root cause explains whose cause the plan fixes: fix leaves
// them to it.
std::set<const Finding*> left_to_their_causes(const Report& report, const FixPlan& plan) {
  std::set<const Finding*> folded;
  for (const auto& root : root_causes(report)) {
    const bool fixed = std::any_of(plan.steps.begin(), plan.steps.end(), [&](const FixStep& step) {
      return step.finding->id == root.finding->id && step.mode == StepMode::apply;
    });
    if (fixed) folded.insert(root.explained.begin(), root.explained.end());
  }
  return folded;
}

std::set<std::string> declared_ids() {
  std::set<std::string> ids;
  for (const Check* check : registered_checks()) {
    for (const auto id : check->finding_ids()) ids.emplace(id);
  }
  for (auto& id : policy::finding_ids()) ids.insert(std::move(id));
  return ids;
}

// One step per finding: the first fix fix can run (else the first), the
// others listed as its alternatives. A postcondition naming another finding
// that no check declares cannot be verified by a re-run: such a step is manual.
void add_steps(FixPlan& plan, const Located& located, bool root_cause) {
  const auto& fixes = located.finding->fixes;
  if (fixes.empty()) return;
  std::vector<std::string> reasons(fixes.size());
  std::vector<StepMode> modes;
  for (std::size_t i = 0; i < fixes.size(); ++i)
    modes.push_back(fix_mode(fixes[i], located.check->id, located.finding->id, reasons[i]));
  const auto runnable = std::find(modes.begin(), modes.end(), StepMode::apply);
  const auto chosen = runnable == modes.end() ? std::size_t{0} : static_cast<std::size_t>(runnable - modes.begin());
  FixStep step;
  step.check_id = located.check->id;
  step.finding = located.finding;
  step.fix = &fixes[chosen];
  step.mode = modes[chosen];
  step.reason = reasons[chosen];
  step.root_cause = root_cause;
  step.postcondition = fixes[chosen].postcondition.value_or(Postcondition{located.finding->id, Severity::info});
  if (step.postcondition.finding.empty()) step.postcondition.finding = located.finding->id;
  // Its own finding is re-judged when its check runs again; another one must be a declared id.
  const bool verifiable =
      step.postcondition.finding == located.finding->id || declared_ids().contains(step.postcondition.finding);
  if (step.mode == StepMode::apply && !verifiable) {
    step.mode = StepMode::manual;
    step.reason = "no check re-run can tell whether it worked (" + step.postcondition.finding + " is no finding id)";
  }
  for (std::size_t i = 0; i < fixes.size(); ++i) {
    if (i != chosen) step.alternatives.push_back(&fixes[i]);
  }
  plan.steps.push_back(std::move(step));
}

bool is_advice(const Finding& finding) {
  return impact_of(finding) == Impact::advice;
}

}  // namespace

std::string_view to_string(StepMode mode) {
  switch (mode) {
    case StepMode::apply: return "apply";
    case StepMode::investigate: return "investigate";
    case StepMode::manual: return "manual";
    case StepMode::site: return "site";
  }
  return "manual";
}

StepMode fix_mode(const Fix& fix, std::string_view check_id, std::string_view finding_id, std::string& reason) {
  if (is_site_finding(check_id, finding_id)) {
    reason = "a site plugin's or policy's fix: site code prints its own, and fix never runs it";
    return StepMode::site;
  }
  if (fix.commands.empty()) {
    reason = "no command: follow the description";
    return StepMode::manual;
  }
  bool changes = false;
  for (const auto& command : fix.commands) {
    switch (command_kind(command)) {
      case CommandKind::unsafe: reason = "a command holds control characters"; return StepMode::manual;
      case CommandKind::interactive:
        reason = "needs a person at an editor or prompt: " + displayable(command, 80, false);
        return StepMode::manual;
      case CommandKind::changes: changes = true; break;
      case CommandKind::reads:
      case CommandKind::reboot:
      case CommandKind::session: break;
    }
  }
  if (!changes) {
    reason = "its commands only look or belong to your own shell: nothing to apply";
    return StepMode::investigate;
  }
  return StepMode::apply;
}

tl::expected<FixPlan, std::string> plan_fixes(const Report& report, const std::vector<std::string>& ids) {
  const auto findings = located_findings(report);
  const auto causes = ranked_causes(report, findings);
  FixPlan plan;

  std::vector<std::string> wanted = ids;
  if (ids.empty()) {
    wanted = causes;
  } else {
    const auto declared = declared_ids();
    std::vector<std::string> known(declared.begin(), declared.end());
    for (const auto& id : ids) {
      const bool raised = std::any_of(findings.begin(), findings.end(),
                                      [&](const Located& located) { return located.finding->id == id; });
      if (raised) continue;
      if (!declared.contains(id)) {
        const auto suggestion = closest_match(id, known, 3);
        return tl::unexpected("unknown finding id '" + id + "'" +
                              (suggestion ? " (did you mean " + *suggestion + "?)" : std::string()));
      }
      plan.not_found.push_back(id);
    }
  }
  // Root causes first, in their rank (every finding raised with that id and
  // explained by nothing), then the rest in report order.
  std::vector<const Located*> chosen;
  const auto take = [&](const Located& located) {
    if (std::find(chosen.begin(), chosen.end(), &located) == chosen.end()) chosen.push_back(&located);
  };
  const auto asked = [&](const Finding& finding) {
    return std::find(wanted.begin(), wanted.end(), finding.id) != wanted.end();
  };
  for (const auto& id : causes) {
    for (const auto& located : findings) {
      if (located.finding->id == id && located.finding->caused_by.empty() && asked(*located.finding)) take(located);
    }
  }
  for (const auto* located : chosen) add_steps(plan, *located, true);
  const auto roots = chosen.size();
  const auto folded = ids.empty() ? left_to_their_causes(report, plan) : std::set<const Finding*>{};
  for (const auto& located : findings) {
    const bool alarm = located.finding->severity >= Severity::warning;
    const bool wanted_here = ids.empty() ? alarm : asked(*located.finding);
    if (!wanted_here || std::find(chosen.begin(), chosen.end(), &located) != chosen.end()) continue;
    if (ids.empty() && is_advice(*located.finding)) {
      if (!located.finding->fixes.empty() &&
          std::find(plan.advice.begin(), plan.advice.end(), located.finding->id) == plan.advice.end()) {
        plan.advice.push_back(located.finding->id);
      }
      continue;
    }
    if (folded.contains(located.finding)) {
      if (std::find(plan.folded.begin(), plan.folded.end(), located.finding->id) == plan.folded.end()) {
        plan.folded.push_back(located.finding->id);
      }
      continue;
    }
    take(located);
  }
  for (std::size_t i = roots; i < chosen.size(); ++i) add_steps(plan, *chosen[i], false);
  return plan;
}

}  // namespace rocm_doctor
