// Every ROCm on the machine, wherever it lives (issue 27): system and TheRock packages, TheRock
// tarballs under any prefix, TheRock's pip packages in every Python environment found, distribution
// packages, conda, and the runtimes frameworks and applications bundle (PyTorch wheels, ollama,
// llama.cpp, lemonade, LM Studio). Each with its kind, prefix, version from its own files, the
// gfx targets it carries and who uses it. Read from files only; JSON `rocm.installs[]`
// (docs/report-format.md#rocm).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

// How a ROCm got onto the machine. The first five are rocprofv3-doctor's install kinds.
enum class InstallKind {
  system_package,   // AMD's packages, /opt/rocm-X.Y.Z (or /opt/rocm itself)
  therock_package,  // the Core SDK's amdrocm-* packages, /opt/rocm/core-X.Y
  python_wheel,     // TheRock's pip packages: site-packages/_rocm_sdk_core (+ libraries per family)
  distro_package,   // the distribution's own packages (/usr, or Arch's /opt/rocm)
  standalone,       // a TheRock tarball, a source build or a custom prefix
  conda,            // a conda environment's lib/libamdhip64.so*
  torch_wheel,      // a PyTorch ROCm wheel's own torch/lib/libamdhip64.so*
  ollama,           // ollama's /usr/lib/ollama/rocm*
  llama_cpp,        // llama.cpp's HIP plugin (libggml-hip.so) and what it brings
  lemonade,         // lemonade's TheRock and llama.cpp downloads
  lm_studio,        // LM Studio's ~/.lmstudio/extensions/backends/*rocm*
};
std::string_view to_string(InstallKind kind);

struct RocmInstall {
  InstallKind kind = InstallKind::system_package;
  std::string prefix;                 // the tree: "/opt/rocm-6.2.4", ".../site-packages/_rocm_sdk_core"
  std::string lib_dir;                // where its libamdhip64 is (or would be)
  std::string version;                // "7.2.1", "" when its files do not say
  std::string version_source;         // the file or name that said it
  std::string hip_library;            // the libamdhip64.so* file it carries; "" when it brings no HIP runtime
  std::vector<std::string> gfx;       // gfx targets it carries code for, sorted ("gfx1151", "gfx90a")
  std::string gfx_source;             // what said so (a scanned library, dist_info.json, rocBLAS's files)
  std::vector<std::string> families;  // TheRock families present (pip libraries/device packages, lemonade)
  std::vector<std::string> used_by;   // "ollama (/usr/bin/ollama)", "python3 of /home/alice/venv"
  std::string python;                 // the interpreter of its Python environment (pip, torch, conda)
  std::string site;                   // its site-packages (pip, torch)
  std::string app;                    // the application that bundles it ("ollama"), "" for ROCm itself
  std::string service;                // the systemd unit of that application ("ollama"), "" when none
  std::string selected_by;            // "--rocm-root", "ROCM_PATH", ... when it is the root those name

  [[nodiscard]] bool brings_hip() const { return !hip_library.empty(); }
  [[nodiscard]] bool carries(std::string_view gfx_target) const;
  // "ROCm 7.2 (ollama) in /usr/lib/ollama/rocm_v7_2".
  [[nodiscard]] std::string label() const;
  [[nodiscard]] nlohmann::ordered_json to_json() const;
};

// TheRock's pip packages of one Python environment and the family rocm_sdk picks there.
struct TheRockFamilies {
  std::string site;                    // site-packages
  std::string python;                  // its interpreter
  std::string version;                 // rocm-sdk-core's version
  std::vector<std::string> installed;  // families with a rocm-sdk-libraries-*/device-* package
  std::vector<std::string> available;  // rocm_sdk/_dist_info.py AVAILABLE_TARGET_FAMILIES (else installed)
  std::string default_family;          // DEFAULT_TARGET_FAMILY, "" when unknown
  std::string dist_info;               // the _dist_info.py read, "" when none
};

struct RocmInstalls {
  std::vector<RocmInstall> installs;     // system ones first, then Python environments, then bundles
  std::vector<TheRockFamilies> therock;  // per Python environment with rocm-sdk-core
  std::string root;                      // the ROCm root the user names (--rocm-root, ROCM_PATH, ...), "" when none
  std::string root_source;               // "--rocm-root", "ROCM_PATH", "ROCM_HOME", "ROCM_DIR", "HIP_PATH"
  bool root_missing = false;             // that root holds no ROCm tree

  [[nodiscard]] bool any_hip_runtime() const;
  [[nodiscard]] const RocmInstall* find(std::string_view prefix) const;
  [[nodiscard]] nlohmann::ordered_json to_json() const;

  static RocmInstalls collect(const CheckContext& ctx);
};

// --rocm-root DIR (made absolute), taken as it is, before ROCM_PATH / ROCM_HOME / ROCM_DIR /
// HIP_PATH. Set once by the command line before the run; "" (the default) = none.
void set_rocm_root_option(std::string dir);
[[nodiscard]] const std::string& rocm_root_option();

// ---- pure parsers and knowledge (tested with tables) ----

// share/therock/dist_info.json: dist_amdgpu_targets split on ';', ',' and spaces ("gfx1100;gfx1101").
std::vector<std::string> parse_therock_dist_info(std::string_view json_text);
// rocm_sdk/_dist_info.py: __version__, DEFAULT_TARGET_FAMILY and AVAILABLE_TARGET_FAMILIES.
struct SdkDistInfo {
  std::string version;
  std::string default_family;
  std::vector<std::string> available;
};
SdkDistInfo parse_sdk_dist_info(std::string_view python_text);
// The gfx targets of a TheRock family ("gfx110X-all" -> gfx1100..gfx1103; "gfx1151" -> itself);
// empty when unknown (checks/data/rocm_installs.json).
std::vector<std::string> family_targets(std::string_view family);
// The family of an importable package name: "_rocm_sdk_libraries_gfx110X_all" -> "gfx110X-all"
// (dashes to underscores, case kept; a version nonce after the family is ignored); "" when none.
std::string family_of_package(std::string_view package, std::string_view stem);
// rocm_sdk's pick for one offload-arch line among the available families: arch[:-1]+"X" with
// -all, -dgpu, -igpu, -dcgpu, else the arch itself, else "".
std::string family_for_arch(std::string_view arch, const std::vector<std::string>& available);
// "gfx1151" from a rocBLAS/Tensile file name ("TensileLibrary_lazy_gfx1151.dat",
// "Kernels.so-000-gfx90a-xnack-.hsaco"); "" when it names none.
std::string gfx_of_library_file(std::string_view name);
// "7.2" of an ollama payload folder "rocm_v7_2"; "7.13.0" of lemonade's "gfx1151-7.13.0"; "" else.
std::string version_of_bundle_folder(std::string_view name);
// "5.2.70201" (rocBLAS's soname version) -> ROCm "7.2.1": the patch field is MMmmpp of ROCm.
std::string rocm_of_library_version(std::string_view version);

}  // namespace rocm_doctor
