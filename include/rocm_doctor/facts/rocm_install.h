// The installed ROCm release(s): shared by every check that judges against it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

struct RocmRelease {
  std::string version;   // "6.0.2", "5.2.3"; empty when a folder has no readable version
  std::string prefix;    // "/opt/rocm-6.0.2", "/usr" (distro packages)
  std::string lib_dir;   // where its libraries are: "/opt/rocm-6.0.2/lib", "/usr/lib/x86_64-linux-gnu"
  std::string evidence;  // the file or folder that showed the version
  bool distro_packaged = false;
  std::string hip_version;  // "6.2.41134" (share/hip/version or the library file name), may be empty
  std::string bin_dir;      // "/opt/rocm-6.0.2/bin", "/usr/bin"
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

  std::vector<LoaderDir> loader_dirs;    // where ld.so looks, in its order
  std::vector<LoaderHit> hip_libraries;  // every libamdhip64.so* found there, in search order

  [[nodiscard]] bool installed() const { return !releases.empty(); }
  // "6.0" of the active release, empty when none.
  [[nodiscard]] std::string active_major_minor() const;

  static RocmInstallation collect(const CheckContext& ctx);
};

// ---- pure parsers (tested with tables) ----

// "/opt/rocm/.info/version": "6.0.2-115" -> "6.0.2"; "6.4.0.1-12" -> "6.4.0.1"; "7.0.0" -> "7.0.0".
std::optional<std::string> parse_rocm_version_file(std::string_view text);
// Folder names under /opt: "rocm-6.2.4" -> "6.2.4"; "rocm", "rocm-6.2.4.bak" -> nullopt.
std::optional<std::string> parse_versioned_folder(std::string_view name);
// "libamdhip64.so.5.2.21153" -> "5.2.21153"; "libamdhip64.so.5" -> nullopt.
std::optional<std::string> hip_version_from_library_name(std::string_view name);
// share/hip/version (HIP_VERSION_MAJOR=6 ...) -> "6.2.41134".
std::optional<std::string> parse_hip_version_file(std::string_view text);
// Debian version -> upstream release: "1:5.2.3-8" -> "5.2.3", "5.2.3+dfsg-1" -> "5.2.3".
std::string upstream_version(std::string_view debian_version);
// Numeric comparison of dotted versions ("6.10.0" > "6.9.1"); <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);

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
// Lexically normalises an absolute path ("/opt/rocm/../rocm-6.2.4/" -> "/opt/rocm-6.2.4").
std::string normalize_path(std::string_view path);

}  // namespace rocm_doctor
