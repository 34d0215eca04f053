// `rocm-doctor run -- CMD ARGS...`: the user's failing command, run once as
// an isolated child (src/probe/child_process.h), for what it prints.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <tl/expected.hpp>
#include <vector>

namespace rocm_doctor {

struct UserCommandRun {
  std::string output;              // the kept tails of its stdout, then of its stderr
  nlohmann::ordered_json summary;  // how it ended (the report's symptom.command)
};

// The most of each stream kept: the error is at the end, and a flood stays bounded.
constexpr std::size_t kUserCommandTailBytes = 1024 * 1024;

// CMD looked up like execvp does (a name with '/' as is, else each PATH folder).
tl::expected<std::string, std::string> find_program(const std::string& name);
// Runs argv (no shell) with stdin from /dev/null, in its own process group,
// killed as a group after timeout_seconds. An error when it cannot start.
tl::expected<UserCommandRun, std::string> run_user_command(const std::vector<std::string>& argv, double timeout_seconds,
                                                           bool redact);

}  // namespace rocm_doctor
