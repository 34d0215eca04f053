// The Python environment a user's scripts get, and the PyTorch installed in
// it, read from their files through the Host: no interpreter is started.
// (The `import torch` of src/probe/python_probe runs only when these files
// cannot decide, or at --level full; see facts/torch_view.h.)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

// What torch's own files say: site-packages/torch/version.py and the
// torch-*.dist-info/METADATA (or a distribution's *.egg-info/PKG-INFO).
struct TorchFiles {
  std::string folder;               // ".../site-packages/torch"
  std::string version_file;         // ".../torch/version.py"
  std::string version;              // __version__, "2.5.1+rocm6.2"
  std::optional<std::string> cuda;  // nullopt: None in version.py (or absent)
  std::optional<std::string> hip;
  std::optional<std::string> rocm;  // newer wheels name their ROCm release too
  std::optional<std::string> git_version;
  std::string metadata_file;     // dist-info METADATA or egg-info PKG-INFO; empty when none
  std::string metadata_version;  // its "Version:" field
};

// torch.version.hip set: a ROCm build; else torch.version.cuda: CUDA; else CPU.
enum class TorchBuild { cpu, cuda, rocm };
TorchBuild build_of(const TorchFiles& torch);
std::string_view to_string(TorchBuild build);
// The ROCm release a ROCm wheel was built for: "6.2" of "2.5.1+rocm6.2", else version.py's
// rocm, else the major.minor of its hip; "" when none says.
std::string wheel_rocm_release(const TorchFiles& torch);

// How the interpreter was found and what kind of environment holds it.
struct PythonEnvironment {
  std::string interpreter;               // the python3 a script gets (PATH entry or --python); empty: none found
  std::string found_by;                  // "--python", "PATH", "VIRTUAL_ENV", "CONDA_PREFIX"
  std::string resolved;                  // the real interpreter behind a pyenv shim (else == interpreter)
  std::string kind;                      // "venv", "conda", "pyenv", "system"
  std::string prefix;                    // sys.prefix: the folder above bin/
  std::string python_version;            // "3.11" (pyvenv.cfg, conda-meta, the interpreter's link name, lib/python3.N)
  std::vector<std::string> search_path;  // folders searched for torch, in sys.path order
  std::vector<std::pair<std::string, std::string>> evidence;  // file read -> what it said
  std::string error;                                          // why no interpreter was found
  std::optional<TorchFiles> torch;                            // found in search_path; nullopt: torch is not installed
  // Non-empty when the files cannot decide (a torch folder without a readable
  // version.py, a shim whose version is unknown): only an import can tell.
  std::string undecided;

  static PythonEnvironment collect(const CheckContext& ctx);
};

// The inspection itself: `requested` is --python (absolute, or a command name), "" for python3 on PATH.
PythonEnvironment inspect_python_environment(const Host& host, const std::string& requested);

// ---- pure parsers (tested with tables) ----

// One `name = 'value'` / `name: Optional[str] = None` assignment of version.py:
// the value, nullopt for None; absent names give nullopt too (has_name tells).
struct VersionPy {
  std::optional<std::string> version, cuda, hip, rocm, git_version;
  bool has_version = false;
};
VersionPy parse_version_py(std::string_view text);
// "Version: 2.5.1+rocm6.2" of a METADATA / PKG-INFO header; "" when absent.
std::string parse_metadata_version(std::string_view text);
// pyvenv.cfg: home, version (or version_info), include-system-site-packages.
struct PyvenvCfg {
  std::string home;
  std::string version;
  bool system_site_packages = false;
};
PyvenvCfg parse_pyvenv_cfg(std::string_view text);
// "3.11" of "3.11.7", "python3.11", "python-3.11.5-h955ad1f_0.json"; "" when none.
std::string python_major_minor(std::string_view text);

}  // namespace rocm_doctor
