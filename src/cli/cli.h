// The command line: parses options and dispatches to the subcommands.
#pragma once

#include <memory>
#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "core/runner.h"
#include "host/live_host.h"
#include "render/render.h"
#include "rocm_doctor/knowledge.h"

namespace CLI {
class App;
}

namespace rocm_doctor {

struct RunCommandOptions {
  std::string replay;  // snapshot folder; empty: the live machine
  std::string format = "text";
  bool json = false;
  std::vector<std::string> outputs;  // FILE or FORMAT=FILE, repeatable (issue 8)
  std::string fix_script;            // --fix-script FILE
  bool redact = false;               // --redact
  std::string archive;               // capture --archive FILE.tar.gz
  Selection selection;
  bool list_checks = false;
  std::string fail_on = "error";
  bool no_color = false;
  bool verbose = false;
  RunOptions run;
  // Runtime probes (src/probe): depth and the time each may take.
  std::string level = "standard";
  double probe_timeout_seconds = 10.0;
  std::string python;  // --python PATH: the interpreter the python probe runs (default: python3 on PATH)
  // Site check plugins (src/plugins, docs/plugins.md): folders besides the two default ones.
  std::vector<std::string> plugin_dirs;
  std::vector<std::string> policy_files;  // --policy FILE, repeatable (issue 12)
  // Knowledge overlays (docs/knowledge.md): folders (or files) of checks/data-shaped JSON.
  std::vector<std::string> knowledge_dirs;
  // The user's error text (issue 17, docs/architecture.md#symptoms).
  std::string symptom;               // --symptom TEXT or `why TEXT`; "-": read stdin
  bool symptom_given = false;        // set even when TEXT is empty (an error)
  std::string log_file;              // --log FILE
  std::vector<std::string> command;  // run -- CMD ARGS...
};

// What the command line fills in: the run options and each subcommand's arguments.
struct CommandLine {
  RunCommandOptions options;
  std::string capture_dir;                // capture DIR
  std::vector<std::string> diff_reports;  // diff A B
  std::string report_format = "text";     // diff/fleet --format
  std::vector<std::string> fleet_inputs;  // fleet REPORTS...
  std::string fleet_output;               // fleet -o FILE
  std::string fleet_baseline;             // fleet --baseline REPORT.json|auto
  std::string explain_id;                 // explain ID
  std::vector<std::string> fix_ids;       // fix [ID...]
  bool fix_dry_run = false;               // fix --dry-run
  bool fix_yes = false;                   // fix --yes
  std::vector<std::string> target_files;  // targets FILE...
};

// The whole command line (options, subcommands, help texts) bound to `values`.
// cli_main parses with it; tests ask it for every option the completions and
// the man page must know.
std::unique_ptr<CLI::App> make_command_line(CommandLine& values);

int cli_main(int argc, char** argv);

int run_command(const RunCommandOptions& options);
// The report of a run with these options and checks (live, or the --replay
// snapshot), or the exit code of the usage error that stopped it.
tl::expected<Report, int> machine_report(const RunCommandOptions& options, const std::vector<const Check*>& checks);
// rocm-doctor fix [ID...] [--dry-run] [--yes] (docs/fix.md).
int fix_command(const std::vector<std::string>& ids, bool dry_run, bool yes, const RunCommandOptions& options);
// `targets FILE...`: the code-objects check on those files (--target-gfx, or the GPUs here).
int targets_command(const std::vector<std::string>& files, RunCommandOptions options);
int capture_command(const std::string& directory, const RunCommandOptions& options);
int diff_command(const std::string& before, const std::string& after, const std::string& format);
// `baseline`: "" (none), "auto" or a report file (docs/fleet.md#the-node-that-differs).
int fleet_command(const std::vector<std::string>& inputs, const std::string& format, const std::string& output,
                  const std::string& baseline);
int explain_command(const std::string& id);
int list_checks_command(const RunCommandOptions& options);
int knowledge_command(const RunCommandOptions& options, const std::string& format);

// Reads the knowledge overlays of a run (/etc/rocm-doctor/knowledge.d through `host`, then
// --knowledge DIR on this machine), checks them and installs them before any check runs.
// An error (exit 2) names the file and the field.
tl::expected<std::vector<knowledge::TableOrigin>, std::string> apply_knowledge(const Host& host,
                                                                               const RunCommandOptions& options);

// The run's policies: --policy files, then /etc/rocm-doctor/policy.d/*.json on
// live runs (never when replaying: that folder belongs to the replaying machine).
// An unreadable or malformed policy is an error naming the file and place.
tl::expected<std::shared_ptr<const policy::PolicySet>, std::string> load_run_policies(const RunCommandOptions& options,
                                                                                      bool live);

namespace probe {
class ProbeRunner;
}
// Starts the runtime probes the options ask for and `checks` read (none at
// --level quick), in parallel, before the static checks run; nullptr when none.
std::unique_ptr<probe::ProbeRunner> start_probes(const RunCommandOptions& options,
                                                 const std::vector<const Check*>& checks);
// What a LiveHost answers probe(name) with: blocks on that probe's child.
ProbeLookup probe_lookup(const probe::ProbeRunner* runner);

// The --plugin-dir folders as absolute paths; an error when one is not a
// folder, or when they are given to a replay (which never runs plugins).
tl::expected<std::vector<std::string>, std::string> plugin_folders_option(const RunCommandOptions& options);
// What a live run's LiveHost runs the site plugins with (--probe-timeout each).
PluginLauncher plugin_launcher(const RunCommandOptions& options, std::vector<std::string> folders);

// Prints "rocm-doctor: <message>" to stderr and returns the usage exit code.
int usage_error(const std::string& message);

}  // namespace rocm_doctor
