// Running the site check plugins: each runnable plugin of a scan as an
// isolated child (src/probe/child_process.h: no shell, bounded output, a
// timeout that kills its process group, always reaped), a few at a time, with
// the facts document on stdin. The result is the plugin stage's record,
// stored as probes.plugins by capture (docs/snapshot-format.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "host/live_host.h"
#include "plugins/plugin_scan.h"
#include "probe/child_process.h"
#include "rocm_doctor/plugin_answer.h"

namespace rocm_doctor::plugins {

// What a plugin may print on stdout; more is an invalid answer.
inline constexpr std::size_t kStdoutLimit = 1024 * 1024;
// The end of its stderr kept as evidence.
inline constexpr std::size_t kStderrTail = 4 * 1024;

struct PluginRunOptions {
  std::chrono::milliseconds timeout{10'000};
  std::size_t parallel = 4;  // plugins running at the same time
};

// The document one plugin reads on stdin: the facts plus its own name and
// the prefix its finding ids must have.
nlohmann::json plugin_input(const nlohmann::json& facts, const ScannedPlugin& plugin);

// How one finished child is recorded: status ok (exit 0 and stdout is JSON:
// `output`), exit-code, crashed, timeout, invalid-output (`problem`) or
// exec-failed (`error`), with elapsed_ms, exit_code/signal, stderr_tail.
nlohmann::json plugin_run_outcome(const probe::ChildResult& child, std::chrono::milliseconds timeout);

// Runs every runnable plugin of `scan`; returns {protocol, timeout_ms,
// folders[], plugins[]} with each plugin's scan entry and outcome.
nlohmann::json run_plugin_stage(const PluginScan& scan, const nlohmann::json& facts, const PluginRunOptions& options);

// The launcher a live host runs plugins with: scans the folders (system,
// user, `extra_folders`) on this machine and runs what it found.
PluginLauncher make_plugin_launcher(std::vector<std::string> extra_folders, PluginRunOptions options);

// Text that is valid UTF-8: invalid bytes become U+FFFD.
std::string valid_utf8(std::string_view text);
bool is_valid_utf8(std::string_view text);

}  // namespace rocm_doctor::plugins
