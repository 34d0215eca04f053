// Applies a fix plan one command at a time, then tells from a second
// diagnosis whether each fix worked (docs/fix.md).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fix/fix_plan.h"

namespace rocm_doctor {

// One command as fix ran it (or did not).
struct CommandRun {
  std::string command;  // as the report prints it
  bool ran = false;
  std::optional<int> exit_code;
  bool timed_out = false;
  std::string output;  // what it printed (stdout, then the tail of stderr)
  double seconds = 0;
  std::string note;  // why it was not run, when it was not
  [[nodiscard]] bool succeeded() const { return ran && exit_code == 0 && !timed_out; }
};

enum class StepStatus {
  planned,      // dry run
  applied,      // every command that fix runs succeeded
  not_applied,  // investigate / manual / site: shown, never run
  needs_root,   // skipped: needs root, and root cannot be had here
  failed,       // a command failed: fix stopped here
  not_reached,  // after a failure
};
enum class Outcome {
  none,            // not applied
  verified,        // the finding is gone
  pending_reboot,  // applied; takes effect after a reboot
  pending_login,   // applied; takes effect after a new login
  still_present,   // applied, and the finding is still there, changed
  unchanged,       // applied, and the finding is there exactly as before: "did not change anything"
};

std::string_view to_string(StepStatus status);
std::string_view to_string(Outcome outcome);

struct StepLog {
  const FixStep* step = nullptr;
  StepStatus status = StepStatus::planned;
  std::vector<CommandRun> commands;
  Outcome outcome = Outcome::none;
  std::string after;  // the finding's severity after the fix, "absent" when gone
};

// What applying needs from the machine, injected so tests can drive it.
struct ApplyContext {
  bool root = false;      // the doctor runs as root
  bool can_sudo = false;  // sudo is there and will not need a password nobody can type
  // Runs one shell line (through /bin/sh -c); `command` is what to show.
  std::function<CommandRun(const std::string& command)> run;
  // Progress for the user (stderr).
  std::function<void(const std::string& line)> say;
};

// Runs the plan's apply steps in order and stops at the first failure.
std::vector<StepLog> apply_plan(const FixPlan& plan, const ApplyContext& context);

// The dry run's log: every step planned, nothing run.
std::vector<StepLog> planned_log(const FixPlan& plan);

// Sets each applied step's outcome from the report of the re-run checks.
void judge_outcomes(std::vector<StepLog>& log, const Report& after);

// The exit code of a fix run (0 ok, 4 a fix failed, was skipped or did not work).
int fix_exit_code(const std::vector<StepLog>& log);

// The `fix_log` section of the JSON report (docs/report-format.md).
nlohmann::ordered_json fix_log_json(const std::vector<StepLog>& log, bool dry_run, int exit_code);

}  // namespace rocm_doctor
