// The SR-IOV part of the `platform` check (platform.h): AMD GPU virtual
// functions, and what a virtual function does not offer.
#include <fmt/format.h>

#include <algorithm>

#include "driver.h"
#include "platform.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::platform {

namespace {

std::string_view last_component(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::optional<std::uint32_t> read_id(const Host& host, const std::string& path) {
  const auto text = host.read_file(path);
  return text ? driver::parse_sysfs_hex(*text) : std::nullopt;
}

}  // namespace

std::vector<VirtualFunction> virtual_functions(const Host& host) {
  std::vector<VirtualFunction> functions;
  for (const auto& entry : host.list_dir("/sys/bus/pci/devices").value_or(std::vector<DirEntry>{})) {
    const auto base = "/sys/bus/pci/devices/" + entry.name;
    if (read_id(host, base + "/vendor") != kb::kAmdPciVendor) continue;
    const auto device = read_id(host, base + "/device");
    const auto revision = read_id(host, base + "/revision");
    const auto* known = device ? kb::knowledge_base().pci_device(*device, revision) : nullptr;
    const auto physfn = host.read_link(base + "/physfn");
    const bool by_id = known != nullptr && known->virtual_function;
    if (!physfn && !by_id) continue;
    VirtualFunction function;
    function.bdf = entry.name;
    function.name = known ? known->name : fmt::format("device 0x{:04x}", device.value_or(0));
    if (physfn) function.physical = std::string(last_component(*physfn));
    if (auto driver = host.read_link(base + "/driver")) function.driver = std::string(last_component(*driver));
    function.by_device_id = by_id;
    functions.push_back(std::move(function));
  }
  return functions;
}

std::optional<Finding> sriov_finding(const std::vector<VirtualFunction>& functions, const std::string& hypervisor) {
  if (functions.empty()) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& function : functions) names.push_back(function.bdf + " (" + function.name + ")");
  // A VF with its PF beside it is the SR-IOV host's view; a guest sees no physfn.
  const bool host_view =
      std::all_of(functions.begin(), functions.end(), [](const auto& f) { return !f.physical.empty(); });
  const auto summary =
      host_view
          ? fmt::format("SR-IOV is enabled: {} AMD GPU virtual function(s) at {}", functions.size(), join(names, ", "))
          : fmt::format("GPU{} {} {} SR-IOV virtual function{}{}", functions.size() == 1 ? "" : "s", join(names, ", "),
                        functions.size() == 1 ? "is an" : "are", functions.size() == 1 ? "" : "s",
                        hypervisor.empty() ? "" : " in a " + hypervisor + " guest");
  auto finding =
      make_finding("os.sriov-vf", Severity::info, summary)
          .because(
              "A virtual function runs HIP and the ROCm libraries like the whole GPU, but the host's SR-IOV driver "
              "(AMD's GIM, amd/MxGPU-Virtualization) owns the physical GPU: from the guest, power-cap, clock and fan "
              "settings, compute and memory partition changes (the host sets the mode per VF count, e.g. 1 VF in "
              "SPX/NPS1 or 8 VFs in CPX/NPS4 on MI300X), GPU reset and some rocm-smi/amd-smi readings (power, ECC, "
              "PCIe) are not available, and only the guest distributions and kernels of the GIM release notes are "
              "supported. Ask the host's administrator for those changes; nothing here is a fault.");
  for (const auto& function : functions) {
    const auto where = "/sys/bus/pci/devices/" + function.bdf;
    if (!function.physical.empty()) finding.with_evidence(where + "/physfn", "-> " + function.physical);
    if (function.by_device_id) finding.with_evidence(where + "/device", function.name + " (a VF's own device id)");
    if (!function.driver.empty()) finding.with_evidence(where + "/driver", function.driver);
  }
  return finding;
}

}  // namespace rocm_doctor::platform
