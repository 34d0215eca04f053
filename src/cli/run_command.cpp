#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdlib>

#include "bundle/snapshot_archive.h"
#include "cli/cli.h"
#include "cli/report_outputs.h"
#include "cli/symptom_input.h"
#include "host/live_host.h"
#include "host/read_once_host.h"
#include "host/snapshot_host.h"
#include "plugins/plugin_scan.h"
#include "probe/probe_runner.h"
#include "report/redact.h"
#include "rocm_doctor/impact.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// Folder and file names are whoever made them chose: shown escaped, so a name
// with control characters cannot act on the terminal or start a line of its own.
std::string shown_name(std::string_view text) {
  return displayable(text, std::string_view::npos, false);
}

// The plugins a live run would run, and the folders and files it would refuse.
void list_plugins(const std::vector<std::string>& extra_folders) {
  const LiveHost machine;
  const auto scan = plugins::scan_plugins(machine, extra_folders);
  std::vector<std::string> looked_in;
  for (const auto& folder : scan.folders) {
    looked_in.push_back(shown_name(folder.spec.path));
    if (folder.state == plugins::FolderState::unsafe) {
      fmt::print("  refused folder {}: {}\n", shown_name(folder.spec.path), shown_name(folder.problem));
    } else if (folder.state == plugins::FolderState::unreadable) {
      fmt::print("  unreadable folder {}: {}\n", shown_name(folder.spec.path), shown_name(folder.problem));
    }
  }
  for (const auto& plugin : scan.plugins) {
    const auto id = shown_name("site." + plugin.name);
    if (plugin.state == plugins::PluginState::runnable) {
      fmt::print("  {:<22} {}\n", id, shown_name(plugin.path));
    } else {
      fmt::print("  {:<22} {} ({}: {})\n", id, shown_name(plugin.path), plugins::to_string(plugin.state),
                 shown_name(plugin.problem));
    }
  }
  if (scan.plugins.empty()) fmt::print("  (none; looked in {})\n", join(looked_in, ", "));
}

}  // namespace

namespace {

// "blocks", or "blocks (error), degrades (warning)" for an id judged per severity.
std::string impact_phrase(std::string_view id) {
  const auto& table = impact_table();
  const auto entry = table.entries.find(id);
  if (entry == table.entries.end()) return std::string(to_string(table.of(id, Severity::error)));
  if (entry->second.any) return std::string(to_string(*entry->second.any));
  std::vector<std::string> parts;
  for (auto it = entry->second.by_severity.rbegin(); it != entry->second.by_severity.rend(); ++it)
    parts.push_back(fmt::format("{} ({})", to_string(it->second), to_string(it->first)));
  return join(parts, ", ");
}

}  // namespace

int list_checks_command(const RunCommandOptions& options) {
  const auto folders = plugin_folders_option(options);
  if (!folders) return usage_error(folders.error());
  const auto policies = load_run_policies(options, options.replay.empty());
  if (!policies) return usage_error(policies.error());
  // Each check with the finding ids it can report and their impact (issue 26).
  for (const Check* check : registered_checks()) {
    fmt::print("{:<16} {}\n", check->id(), check->title());
    for (const auto id : check->finding_ids()) fmt::print("  {:<40} {}\n", id, impact_phrase(id));
  }
  // The messages `why` knows: each one's id is also an `explain` id.
  fmt::print("\nError signatures (rocm-doctor why TEXT; rocm-doctor explain ID):\n");
  for (const auto& signature : symptom::signatures()) {
    fmt::print("  {:<40} {}\n", signature.id, signature.names.empty() ? signature.category : signature.names.front());
  }
  fmt::print("\nSite plugins (check 'plugins'; docs/plugins.md):\n");
  list_plugins(*folders);
  if (!(*policies)->empty()) {
    // Policy names and reasons are the policy file's text: escaped, line breaks kept.
    fmt::print("\nActive policies (docs/policy-format.md):\n{}",
               displayable(policy::describe(**policies), std::string_view::npos, true));
  }
  return 0;
}

tl::expected<Report, int> machine_report(const RunCommandOptions& options, const std::vector<const Check*>& checks) {
  auto plugin_folders = plugin_folders_option(options);
  if (!plugin_folders) return tl::unexpected(usage_error(plugin_folders.error()));
  RunOptions run = options.run;
  auto policies = load_run_policies(options, options.replay.empty());
  if (!policies) return tl::unexpected(usage_error(policies.error()));
  run.policies = std::move(*policies);

  std::unique_ptr<probe::ProbeRunner> probes;  // outlives the host that asks it
  std::unique_ptr<Host> host;
  std::optional<ReplayFolder> replay;  // an archive is unpacked for the run
  if (!options.replay.empty()) {
    auto folder = open_replay_folder(options.replay);
    if (!folder) return tl::unexpected(usage_error("cannot replay: " + folder.error()));
    replay.emplace(std::move(*folder));
    auto snapshot = SnapshotHost::open(replay->path().string());
    if (!snapshot) return tl::unexpected(usage_error("cannot replay: " + snapshot.error()));
    host = std::move(*snapshot);
  } else {
    probes = start_probes(options, checks);  // they run while the static checks do
    host = std::make_unique<LiveHost>(probe_lookup(probes.get()), plugin_launcher(options, std::move(*plugin_folders)));
  }
  if (auto knowledge = apply_knowledge(*host, options); !knowledge)
    return tl::unexpected(usage_error(knowledge.error()));
  spdlog::debug("running {} checks on the {} host", checks.size(), host->source());
  const ReadOnceHost read_once(*host);
  Report report = run_checks(read_once, run, checks);
  if (options.redact) Redactor::from_host(*host).apply(report);
  return report;
}

int run_command(const RunCommandOptions& options) {
  auto checks = select_checks(options.selection);
  if (!checks) return usage_error(checks.error());
  const auto targets = output_targets(options);
  if (!targets) return usage_error(targets.error());
  // The user's command (run --) runs before the checks, never beside the probes.
  const auto symptom = read_symptom(options);
  if (!symptom) return usage_error(symptom.error());
  auto report = machine_report(options, *checks);
  if (!report) return report.error();
  if (*symptom) add_symptom_section(*report, **symptom);
  if (const int rc = write_outputs(*report, *targets, options); rc != 0) return rc;
  return run_exit_code(*report, options);
}

}  // namespace rocm_doctor
