// What the rocm-install and hip checks advise per ROCm layout (rocm_doctor/facts/rocm_install.h):
// which release is selected, which folder to give the loader, which package carries the runtime.
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

std::string_view to_string(RocmLayout layout) {
  switch (layout) {
    case RocmLayout::legacy: return "legacy";
    case RocmLayout::core_sdk: return "core-sdk";
    case RocmLayout::distro: return "distribution";
    case RocmLayout::python: return "python";
  }
  return "legacy";
}

bool path_is_under(std::string_view path, std::string_view prefix) {
  return path == prefix || (path.starts_with(prefix) && path.size() > prefix.size() && path[prefix.size()] == '/');
}

bool RocmInstallation::selection_known() const {
  if (!opt_rocm_resolved.empty()) return true;
  return active && active->layout == RocmLayout::core_sdk && !opt_rocm_lib_resolved.empty() &&
         path_is_under(opt_rocm_lib_resolved, active->prefix);
}

std::string RocmInstallation::preferred_lib_dir(const RocmRelease& release) const {
  // A legacy release reached through /opt/rocm -> /opt/rocm-X.Y.Z: /opt/rocm/lib follows the link.
  // A Core SDK release keeps its own core-X.Y/lib (the loader entry then survives a switch of the
  // alternatives, and minimal installs have no /opt/rocm/lib at all).
  if (release.layout == RocmLayout::legacy && opt_rocm_resolved == release.prefix && !opt_rocm_dangling)
    return "/opt/rocm/lib";
  return release.lib_dir;
}

LoaderAdvice loader_advice(const RocmInstallation& install, const RocmRelease& release) {
  const auto folder = install.preferred_lib_dir(release);
  if (release.layout == RocmLayout::python) {
    return {
        "This HIP runtime belongs to a Python environment (pip's rocm-sdk-core): Python programs load it "
        "through rocm_sdk, other programs find it only through LD_LIBRARY_PATH (set it in the shell or "
        "job that runs them).",
        {"export LD_LIBRARY_PATH=" + shell_quote(folder) + "\"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\""},
        false};
  }
  std::string file = "/etc/ld.so.conf.d/rocm.conf";
  if (release.layout == RocmLayout::core_sdk) {
    const auto name = release.prefix.substr(release.prefix.rfind('/') + 1);  // "core-7.14"
    file = "/etc/ld.so.conf.d/rocm-" + name + ".conf";
  }
  return {"Register " + folder + " with the dynamic loader and refresh its cache.",
          {"echo " + shell_quote(folder) + " | sudo tee " + file, "sudo ldconfig"},
          true};
}

std::string hip_runtime_install_command(const RocmRelease& release) {
  const auto parts = split(release.version, '.');
  const auto major_minor =
      parts.size() >= 2 ? std::string(parts[0]) + "." + std::string(parts[1]) : std::string(release.version);
  switch (release.layout) {
    case RocmLayout::core_sdk:  // the Core SDK's runtime package: amdrocm-core<X.Y> (no suffix: the newest)
      return "sudo apt install " + shell_quote("amdrocm-core" + major_minor);
    case RocmLayout::python: return "python3 -m pip install --force-reinstall rocm-sdk-core";
    case RocmLayout::distro:
      return "sudo apt install " +
             shell_quote("libamdhip64-" + (parts.empty() ? std::string("5") : std::string(parts[0])));
    case RocmLayout::legacy: break;
  }
  return "sudo apt install hip-runtime-amd";
}

}  // namespace rocm_doctor
