#include "fix/fix_apply.h"

#include <algorithm>
#include <set>

#include "fix/command_kinds.h"

namespace rocm_doctor {

namespace {

CommandRun not_run(const std::string& command, std::string note) {
  CommandRun run;
  run.command = command;
  run.note = std::move(note);
  return run;
}

// Runs one step's commands; false when one failed (fix stops there).
bool run_step(StepLog& log, const ApplyContext& context, std::set<std::string>& done) {
  for (const auto& command : log.step->fix->commands) {
    switch (command_kind(command)) {
      case CommandKind::reboot:
        log.commands.push_back(not_run(command, "not run: reboot yourself once the fixes are done"));
        continue;
      case CommandKind::session:
        log.commands.push_back(not_run(command, "not run: it only works in your own shell; run it there"));
        continue;
      default: break;
    }
    if (done.contains(command)) {
      log.commands.push_back(not_run(command, "already run above"));
      continue;
    }
    context.say("  $ " + command);
    auto run = context.run(command);
    const bool ok = run.succeeded();
    log.commands.push_back(std::move(run));
    if (!ok) return false;
    done.insert(command);
  }
  return true;
}

// The postcondition's finding in the re-run: the same finding (same summary) if
// it is still there, else another finding of that id in the check, else none.
const Finding* finding_after(const FixStep& step, const Report& after) {
  const Finding* same_id = nullptr;
  for (const auto& check : after.checks) {
    if (check.id != step.check_id) continue;
    for (const auto& candidate : check.findings) {
      if (candidate.id != step.postcondition.finding) continue;
      if (candidate.summary == step.finding->summary) return &candidate;
      if (same_id == nullptr) same_id = &candidate;
    }
  }
  return same_id;
}

// A fix whose `export` or `newgrp` fix could not run takes effect in the
// user's shell or a new login, not in the doctor that re-checks it.
bool left_to_the_shell(const StepLog& entry) {
  return std::any_of(entry.step->fix->commands.begin(), entry.step->fix->commands.end(),
                     [](const std::string& command) { return command_kind(command) == CommandKind::session; });
}

}  // namespace

std::string_view to_string(StepStatus status) {
  switch (status) {
    case StepStatus::planned: return "planned";
    case StepStatus::applied: return "applied";
    case StepStatus::not_applied: return "not-applied";
    case StepStatus::needs_root: return "needs-root";
    case StepStatus::failed: return "failed";
    case StepStatus::not_reached: return "not-reached";
  }
  return "planned";
}

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::none: return "none";
    case Outcome::verified: return "verified";
    case Outcome::pending_reboot: return "takes-effect-after-reboot";
    case Outcome::pending_login: return "takes-effect-after-login";
    case Outcome::still_present: return "still-present";
    case Outcome::unchanged: return "unchanged";
  }
  return "none";
}

std::vector<StepLog> planned_log(const FixPlan& plan) {
  std::vector<StepLog> log;
  for (const auto& step : plan.steps) log.push_back({&step, StepStatus::planned, {}, Outcome::none, ""});
  return log;
}

std::vector<StepLog> apply_plan(const FixPlan& plan, const ApplyContext& context) {
  std::vector<StepLog> log;
  std::set<std::string> done;
  bool stopped = false;
  for (const auto& step : plan.steps) {
    StepLog entry{&step, StepStatus::applied, {}, Outcome::none, ""};
    if (stopped) {
      entry.status = StepStatus::not_reached;
    } else if (step.mode != StepMode::apply) {
      entry.status = StepStatus::not_applied;
    } else if (step.fix->needs_root && !context.root && !context.can_sudo) {
      entry.status = StepStatus::needs_root;
      context.say(step.finding->id + ": needs root, and sudo cannot ask for a password here; run it yourself:");
      for (const auto& command : step.fix->commands) context.say("    " + command);
    } else {
      context.say(step.finding->id + ": " + step.fix->description);
      if (!run_step(entry, context, done)) {
        entry.status = StepStatus::failed;
        stopped = true;
      }
    }
    log.push_back(std::move(entry));
  }
  return log;
}

