#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "cli/cli.h"
#include "probe/probe_runner.h"
#include "render/formats.h"
#include "rocm_doctor/facts/rocm_installs.h"
#include "rocm_doctor/log_window.h"
#include "rocm_doctor/text.h"
#include "version.h"

namespace rocm_doctor {

namespace {

void setup_logging(bool verbose) {
  // stdout carries only the report; every log line goes to stderr.
  auto logger = spdlog::stderr_color_mt("rocm-doctor");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("rocm-doctor: %^%l%$: %v");
  spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
}

std::string version_text() {
  return fmt::format("rocm-doctor {} (commit {}, {} build)", kVersion, git_commit(), kBuildType);
}

void add_run_options(CLI::App& app, RunCommandOptions& options) {
  app.add_option("--replay", options.replay, "Diagnose a captured snapshot folder instead of this machine");
  app.add_option("--format", options.format, "Report format: " + join(format_names(), ", "))
      ->check(CLI::IsMember(format_names()));
  app.add_flag("--json", options.json, "Same as --format json");
  app.add_option("-o,--output", options.outputs,
                 "Write the report to FILE (atomically) instead of stdout; FORMAT=FILE picks the format "
                 "(repeat for several)");
  app.add_option("--fix-script", options.fix_script,
                 "Also write every fix as one reviewable shell script to FILE (never run by the doctor)");
  app.add_flag("--redact", options.redact,
               "Replace host and user names, home folders, addresses and GPU serials by placeholders");
  // One value per occurrence (comma-separated), so `fix --only access ID` leaves ID to fix.
  app.add_option("--only", options.selection.only, "Run only these checks (comma-separated ids)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--skip", options.selection.skip, "Skip these checks (comma-separated ids)")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_flag("--list-checks", options.list_checks, "List the available checks and the active policies, and exit");
  app.add_option("--policy", options.policy_files,
                 "Also judge the machine against this site policy (JSON, docs/policy-format.md); repeatable. "
                 "/etc/rocm-doctor/policy.d/*.json is read too on live runs");
  app.add_option("--fail-on", options.fail_on, "Exit 1 when a finding is at or above this severity")
      ->check(CLI::IsMember({"error", "warning"}));
  app.add_flag("--no-color", options.no_color, "Never color the text report (NO_COLOR is honoured too)");
  app.add_flag("-v,--verbose", options.verbose, "Log what the doctor does to stderr and show every detail");
  app.add_flag("--image", options.run.image_mode,
               "Checking a container image at build time: no GPU or driver is expected");
  app.add_option("--target-gfx", options.run.target_gfx,
                 "gfx targets the image is meant for, e.g. gfx942,gfx1100 (used when no GPU is present)")
      ->delimiter(',');
  app.add_option("--level", options.level,
                 "How deep to look: quick (no vendor library loaded), standard (runtime probes), "
                 "full (adds a 64 MiB HIP copy test)")
      ->check(CLI::IsMember({"quick", "standard", "full"}));
  app.add_option("--probe-timeout", options.probe_timeout_seconds,
                 "Seconds each runtime probe or site plugin may take before it is killed (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--plugin-dir", options.plugin_dirs,
                 "Also run the site check plugins in DIR (repeatable; besides /etc/rocm-doctor/checks.d and "
                 "~/.config/rocm-doctor/checks.d; docs/plugins.md)")
      ->allow_extra_args(false);
  app.add_option("--knowledge", options.knowledge_dirs,
                 "Add or override knowledge tables (checks/data/*.json) from the *.json files in DIR, after "
                 "/etc/rocm-doctor/knowledge.d (repeatable; docs/knowledge.md)")
      ->allow_extra_args(false);
  app.add_option("--symptom", options.symptom,
                 "Also explain this error message (\"-\": read it from stdin) with what the checks find");
  app.add_option("--log", options.log_file,
                 "Also explain the error messages in this log FILE (its last 128 MiB; messages may span lines)");
  app.add_option_function<std::string>(
         "--since", [](const std::string& value) { set_kernel_log_since(value); },
         "Kernel-log window: boot (default), the last 90s/30m/24h/7d, or since an RFC 3339 time "
         "(2026-11-30T07:00:00Z)")
      ->check([](const std::string& value) {
        return parse_log_window(value) ? std::string()
                                       : "expected boot, a duration (90s, 30m, 24h, 7d) or an "
                                         "RFC 3339 time, got '" +
                                             value + "'";
      });
  app.add_option("--python", options.python,
                 "Python interpreter whose PyTorch to check (default: python3 on PATH, so an active venv or "
                 "conda environment)");
  // Straight into the inventory's option (rocm_doctor/facts/rocm_installs.h), made absolute.
  app.add_option_function<std::string>(
      "--rocm-root",
      [](const std::string& dir) {
        set_rocm_root_option(dir.starts_with('/') ? dir : std::filesystem::absolute(dir).lexically_normal().string());
      },
      "The ROCm root to judge first (a release prefix, a TheRock tarball folder or a pip package's "
      "_rocm_sdk_core), before ROCM_PATH, ROCM_HOME, ROCM_DIR and HIP_PATH");
}

}  // namespace

int usage_error(const std::string& message) {
  fmt::print(stderr, "rocm-doctor: {}\n", message);
  return static_cast<int>(ExitCode::usage);
}

std::unique_ptr<CLI::App> make_command_line(CommandLine& values) {
  auto app = std::make_unique<CLI::App>("rocm-doctor: diagnoses a Linux machine's ROCm setup and says how to fix it.",
                                        "rocm-doctor");
  app->set_version_flag("--version", version_text());
  app->footer(
      "Exit codes: 0 nothing at or above --fail-on, 1 a finding at or above it,\n"
      "            2 usage or input error, 3 the doctor itself failed.");
  add_run_options(*app, values.options);
  app->require_subcommand(0, 1);

  auto* check = app->add_subcommand("check", "Run the checks (the default)");
  check->fallthrough();
  auto* capture = app->add_subcommand("capture", "Save a replayable snapshot of this machine to DIR");
  capture->add_option("DIR", values.capture_dir, "Folder to create (must not exist, or be empty)");
  capture->add_option("--archive", values.options.archive, "Write the snapshot as one FILE.tar.gz instead of a folder");
  capture->fallthrough();
  auto* diff = app->add_subcommand("diff", "What changed between two JSON reports (A before, B after)");
  diff->add_option("A B", values.diff_reports, "Two reports written with --format json")->required()->expected(2);
  diff->add_option("--format", values.report_format, "text, markdown or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  auto* fleet = app->add_subcommand("fleet", "Summarize JSON reports of many nodes (files or folders)");
  fleet->add_option("REPORTS", values.fleet_inputs, "Report files, or folders of *.json reports")->required();
  fleet->add_option("--format", values.report_format, "text, markdown or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  fleet->add_option("-o,--output", values.fleet_output, "Write the summary to FILE (atomically)");
  fleet->add_option("--baseline", values.fleet_baseline,
                    "List the nodes whose driver, firmware, ROCm, kernel, GPUs, PCIe links, kernel command line or "
                    "key environment differ from REPORT.json, or from the fleet's most common values (auto)");
  auto* knowledge = app->add_subcommand("knowledge",
                                        "Print what the doctor knows (tables, rows, newest release, "
                                        "as-of date), with the overlays applied");
  knowledge->add_option("--format", values.report_format, "text or json")->check(CLI::IsMember({"text", "json"}));
  knowledge->fallthrough();
  auto* targets = app->add_subcommand(
      "targets",
      "Which gfx targets binaries carry GPU code for, and whether each GPU here (or --target-gfx) runs them");
  targets->add_option("FILE", values.target_files, "ELF binaries, shared libraries or offload bundle files")
      ->required();
  targets->fallthrough();
  auto* explain = app->add_subcommand("explain", "Explain a finding id, a check id or an error signature");
  explain->add_option("ID", values.explain_id, "e.g. access.relogin-required or hipErrorNoBinaryForGpu")->required();
  auto* why = app->add_subcommand("why", "Explain an error message with what the checks find here (a run)");
  why->add_option("TEXT", values.options.symptom, "The error text, or - to read it from stdin")->required();
  why->fallthrough();
  auto* run = app->add_subcommand("run", "Run CMD once (no shell, --probe-timeout) and explain what it printed");
  run->add_option("CMD", values.options.command, "-- CMD ARGS...: the failing command and its arguments")->required();
  run->fallthrough();
  auto* fix = app->add_subcommand("fix", "Apply the fixes the report prints, root causes first, with consent");
  fix->add_option("ID", values.fix_ids, "Finding ids whose fixes to apply (default: the root causes, then the rest)");
  fix->add_flag("--dry-run", values.fix_dry_run, "Print what would be run, in order, and run nothing");
  fix->add_flag("-y,--yes", values.fix_yes, "Apply without asking (needed when stdin is not a terminal)");
  fix->fallthrough();
  return app;
}

int cli_main(int argc, char** argv) {
  // The hidden probe mode: the doctor runs itself as an isolated child.
  if (argc >= 3 && std::string_view(argv[1]) == probe::kProbeArgument) return probe::probe_child_main(argc, argv);
  CommandLine values;
  const auto app = make_command_line(values);
  try {
    app->parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app->exit(error);
    return code == 0 ? 0 : static_cast<int>(ExitCode::usage);
  }
  auto& options = values.options;
  options.symptom_given = app->count("--symptom") > 0 || app->got_subcommand("why");
  if (options.json) options.format = "json";
  options.run.python = options.python;
  if (options.python.find('/') != std::string::npos && options.python.front() != '/') {
    options.run.python = std::filesystem::absolute(options.python).lexically_normal().string();
  }
  if (options.replay.empty() && options.level == "standard") {
    options.run.python_import = RunOptions::PythonImport::when_undecided;
  } else if (options.replay.empty() && options.level == "quick") {
    options.run.python_import = RunOptions::PythonImport::never;
  }
  setup_logging(options.verbose);

  if (app->got_subcommand("explain")) return explain_command(values.explain_id);
  if (app->got_subcommand("knowledge")) return knowledge_command(options, values.report_format);
  if (options.list_checks) return list_checks_command(options);
  if (app->got_subcommand("diff"))
    return diff_command(values.diff_reports[0], values.diff_reports[1], values.report_format);
  if (app->got_subcommand("fleet"))
    return fleet_command(values.fleet_inputs, values.report_format, values.fleet_output, values.fleet_baseline);
  if (app->got_subcommand("targets")) return targets_command(values.target_files, options);
  if (app->got_subcommand("capture")) {
    if (values.capture_dir.empty() == options.archive.empty()) {
      return usage_error("capture needs DIR or --archive FILE.tar.gz (one of them)");
    }
    return capture_command(values.capture_dir, options);
  }
  if (app->got_subcommand("fix")) return fix_command(values.fix_ids, values.fix_dry_run, values.fix_yes, options);
  return run_command(options);
}

}  // namespace rocm_doctor
