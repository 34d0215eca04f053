// What AMD supports between the amdgpu kernel driver (KMD, amdgpu-dkms) and
// the ROCm user space, from checks/data/amdgpu_driver.json (compiled in).
// Shared by the packages check (the host's driver against the host's ROCm)
// and the container check (the host's driver against the image's ROCm).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor::amdgpu_driver {

// The amdgpu kernel driver this machine has, as the checks read it once per run
// (ctx.fact<InstalledDriver>()): shared by the packages check (driver skew) and
// the report's `versions`.
struct InstalledDriver {
  // /sys/module/amdgpu/version: present (non-empty) only while an out-of-tree
  // amdgpu-dkms module is loaded ("6.8.5"); the in-tree driver has none.
  std::optional<std::string> module_version;
  // dpkg's Version: of the installed amdgpu-dkms package ("1:6.8.5.60204-2041575.22.04").
  std::optional<std::string> dkms_package_version;

  static InstalledDriver collect(const CheckContext& ctx);
};

enum class Compatibility { supported, unsupported, unknown };

struct DriverRules {
  struct Pair {
    std::string key;
    std::vector<std::string> values;
  };
  std::vector<Pair> kmd_tested;       // KMD release -> tested user space releases
  std::vector<Pair> userspace_kmd;    // user space release -> supported KMD releases
  std::vector<Pair> driver_versions;  // amdgpu module version -> ROCm release (values[0])
  std::vector<Pair> driver_lines;     // ROCm release ("7.1") -> its AMD GPU Driver line (values[0], "30.20")
  std::size_t window = 2;             // releases apart, before year_window_since
  std::string year_window_since;      // from this release on, "up to a year apart"
  std::string rule;                   // the rule in AMD's words, for findings
  // The package that ships amdgpu's firmware: by os-release ID, distribution family
  // ("debian", "rhel", "suse") or "amdgpu-dkms" (AMD's driver package).
  std::map<std::string, std::string, std::less<>> firmware_packages;
  std::vector<std::string> sources;
};

// Throws (a nlohmann::json exception, std::invalid_argument naming file and key) on a broken table.
DriverRules parse_driver_rules(std::string_view json_text);
// amdgpu_driver.json (overlays included) through its typed loader (rocm_doctor/data_table.h).
const DriverRules& driver_rules();

// "6.8.5" (or "6.8.5-2009582.22.04") -> the ROCm release its amdgpu-dkms shipped with ("6.2").
std::optional<std::string> rocm_release_of_driver(const DriverRules& rules, std::string_view amdgpu_version);

// "1:6.8.5.60204-2041575.22.04" -> "6.2.4" (AMD encodes the ROCm release in the last
// component of the upstream version); nullopt when it does not.
std::optional<std::string> rocm_release_from_package_version(std::string_view version);

// "6.2.4" -> "6.2"; "30.10" stays.
std::string major_minor(std::string_view version);

// Whether a KMD of ROCm release `kmd` ("6.2", or "30.10") supports user space `userspace` ("6.4.1").
// A driver of the user space's own release line ("7.1" with "7.1.1") is always supported.
// `releases` is the ordered list of known major.minor releases (for the +/- window rule).
Compatibility judge_skew(const DriverRules& rules, std::string_view kmd, std::string_view userspace,
                         const std::vector<std::string>& releases);

}  // namespace rocm_doctor::amdgpu_driver
