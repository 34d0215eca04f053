#include "probe/probe_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "probe/dxcore_probe.h"
#include "probe/hip_probe.h"
#include "probe/probe_steps.h"
#include "probe/python_probe.h"
#include "probe/smi_probe.h"
#include "probe/wsl_interop_probe.h"

namespace rocm_doctor::probe {

namespace {

std::string signal_name(int signal) {
  if (const char* abbreviation = ::sigabbrev_np(signal)) return std::string("SIG") + abbreviation;
  return "signal " + std::to_string(signal);
}

}  // namespace

std::optional<ProbeLevel> parse_probe_level(std::string_view text) {
  if (text == "quick") return ProbeLevel::quick;
  if (text == "standard") return ProbeLevel::standard;
  if (text == "full") return ProbeLevel::full;
  return std::nullopt;
}

std::vector<std::string> probe_names(ProbeLevel level) {
  if (level == ProbeLevel::quick) return {};
  return {"hip", "smi", "python", "dxcore", "wsl-interop"};
}

bool has_gpu_driver_interface(const Host& host) {
  return host.exists("/dev/kfd") || host.exists("/sys/module/amdgpu") || host.exists("/dev/dxg");
}

std::vector<std::string> planned_probes(ProbeLevel level, const std::vector<const Check*>& checks, const Host& host,
                                        bool image_mode) {
  std::set<std::string_view> read;
  for (const Check* check : checks) {
    for (const auto name : check->probes()) read.insert(name);
  }
  const bool runtime_useful = level == ProbeLevel::full || image_mode || has_gpu_driver_interface(host);
  std::vector<std::string> planned;
  for (auto& name : probe_names(level)) {
    if (!read.contains(name)) continue;
    if ((name == "hip" || name == "smi") && !runtime_useful) continue;
    // The Windows side of WSL: only under WSL2 (/dev/dxg), never for an image build.
    if (name == "dxcore" && (image_mode || !host.exists("/dev/dxg"))) continue;
    if (name == "wsl-interop" && (image_mode || !wsl_interop_enabled(host))) continue;
    planned.push_back(std::move(name));
  }
  return planned;
}

std::vector<std::string> probe_command(const std::string& executable, const std::string& name, ProbeLevel level) {
  std::vector<std::string> argv = {executable, std::string(kProbeArgument), name};
  if (name == "hip" && level == ProbeLevel::full) argv.emplace_back("--smoke");
  return argv;
}

nlohmann::json probe_outcome(const ChildResult& child, std::chrono::milliseconds timeout) {
  nlohmann::json outcome = {{"elapsed_ms", child.elapsed.count()}};
  if (!child.started) {
    outcome["status"] = "exec-failed";
    outcome["error"] = child.exec_error;
    return outcome;
  }
  outcome["stderr_tail"] = child.err_tail;
  outcome["stderr_bytes"] = child.err_bytes;
  if (child.exit_code) outcome["exit_code"] = *child.exit_code;
  if (child.signal) {
    outcome["signal"] = *child.signal;
    outcome["signal_name"] = signal_name(*child.signal);
  }
  if (auto step = last_step(child.err_tail)) outcome["last_step"] = *step;
  if (child.timed_out) {
    outcome["status"] = "timeout";
    outcome["timeout_ms"] = timeout.count();
    return outcome;
  }
  if (child.signal) {
    outcome["status"] = "crashed";
    return outcome;
  }
  auto parsed = nlohmann::json::parse(child.out, nullptr, false);
  if (child.out_truncated || parsed.is_discarded() || !parsed.is_object()) {
    // Exiting non-zero without a result is a crash (exit() inside a vendor library).
    outcome["status"] = child.exit_code.value_or(0) != 0 ? "crashed" : "invalid-output";
    outcome["stdout_head"] = child.out.substr(0, 512);
    outcome["stdout_truncated"] = child.out_truncated;
    return outcome;
  }
  outcome["status"] = "ok";
  outcome["result"] = std::move(parsed);
  return outcome;
}

ProbeRunner::ProbeRunner(ProbeRunnerOptions options)
    : options_(std::move(options)), cancel_(std::make_shared<std::atomic<bool>>(false)) {
  for (const auto& name : options_.names.value_or(probe_names(options_.level))) {
    ChildOptions child;
    child.timeout = options_.timeout;
    child.extra_env = options_.extra_env;
    child.cancel = cancel_.get();
    auto argv = probe_command(options_.executable, name, options_.level);
    if (name == "python") {  // the interpreter itself is the child
      if (options_.python.empty()) {
        std::promise<nlohmann::json> none;
        none.set_value({{"status", "ok"}, {"elapsed_ms", 0}, {"result", no_python_result(options_.python_error)}});
        futures_.emplace(name, none.get_future().share());
        continue;
      }
      argv = python_probe_argv(options_.python);
      child.timeout = options_.python_timeout;
    }
    const auto timeout = child.timeout;
    auto cancel = cancel_;        // keeps the flag alive as long as the thread
    if (name == "wsl-interop") {  // Windows programs, run straight from here: no library to isolate
      futures_.emplace(name, std::async(std::launch::async, [timeout, cancel] {
                               return run_wsl_interop_probe(timeout, cancel.get());
                             }).share());
      continue;
    }
    auto run = [argv, child, timeout, cancel, name] {
      spdlog::debug("probe {}: started", name);
      auto outcome = probe_outcome(run_child(argv, child), timeout);
      spdlog::debug("probe {}: {} in {} ms", name, outcome.value("status", ""), outcome.value("elapsed_ms", 0));
      return outcome;
    };
    const bool deferred =
        std::find(options_.on_demand.begin(), options_.on_demand.end(), name) != options_.on_demand.end();
    if (deferred) on_demand_.insert(name);
    futures_.emplace(name, std::async(deferred ? std::launch::deferred : std::launch::async, std::move(run)).share());
  }
}

bool ProbeRunner::started(const std::string& name) const {
  if (!on_demand_.contains(name)) return true;
  const std::lock_guard lock(asked_mutex_);
  return asked_.contains(name);
}

ProbeRunner::~ProbeRunner() {
  cancel_->store(true);
  for (auto& [name, future] : futures_) {
    if (started(name)) future.wait();  // waiting on an unasked deferred probe would run it
  }
}

std::optional<nlohmann::json> ProbeRunner::result(std::string_view name) const {
  const auto it = futures_.find(name);
  if (it == futures_.end()) return std::nullopt;
  if (on_demand_.contains(name)) {
    const std::lock_guard lock(asked_mutex_);
    asked_.emplace(name);
  }
  return it->second.get();
}

std::map<std::string, nlohmann::json> ProbeRunner::all() const {
  std::map<std::string, nlohmann::json> results;
  for (const auto& [name, future] : futures_) {
    if (started(name)) results.emplace(name, future.get());
  }
  return results;
}

int probe_child_main(int argc, char** argv) {
  // stdout carries only our JSON: vendor libraries that print go to stderr.
  const int json_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (json_fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return 3;
  const std::string name = argc > 2 ? argv[2] : "";
  bool smoke = false;
  for (int i = 3; i < argc; ++i) smoke = smoke || std::string_view(argv[i]) == "--smoke";
  nlohmann::json result;
  if (name == "hip") {
    HipProbeOptions options;
    options.smoke = smoke;
    result = run_hip_probe(options);
  } else if (name == "smi") {
    result = run_smi_probe();
  } else if (name == "dxcore") {
    result = run_dxcore_probe();
  } else {
    result = {{"error", "unknown probe '" + name + "'"}};
  }
  const auto text = result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::size_t written = 0;
  while (written < text.size()) {
    const auto count = ::write(json_fd, text.data() + written, text.size() - written);
    if (count <= 0) break;
    written += static_cast<std::size_t>(count);
  }
  std::fflush(nullptr);
  // Skip the vendor libraries' exit-time destructors: some crash on a GPU-less machine.
  ::_exit(written == text.size() ? 0 : 3);
}

}  // namespace rocm_doctor::probe
