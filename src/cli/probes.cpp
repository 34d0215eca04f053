// The probe wiring of the CLI: live runs and captures start the runtime
// probes first, so they overlap the static checks.
#include <spdlog/spdlog.h>

#include <cmath>

#include "cli/cli.h"
#include "probe/probe_runner.h"

namespace rocm_doctor {

std::unique_ptr<probe::ProbeRunner> start_probes(const RunCommandOptions& options) {
  const auto level = probe::parse_probe_level(options.level).value_or(probe::ProbeLevel::standard);
  if (level == probe::ProbeLevel::quick) return nullptr;
  probe::ProbeRunnerOptions runner;
  runner.level = level;
  runner.timeout = std::chrono::milliseconds(static_cast<long long>(std::llround(options.probe_timeout_seconds * 1000)));
  spdlog::debug("starting runtime probes at level {} (timeout {} ms)", options.level, runner.timeout.count());
  return std::make_unique<probe::ProbeRunner>(std::move(runner));
}

ProbeLookup probe_lookup(const probe::ProbeRunner* runner) {
  if (runner == nullptr) return {};
  return [runner](std::string_view name) { return runner->result(name); };
}

}  // namespace rocm_doctor
