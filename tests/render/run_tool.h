// Runs an external checker (cmark, xmllint, promtool, shellcheck, chromium)
// without a shell, for the format tests. Header-only: the test glob picks up
// only *_test.cpp files here.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace rocm_doctor::testing {

struct ToolResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

// Finds `name` on PATH; empty when it is not installed.
inline std::string find_tool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const auto end = dirs.find(':', start);
    const auto dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

// Runs argv (argv[0] a path) with stdin from `stdin_file` (or /dev/null);
// stdout and stderr go to a temporary file that is read back.
inline ToolResult run_tool(const std::vector<std::string>& argv, const std::string& stdin_file = "/dev/null") {
  char log_name[] = "/tmp/rocm-doctor-tool-XXXXXX";
  const int log = ::mkstemp(log_name);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, stdin_file.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, log, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log, STDERR_FILENO);
  std::vector<std::string> copy = argv;
  std::vector<char*> pointers;
  for (auto& arg : copy) pointers.push_back(arg.data());
  pointers.push_back(nullptr);
  pid_t pid = 0;
  ToolResult result;
  if (::posix_spawn(&pid, copy[0].c_str(), &actions, nullptr, pointers.data(), ::environ) == 0) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  ::close(log);
  std::ifstream stream(log_name);
  result.out.assign(std::istreambuf_iterator<char>(stream), {});
  ::unlink(log_name);
  return result;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(stream), {}};
}

}  // namespace rocm_doctor::testing
