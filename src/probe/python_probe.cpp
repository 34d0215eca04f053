#include "probe/python_probe.h"

#include <nlohmann/json.hpp>

#include "rocm_doctor/host.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::probe {

namespace {

// Runs under any Python 3. The real stdout is kept for the JSON; everything
// torch (or a vendor library) prints goes to stderr. A failing import keeps
// the exception's last line, as Python itself prints it.
constexpr std::string_view kScript = R"PY(
import json, os, platform, sys, traceback
out = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)
sys.stdout = sys.stderr
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]

def last_line(error):
    lines = "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()
    return lines[-1] if lines else type(error).__name__

def text_or_none(value):
    return None if value is None else str(value)

result = {"executable": sys.executable or None, "version": platform.python_version(), "torch": None}
try:
    import importlib.util
    found = importlib.util.find_spec("torch") is not None
except Exception as error:
    found = True
if found:
    fields = ("version", "hip", "cuda", "gpu_available", "device_count", "arch_list", "devices")
    info = dict((name, None) for name in fields)
    info["error"] = None
    try:
        import torch
        if not hasattr(torch, "__version__"):
            raise ImportError("torch has no __version__: an empty 'torch' folder (a leftover of an uninstall?) at "
                              + str(list(getattr(torch, "__path__", []))))
    except BaseException as error:
        info["error"] = last_line(error)
    else:
        info["version"] = text_or_none(torch.__version__)
        version = getattr(torch, "version", None)
        info["hip"] = text_or_none(getattr(version, "hip", None))
        info["cuda"] = text_or_none(getattr(version, "cuda", None))
        try:
            info["gpu_available"] = bool(torch.cuda.is_available())
            info["device_count"] = int(torch.cuda.device_count())
            info["arch_list"] = [str(arch) for arch in torch.cuda.get_arch_list()]
            info["devices"] = [str(torch.cuda.get_device_name(i)) for i in range(info["device_count"])]
        except BaseException as error:
            sys.stderr.write("rocm-doctor-probe: torch.cuda failed: " + last_line(error) + "\n")
    result["torch"] = info
out.write(json.dumps(result) + "\n")
out.flush()
)PY";

}  // namespace

std::string_view python_probe_script() {
  return kScript;
}

std::vector<std::string> python_probe_argv(const std::string& interpreter) {
  return {interpreter, "-c", std::string(kScript)};
}

std::string find_on_path(std::string_view name, std::string_view path_value,
                         const std::function<bool(const std::string&)>& is_executable) {
  for (const auto folder : split(path_value, ':')) {
    if (folder.empty() || folder.front() != '/') continue;  // "" and relative entries depend on the cwd
    std::string candidate(folder);
    if (candidate.back() != '/') candidate += '/';
    candidate += name;
    if (is_executable(candidate)) return candidate;
  }
  return {};
}

namespace {

// Owned by root and writable by nobody else, the file and its folder.
bool trusted_by_root(const Host& host, const std::string& path) {
  const auto safe = [&host](const std::string& node_path) {
    const auto node = host.stat_node(node_path);
    return node && node->permissions_known && node->uid == 0 && (node->mode & 022U) == 0;
  };
  const auto slash = path.rfind('/');
  const std::string folder = slash == 0 ? "/" : path.substr(0, slash);
  return safe(path) && safe(folder);
}

}  // namespace

PythonChoice choose_python(const Host& host, const std::string& requested) {
  const auto executable = [&host](const std::string& path) {
    auto node = host.stat_node(path);
    return node && node->type == EntryType::file && (node->mode & 0111U) != 0;
  };
  const auto path = host.env("PATH").value_or("");
  PythonChoice choice;
  if (!requested.empty()) {
    // An explicit --python is the operator's own choice, root or not.
    if (requested.front() == '/') {
      if (executable(requested))
        choice.interpreter = requested;
      else
        choice.error = "--python " + requested + ": not an executable file";
    } else if (requested.find('/') == std::string::npos) {
      choice.interpreter = find_on_path(requested, path, executable);
      if (choice.interpreter.empty()) choice.error = "--python " + requested + ": not found on PATH";
    } else {
      choice.error = "--python " + requested + ": give an absolute path or a command name";
    }
    return choice;
  }
  // Run as root, the doctor must not execute what another user could have
  // put first on PATH (a writable ~/bin, /tmp): like sudo's secure_path, an
  // interpreter is taken only from a root-owned folder nobody else can write.
  if (host.identity().uid != 0) {
    choice.interpreter = find_on_path("python3", path, executable);
    if (choice.interpreter.empty()) choice.error = "no python3 on PATH (" + path + ")";
    return choice;
  }
  std::vector<std::string> refused;
  choice.interpreter = find_on_path("python3", path, [&](const std::string& candidate) {
    if (!executable(candidate)) return false;
    if (trusted_by_root(host, candidate)) return true;
    refused.push_back(candidate);
    return false;
  });
  if (!choice.interpreter.empty()) return choice;
  choice.error = "no python3 on PATH (" + path + ")";
  if (!refused.empty()) {
    choice.error = "python3 on PATH (" + join(refused, ", ") +
                   ") is writable by a user other than root, so a root run does not execute it; "
                   "pass --python with a root-owned interpreter";
  }
  return choice;
}

nlohmann::json no_python_result(const std::string& error) {
  return {{"executable", nullptr}, {"version", nullptr}, {"torch", nullptr}, {"error", error}};
}

}  // namespace rocm_doctor::probe
