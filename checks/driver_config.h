// Pure parsers of the `driver-config` check (modprobe.d, the SecureBoot EFI
// variable, the DKMS tree), shared with its unit test and the other driver checks.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/system_facts.h"

namespace rocm_doctor::driver_config {

// A modprobe.d line that keeps a module from loading.
struct ModprobeRule {
  enum class Kind { blacklist, install_disabled };
  Kind kind = Kind::blacklist;
  int line = 0;      // 1-based line number (of the first physical line)
  std::string text;  // the (joined) line as written, trimmed
};

// modprobe.d(5) syntax: '#' comments, '\' continues a line, '-' and '_' are the same in
// module names. Finds `blacklist <module>` and `install <module> /bin/false|/bin/true|false|true`.
std::vector<ModprobeRule> parse_modprobe_conf(std::string_view text, std::string_view module);

// /sys/firmware/efi/efivars/SecureBoot-<guid>: 4 attribute bytes, then 1 (enabled) or 0.
std::optional<bool> parse_secure_boot_efivar(std::string_view bytes);

// "amdgpu.ko", "amdgpu.ko.xz", "amdgpu.ko.zst", "amdgpu.ko.gz".
bool is_module_file(std::string_view name, std::string_view module);

// The package family of a distribution, from ID and ID_LIKE.
enum class Family { debian, rhel, suse, other };
Family distro_family(const SystemFacts& facts);

// The package with the running kernel's headers ("linux-headers-6.8.0-48-generic",
// "kernel-devel-5.14.0-427.13.1.el9_4.x86_64", "kernel-default-devel"), or "" when unknown.
std::string header_package(Family family, std::string_view kernel_release);

// The install command for packages on this family ("sudo apt install ...").
std::string install_command(Family family, const std::vector<std::string>& packages);

}  // namespace rocm_doctor::driver_config
