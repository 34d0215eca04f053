// `gpu-arch`: does the installed ROCm release carry code for each GPU's gfx
// target, and is HSA_OVERRIDE_GFX_VERSION right, needed, or harmful?
#include "gpu_arch.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "env_variables_table.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::gpu_arch_check {
namespace {

using gpu_arch::add_locations;
using gpu_arch::built_in;
using gpu_arch::BuiltIn;
using gpu_arch::judge_subjects;
using gpu_arch::kCheckId;
using gpu_arch::kVariable;
using gpu_arch::Location;
using gpu_arch::override_locations;
using gpu_arch::removal_commands;
using gpu_arch::Subject;

std::string gpu_list(const std::vector<const Gpu*>& gpus) {
  std::vector<std::string> parts;
  for (const auto* gpu : gpus) parts.push_back(std::to_string(gpu->index));
  return join(parts, ",");
}

// ROCR/HIP visibility lists that already leave the integrated GPUs out.
bool hides(const Host& host, const std::vector<const Gpu*>& integrated) {
  for (const auto& name : env_lint::env_variables_table().visibility_variables) {
    const auto value = host.env(name);
    if (!value || value->empty()) continue;
    std::set<int> visible;
    for (const auto part : split(*value, ',')) {
      auto number = parse_uint(part);
      if (!number) return false;
      visible.insert(static_cast<int>(*number));
    }
    return std::none_of(integrated.begin(), integrated.end(),
                        [&](const Gpu* gpu) { return visible.contains(gpu->index); });
  }
  return false;
}

std::optional<Finding> igpu_finding(const Host& host, const std::vector<const Gpu*>& gpus, const BuiltIn& built) {
  std::vector<const Gpu*> integrated;
  std::vector<const Gpu*> discrete;
  for (const auto* gpu : gpus) (gpu->hideable_igpu() ? integrated : discrete).push_back(gpu);
  if (integrated.empty() || discrete.empty()) return std::nullopt;
  const bool hidden = hides(host, integrated);
  std::vector<std::string> names;
  for (const auto* gpu : integrated) {
    names.push_back(gpu->label() + (built.has(gpu->gfx) ? "" : ", not built into " + built.release));
  }
  auto finding = make_finding("gpu.igpu-present", hidden ? Severity::info : Severity::warning,
                              fmt::format("Integrated GPU beside the discrete one: {}{}", join(names, "; "),
                                          hidden ? " (hidden by the visibility variables)" : ""))
                     .because(
                         "ROCm numbers every GPU KFD lists, the integrated one included; frameworks often "
                         "pick device 0 or spread work across all devices, and AMD's install guide warns the "
                         "runtime may crash with an integrated GPU present. Limit ROCm to the discrete GPU(s) "
                         "(or disable the iGPU in the firmware setup).");
  for (const auto* gpu : integrated) {
    finding.with_evidence(fmt::format("/sys/class/kfd/kfd/topology/nodes/{}/properties", gpu->node_id.value_or(-1)),
                          gpu->label() + " (integrated)");
  }
  if (!hidden) {
    const auto visible = gpu_list(discrete);
    finding.with_fix(make_fix(
        kCheckId, "Expose only the discrete GPU(s) to ROCm, now and for future logins",
        {"export ROCR_VISIBLE_DEVICES=" + visible, "export HIP_VISIBLE_DEVICES=" + visible,
         "echo " + shell_quote("export ROCR_VISIBLE_DEVICES=" + visible) + " >> " + gpu_arch::profile_path(host)},
        FixNeeds{.relogin = true}));
  }
  return finding;
}

std::vector<Finding> vram_findings(const std::vector<const Gpu*>& gpus) {
  std::vector<Finding> findings;
  constexpr std::uint64_t kGiB = 1024ULL * 1024 * 1024;
  for (const auto* gpu : gpus) {
    if (gpu->apu || !gpu->vram_total || !gpu->vram_used || *gpu->vram_total < kGiB) continue;
    const double share = static_cast<double>(*gpu->vram_used) / static_cast<double>(*gpu->vram_total);
    if (share < 0.25) continue;
    auto finding =
        make_finding("gpu.vram-in-use", share >= 0.5 ? Severity::warning : Severity::info,
                     fmt::format("{}: {:.1f} of {:.1f} GiB VRAM already in use ({:.0f}%)", gpu->label(),
                                 static_cast<double>(*gpu->vram_used) / kGiB,
                                 static_cast<double>(*gpu->vram_total) / kGiB, share * 100))
            .because(
                "Memory already taken by other processes (a desktop session, a leftover job) is not available "
                "to your workload: expect out-of-memory errors earlier than the card's size suggests.")
            .with_evidence("/sys/class/drm/" + gpu->card + "/device/mem_info_vram_used",
                           std::to_string(*gpu->vram_used));
    if (share >= 0.5) {
      finding.with_fix(make_fix(kCheckId, "See which processes hold GPU memory and stop the ones you do not need",
                                {"rocm-smi --showpids", "rocm-smi --showmeminfo vram"}));
    }
    findings.push_back(std::move(finding));
  }
  return findings;
}

std::optional<Finding> multi_gpu_finding(const CheckContext& ctx, const std::vector<const Gpu*>& gpus,
                                         const BuiltIn& built, const std::vector<Location>& locations) {
  const auto global = ctx.host().env(kVariable);
  if (!global) return std::nullopt;
  std::map<std::string, std::vector<const Gpu*>> by_family;
  for (const auto* gpu : gpus) {
    if (gpu->node_id && ctx.host().env(fmt::format("{}_{}", kVariable, *gpu->node_id))) continue;
    const auto* target = kb::knowledge_base().target(gpu->gfx);
    by_family[target ? target->isa_family : "unknown:" + gpu->gfx].push_back(gpu);
  }
  if (by_family.size() < 2) return std::nullopt;
  const auto& kb = kb::knowledge_base();
  const bool per_device = kb.has_per_device_override(built.version);
  auto finding =
      make_finding("gpu.override-multi-gpu", Severity::warning,
                   fmt::format("One global {}={} applies to GPUs of {} different families", kVariable, *global,
                               by_family.size()))
          .because(fmt::format(
              "A single override makes every GPU report the same target, so at least one of them runs "
              "code for the wrong family. {}",
              per_device ? fmt::format("{} supports the per-device form {}_<node>, where <node> is the KFD "
                                       "topology node number (CPU nodes come first; from ROCm {} on, {}).",
                                       built.release, kVariable, kb.per_device_override().since,
                                       kb.per_device_override().inferred ? "inferred from the libhsakmt commit date"
                                                                         : "per the release notes")
                         : fmt::format("{} predates the per-device form {}_<node> (ROCm {} on): hide the GPUs "
                                       "that must not be overridden with ROCR_VISIBLE_DEVICES instead.",
                                       built.release, kVariable, kb.per_device_override().since)));
  for (const auto* gpu : gpus) {
    finding.with_evidence(fmt::format("/sys/class/kfd/kfd/topology/nodes/{}/properties", gpu->node_id.value_or(-1)),
                          gpu->label());
  }
  add_locations(finding, locations);
  if (per_device) {
    bool needs_root = false;
    std::vector<std::string> commands{std::string("unset ") + std::string(kVariable)};
    for (auto& command : removal_commands(locations, needs_root)) commands.push_back(std::move(command));
    for (const auto* gpu : gpus) {
      const auto* target = kb.target(gpu->gfx);
      if (target == nullptr || built.has(gpu->gfx) || !target->workaround || !gpu->node_id) continue;
      commands.push_back(fmt::format("export {}_{}={}", kVariable, *gpu->node_id, target->workaround->override_value));
    }
    finding.with_fix(make_fix(kCheckId,
                              "Replace the global override with one per GPU that needs it (node numbers from KFD)",
                              std::move(commands), FixNeeds{.root = needs_root, .relogin = !locations.empty()}));
  }
  return finding;
}

Finding none_visible(const GpuInventory& inventory) {
  std::vector<std::string> names;
  for (const auto* gpu : inventory.pci_gpus()) names.push_back(gpu->name + " at " + gpu->bdf);
  auto finding = make_finding("gpu.none-visible", Severity::error,
                              "amdgpu is loaded but the KFD topology lists no GPU: ROCm sees no device")
                     .because(
                         "KFD skips GPUs it cannot drive for compute: most often the platform lacks PCIe atomics "
                         "(dmesg: 'PCI rejects atomics'), the GPU is too old or too new for this kernel's KFD, or the "
                         "driver failed to initialise it. Every ROCm program will report no devices.")
                     .with_evidence("/sys/class/kfd/kfd/topology/nodes",
                                    fmt::format("{} node(s), none with SIMDs", inventory.kfd_node_count))
                     .with_evidence("/sys/bus/pci/devices", join(names, "; "));
  return finding.with_fix(make_fix(kCheckId, "Read why KFD skipped the GPU in the kernel log",
                                   {"sudo dmesg | grep -iE 'kfd|amdgpu.*(atomic|error|fail)'"},
                                   FixNeeds{.root = true}));
}

std::vector<Finding> mismatch_findings(const GpuInventory& inventory) {
  std::vector<Finding> findings;
  for (const auto& issue : inventory.issues) {
    const auto fix = make_fix(kCheckId,
                              "Look for the reason in the kernel log (PCIe atomics, firmware, a GPU passed through "
                              "to a VM)",
                              {"sudo dmesg | grep -iE 'kfd|amdgpu'"}, FixNeeds{.root = true});
    findings.push_back(make_finding("gpu.kfd-mismatch", Severity::warning, issue.summary)
                           .because("KFD (what ROCm uses) and the PCI/DRM view of the kernel disagree: the GPU "
                                    "missing from KFD cannot run ROCm work, and device indices shift.")
                           .with_evidence(issue.source, issue.value)
                           .with_fix(fix));
  }
  return findings;
}

// KFD node properties the inventory could not use: said, never silently dropped.
std::vector<Finding> kfd_problem_findings(const GpuInventory& inventory) {
  std::vector<Finding> findings;
  for (const auto& problem : inventory.kfd_problems) {
    const auto fix =
        make_fix(kCheckId,
                 "Compare with the live file; on a live machine a corrupt topology means a driver "
                 "problem (look in the kernel log), in a snapshot a damaged capture (capture it again)",
                 {"cat " + shell_quote(problem.source), "sudo dmesg | grep -iE 'kfd|amdgpu'"}, FixNeeds{.root = true});
    findings.push_back(make_finding("gpu.kfd-properties-invalid", Severity::warning, problem.summary)
                           .because("KFD writes each node's properties as \"name number\" lines of about 1.5 KiB. "
                                    "This one is unreadable, too large or holds values KFD never writes, so the "
                                    "doctor cannot tell what GPU the node is; ROCm's own parser may fail on it too.")
                           .with_evidence(problem.source, problem.value)
                           .with_fix(fix));
  }
  return findings;
}

// Groups GPUs with the same target and override so an 8-GPU node gets one line.
std::vector<Subject> gpu_subjects(const Host& host, const std::vector<const Gpu*>& gpus) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const Gpu*>> groups;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  for (const auto* gpu : gpus) {
    std::string variable;
    std::string value = "\x01";
    if (gpu->node_id) {
      const auto own = fmt::format("{}_{}", kVariable, *gpu->node_id);
      if (auto set = host.env(own)) variable = own, value = *set;
    }
    if (variable.empty()) {
      if (auto set = host.env(kVariable)) variable = std::string(kVariable), value = *set;
    }
    const auto key = std::make_tuple(gpu->gfx + "|" + gpu->name, variable, value);
    if (!groups.contains(key)) order.push_back(key);
    groups[key].push_back(gpu);
  }
  std::vector<Subject> subjects;
  for (const auto& key : order) {
    const auto& members = groups[key];
    Subject subject;
    subject.gpu = members.front();
    subject.gfx = members.front()->gfx;
    subject.label = members.size() == 1 ? members.front()->label()
                                        : fmt::format("GPUs {} ({}x {}, {})", gpu_list(members), members.size(),
                                                      members.front()->name, subject.gfx);
    subject.variable = std::get<1>(key);
    if (!subject.variable.empty()) subject.value = std::get<2>(key);
    subjects.push_back(std::move(subject));
  }
  return subjects;
}

