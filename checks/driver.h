// Pure parsers of the `driver` check, shared with its unit test.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor::driver {

// What /proc/cmdline says about the amdgpu driver.
struct KernelCmdline {
  bool nomodeset = false;                 // the bare `nomodeset` word
  std::optional<int> amdgpu_modeset;      // last `amdgpu.modeset=N`
  bool amdgpu_blacklisted = false;        // modprobe.blacklist= / module_blacklist= naming amdgpu
  std::vector<std::string> amdgpu_words;  // the words above, as written, for evidence

  // nomodeset or amdgpu.modeset=0: amdgpu refuses to initialise.
  [[nodiscard]] bool disables_modeset() const {
    return (amdgpu_modeset && *amdgpu_modeset == 0) || (nomodeset && amdgpu_modeset.value_or(-1) != 1);
  }
};

// Parses a kernel command line: quoted values, '-' == '_' in names, stops at "--".
KernelCmdline parse_kernel_cmdline(std::string_view text);

// "0x030000\n" -> 0x030000 (sysfs vendor, device and class files).
std::optional<std::uint32_t> parse_sysfs_hex(std::string_view text);

// Knowledge from checks/data/pci_vendors.json.
struct PciKnowledge {
  std::map<std::uint32_t, std::string> vendor_names;
  std::uint32_t display_base_class = 0x03;
  std::map<std::uint32_t, std::string> amd_compute_classes;  // class >> 8 -> name

  [[nodiscard]] std::string vendor_name(std::uint32_t vendor) const;
  [[nodiscard]] bool is_display(std::uint32_t pci_class) const { return (pci_class >> 16) == display_base_class; }
  [[nodiscard]] bool is_amd_gpu(std::uint32_t vendor, std::uint32_t pci_class) const;
};

// The table (overlays included), read once; throws with "pci_vendors.json: KEY: ..." when broken.
const PciKnowledge& pci_knowledge();

// "0000:03:00.0 [1002:744c] VGA" style label; hex without 0x.
std::string hex4(std::uint32_t value);

}  // namespace rocm_doctor::driver
