#include <unistd.h>

#include <cstdlib>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/cli.h"
#include "host/live_host.h"
#include "host/snapshot_host.h"
#include "probe/probe_runner.h"
#include "util/atomic_file.h"

namespace rocm_doctor {

namespace {

Color choose_color(const RunCommandOptions& options) {
  const bool to_terminal = options.output.empty() && ::isatty(STDOUT_FILENO) == 1;
  const char* no_color = std::getenv("NO_COLOR");
  const bool disabled = options.no_color || (no_color != nullptr && *no_color != '\0');
  return to_terminal && !disabled ? Color::on : Color::off;
}

std::string render(const Report& report, const RunCommandOptions& options) {
  if (options.format == "json") return render_json(report);
  return render_text(report, choose_color(options), options.verbose ? Verbosity::verbose : Verbosity::normal);
}

int emit(const std::string& content, const std::string& output) {
  if (output.empty()) {
    std::fwrite(content.data(), 1, content.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  if (auto written = write_file_atomically(output, content); !written) {
    fmt::print(stderr, "rocm-doctor: cannot write the report: {}\n", written.error());
    return static_cast<int>(ExitCode::internal);
  }
  return 0;
}

}  // namespace

int list_checks_command() {
  for (const Check* check : registered_checks()) fmt::print("{:<16} {}\n", check->id(), check->title());
  return 0;
}

int run_command(const RunCommandOptions& options) {
  auto checks = select_checks(options.selection);
  if (!checks) return usage_error(checks.error());
  const auto fail_on = parse_severity(options.fail_on).value_or(Severity::error);

  std::unique_ptr<probe::ProbeRunner> probes;  // outlives the host that asks it
  std::unique_ptr<Host> host;
  if (!options.replay.empty()) {
    auto snapshot = SnapshotHost::open(options.replay);
    if (!snapshot) return usage_error("cannot replay: " + snapshot.error());
    host = std::move(*snapshot);
  } else {
    probes = start_probes(options);  // they run while the static checks do
    host = std::make_unique<LiveHost>(probe_lookup(probes.get()));
  }
  spdlog::debug("running {} checks on the {} host", checks->size(), host->source());
  const Report report = run_checks(*host, options.run, *checks);
  if (const int rc = emit(render(report, options), options.output); rc != 0) return rc;
  return static_cast<int>(exit_code_for(report, fail_on));
}

}  // namespace rocm_doctor
