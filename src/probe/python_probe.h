// The Python/PyTorch probe: the interpreter a user's scripts would get
// (`--python PATH`, else `python3` on PATH) runs a small embedded script in a
// child of its own and prints `probes.python` (docs/snapshot-format.md).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor {
class Host;
}

namespace rocm_doctor::probe {

// The script given to `python -c`: prints one JSON object on the real stdout
// (torch's own prints go to stderr).
std::string_view python_probe_script();

// The argv that runs the script with an interpreter (an absolute path).
std::vector<std::string> python_probe_argv(const std::string& interpreter);

// The first `name` on PATH (a ':'-separated list; empty entries mean the
// current folder and are skipped) that `is_executable` accepts, as an absolute path.
std::string find_on_path(std::string_view name, std::string_view path_value,
                         const std::function<bool(const std::string&)>& is_executable);

struct PythonChoice {
  std::string interpreter;  // absolute path; empty when none was found
  std::string error;        // why none was found
};

// `--python PATH` when given (made absolute against nothing: a relative PATH is
// resolved on PATH like a command name), else `python3` on the host's PATH.
PythonChoice choose_python(const Host& host, const std::string& requested);

// The `result` the probe reports when there is no interpreter to run.
nlohmann::json no_python_result(const std::string& error);

}  // namespace rocm_doctor::probe
