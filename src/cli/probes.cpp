// The probe wiring of the CLI: live runs and captures start the runtime
// probes first, so they overlap the static checks.
#include <spdlog/spdlog.h>

#include <cmath>
#include <filesystem>

#include "cli/cli.h"
#include "probe/probe_runner.h"
#include "probe/python_probe.h"

namespace rocm_doctor {

std::unique_ptr<probe::ProbeRunner> start_probes(const RunCommandOptions& options) {
  const auto level = probe::parse_probe_level(options.level).value_or(probe::ProbeLevel::standard);
  if (level == probe::ProbeLevel::quick) return nullptr;
  probe::ProbeRunnerOptions runner;
  runner.level = level;
  runner.timeout = std::chrono::milliseconds(static_cast<long long>(std::llround(options.probe_timeout_seconds * 1000)));
  // The python probe gets three probe timeouts: importing torch reads hundreds of MB.
  runner.python_timeout = runner.timeout * 3;
  auto requested = options.python;
  if (requested.find('/') != std::string::npos && requested.front() != '/') {
    requested = std::filesystem::absolute(requested).lexically_normal().string();
  }
  const LiveHost live{ProbeLookup{}};
  const auto python = probe::choose_python(live, requested);
  runner.python = python.interpreter;
  runner.python_error = python.error;
  spdlog::debug("python probe: {}", python.interpreter.empty() ? python.error : python.interpreter);
  spdlog::debug("starting runtime probes at level {} (timeout {} ms)", options.level, runner.timeout.count());
  return std::make_unique<probe::ProbeRunner>(std::move(runner));
}

ProbeLookup probe_lookup(const probe::ProbeRunner* runner) {
  if (runner == nullptr) return {};
  return [runner](std::string_view name) { return runner->result(name); };
}

}  // namespace rocm_doctor
