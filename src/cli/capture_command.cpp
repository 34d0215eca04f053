#include <fmt/format.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "bundle/snapshot_archive.h"
#include "cli/cli.h"
#include "host/live_host.h"
#include "host/recording_host.h"
#include "probe/probe_runner.h"
#include "report/redact.h"
#include "version.h"

namespace rocm_doctor {

namespace fs = std::filesystem;

namespace {

tl::expected<void, std::string> ensure_free(const fs::path& directory) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(directory, error))) return {};
  if (fs::is_directory(fs::symlink_status(directory, error)) && fs::is_empty(directory, error)) return {};
  return tl::unexpected(directory.string() + ": already exists and is not empty (capture never overwrites)");
}

}  // namespace

int capture_command(const std::string& directory, const RunCommandOptions& options) {
  // With --archive the snapshot is recorded beside the archive, packed, and removed.
  const bool to_archive = !options.archive.empty();
  const fs::path target(to_archive ? options.archive : directory);
  if (!to_archive) {
    if (auto free = ensure_free(target); !free) return usage_error(free.error());
  }
  auto checks = select_checks(options.selection);
  if (!checks) return usage_error(checks.error());
  auto plugin_folders = plugin_folders_option(options);
  if (!plugin_folders) return usage_error(plugin_folders.error());
  // A policy given to capture is judged now, so the snapshot records the facts it reads.
  RunOptions run = options.run;
  auto policies = load_run_policies(options, true);
  if (!policies) return usage_error(policies.error());
  run.policies = std::move(*policies);

  // Record into a sibling temporary folder, then rename: a capture that
  // fails half-way never leaves a half-written snapshot behind.
  const auto parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code error;
  fs::create_directories(parent, error);
  std::string temp_template = (parent / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  if (::mkdtemp(temp_template.data()) == nullptr) {
    return usage_error(fmt::format("cannot create a folder beside {}: {}", directory, std::strerror(errno)));
  }
  const fs::path temp(temp_template);

  // A capture records every probe of the level, also those no selected check reads.
  const auto probes = start_probes(options, registered_checks());
  LiveHost live(probe_lookup(probes.get()), plugin_launcher(options, std::move(*plugin_folders)));
  RecordingHost recorder(live, temp);
  // Read through the recorder: the snapshot keeps the machine's knowledge.d for its replay.
  if (auto knowledge = apply_knowledge(recorder, options); !knowledge) {
    fs::remove_all(temp, error);
    return usage_error(knowledge.error());
  }
  const Report report = run_checks(recorder, run, *checks);
  // Every probe outcome, also those no selected check asked for.
  if (probes) {
    for (const auto& [name, outcome] : probes->all()) recorder.record_probe(name, outcome);
  }
  auto finished = recorder.finish(report.generated_at, std::string("rocm-doctor ") + kVersion);
  // Redaction learns the values from the live host, so nothing it reads is recorded.
  if (finished && options.redact) {
    auto redactor = Redactor::from_host(live);
    finished = redact_snapshot_folder(temp, redactor);
  }
  if (finished && to_archive) {
    finished = write_snapshot_archive(temp, target);
    fs::remove_all(temp, error);
    if (!finished) {
      fmt::print(stderr, "rocm-doctor: capture failed: {}\n", finished.error());
      return static_cast<int>(ExitCode::internal);
    }
    const auto counts = count_findings(report);
    fmt::print("Snapshot archive of this machine written to {} ({} errors, {} warnings).\n", target.string(),
               counts.error, counts.warning);
    fmt::print("Replay it with: rocm-doctor --replay {}\n", target.string());
    return 0;
  }
  if (finished) {
    fs::remove(target, error);  // only an empty folder can be here (checked above)
    fs::rename(temp, target, error);
  }
  if (!finished || error) {
    fs::remove_all(temp, error);
    fmt::print(stderr, "rocm-doctor: capture failed: {}\n", finished ? error.message() : finished.error());
    return static_cast<int>(ExitCode::internal);
  }
  fs::permissions(target,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                      fs::perms::others_exec,
                  error);
  const auto counts = count_findings(report);
  fmt::print("Snapshot of this machine written to {} ({} errors, {} warnings).\n", directory, counts.error,
             counts.warning);
  fmt::print("Replay it with: rocm-doctor --replay {}\n", directory);
  return 0;
}

}  // namespace rocm_doctor
