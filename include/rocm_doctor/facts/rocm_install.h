// The installed ROCm release(s): shared by every check that judges against it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

// How a release is laid out on disk (docs/checks.md, rocm-install):
//  legacy    AMD's packages up to 7.2: /opt/rocm-X.Y.Z (+ /opt/rocm link), or /opt/rocm itself
//  core_sdk  the ROCm Core SDK (TheRock, 7.14 and later, amdrocm-* packages): /opt/rocm/core-X.Y,
//            with update-alternatives links /opt/rocm/{lib,bin,...} on full installs
//  distro    a distribution's packages (libamdhip64-N in /usr/lib/<multiarch>)
//  python    pip packages (rocm[...], rocm-sdk-core): site-packages/_rocm_sdk_core/{lib,bin}
enum class RocmLayout { legacy, core_sdk, distro, python };
std::string_view to_string(RocmLayout layout);

struct RocmRelease {
  std::string version;   // "6.0.2", "5.2.3"; empty when a folder has no readable version
  std::string prefix;    // "/opt/rocm-6.0.2", "/usr" (distro packages)
  std::string lib_dir;   // where its libraries are: "/opt/rocm-6.0.2/lib", "/usr/lib/x86_64-linux-gnu"
  std::string evidence;  // the file or folder that showed the version
  bool distro_packaged = false;
  std::string hip_version;  // "6.2.41134" (share/hip/version or the library file name), may be empty
  std::string bin_dir;      // "/opt/rocm-6.0.2/bin", "/usr/bin"
  RocmLayout layout = RocmLayout::legacy;
  std::string hip_soname;  // the libamdhip64 soname in lib_dir ("libamdhip64.so.7"), "" when it has none
};

// One folder the dynamic loader searches, and what put it there.
struct LoaderDir {
  std::string path;    // "/opt/rocm/lib"
  std::string origin;  // "LD_LIBRARY_PATH", "/etc/ld.so.conf.d/20-rocm.conf", "default"
};

// A libamdhip64.so* file in one of the loader's folders.
struct LoaderHit {
  std::string path;    // "/opt/rocm/lib/libamdhip64.so.6"
  std::string origin;  // LoaderDir::origin of its folder
};

struct RocmInstallation {
  std::vector<RocmRelease> releases;           // every release found, newest first
  std::optional<RocmRelease> active;           // what /opt/rocm points at, else the only/newest one
  std::optional<std::string> opt_rocm_target;  // readlink /opt/rocm, when it is a link
  bool opt_rocm_dangling = false;
  std::string opt_rocm_resolved;  // final target of the /opt/rocm link chain ("" when not a link)
  // Core SDK full installs: /opt/rocm/lib -> /etc/alternatives/rocm-lib -> /opt/rocm/core-X.Y/lib.
  std::optional<std::string> opt_rocm_lib_target;  // readlink /opt/rocm/lib, when it is a link
  std::string opt_rocm_lib_resolved;               // its final target ("" when not a link)

  std::vector<LoaderDir> loader_dirs;    // where ld.so looks, in its order
  std::vector<LoaderHit> hip_libraries;  // every libamdhip64.so* found there, in search order

  [[nodiscard]] bool installed() const { return !releases.empty(); }
  // "6.0" of the active release, empty when none.
  [[nodiscard]] std::string active_major_minor() const;
  // Something says which release is meant: the /opt/rocm link, or the Core SDK's alternatives.
  [[nodiscard]] bool selection_known() const;
  // The folder users should register with the loader for a release: /opt/rocm/lib when the
  // /opt/rocm link or the Core SDK alternatives lead there, else the release's own lib folder.
  [[nodiscard]] std::string preferred_lib_dir(const RocmRelease& release) const;

  static RocmInstallation collect(const CheckContext& ctx);
};

// ---- pure parsers (tested with tables) ----

// "/opt/rocm/.info/version": "6.0.2-115" -> "6.0.2"; "6.4.0.1-12" -> "6.4.0.1"; "7.0.0" -> "7.0.0".
std::optional<std::string> parse_rocm_version_file(std::string_view text);
// Folder names under /opt: "rocm-6.2.4" -> "6.2.4"; "rocm", "rocm-6.2.4.bak" -> nullopt.
std::optional<std::string> parse_versioned_folder(std::string_view name);
// Core SDK folders under /opt/rocm: "core-7.14" -> "7.14", "core-asan-7.15" -> "7.15"; "core", "core-7" -> nullopt
// (those two are update-alternatives links to a core-X.Y folder).
std::optional<std::string> parse_core_folder(std::string_view name);
// pip's record of an installed package: "rocm_sdk_core-7.14.0.dist-info" -> "7.14.0",
// "rocm_sdk_core-7.15.0a20260630.dist-info" -> "7.15.0" (the release; pre-release tags dropped).
std::optional<std::string> parse_dist_info_version(std::string_view folder_name, std::string_view package);
// "libamdhip64.so.5.2.21153" -> "5.2.21153"; "libamdhip64.so.5" -> nullopt.
std::optional<std::string> hip_version_from_library_name(std::string_view name);
// share/hip/version (HIP_VERSION_MAJOR=6 ...) -> "6.2.41134".
std::optional<std::string> parse_hip_version_file(std::string_view text);
// Debian version -> upstream release: "1:5.2.3-8" -> "5.2.3", "5.2.3+dfsg-1" -> "5.2.3".
std::string upstream_version(std::string_view debian_version);
// Numeric comparison of dotted versions ("6.10.0" > "6.9.1"); <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);

// How to make the dynamic loader find a release's libraries (the fix of rocm.lib-not-found and
// hip.not-found): an /etc/ld.so.conf.d entry for system installs, LD_LIBRARY_PATH for a Python
// environment's copy. Commands are quoted for a shell.
struct LoaderAdvice {
  std::string description;
  std::vector<std::string> commands;
  bool needs_root = false;
};
LoaderAdvice loader_advice(const RocmInstallation& install, const RocmRelease& release);
// The runtime package to install when a release lacks libamdhip64, by layout.
std::string hip_runtime_install_command(const RocmRelease& release);

struct LdConfLine {
  enum class Kind { directory, include };
  Kind kind = Kind::directory;
  std::string value;  // a folder, or one include glob (relative ones are relative to the file's folder)
};
// /etc/ld.so.conf syntax: one folder per line, `include GLOB...`, '#' comments, `hwcap` lines ignored.
std::vector<LdConfLine> parse_ld_so_conf(std::string_view text);
// fnmatch-style matching of one path component: '*', '?', and [...] sets.
bool glob_match(std::string_view pattern, std::string_view name);
// PATH / LD_LIBRARY_PATH: split on ':' (and ';' for LD_LIBRARY_PATH), dropping empty entries.
std::vector<std::string> split_search_path(std::string_view value, bool allow_semicolon = false);
// `path` is `prefix` or inside it ("/opt/rocm/core-7.14/lib" is under "/opt/rocm/core-7.14").
bool path_is_under(std::string_view path, std::string_view prefix);
// Lexically normalises an absolute path ("/opt/rocm/../rocm-6.2.4/" -> "/opt/rocm-6.2.4").
std::string normalize_path(std::string_view path);

}  // namespace rocm_doctor
