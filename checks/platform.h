// Pure parsers of the `platform` check: the distribution and kernel columns of the
// ROCm support list (checks/data/rocm_releases.json), and virtual machine markers.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/finding.h"
#include "rocm_doctor/host.h"

namespace rocm_doctor::platform {

// "22.04.5", "9.6 (6.4.1+), 9.5 (6.4.0/6.4.1), 9.4", "15 SP6 (SP7 added in 6.4.3)", "15 SP4, SP5"
// -> {"22.04.5"}, {"9.6", "9.5", "9.4"}, {"15 SP6"}, {"15 SP4", "15 SP5"}. Parenthesised notes are dropped.
std::vector<std::string> listed_versions(std::string_view text);

// os-release VERSION_ID against a listed version: "22.04" matches "22.04.5", "9" matches "9.4",
// "15-SP5" matches "15 SP5"; "9.3" does not match "9.4".
bool version_matches(std::string_view version_id, std::string_view listed);

struct KernelSpec {
  int major = 0;
  int minor = 0;
  bool or_newer = false;  // "5.14+"
};
// "5.15 GA, 6.8 HWE" -> {5.15, 6.8}; "5.14.0-362" -> {5.14}; "6.4.0/6.5.0+ ; 5.14.21" -> {6.4, 6.5+, 5.14};
// "RHEL 10.0: 6.12.0-55" -> {6.12} (numbers before ':' name a distribution version); "not found" -> {}.
std::vector<KernelSpec> listed_kernels(std::string_view text);

// "6.8.0-48-generic" against the specs.
bool kernel_matches(std::string_view release, const std::vector<KernelSpec>& specs);

// /proc/cpuinfo "flags" lines include "hypervisor" (the CPUID bit every hypervisor sets).
bool cpuinfo_has_hypervisor(std::string_view cpuinfo);

// checks/data/platform.json, read once through its typed loader (platform_table.cpp).
struct HypervisorVendor {
  std::string match;  // a substring of DMI sys_vendor + " " + product_name
  std::string name;   // "QEMU/KVM"
};
struct PlatformTable {
  std::map<std::string, std::string> distributions;  // os-release ID -> the support list's name
  std::map<std::string, std::string> like;           // an ID_LIKE word -> an ID of distributions
  std::vector<HypervisorVendor> hypervisor_vendors;  // the first that matches names the hypervisor
};
// The table (overlays included); throws with "platform.json: KEY: ..." when it is broken.
const PlatformTable& platform_table();

}  // namespace rocm_doctor::platform

namespace rocm_doctor::platform {

// An AMD GPU function that is an SR-IOV virtual function (platform_sriov.cpp).
struct VirtualFunction {
  std::string bdf;
  std::string name;           // marketing name from the PCI id table, or "device 0x74b5"
  std::string physical;       // the physfn link's target (only where the host's PF is visible)
  std::string driver;         // bound PCI driver ("amdgpu", "vfio-pci"), empty when none
  bool by_device_id = false;  // the device id is a VF's own (pci_ids.json virtual_function)
};

// AMD GPU virtual functions on this machine: a `physfn` link in the PCI device
// folder (Linux Documentation/PCI/pci-iov-howto.rst; seen on the SR-IOV host),
// or a VF's own device id (what a guest sees: it has no link to the PF).
std::vector<VirtualFunction> virtual_functions(const Host& host);
// os.sriov-vf: what works and what does not on a VF; nullopt without VFs.
std::optional<Finding> sriov_finding(const std::vector<VirtualFunction>& functions, const std::string& hypervisor);

}  // namespace rocm_doctor::platform
