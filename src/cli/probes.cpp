// The probe wiring of the CLI: live runs and captures start the runtime
// probes first, so they overlap the static checks.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "cli/cli.h"
#include "plugins/plugin_runner.h"
#include "probe/probe_runner.h"
#include "probe/python_probe.h"

namespace rocm_doctor {

std::unique_ptr<probe::ProbeRunner> start_probes(const RunCommandOptions& options,
                                                 const std::vector<const Check*>& checks) {
  const auto level = probe::parse_probe_level(options.level).value_or(probe::ProbeLevel::standard);
  if (level == probe::ProbeLevel::quick) return nullptr;
  const LiveHost live{ProbeLookup{}};
  auto names = probe::planned_probes(level, checks, live, options.run.image_mode);
  if (names.empty()) {
    spdlog::debug("no runtime probe needed at level {}", options.level);
    return nullptr;
  }
  probe::ProbeRunnerOptions runner;
  runner.level = level;
  runner.timeout =
      std::chrono::milliseconds(static_cast<long long>(std::llround(options.probe_timeout_seconds * 1000)));
  // The python probe gets three probe timeouts: importing torch reads hundreds of MB.
  runner.python_timeout = runner.timeout * 3;
  if (std::find(names.begin(), names.end(), "python") != names.end()) {
    // At the default level `import torch` runs only when torch's files cannot decide (the torch check asks).
    if (level != probe::ProbeLevel::full) runner.on_demand.emplace_back("python");
    const auto python = probe::choose_python(live, options.run.python);
    runner.python = python.interpreter;
    runner.python_error = python.error;
    spdlog::debug("python probe: {}", python.interpreter.empty() ? python.error : python.interpreter);
  }
  spdlog::debug("starting runtime probes {} at level {} (timeout {} ms)", fmt::join(names, ", "), options.level,
                runner.timeout.count());
  runner.names = std::move(names);
  return std::make_unique<probe::ProbeRunner>(std::move(runner));
}

ProbeLookup probe_lookup(const probe::ProbeRunner* runner) {
  if (runner == nullptr) return {};
  return [runner](std::string_view name) { return runner->result(name); };
}

tl::expected<std::vector<std::string>, std::string> plugin_folders_option(const RunCommandOptions& options) {
  if (!options.plugin_dirs.empty() && !options.replay.empty()) {
    return tl::unexpected(std::string(
        "--plugin-dir: plugins run on live runs only; --replay shows the plugin results its capture recorded"));
  }
  std::vector<std::string> folders;
  for (const auto& folder : options.plugin_dirs) {
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error)) {
      return tl::unexpected("--plugin-dir " + folder + ": not a folder");
    }
    folders.push_back(std::filesystem::absolute(folder).lexically_normal().string());
  }
  return folders;
}

PluginLauncher plugin_launcher(const RunCommandOptions& options, std::vector<std::string> folders) {
  plugins::PluginRunOptions run;
  run.timeout = std::chrono::milliseconds(static_cast<long long>(std::llround(options.probe_timeout_seconds * 1000)));
  return plugins::make_plugin_launcher(std::move(folders), run);
}

}  // namespace rocm_doctor