void judge_outcomes(std::vector<StepLog>& log, const Report& after) {
  for (auto& entry : log) {
    const auto& step = *entry.step;
    if (entry.status != StepStatus::applied && entry.status != StepStatus::not_applied) continue;
    const auto* now = finding_after(step, after);
    entry.after = now == nullptr ? "absent" : std::string(to_string(now->severity));
    // The postcondition: the finding gone, or no worse than it allows.
    const bool holds = now == nullptr || now->severity <= step.postcondition.at_most;
    const bool as_before =
        now != nullptr && now->severity == step.finding->severity && now->summary == step.finding->summary;
    if (entry.status == StepStatus::not_applied) {
      entry.outcome = holds ? Outcome::verified : Outcome::still_present;
    } else if (step.fix->needs_reboot) {
      entry.outcome = Outcome::pending_reboot;
    } else if (step.fix->needs_relogin || (!holds && left_to_the_shell(entry))) {
      entry.outcome = Outcome::pending_login;
    } else if (holds) {
      entry.outcome = Outcome::verified;
    } else {
      entry.outcome = as_before ? Outcome::unchanged : Outcome::still_present;
    }
  }
}

int fix_exit_code(const std::vector<StepLog>& log) {
  for (const auto& entry : log) {
    const bool broken = entry.status == StepStatus::failed || entry.status == StepStatus::needs_root ||
                        entry.outcome == Outcome::still_present || entry.outcome == Outcome::unchanged;
    if (broken) return 4;
  }
  return 0;
}

nlohmann::ordered_json fix_log_json(const std::vector<StepLog>& log, bool dry_run, int exit_code) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const auto& entry : log) {
    const auto& step = *entry.step;
    nlohmann::ordered_json commands = nlohmann::ordered_json::array();
    for (const auto& command : step.fix->commands) {
      nlohmann::ordered_json item{{"command", command}, {"kind", to_string(command_kind(command))}};
      for (const auto& run : entry.commands) {
        if (run.command != command) continue;
        item["ran"] = run.ran;
        if (run.exit_code) item["exit_code"] = *run.exit_code;
        if (run.timed_out) item["timed_out"] = true;
        if (!run.output.empty()) item["output"] = run.output;
        if (run.ran) item["seconds"] = run.seconds;
        if (!run.note.empty()) item["note"] = run.note;
        break;
      }
      commands.push_back(std::move(item));
    }
    nlohmann::ordered_json item{{"finding", step.finding->id},
                                {"check", step.check_id},
                                {"severity", to_string(step.finding->severity)},
                                {"root_cause", step.root_cause},
                                {"description", step.fix->description},
                                {"mode", to_string(step.mode)},
                                {"needs_root", step.fix->needs_root},
                                {"needs_reboot", step.fix->needs_reboot},
                                {"needs_relogin", step.fix->needs_relogin},
                                {"verify", step.fix->verify},
                                {"commands", std::move(commands)},
                                {"status", to_string(entry.status)}};
    if (!step.reason.empty()) item["reason"] = step.reason;
    item["postcondition"] = {{"finding", step.postcondition.finding},
                             {"at_most", to_string(step.postcondition.at_most)}};
    nlohmann::ordered_json alternatives = nlohmann::ordered_json::array();
    for (const auto* fix : step.alternatives) {
      alternatives.push_back({{"description", fix->description}, {"commands", fix->commands}});
    }
    item["alternatives"] = std::move(alternatives);
    if (entry.outcome != Outcome::none) item["outcome"] = to_string(entry.outcome);
    if (!entry.after.empty()) item["after"] = entry.after;
    steps.push_back(std::move(item));
  }
  return {{"dry_run", dry_run}, {"exit_code", exit_code}, {"steps", std::move(steps)}};
}

}  // namespace rocm_doctor
