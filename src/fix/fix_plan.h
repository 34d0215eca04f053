// Which fixes `rocm-doctor fix` takes from a report, in which order, and
// which of them it may run (docs/fix.md).
#pragma once

#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/report.h"

namespace rocm_doctor {

// What fix does with one of a finding's fixes.
enum class StepMode {
  apply,        // runs its commands
  investigate,  // its commands only look (dmesg, cat...): shown, nothing to apply
  manual,       // needs a person: no command, an editor, a password prompt, or unsafe text
  site,         // a site plugin's or policy's fix: site code prints its own, fix never runs it
};

std::string_view to_string(StepMode mode);

struct FixStep {
  std::string check_id;  // the check the finding belongs to (re-run to verify)
  const Finding* finding = nullptr;
  const Fix* fix = nullptr;
  StepMode mode = StepMode::apply;
  std::string reason;  // why fix does not run it (every mode but apply)
  bool root_cause = false;
  // The finding's other fixes: alternatives to this one, shown, never run (issue 26).
  std::vector<const Fix*> alternatives;
  // What must hold after the fix ran: `finding` absent from the re-run, or at most `at_most`.
  Postcondition postcondition;
};

struct FixPlan {
  std::vector<FixStep> steps;
  std::vector<std::string> not_found;  // asked-for ids this run did not raise
  std::vector<std::string> folded;     // explained by a cause whose fix is in the plan
  std::vector<std::string> advice;     // advice findings: not faults, planned only when asked for by id
};

// How fix treats one fix of the finding `finding_id` of `check_id`; `reason`
// says why when it does not run it.
StepMode fix_mode(const Fix& fix, std::string_view check_id, std::string_view finding_id, std::string& reason);

// With no ids: the fixes of the root causes, most likely first, then those of
// the other warnings and errors, leaving out findings a planned cause
// explains and advice (impact `advice`: not a fault). One step per finding:
// its first fix that fix can run (else its first), the others its alternatives. With ids: those findings' fixes in the
// same order. An id no check declares and this run did not raise is an error naming it.
tl::expected<FixPlan, std::string> plan_fixes(const Report& report, const std::vector<std::string>& ids);

}  // namespace rocm_doctor
