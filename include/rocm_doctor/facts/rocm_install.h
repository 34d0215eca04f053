// The installed ROCm release(s): shared by every check that judges against it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

struct RocmRelease {
  std::string version;  // "6.0.2", "5.2.3"; empty when a folder has no readable version
  std::string prefix;   // "/opt/rocm-6.0.2", "/usr" (distro packages)
  std::string lib_dir;  // where its libraries are: "/opt/rocm-6.0.2/lib", "/usr/lib/x86_64-linux-gnu"
  std::string evidence; // the file or folder that showed the version
  bool distro_packaged = false;
};

struct RocmInstallation {
  std::vector<RocmRelease> releases;       // every release found, newest first
  std::optional<RocmRelease> active;       // what /opt/rocm points at, else the only/newest one
  std::optional<std::string> opt_rocm_target;  // readlink /opt/rocm, when it is a link
  bool opt_rocm_dangling = false;

  [[nodiscard]] bool installed() const { return !releases.empty(); }
  // "6.0" of the active release, empty when none.
  [[nodiscard]] std::string active_major_minor() const;

  static RocmInstallation collect(const CheckContext& ctx);
};

}  // namespace rocm_doctor
