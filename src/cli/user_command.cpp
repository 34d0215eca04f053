#include "cli/user_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "probe/child_process.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

bool executable_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

nlohmann::ordered_json summary_of(const std::vector<std::string>& argv, const probe::ChildResult& child, bool redact) {
  nlohmann::ordered_json summary;
  // Arguments may name the user's paths and data: --redact keeps only the program's name.
  summary["argv"] = redact ? std::vector<std::string>{std::filesystem::path(argv.front()).filename().string()} : argv;
  summary["exit_code"] = child.exit_code ? nlohmann::ordered_json(*child.exit_code) : nullptr;
  summary["signal"] = child.signal ? nlohmann::ordered_json(*child.signal) : nullptr;
  summary["timed_out"] = child.timed_out;
  summary["elapsed_ms"] = child.elapsed.count();
  summary["stderr_bytes"] = child.err_bytes;
  summary["output_truncated"] = child.out_truncated || child.err_bytes > kUserCommandTailBytes;
  return summary;
}

}  // namespace

tl::expected<std::string, std::string> find_program(const std::string& name) {
  if (name.empty()) return tl::unexpected(std::string("run: no command given (rocm-doctor run -- CMD ARGS...)"));
  if (name.find('/') != std::string::npos) {
    const auto path = std::filesystem::absolute(name).lexically_normal().string();
    if (executable_file(path)) return path;
    return tl::unexpected("run: " + name + " is not an executable file");
  }
  const char* path_variable = std::getenv("PATH");
  for (const auto folder : split(path_variable != nullptr ? path_variable : "/usr/bin:/bin", ':')) {
    const auto candidate = (folder.empty() ? std::string(".") : std::string(folder)) + "/" + name;
    if (executable_file(candidate)) return std::filesystem::absolute(candidate).lexically_normal().string();
  }
  return tl::unexpected("run: command not found: " + name);
}

tl::expected<UserCommandRun, std::string> run_user_command(const std::vector<std::string>& argv, double timeout_seconds,
                                                           bool redact) {
  if (argv.empty()) return tl::unexpected(std::string("run: no command given (rocm-doctor run -- CMD ARGS...)"));
  auto program = find_program(argv.front());
  if (!program) return tl::unexpected(program.error());
  auto child_argv = argv;
  child_argv.front() = *program;
  probe::ChildOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_seconds * 1000));
  options.stdout_limit = kUserCommandTailBytes;
  options.stdout_keep_tail = true;
  options.stderr_tail = kUserCommandTailBytes;
  const auto child = probe::run_child(child_argv, options);
  if (!child.started) return tl::unexpected("run: cannot start " + argv.front() + ": " + child.exec_error);
  UserCommandRun run;
  run.output = child.out;
  if (!run.output.empty() && !child.err_tail.empty()) run.output += "\n";
  run.output += child.err_tail;
  run.summary = summary_of(argv, child, redact);
  return run;
}

}  // namespace rocm_doctor
