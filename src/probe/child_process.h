// Runs a program as an isolated child: no shell, bounded output, a hard
// timeout that kills the child's whole process group, and always reaped.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rocm_doctor::probe {

struct ChildOptions {
  std::chrono::milliseconds timeout{10'000};
  std::size_t stdout_limit = 4 * 1024 * 1024;  // bytes kept; the rest is drained and dropped
  std::size_t stderr_tail = 16 * 1024;         // the last bytes of stderr kept
  // Keep the last stdout_limit bytes of stdout instead of the first (a user's
  // failing command prints its error at the end).
  bool stdout_keep_tail = false;
  // "NAME=value" entries added to (or replacing in) this process's environment.
  std::vector<std::string> extra_env;
  // When set and it becomes true, the child is killed as on a timeout.
  const std::atomic<bool>* cancel = nullptr;
  // What the child reads on stdin; nullopt: /dev/null. Written while its output
  // is drained, so neither side blocks on a full pipe; a child that stops
  // reading early (or exits) simply gets no more.
  std::optional<std::string> input;
};

struct ChildResult {
  bool started = false;          // false: fork or exec failed (see exec_error)
  std::string exec_error;        // strerror text of the failed fork/exec
  bool timed_out = false;        // killed at the timeout
  bool cancelled = false;        // killed because `cancel` became true
  std::optional<int> exit_code;  // set when the child exited normally
  std::optional<int> signal;     // set when a signal ended it (SIGKILL after a timeout)
  std::string out;               // stdout, at most stdout_limit bytes
  bool out_truncated = false;
  std::string err_tail;        // the last stderr_tail bytes of stderr
  std::size_t err_bytes = 0;   // everything the child wrote to stderr
  std::size_t in_written = 0;  // bytes of `input` the child accepted
  std::chrono::milliseconds elapsed{0};
};

// Starts argv[0] (an absolute path) with argv, stdin from `input` (or
// /dev/null), in a process group of its own; returns when it ended or was killed.
ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& options);

}  // namespace rocm_doctor::probe
