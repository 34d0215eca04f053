// Facts about the operating system several checks (and the report header) need.
#pragma once

#include <string>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

struct SystemFacts {
  std::string os_id;          // ID from /etc/os-release ("ubuntu", "debian", "rhel")
  std::string os_id_like;     // ID_LIKE
  std::string os_version_id;  // VERSION_ID ("22.04")
  std::string os_pretty_name;
  std::string kernel_release;  // "6.1.0-18-amd64"
  std::string kernel_version;  // full /proc/version line when available
  std::string hostname;
  std::string container;  // "docker", "podman", "kubernetes", "apptainer", "lxc" or ""
  bool wsl = false;
  // Where each fact was read, for the evidence that cites it: the os-release file the
  // distribution came from (/etc/os-release, else /usr/lib/os-release; "" when neither
  // could be read), the file the kernel release came from (/proc/sys/kernel/osrelease,
  // else parsed from /proc/version; "" when neither said), and the mark that named the
  // container ("/.dockerenv", "/proc/1/cgroup", "env KUBERNETES_SERVICE_HOST", ...).
  std::string os_release_file;
  std::string kernel_release_file;
  std::string container_source;

  static SystemFacts collect(const CheckContext& ctx);
  static SystemFacts collect(const Host& host);
};

// "WSL" markers in a kernel release or /proc/version line.
bool mentions_wsl(std::string_view kernel_text);

}  // namespace rocm_doctor
