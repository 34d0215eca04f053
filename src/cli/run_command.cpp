#include <unistd.h>

#include <cstdlib>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/cli.h"
#include "host/live_host.h"
#include "host/snapshot_host.h"
#include "probe/probe_runner.h"
#include "bundle/snapshot_archive.h"
#include "cli/report_outputs.h"
#include "report/redact.h"

namespace rocm_doctor {

int list_checks_command() {
  for (const Check* check : registered_checks()) fmt::print("{:<16} {}\n", check->id(), check->title());
  return 0;
}

int run_command(const RunCommandOptions& options) {
  auto checks = select_checks(options.selection);
  if (!checks) return usage_error(checks.error());
  const auto targets = output_targets(options);
  if (!targets) return usage_error(targets.error());

  std::unique_ptr<probe::ProbeRunner> probes;  // outlives the host that asks it
  std::unique_ptr<Host> host;
  std::optional<ReplayFolder> replay;  // an archive is unpacked for the run
  if (!options.replay.empty()) {
    auto folder = open_replay_folder(options.replay);
    if (!folder) return usage_error("cannot replay: " + folder.error());
    replay.emplace(std::move(*folder));
    auto snapshot = SnapshotHost::open(replay->path().string());
    if (!snapshot) return usage_error("cannot replay: " + snapshot.error());
    host = std::move(*snapshot);
  } else {
    probes = start_probes(options);  // they run while the static checks do
    host = std::make_unique<LiveHost>(probe_lookup(probes.get()));
  }
  spdlog::debug("running {} checks on the {} host", checks->size(), host->source());
  Report report = run_checks(*host, options.run, *checks);
  if (options.redact) Redactor::from_host(*host).apply(report);
  if (const int rc = write_outputs(report, *targets, options); rc != 0) return rc;
  return run_exit_code(report, options);
}

}  // namespace rocm_doctor
