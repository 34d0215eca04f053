// Runs the runtime probes in child processes (the doctor itself with a hidden
// `__probe NAME` argument), in parallel, and turns each into an outcome:
//   {"status": "ok"|"crashed"|"timeout"|"invalid-output"|"exec-failed",
//    "signal", "exit_code", "elapsed_ms", "stderr_tail", "result": {...}}
#pragma once

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "probe/child_process.h"
#include "rocm_doctor/check.h"

namespace rocm_doctor::probe {

// The hidden first argument that turns the doctor into a probe child.
inline constexpr std::string_view kProbeArgument = "__probe";

enum class ProbeLevel { quick, standard, full };
std::optional<ProbeLevel> parse_probe_level(std::string_view text);

// The probes a level runs: quick none, standard {hip, smi, python, dxcore, wsl-interop}, full the same plus
// the HIP smoke test.
std::vector<std::string> probe_names(ProbeLevel level);
// The argv of a probe child.
std::vector<std::string> probe_command(const std::string& executable, const std::string& name, ProbeLevel level);

// Judges a finished child: the outcome JSON above.
nlohmann::json probe_outcome(const ChildResult& child, std::chrono::milliseconds timeout);

// Whether this machine has an interface a GPU runtime talks to: /dev/kfd, the
// amdgpu driver (/sys/module/amdgpu, also when built in) or WSL's /dev/dxg.
bool has_gpu_driver_interface(const Host& host);

// The probes a run starts (docs/performance.md): those of the level that one of
// `checks` reads (Check::probes()). At `standard`, the hip and smi probes only
// when the machine has a GPU driver interface, or an image is checked: without
// one, loading the runtime can only report that no GPU exists, which the driver
// check already says without spending ~100 ms in a child. dxcore only under
// WSL2 (/dev/dxg), wsl-interop only when WSL interop is on; neither for --image.
std::vector<std::string> planned_probes(ProbeLevel level, const std::vector<const Check*>& checks, const Host& host,
                                        bool image_mode);

struct ProbeRunnerOptions {
  ProbeLevel level = ProbeLevel::standard;
  // The probes to start; nullopt: every probe of the level.
  std::optional<std::vector<std::string>> names;
  std::chrono::milliseconds timeout{10'000};
  std::string executable = "/proc/self/exe";
  std::vector<std::string> extra_env;  // for tests
  // The python probe (src/probe/python_probe.h): the interpreter to run (empty:
  // none found, `python_error` says why) and its own timeout (importing torch is slow).
  std::string python;
  std::string python_error;
  std::chrono::milliseconds python_timeout{30'000};
  // Probes started only when result() first asks for them (the python probe at
  // --level standard: only when torch's files cannot decide). Never asked, never run.
  std::vector<std::string> on_demand;
};

class ProbeRunner {
 public:
  // Starts every probe of the level at once.
  explicit ProbeRunner(ProbeRunnerOptions options);
  // Kills the probes still running (nobody asked for them) and waits for them.
  ~ProbeRunner();
  ProbeRunner(const ProbeRunner&) = delete;
  ProbeRunner& operator=(const ProbeRunner&) = delete;

  // Blocks until that probe ends; nullopt when the level did not start it.
  [[nodiscard]] std::optional<nlohmann::json> result(std::string_view name) const;
  // Blocks until every probe ends: those started (an on-demand probe nobody asked for is not).
  [[nodiscard]] std::map<std::string, nlohmann::json> all() const;

 private:
  ProbeRunnerOptions options_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::map<std::string, std::shared_future<nlohmann::json>, std::less<>> futures_;
  // The on-demand probes (deferred futures: the asker's thread runs the child) and which were asked for.
  std::set<std::string, std::less<>> on_demand_;
  mutable std::mutex asked_mutex_;
  mutable std::set<std::string, std::less<>> asked_;
  [[nodiscard]] bool started(const std::string& name) const;
};

// The probe child's main: `rocm-doctor __probe NAME [--smoke]`. Writes one JSON
// document to stdout (the vendor libraries' own stdout goes to stderr).
int probe_child_main(int argc, char** argv);

}  // namespace rocm_doctor::probe
