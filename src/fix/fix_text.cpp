#include "fix/fix_text.h"

#include <fmt/format.h>

#include "fix/command_kinds.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

std::string shown_fix_text(std::string_view text) {
  return displayable(text, 400, false);
}

std::string needs_line(const Fix& fix) {
  std::vector<std::string> needs;
  if (fix.needs_root) needs.emplace_back("root");
  if (fix.needs_reboot) needs.emplace_back("a reboot");
  if (fix.needs_relogin) needs.emplace_back("a new login");
  return needs.empty() ? "nothing more" : join(needs, ", ");
}

// A command line as the report prints it, so it can be compared and pasted;
// one holding control characters is shown escaped (and is never run).
std::string command_line(const std::string& command) {
  return command_kind(command) == CommandKind::unsafe
             ? shown_fix_text(command) + "   (escaped: holds control characters)"
             : command;
}

std::string outcome_text(const StepLog& entry) {
  switch (entry.outcome) {
    case Outcome::verified: return "fixed (verified)";
    case Outcome::pending_reboot: return "applied: takes effect after a reboot";
    case Outcome::pending_login: return "applied: takes effect after you log out and back in";
    case Outcome::still_present:
      return entry.status == StepStatus::applied ? "still there: the fix did not work" : "still there: do it by hand";
    case Outcome::unchanged: return "FAILED: the fix ran but did not change anything";
    case Outcome::none: break;
  }
  switch (entry.status) {
    case StepStatus::needs_root: return "skipped: needs root";
    case StepStatus::failed: return "failed";
    case StepStatus::not_reached: return "not run (an earlier fix failed)";
    default: return std::string(to_string(entry.status));
  }
}

bool raised(const Report& report, const Finding& finding) {
  for (const auto& check : report.checks) {
    for (const auto& candidate : check.findings) {
      if (candidate.id == finding.id && candidate.summary == finding.summary) return true;
    }
  }
  return false;
}

}  // namespace

std::string render_fix_plan(const FixPlan& plan, bool dry_run) {
  std::string out;
  if (plan.steps.empty()) {
    out += "rocm-doctor fix: nothing to fix.\n";
  } else {
    out += fmt::format("rocm-doctor fix: {} fix{} in order{}\n", plan.steps.size(), plan.steps.size() == 1 ? "" : "es",
                       dry_run ? " (dry run: nothing is run)" : "");
  }
  int number = 0;
  for (const auto& step : plan.steps) {
    out += fmt::format("\n{}. [{}] {}{}: {}\n", ++number, to_string(step.finding->severity),
                       shown_fix_text(step.finding->id), step.root_cause ? " (root cause)" : "",
                       shown_fix_text(step.finding->summary));
    out += "   Fix: " + shown_fix_text(step.fix->description) + "\n";
    out += "   Needs: " + needs_line(*step.fix) + "\n";
    if (step.mode != StepMode::apply) out += "   Not run by fix: " + shown_fix_text(step.reason) + "\n";
    for (const auto& command : step.fix->commands) out += "    " + command_line(command) + "\n";
    if (!step.fix->verify.empty()) out += "   Verify: " + shown_fix_text(step.fix->verify) + "\n";
    for (const auto* alternative : step.alternatives) {
      out += "   Or instead (not run): " + shown_fix_text(alternative->description) + "\n";
      for (const auto& command : alternative->commands) out += "    " + command_line(command) + "\n";
    }
  }
  if (!plan.advice.empty()) {
    out += "\nAdvice, not planned (no fault; `rocm-doctor fix ID` to apply it): " +
           shown_fix_text(join(plan.advice, ", ")) + "\n";
  }
  if (!plan.folded.empty()) {
    out += "\nLeft to their causes above (not fixed separately): " + shown_fix_text(join(plan.folded, ", ")) + "\n";
  }
  if (!plan.not_found.empty()) {
    out += "\nNot found on this machine (nothing to fix): " + shown_fix_text(join(plan.not_found, ", ")) + "\n";
  }
  return out;
}

std::string render_fix_outcomes(const std::vector<StepLog>& log, const Report& before, const Report& after) {
  std::string out = "\nBefore -> after:\n";
  for (const auto& entry : log) {
    const auto& finding = *entry.step->finding;
    out += fmt::format("  {:<8} {:<36} -> {:<8} {}\n", to_string(finding.severity), shown_fix_text(finding.id),
                       entry.after.empty() ? "-" : entry.after, outcome_text(entry));
  }
  for (const auto& check : after.checks) {
    for (const auto& finding : check.findings) {
      if (finding.severity >= Severity::warning && !raised(before, finding)) {
        out += fmt::format("  {:<8} {:<36} -> {:<8} new: {}\n", "-", shown_fix_text(finding.id),
                           to_string(finding.severity), shown_fix_text(finding.summary));
      }
    }
  }
  return out;
}

}  // namespace rocm_doctor