std::vector<Subject> target_subjects(const Host& host, const std::vector<std::string>& targets) {
  std::vector<Subject> subjects;
  for (const auto& gfx : targets) {
    Subject subject;
    subject.gfx = gfx;
    subject.label = "Target " + gfx + " (--target-gfx)";
    if (auto value = host.env(kVariable)) subject.variable = std::string(kVariable), subject.value = *value;
    subjects.push_back(std::move(subject));
  }
  return subjects;
}

class GpuArchCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "GPU architecture support"; }
  int order() const override { return 50; }
  std::vector<std::string_view> finding_ids() const override {
    return {"gpu.none-visible",
            "gpu.supported",
            "gpu.override-needed",
            "gpu.override-invalid",
            "gpu.override-unneeded",
            "gpu.override-multi-gpu",
            "gpu.unsupported",
            "gpu.igpu-present",
            "gpu.vram-in-use",
            "gpu.kfd-mismatch",
            "gpu.kfd-properties-invalid",
            "gpu.partition-count-mismatch",
            "gpu.partition-mode-mixed",
            "gpu.support-unknown"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& inventory = ctx.fact<GpuInventory>();
    const auto gpus = inventory.kfd_gpus();
    const auto& targets = ctx.options().target_gfx;
    const bool use_targets = ctx.options().image_mode || (gpus.empty() && !targets.empty());
    if (use_targets && targets.empty()) {
      return CheckOutcome::skipped("no GPU while building an image: pass --target-gfx to judge the image's targets");
    }
    if (!use_targets && gpus.empty()) {
      const auto pci = inventory.pci_gpus();
      if (!pci.empty() && std::all_of(pci.begin(), pci.end(), [](const Gpu* gpu) { return gpu->closed; })) {
        return CheckOutcome::skipped(fmt::format(
            "this process may use none of the machine's {} GPU(s): its device cgroup closes them (the job check)",
            pci.size()));
      }
      auto findings = kfd_problem_findings(inventory);
      if (inventory.amdgpu_loaded && inventory.kfd_present && !inventory.pci_gpus().empty()) {
        findings.push_back(none_visible(inventory));
      }
      if (!findings.empty()) return findings;
      return CheckOutcome::skipped("no AMD GPU is visible to ROCm (see the driver check)");
    }
    const auto built = built_in(ctx);
    const auto locations = override_locations(ctx.host());
    std::vector<Finding> findings = kfd_problem_findings(inventory);
    for (auto& finding : mismatch_findings(inventory)) findings.push_back(std::move(finding));
    for (auto& finding : gpu_arch::partition_findings(inventory)) findings.push_back(std::move(finding));
    if (use_targets) {
      judge_subjects(ctx, built, locations, target_subjects(ctx.host(), targets), findings);
      return findings;
    }
    // An integrated GPU beside a discrete one is better hidden than made to work: igpu-present covers it.
    // MI300A is integrated too, but it is the node's GPU (unified HBM), never one to hide.
    const bool has_discrete = std::any_of(gpus.begin(), gpus.end(), [](const Gpu* gpu) { return !gpu->apu; });
    std::vector<const Gpu*> judged;
    for (const auto* gpu : gpus) {
      if (!(has_discrete && gpu->hideable_igpu())) judged.push_back(gpu);
    }
    judge_subjects(ctx, built, locations, gpu_subjects(ctx.host(), judged), findings);
    if (auto finding = multi_gpu_finding(ctx, gpus, built, locations)) findings.push_back(std::move(*finding));
    if (auto finding = igpu_finding(ctx.host(), gpus, built)) findings.push_back(std::move(*finding));
    for (auto& finding : vram_findings(gpus)) findings.push_back(std::move(finding));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::gpu_arch_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::gpu_arch_check::GpuArchCheck)
