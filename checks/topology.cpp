// `topology`: how the GPUs hang together. PCIe links running below what card and slot can do,
// the IOMMU mode on multi-GPU machines, NUMA placement, XGMI hives and peer links, RCCL, and
// whether the whole VRAM is CPU-visible (large BAR).
#include "topology.h"

#include <fmt/format.h>

#include <algorithm>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kernel_cmdline_fix.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::topology {
namespace {

constexpr std::uint64_t kMiB = 1024ULL * 1024;

std::string speed_text(std::optional<double> speed) {
  if (!speed) return "?";
  const auto key = fmt::format("{:.1f}", *speed);
  const auto it = topology_data().generations.find(key);
  return it == topology_data().generations.end() ? key + " GT/s" : fmt::format("{} GT/s ({})", key, it->second);
}

std::string width_text(std::optional<unsigned> width) {
  return width ? fmt::format("x{}", *width) : "x?";
}

std::string device_path(const Host& host, const std::string& bdf) {
  std::string link = "/sys/bus/pci/devices/" + bdf;
  if (auto target = host.read_link(link)) return resolve_link("/sys/bus/pci/devices", *target);
  return link;
}

std::string gib_text(std::uint64_t bytes) {
  if (bytes >= 1024 * kMiB) return fmt::format("{:.0f} GiB", static_cast<double>(bytes) / (1024.0 * kMiB));
  return fmt::format("{} MiB", bytes / kMiB);
}

// The discrete GPUs multi-GPU findings talk about (an iGPU beside them is not a peer).
std::vector<const Gpu*> discrete(const std::vector<const Gpu*>& gpus) {
  std::vector<const Gpu*> result;
  std::copy_if(gpus.begin(), gpus.end(), std::back_inserter(result),
               [](const Gpu* gpu) { return !gpu->hideable_igpu(); });
  return result;
}

std::optional<Finding> link_finding(const Host& host, const Gpu& gpu) {
  if (gpu.bdf.empty()) return std::nullopt;
  const auto path = device_path(host, gpu.bdf);
  const auto read = [&](const std::string& file) { return host.read_trimmed(file).value_or(""); };
  LinkState link;
  link.speed = parse_link_speed(read(path + "/current_link_speed"));
  link.max_speed = parse_link_speed(read(path + "/max_link_speed"));
  link.width = parse_link_width(read(path + "/current_link_width"));
  link.max_width = parse_link_width(read(path + "/max_link_width"));
  const auto parent = parent_path(path);
  const bool parent_is_port =
      link_basename(parent).find(':') != std::string_view::npos && !link_basename(parent).starts_with("pci");
  if (parent_is_port) {
    link.upstream_max_speed = parse_link_speed(read(parent + "/max_link_speed"));
    link.upstream_max_width = parse_link_width(read(parent + "/max_link_width"));
  }
  const auto verdict = judge_link(link, topology_data().idle_speed);
  if (!verdict.width_degraded && !verdict.speed_degraded) return std::nullopt;
  const bool only_idle_speed = !verdict.width_degraded && verdict.speed_maybe_idle;
  std::vector<std::string> what;
  if (verdict.width_degraded) {
    what.push_back(fmt::format("width {} of {}", width_text(link.width), width_text(link.max_width)));
  }
  if (verdict.speed_degraded) {
    what.push_back(fmt::format("speed {} of {}", speed_text(link.speed), speed_text(link.max_speed)));
  }
  std::string detail =
      verdict.width_degraded
          ? "The link trained with fewer lanes than both the card and the port above it support: the card sits in a "
            "slot wired with fewer lanes (lane sharing with M.2 or a second x16 slot), on a riser, or is not seated "
            "well. Host-device copies and PCIe peer traffic run at a fraction of the bandwidth. The width does not "
            "change with load, so this is real."
          : "";
  if (verdict.speed_degraded) {
    if (!detail.empty()) detail += " ";
    detail += verdict.speed_maybe_idle
                  ? "The speed is the lowest PCIe speed, which many cards drop to when idle to save power: run it "
                    "again while the GPU is busy before acting on the speed."
                  : "The speed is below what card and port support and is not the idle speed: a riser or extension "
                    "cable, a BIOS setting forcing a lower generation, or signal problems made the link train lower.";
  }
  auto finding = make_finding("pcie.link-degraded", only_idle_speed ? Severity::info : Severity::warning,
                              fmt::format("{} ({}) runs its PCIe link at {}", gpu.label(), gpu.bdf, join(what, ", ")))
                     .because(detail)
                     .with_evidence(path + "/current_link_width", width_text(link.width))
                     .with_evidence(path + "/max_link_width", width_text(link.max_width))
                     .with_evidence(path + "/current_link_speed", speed_text(link.speed))
                     .with_evidence(path + "/max_link_speed", speed_text(link.max_speed));
  if (parent_is_port) {
    finding.with_evidence(parent + "/max_link_width", width_text(link.upstream_max_width))
        .with_evidence(parent + "/max_link_speed", speed_text(link.upstream_max_speed));
  }
  return finding.with_fix(make_fix(
      kCheckId,
      verdict.width_degraded
          ? "Move the card to a slot wired x16 to the CPU (the board manual lists which slots share lanes), "
            "remove risers, reseat it; then compare LnkCap and LnkSta:"
          : "Check the link under load, and the BIOS PCIe speed setting and any riser if it stays low:",
      {shell_command({"sudo", "lspci", "-vv", "-s", gpu.bdf}) + " | grep -E 'LnkCap|LnkSta'"}, FixNeeds{.root = true}));
}

std::optional<Finding> iommu_finding(const CheckContext& ctx, const std::vector<const Gpu*>& gpus) {
  const auto& host = ctx.host();
  const auto units = host.list_dir("/sys/class/iommu");
  std::vector<std::string> names;
  if (units) {
    for (const auto& entry : *units) names.push_back(entry.name);
  }
  const auto cmdline = host.read_trimmed("/proc/cmdline").value_or("");
  const auto arg = cmdline_iommu_arg(cmdline, topology_data().passthrough_args);
  std::vector<Evidence> evidence;
  IommuMode mode = IommuMode::unknown;
  for (const auto* gpu : gpus) {
    const auto path = "/sys/bus/pci/devices/" + gpu->bdf + "/iommu_group/type";
    if (auto type = host.read_trimmed(path)) {
      evidence.push_back({path, *type});
      const auto gpu_mode = iommu_mode_from_group_type(*type);
      if (gpu_mode == IommuMode::translated) mode = IommuMode::translated;
      if (gpu_mode == IommuMode::passthrough && mode == IommuMode::unknown) mode = IommuMode::passthrough;
    }
  }
  if (mode == IommuMode::unknown) {
    if (names.empty()) return std::nullopt;  // no IOMMU unit registered: nothing to translate
    if (arg) return std::nullopt;            // iommu=pt or the IOMMU switched off on the command line
    mode = IommuMode::translated;            // enabled, default domain: translated
  }
  if (mode != IommuMode::translated) return std::nullopt;
  const auto& facts = ctx.fact<SystemFacts>();
  auto finding =
      make_finding("iommu.not-passthrough", Severity::warning,
                   fmt::format("The IOMMU translates DMA for {} GPUs (not in passthrough mode)", gpus.size()))
          .because(
              "With the IOMMU in translated mode every GPU-to-GPU and GPU-to-host transfer goes through address "
              "translation: the known cause of multi-GPU hangs (RCCL all-reduce stalls, IO_PAGE_FAULT in the "
              "kernel log) and slow peer copies. ROCm's system requirements: multi-GPU systems may need "
              "iommu=pt on the kernel command line.")
          .with_evidence("/proc/cmdline", cmdline)
          .with_evidence("/sys/class/iommu", names.empty() ? "empty" : join(names, ", "));
  for (auto& item : evidence) finding.evidence.push_back(std::move(item));
  if (const auto grub = host.read_file("/etc/default/grub")) {
    if (const auto current = grub_variable(*grub, "GRUB_CMDLINE_LINUX_DEFAULT")) {
      finding.with_evidence("/etc/default/grub", "GRUB_CMDLINE_LINUX_DEFAULT=\"" + *current + "\"");
    }
  }
  return finding.with_fix(
      kernel_cmdline_fix(kCheckId, host, facts, "Add iommu=pt to the kernel command line", {"iommu=pt"}, {}));
}

std::optional<Finding> numa_finding(const Host& host, const std::vector<const Gpu*>& gpus) {
  std::vector<std::string> rows;
  std::vector<Evidence> evidence;
  for (const auto* gpu : gpus) {
    if (!gpu->numa_node || *gpu->numa_node < 0) continue;
    const auto cpulist_path = fmt::format("/sys/devices/system/node/node{}/cpulist", *gpu->numa_node);
    const auto cpus = host.read_trimmed(cpulist_path).value_or("");
    rows.push_back(
        fmt::format("GPU {} -> node {}{}", gpu->index, *gpu->numa_node, cpus.empty() ? "" : " (CPUs " + cpus + ")"));
    evidence.push_back({"/sys/bus/pci/devices/" + gpu->bdf + "/numa_node", std::to_string(*gpu->numa_node)});
    if (!cpus.empty()) evidence.push_back({cpulist_path, cpus});
  }
  if (rows.empty()) return std::nullopt;
  auto finding = make_finding("topology.numa", Severity::info, "GPU NUMA placement: " + join(rows, "; "))
                     .because(
                         "A process feeding a GPU from CPUs and memory of another NUMA node crosses the socket "
                         "interconnect: bind each rank to its GPU's node (numactl --cpunodebind=N --membind=N).");
  finding.evidence = std::move(evidence);
  return finding;
}

std::optional<Finding> large_bar_finding(const Host& host, const std::vector<const Gpu*>& gpus, bool multi) {
  std::vector<std::string> small;
  std::vector<Evidence> evidence;
  std::size_t readable = 0;
  for (const auto* gpu : gpus) {
    if (gpu->apu || gpu->bdf.empty()) continue;
    const auto base = "/sys/bus/pci/devices/" + gpu->bdf;
    auto total = gpu->vram_total;
    if (!total) {
      if (auto text = host.read_trimmed(base + "/mem_info_vram_total")) total = parse_uint(*text);
    }
    if (!total || *total == 0) continue;
    std::optional<std::uint64_t> visible;
    std::string source;
    if (auto text = host.read_trimmed(base + "/mem_info_vis_vram_total")) {
      visible = parse_uint(*text);
      source = base + "/mem_info_vis_vram_total";
    }
    if (!visible) {
      if (auto text = host.read_file(base + "/resource")) {
        visible = parse_bar0_size(*text);
        source = base + "/resource (BAR 0)";
      }
    }
    if (!visible) continue;
    ++readable;
    evidence.push_back({source, fmt::format("{} of {} VRAM", gib_text(*visible), gib_text(*total))});
    if (*visible < *total)
      small.push_back(fmt::format("{}: {} of {}", gpu->label(), gib_text(*visible), gib_text(*total)));
  }
  if (readable == 0) return std::nullopt;
  if (small.empty()) {
    auto finding = make_finding("topology.large-bar", Severity::info, "The whole VRAM is CPU-visible (large BAR)")
                       .because(
                           "Resizable BAR (large BAR) lets the CPU and peer GPUs address all of VRAM directly, "
                           "which PCIe peer-to-peer transfers need.");
    finding.evidence = std::move(evidence);
    return finding;
  }
  auto finding =
      make_finding("topology.large-bar", multi ? Severity::warning : Severity::info,
                   "Only part of VRAM is CPU-visible (no large BAR): " + join(small, "; "))
          .because(std::string("With a small BAR (usually 256 MiB) the CPU reaches VRAM through a window; ") +
                   (multi ? "PCIe peer-to-peer between GPUs needs the whole VRAM visible, so RCCL falls back to "
                            "copies through host memory (or hangs with P2P forced on)."
                          : "single-GPU work runs, with slower host-device transfers of some kinds."));
  finding.evidence = std::move(evidence);
  return finding.with_fix(make_fix(kCheckId,
                                   "Enable 'Above 4G Decoding' and 'Re-Size BAR Support' in the firmware (BIOS/UEFI) "
                                   "setup, then boot again (CSM must be off for resizable BAR)",
                                   {}, FixNeeds{.reboot = true}));
}

class TopologyCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Multi-GPU topology"; }
  int order() const override { return 62; }
  std::vector<std::string_view> finding_ids() const override {
    return {"pcie.link-degraded", "iommu.not-passthrough", "topology.numa",     "topology.xgmi",
            "topology.p2p",       "rccl.missing",          "topology.large-bar"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode) return CheckOutcome::skipped("--image: no GPU is expected in an image build");
    if (ctx.fact<SystemFacts>().wsl) return CheckOutcome::skipped("WSL: the PCIe topology is hidden behind /dev/dxg");
    const auto& host = ctx.host();
    const auto& inventory = ctx.fact<GpuInventory>();
    const auto pci = inventory.pci_gpus();
    if (pci.empty() && inventory.kfd_gpus().empty()) return CheckOutcome::skipped("no AMD GPU found");
    const auto kfd = discrete(inventory.kfd_gpus());
    const auto cards = discrete(pci);
    const auto peers = kfd.size() >= cards.size() ? kfd : cards;
    const bool multi = peers.size() > 1;
    std::vector<Finding> findings;
    for (const auto* gpu : pci) {
      if (auto finding = link_finding(host, *gpu)) findings.push_back(std::move(*finding));
    }
    if (multi) {
      if (auto finding = iommu_finding(ctx, peers)) findings.push_back(std::move(*finding));
    }
    if (auto finding = numa_finding(host, kfd.empty() ? cards : kfd)) findings.push_back(std::move(*finding));
    if (auto finding = xgmi_finding(kfd)) findings.push_back(std::move(*finding));
    if (auto finding = p2p_finding(host, kfd)) findings.push_back(std::move(*finding));
    if (multi) {
      if (auto finding = rccl_finding(ctx, peers.size())) findings.push_back(std::move(*finding));
    }
    if (auto finding = large_bar_finding(host, cards, multi)) findings.push_back(std::move(*finding));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::topology

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::topology::TopologyCheck)
