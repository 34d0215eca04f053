// `pcie-aer`: the PCIe Advanced Error Reporting counters of each GPU and of the port above it
// (aer_dev_fatal, aer_dev_nonfatal, aer_dev_correctable in sysfs). Uncorrectable errors lose
// transactions; corrected ones mark a marginal link. The link's trained width and speed are
// recorded beside them (the topology check judges a link trained down).
#include <fmt/format.h>

#include "ras.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "topology.h"

namespace rocm_doctor::pcie_aer_check {
namespace {

constexpr std::string_view kCheckId = "pcie-aer";

struct Kind {
  std::string_view file;
  std::string_view total;
  std::string_view label;
};
constexpr Kind kKinds[] = {{"aer_dev_fatal", "TOTAL_ERR_FATAL", "fatal"},
                           {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", "non-fatal"},
                           {"aer_dev_correctable", "TOTAL_ERR_COR", "correctable"}};

struct Device {
  std::string name;  // "GPU 0 (0000:03:00.0)" or "port 0000:00:01.1 above GPU 0"
  std::string folder;
  std::map<std::string, std::uint64_t> totals;                // by label
  std::vector<std::pair<std::string, std::string>> evidence;  // source, value
};

std::optional<Device> read_device(const Host& host, const std::string& name, const std::string& folder) {
  Device device{name, folder, {}, {}};
  for (const auto& kind : kKinds) {
    const auto path = folder + "/" + std::string(kind.file);
    const auto text = host.read_file(path, 64U << 10);
    if (!text) continue;
    const auto counters = ras::parse_aer_counters(*text);
    const auto total = counters ? counters->find(std::string(kind.total)) : decltype(counters->end()){};
    if (!counters || total == counters->end()) {
      device.evidence.emplace_back(path, "unparsable: no " + std::string(kind.total) + " line");
      continue;
    }
    std::vector<std::string> nonzero;
    for (const auto& [counter, value] : *counters) {
      if (value > 0 && counter != kind.total) nonzero.push_back(fmt::format("{} {}", counter, value));
    }
    device.totals[std::string(kind.label)] = total->second;
    device.evidence.emplace_back(path, fmt::format("{} {}", kind.total, total->second) +
                                           (nonzero.empty() ? "" : " (" + join(nonzero, ", ") + ")"));
  }
  if (device.evidence.empty()) return std::nullopt;  // no AER files here
  return device;
}

void link_evidence(const Host& host, const std::string& folder, std::vector<std::pair<std::string, std::string>>& out) {
  for (const std::string file : {"current_link_speed", "max_link_speed", "current_link_width", "max_link_width"}) {
    if (const auto text = host.read_trimmed(folder + "/" + file)) out.emplace_back(folder + "/" + file, *text);
  }
}

std::vector<Device> read_devices(const Host& host, const GpuInventory& inventory,
                                 std::vector<std::pair<std::string, std::string>>& links) {
  std::vector<Device> devices;
  std::vector<std::string> seen;
  for (const auto* gpu : inventory.pci_gpus()) {
    if (gpu->bdf.empty()) continue;
    const auto name = gpu->index >= 0 ? fmt::format("GPU {} ({})", gpu->index, gpu->bdf) : gpu->bdf;
    const std::string link = "/sys/bus/pci/devices/" + gpu->bdf;
    const auto target = host.read_link(link);
    const auto folder = target ? topology::resolve_link("/sys/bus/pci/devices", *target) : link;
    if (auto device = read_device(host, name, folder)) devices.push_back(std::move(*device));
    link_evidence(host, folder, links);
    const auto slash = folder.rfind('/');
    const auto parent = slash == std::string::npos ? std::string() : folder.substr(0, slash);
    const auto parent_name = parent.substr(parent.rfind('/') + 1);
    if (parent_name.find(':') == std::string::npos || parent_name.starts_with("pci") ||
        std::find(seen.begin(), seen.end(), parent) != seen.end())
      continue;
    seen.push_back(parent);
    if (auto port = read_device(host, "PCIe port " + parent_name + " above " + name, parent))
      devices.push_back(std::move(*port));
  }
  return devices;
}

void judge(std::vector<Finding>& out, const std::vector<Device>& devices, const std::string& id, Severity severity,
           const std::vector<std::pair<std::string, std::uint64_t>>& kinds, const std::string& what,
           const std::string& because, const std::string& fix) {
  std::vector<std::string> parts;
  auto finding = make_finding(id, severity, "");
  for (const auto& device : devices) {
    std::vector<std::string> counts;
    for (const auto& [label, above] : kinds) {
      const auto it = device.totals.find(label);
      if (it != device.totals.end() && it->second > above) counts.push_back(fmt::format("{} {}", it->second, label));
    }
    if (counts.empty()) continue;
    parts.push_back(device.name + ": " + join(counts, ", "));
    for (const auto& [source, value] : device.evidence) finding.with_evidence(source, value);
  }
  if (parts.empty()) return;
  finding.summary = what + " on " + join(parts, "; ");
  finding.because(because);
  finding.with_fix(make_fix(kCheckId, ras::thresholds().fixes.at(fix),
                            {"sudo dmesg --ctime | grep -iE 'AER|pcieport|PCIe Bus Error'"}, {.root = true}));
  out.push_back(std::move(finding));
}

class PcieAerCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "PCIe errors (AER)"; }
  int order() const override { return 24; }
  std::vector<std::string_view> finding_ids() const override {
    return {"pcie.aer-uncorrectable", "pcie.aer-correctable", "pcie.aer-counters"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode) return CheckOutcome::skipped("--image: no GPU is attached to an image build");
    if (ctx.fact<SystemFacts>().wsl) return CheckOutcome::skipped("WSL: the GPU's PCIe link belongs to Windows");
    std::vector<std::pair<std::string, std::string>> links;
    const auto devices = read_devices(ctx.host(), ctx.fact<GpuInventory>(), links);
    if (devices.empty()) return CheckOutcome::skipped("no GPU or port above it has AER counters in sysfs");
    const auto& t = ras::thresholds();
    std::vector<Finding> findings;
    judge(findings, devices, "pcie.aer-uncorrectable", Severity::error,
          {{"fatal", t.aer_fatal_above}, {"non-fatal", t.aer_nonfatal_above}}, "Uncorrectable PCIe errors",
          "Uncorrectable PCIe errors lost transactions between the CPU and the GPU: DMA or doorbell writes failed, "
          "which hangs or kills the jobs on the GPU; a fatal one resets the link.",
          "aer-uncorrectable");
    judge(findings, devices, "pcie.aer-correctable", Severity::warning, {{"correctable", t.aer_correctable_above}},
          "Corrected PCIe errors",
          "The link retried transfers (bad TLPs or DLLPs, replay timeouts, receiver errors): it works, slower, and "
          "is marginal.",
          "aer-correctable");
    auto counters = make_finding("pcie.aer-counters", Severity::ok,
                                 fmt::format("PCIe AER counters of {} device(s) read", devices.size()))
                        .because("The kernel counts PCIe errors per device since boot.");
    for (const auto& device : devices) {
      for (const auto& [source, value] : device.evidence) counters.with_evidence(source, value);
    }
    for (const auto& [source, value] : links) counters.with_evidence(source, value);
    for (const auto& evidence : counters.evidence) {
      if (evidence.value.starts_with("unparsable")) counters.severity = Severity::info;
    }
    findings.push_back(std::move(counters));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::pcie_aer_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::pcie_aer_check::PcieAerCheck)
