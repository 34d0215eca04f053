// What `rocm-doctor fix` shows: the plan (the whole output of --dry-run) and,
// after applying, each finding before and after.
#pragma once

#include <string>
#include <vector>

#include "fix/fix_apply.h"
#include "fix/fix_plan.h"

namespace rocm_doctor {

// Every step in order: finding, fix, what it needs, its commands exactly as
// the report prints them (one per line, indented four spaces), its verify line.
std::string render_fix_plan(const FixPlan& plan, bool dry_run);

// One line per step: the finding before, after, and what became of its fix;
// then the warnings and errors the re-run checks raise that were not there
// before (access.relogin-required after a group change).
std::string render_fix_outcomes(const std::vector<StepLog>& log, const Report& before, const Report& after);

}  // namespace rocm_doctor
