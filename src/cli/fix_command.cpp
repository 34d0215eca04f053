// rocm-doctor fix: applies the fixes a fresh diagnosis prints, root causes
// first, after consent, then re-runs their checks to show what changed.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <set>

#include "cli/cli.h"
#include "cli/report_outputs.h"
#include "fix/fix_apply.h"
#include "fix/fix_text.h"
#include "probe/child_process.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// A fix command may install packages or rebuild a module: minutes, not the
// probes' seconds. One that runs longer than this is killed and fails.
constexpr std::chrono::minutes kCommandTimeout{15};

// For a root run where sudo is not installed (most container images): the
// same command lines run, their `sudo` a function that runs its command.
constexpr std::string_view kSudoShim =
    "sudo() { while [ $# -gt 0 ] && [ \"${1#-}\" != \"$1\" ]; do shift; done; \"$@\"; }; ";

// The program's absolute path on PATH, as a shell would find it; empty when absent.
std::string find_on_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (const auto folder : split(path, ':')) {
    if (folder.empty()) continue;
    auto candidate = std::string(folder) + "/" + std::string(program);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

bool stdin_is_terminal() {
  return ::isatty(STDIN_FILENO) == 1;
}

void say(const std::string& line) {
  fmt::print(stderr, "{}\n", line);
}

// Runs a program (argv[0] an absolute path) in the foreground on the
// terminal, for sudo's password prompt; its exit status, or -1.
int run_in_foreground(const std::vector<std::string>& argv) {
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Whether commands carrying `sudo` can run here without hanging on a prompt:
// sudo -n succeeds, or a person at the terminal types the password once now.
bool sudo_usable(bool needed) {
  const auto sudo = find_on_path("sudo");
  if (!needed || sudo.empty()) return false;
  if (run_in_foreground({sudo, "-n", "true"}) == 0) return true;
  if (!stdin_is_terminal()) return false;
  say("Some fixes need root: sudo asks for your password once.");
  return run_in_foreground({sudo, "-v"}) == 0;
}

CommandRun run_shell_line(const std::string& command, bool shim_sudo) {
  probe::ChildOptions options;
  options.timeout = kCommandTimeout;
  options.stdout_limit = 256 * 1024;
  options.stderr_tail = 64 * 1024;
  const std::string line = shim_sudo ? std::string(kSudoShim) + command : command;
  const auto result = probe::run_child({"/bin/sh", "-c", line}, options);
  CommandRun run;
  run.command = command;
  run.ran = result.started;
  run.exit_code = result.exit_code;
  run.timed_out = result.timed_out;
  run.seconds = static_cast<double>(result.elapsed.count()) / 1000.0;
  run.output = result.out + result.err_tail;
  if (!result.started) run.note = "could not start /bin/sh: " + result.exec_error;
  for (const auto line_out : lines(run.output)) say("    " + displayable(line_out, 400, false));
  if (run.timed_out) say(fmt::format("    (killed after {} minutes)", kCommandTimeout.count()));
  if (run.ran && !run.timed_out && run.exit_code != 0) {
    say(fmt::format("    (exit {}; fix stops here)", run.exit_code ? std::to_string(*run.exit_code) : "by a signal"));
  }
  return run;
}

bool consent_given(std::size_t count) {
  fmt::print(stderr, "\nApply {} fix{} now? [y/N] ", count, count == 1 ? "" : "es");
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes";
}

std::size_t runnable_steps(const FixPlan& plan) {
  std::size_t count = 0;
  for (const auto& step : plan.steps) count += step.mode == StepMode::apply ? 1 : 0;
  return count;
}

// The checks the applied fixes belong to, re-run to see what changed.
Selection recheck_selection(const std::vector<StepLog>& log) {
  std::set<std::string> ids;
  for (const auto& entry : log) ids.insert(entry.step->check_id);
  return Selection{std::vector<std::string>(ids.begin(), ids.end()), {}};
}

int write_with_log(Report report, const std::vector<StepLog>& log, bool dry_run, int exit_code,
                   const RunCommandOptions& options, const std::vector<OutputTarget>& targets) {
  if (options.outputs.empty()) return exit_code;
  report.sections["fix_log"] = fix_log_json(log, dry_run, exit_code);
  if (const int rc = write_outputs(report, targets, options); rc != 0) return rc;
  return exit_code;
}

}  // namespace

int fix_command(const std::vector<std::string>& ids, bool dry_run, bool yes, const RunCommandOptions& options) {
  constexpr int kWrongEnvironment = 3;
  constexpr int kDeclined = 5;
  if (!dry_run && (!options.replay.empty() || options.run.image_mode)) {
    say("rocm-doctor fix: fixes apply to this machine only, not to a snapshot or an image being built; "
        "--dry-run shows what would be done there");
    return kWrongEnvironment;
  }
  if (!dry_run && !yes && !stdin_is_terminal()) {
    say("rocm-doctor fix: stdin is not a terminal, so nobody can say yes: pass --yes to apply, or --dry-run to look");
    return kDeclined;
  }
  const auto checks = select_checks(options.selection);
  if (!checks) return usage_error(checks.error());
  const auto targets = output_targets(options);
  if (!targets) return usage_error(targets.error());
  const auto before = machine_report(options, *checks);
  if (!before) return before.error();
  const auto plan = plan_fixes(*before, ids);
  if (!plan) return usage_error(plan.error());

  const auto text = render_fix_plan(*plan, dry_run);
  if (dry_run) {
    if (options.outputs.empty()) fmt::print("{}", text);
    return write_with_log(*before, planned_log(*plan), true, 0, options, *targets);
  }
  fmt::print(stderr, "{}", text);
  if (plan->steps.empty()) return 0;
  if (runnable_steps(*plan) > 0 && !yes && !consent_given(runnable_steps(*plan))) {
    say("rocm-doctor fix: declined; nothing was run");
    return kDeclined;
  }

  const bool root = ::geteuid() == 0;
  bool needs_sudo = false;
  for (const auto& step : plan->steps)
    needs_sudo = needs_sudo || (step.mode == StepMode::apply && step.fix->needs_root);
  const bool shim = root && find_on_path("sudo").empty();
  ApplyContext context{root, !root && sudo_usable(needs_sudo),
                       [shim](const std::string& command) { return run_shell_line(command, shim); }, say};
  auto log = apply_plan(*plan, context);

  auto recheck = options;
  recheck.selection = recheck_selection(log);
  const auto after_checks = select_checks(recheck.selection);
  if (!after_checks) return usage_error(after_checks.error());
  const auto after = machine_report(recheck, *after_checks);
  if (!after) return after.error();
  judge_outcomes(log, *after);
  fmt::print(stderr, "{}", render_fix_outcomes(log, *before, *after));
  const int code = fix_exit_code(log);
  return write_with_log(*after, log, false, code, options, *targets);
}

}  // namespace rocm_doctor
