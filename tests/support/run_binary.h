// Runs the built rocm-doctor binary as a child process and collects what it printed.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rocm_doctor::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

// Runs ROCM_DOCTOR_BINARY with `args`; `env` entries are added to (or, with
// an empty value, removed from) the current environment.
CommandResult run_doctor(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {});

}  // namespace rocm_doctor::testing
