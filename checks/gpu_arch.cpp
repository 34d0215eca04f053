// `gpu-arch`: does the installed ROCm release carry code for each GPU's gfx
// target, and is HSA_OVERRIDE_GFX_VERSION right, needed, or harmful?
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/math_libraries.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {
namespace {

constexpr std::string_view kCheckId = "gpu-arch";

constexpr std::string_view kVariable = "HSA_OVERRIDE_GFX_VERSION";

// What the installed release carries, and how we know.
struct BuiltIn {
  std::set<std::string> gfx;
  std::string release;   // "ROCm 6.0.2"
  std::string version;   // "6.0.2", empty when nothing is installed
  std::string evidence_source;
  std::string evidence;  // "rocBLAS Tensile files ..." / "official support list of ROCm 6.0"
  [[nodiscard]] bool has(const std::string& name) const { return gfx.contains(name); }
};

// A place a shell or PAM would pick the variable up from.
struct Location {
  std::string path;
  int line = 0;
  std::string text;
  bool system = false;  // needs root to edit
};

// One GPU (or --target-gfx entry) to judge, with the override that applies to it.
struct Subject {
  std::string label;
  std::string gfx;
  const Gpu* gpu = nullptr;
  std::string variable;  // the override variable that applies ("" when none)
  std::optional<std::string> value;
};

// Lines of a shell/env file that assign the override (any per-device form too).
std::vector<std::pair<int, std::string>> override_assignments(std::string_view text) {
  std::vector<std::pair<int, std::string>> found;
  int number = 0;
  for (const auto raw : lines(text)) {
    ++number;
    auto line = trim(raw);
    if (line.starts_with("export ")) line = trim(line.substr(7));
    if (!line.starts_with(kVariable)) continue;
    auto rest = line.substr(kVariable.size());
    if (rest.starts_with('_')) {
      rest.remove_prefix(1);
      while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest.remove_prefix(1);
    }
    if (trim(rest).starts_with('=')) found.emplace_back(number, std::string(trim(raw)));
  }
  return found;
}

std::string home_of(const Host& host) {
  const auto identity = host.identity();
  if (auto user = host.user_by_name(identity.user)) return user->home;
  return "";
}

std::vector<Location> override_locations(const Host& host) {
  std::vector<std::pair<std::string, bool>> files = {{"/etc/environment", true}, {"/etc/profile", true}};
  if (auto entries = host.list_dir("/etc/profile.d")) {
    for (const auto& entry : *entries) files.emplace_back("/etc/profile.d/" + entry.name, true);
  }
  if (const auto home = home_of(host); !home.empty()) {
    for (const auto* name : {".profile", ".bash_profile", ".bashrc", ".zshrc", ".zprofile"}) {
      files.emplace_back(home + "/" + name, false);
    }
  }
  std::vector<Location> found;
  for (const auto& [path, system] : files) {
    auto text = host.read_file(path);
    if (!text) continue;
    for (auto& [line, content] : override_assignments(*text)) found.push_back({path, line, content, system});
  }
  return found;
}

BuiltIn built_in(const CheckContext& ctx) {
  const auto& kb = kb::knowledge_base();
  const auto& install = ctx.fact<RocmInstallation>();
  BuiltIn result;
  if (install.active) {
    result.version = install.active->version;
    result.release = "ROCm " + (result.version.empty() ? install.active->prefix : result.version);
    const auto& libraries = ctx.fact<MathLibraries>();
    if (const auto* rocblas = libraries.find("rocBLAS"); rocblas != nullptr && !rocblas->gfx_targets().empty()) {
      result.gfx = rocblas->gfx_targets();
      result.evidence_source = rocblas->kernel_dir;
      result.evidence = "rocBLAS Tensile files for " + join({result.gfx.begin(), result.gfx.end()}, ", ");
      return result;
    }
  }
  const kb::Release* row = result.version.empty() ? &kb.newest_release() : kb.release(result.version);
  std::string note;
  if (row == nullptr) {
    const bool older = kb::version_less(result.version, kb.releases().front().release);
    row = older ? &kb.releases().front() : &kb.newest_release();
    note = fmt::format(" (closest release this doctor knows for {})", result.release);
  }
  if (result.release.empty()) {
    result.release = "ROCm " + row->release;
    note = " (no ROCm installed: judged against the newest release this doctor knows)";
  }
  for (const auto& name : row->target_names(result.version)) result.gfx.insert(name);
  result.evidence_source = "official support list of ROCm " + row->release + note;
  result.evidence = join({result.gfx.begin(), result.gfx.end()}, ", ");
  return result;
}

std::string evidence_word(const BuiltIn& built) {
  return built.evidence_source.starts_with("official") ? "its official support list" : "the installed rocBLAS files";
}

void add_locations(Finding& finding, const std::vector<Location>& locations) {
  for (const auto& location : locations) {
    finding.with_evidence(fmt::format("{}:{}", location.path, location.line), location.text);
  }
  if (locations.empty()) {
    finding.with_evidence("where it is set",
                          "not in /etc/environment, /etc/profile, /etc/profile.d/* or the user's ~/.profile, "
                          "~/.bashrc, ~/.zshrc: it comes from the launching service, container or command line");
  }
}

// Commands that comment out every line setting the variable.
std::vector<std::string> removal_commands(const std::vector<Location>& locations, bool& needs_root) {
  std::vector<std::string> commands;
  for (const auto& location : locations) {
    const auto command = "sed -i.bak " + shell_quote(fmt::format("{}s/^/# /", location.line)) + " " +
                         shell_quote(location.path);
    commands.push_back(location.system ? "sudo " + command : command);
    needs_root = needs_root || location.system;
  }
  return commands;
}

// The user's ~/.profile: its path when the passwd entry names the home
// folder, else "$HOME"/.profile for the shell to expand (a quoted '~' is not).
std::string profile_path(const Host& host) {
  const auto home = home_of(host);
  return home.empty() ? std::string("\"$HOME\"/.profile") : shell_quote(home + "/.profile");
}

Fix set_override_fix(const Host& host, const std::string& variable, const std::string& value,
                     const std::vector<Location>& locations) {
  const auto line = fmt::format("export {}={}", variable, value);
  std::vector<std::string> commands = {line};
  bool needs_root = false;
  for (auto& command : removal_commands(locations, needs_root)) commands.push_back(std::move(command));
  commands.push_back("echo " + shell_quote(line) + " >> " + profile_path(host));
  return make_fix(kCheckId, fmt::format("Set {}={} for your login (~/.profile), and now in this shell", variable, value),
                  std::move(commands), {.root = needs_root, .relogin = true});
}

Fix system_wide_fix(const std::string& variable, const std::string& value) {
  return make_fix(kCheckId, "Or, for every user of this machine, a profile.d file (not /etc/profile itself)",
                  {"echo " + shell_quote(fmt::format("export {}={}", variable, value)) +
                   " | sudo tee /etc/profile.d/rocm-gfx-override.sh"},
                  {.root = true, .relogin = true});
}

Fix remove_override_fix(const Subject& subject, const std::vector<Location>& locations) {
  std::vector<std::string> commands = {"unset " + subject.variable};
  bool needs_root = false;
  for (auto& command : removal_commands(locations, needs_root)) commands.push_back(std::move(command));
  return make_fix(kCheckId,
                  fmt::format("Remove {} (comment out the lines that set it, then start a new login)", subject.variable),
                  std::move(commands), {.root = needs_root, .relogin = !locations.empty()});
}

std::string reliability_note(const kb::Workaround& workaround) {
  if (workaround.reliability == "disputed") {
    return " This workaround is disputed: it works for some and causes GPU page faults or hangs for others. " +
           workaround.note;
  }
  if (workaround.reliability == "unreliable") {
    return " This workaround is known to be unreliable (a different ISA generation): crashes are reported. " +
           workaround.note;
  }
  return " It is an unofficial community workaround. " + workaround.note;
}

class Judge {
 public:
  Judge(const CheckContext& ctx, const BuiltIn& built, std::vector<Location> locations)
      : ctx_(ctx), built_(built), locations_(std::move(locations)) {}

  void judge(const Subject& subject, std::vector<Finding>& out) const {
    const auto* target = kb_.target(subject.gfx);
    if (subject.value) {
      judge_override(subject, target, out);
      return;
    }
    if (subject.gfx.empty() || target == nullptr) {
      out.push_back(unknown_target(subject));
    } else if (built_.has(subject.gfx)) {
      out.push_back(supported(subject, ""));
    } else if (target->workaround && built_.has(target->workaround->runs_as)) {
      out.push_back(override_needed(subject, *target));
    } else {
      out.push_back(unsupported(subject, *target));
    }
  }

 private:
  void judge_override(const Subject& subject, const kb::GfxTarget* target, std::vector<Finding>& out) const {
    const auto& value = *subject.value;
    const auto parsed = parse_override_value(value);
    if (!parsed) {
      out.push_back(invalid(subject, target,
                            value.empty() ? "is set but empty: the runtime then rejects it and hides every GPU"
                                          : fmt::format("'{}' is malformed: it must be three decimal numbers "
                                                        "major.minor.stepping (e.g. 10.3.0)", value)));
      return;
    }
    const auto named = gfx_name(*parsed);
    const auto* named_target = kb_.target(named);
    if (named_target == nullptr) {
      out.push_back(invalid(subject, target, fmt::format("'{}' names {}, which is no known GPU target", value, named)));
      return;
    }
    const bool listed_workaround = target != nullptr && target->workaround && target->workaround->runs_as == named;
    if (target != nullptr && named_target->isa_family != target->isa_family && !listed_workaround) {
      out.push_back(invalid(subject, target,
                            fmt::format("'{}' makes the {} card run {} code ({}): a different family, which "
                                        "crashes or faults",
                                        value, target->family, named, named_target->family)));
      return;
    }
    if (!subject.gfx.empty() && built_.has(subject.gfx)) {
      out.push_back(unneeded(subject));
    } else if (built_.has(named)) {
      auto finding = supported(subject, named);
      if (target != nullptr && target->workaround && target->workaround->runs_as == named &&
          target->workaround->known_unreliable()) {
        finding.severity = Severity::info;
      }
      out.push_back(std::move(finding));
    } else if (target != nullptr && target->workaround && built_.has(target->workaround->runs_as)) {
      out.push_back(override_needed(subject, *target));
    } else if (target != nullptr) {
      out.push_back(unsupported(subject, *target));
    } else {
      out.push_back(unknown_target(subject));
    }
  }

  Finding& with_release(Finding& finding) const {
    finding.with_evidence(built_.evidence_source.empty() ? "release" : built_.evidence_source, built_.evidence);
    return finding;
  }

  Finding supported(const Subject& subject, const std::string& runs_as) const {
    std::string summary = fmt::format("{} is supported by {}", subject.label, built_.release);
    std::string detail = fmt::format("{} carries code for {} (judged from {}).", built_.release,
                                     runs_as.empty() ? subject.gfx : runs_as, evidence_word(built_));
    if (!runs_as.empty()) {
      summary = fmt::format("{} runs as {} through {}={} on {}", subject.label, runs_as, subject.variable,
                            *subject.value, built_.release);
      if (const auto* target = kb_.target(subject.gfx); target != nullptr && target->workaround) {
        detail += reliability_note(*target->workaround);
      }
    }
    auto finding = make_finding("gpu.supported", Severity::ok, summary).because(detail);
    if (subject.value) finding.with_evidence("env " + subject.variable, *subject.value);
    return with_release(finding);
  }

  Finding override_needed(const Subject& subject, const kb::GfxTarget& target) const {
    const auto& workaround = *target.workaround;
    const auto variable = subject.variable.empty() ? std::string(kVariable) : subject.variable;
    auto finding =
        make_finding("gpu.override-needed", Severity::error,
                     fmt::format("{} is not built into {}; it needs {}={} to run as {}{}", subject.label,
                                 built_.release, variable, workaround.override_value, workaround.runs_as,
                                 workaround.known_unreliable() ? " (workaround known to be unreliable)" : ""))
            .because(fmt::format("{} has no code for {} (judged from {}), so HIP programs fail with "
                                 "hipErrorNoBinaryForGpu or rocBLAS cannot find a TensileLibrary for it. {} shares "
                                 "the instruction set closely enough to run {} code.{}",
                                 built_.release, subject.gfx, evidence_word(built_), subject.gfx, workaround.runs_as,
                                 reliability_note(workaround)));
    if (subject.value) {
      finding.with_evidence("env " + subject.variable, *subject.value);
      add_locations(finding, locations_);
    }
    with_release(finding);
    finding.with_fix(set_override_fix(ctx_.host(), variable, workaround.override_value,
                                      subject.value ? locations_ : std::vector<Location>{}));
    finding.with_fix(system_wide_fix(variable, workaround.override_value));
    return finding;
  }

  Finding invalid(const Subject& subject, const kb::GfxTarget* target, const std::string& why) const {
    auto finding = make_finding("gpu.override-invalid", Severity::error,
                                fmt::format("{} {} for {}", subject.variable, why, subject.label))
                       .because("The ROCm runtime reads this variable for every GPU: a malformed value makes it "
                                "fail to start (no GPU agents), and a target of another family loads code the "
                                "GPU cannot execute (memory access faults, hangs). A stale line in a shell rc "
                                "file is the usual cause.");
    finding.with_evidence("env " + subject.variable, *subject.value);
    add_locations(finding, locations_);
    if (target != nullptr && target->workaround && !built_.has(subject.gfx) && built_.has(target->workaround->runs_as)) {
      finding.with_fix(set_override_fix(ctx_.host(), subject.variable, target->workaround->override_value, locations_));
    } else {
      finding.with_fix(remove_override_fix(subject, locations_));
    }
    return finding;
  }

  Finding unneeded(const Subject& subject) const {
    auto finding = make_finding("gpu.override-unneeded", Severity::warning,
                                fmt::format("{}={} is set although {} is natively supported by {}", subject.variable,
                                            *subject.value, subject.label, built_.release))
                       .because("The override is not needed: it can hide a real architecture mismatch, makes the "
                                "runtime load another target's code, and breaks other GPUs in the box. Remove it.");
    finding.with_evidence("env " + subject.variable, *subject.value);
    add_locations(finding, locations_);
    with_release(finding);
    finding.with_fix(remove_override_fix(subject, locations_));
    return finding;
  }

  Finding unsupported(const Subject& subject, const kb::GfxTarget& target) const {
    std::string last;
    if (const auto* release = kb_.last_release_listing(subject.gfx)) {
      last = fmt::format(" The last release that officially supported it is ROCm {}.", release->release);
    } else if (target.history && !target.history->last_release.empty()) {
      last = fmt::format(" The last release known to carry code for it is ROCm {}: {}", target.history->last_release,
                         target.history->text);
    } else if (target.history) {
      last = " " + target.history->text;
    } else {
      last = " No ROCm release from " + kb_.releases().front().release + " on lists it.";
    }
    const auto* official = built_.version.empty() ? nullptr : kb_.release(built_.version);
    if (official != nullptr && official->lists(subject.gfx, built_.version) &&
        !built_.evidence_source.starts_with("official")) {
      last = fmt::format(" ROCm {} officially supports {}: this install's rocBLAS is incomplete (a trimmed image or "
                         "a partial package set); reinstall rocBLAS from that release.",
                         official->release, subject.gfx);
    }
    auto finding =
        make_finding("gpu.unsupported", Severity::error,
                     fmt::format("{} is not supported by {} and no compatible target is built in", subject.label,
                                 built_.release))
            .because(fmt::format("{} carries no code for {} ({}) or for an ISA-compatible target (judged from {}), "
                                 "so no override can help.{}",
                                 built_.release, subject.gfx, target.family, evidence_word(built_), last));
    with_release(finding);
    return finding.with_fix(make_fix(kCheckId, "Use a ROCm release (or a distribution build) that still carries code "
                                               "for " + subject.gfx + ", or a supported GPU"));
  }

  Finding unknown_target(const Subject& subject) const {
    const bool from_libraries = !built_.evidence_source.starts_with("official");
    const auto gfx = subject.gfx.empty() ? std::string("an unknown gfx target") : subject.gfx;
    if (!subject.gfx.empty() && built_.has(subject.gfx)) {
      return with_release(make_finding("gpu.supported", Severity::ok,
                                       fmt::format("{} is supported by {}", subject.label, built_.release))
                              .because("The installed libraries carry code for " + gfx + "."));
    }
    auto finding = make_finding("gpu.unsupported", from_libraries ? Severity::error : Severity::warning,
                                fmt::format("{}: {} is unknown to this doctor and not built into {}", subject.label,
                                            gfx, built_.release))
                       .because("The target is not in the knowledge base (a newer GPU, or a KFD value the doctor "
                                "cannot decode), and " + built_.release + " does not list it, judged from " +
                                evidence_word(built_) + ".");
    with_release(finding);
    return finding.with_fix(
        make_fix(kCheckId, "Check AMD's current ROCm support list for this GPU, and update rocm-doctor"));
  }

  const CheckContext& ctx_;
  const BuiltIn& built_;
  std::vector<Location> locations_;
  const kb::KnowledgeBase& kb_ = kb::knowledge_base();
};

std::string gpu_list(const std::vector<const Gpu*>& gpus) {
  std::vector<std::string> parts;
  for (const auto* gpu : gpus) parts.push_back(std::to_string(gpu->index));
  return join(parts, ",");
}

// ROCR/HIP visibility lists that already leave the integrated GPUs out.
bool hides(const Host& host, const std::vector<const Gpu*>& integrated) {
  for (const auto* name : {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
    const auto value = host.env(name);
    if (!value || value->empty()) continue;
    std::set<int> visible;
    for (const auto part : split(*value, ',')) {
      auto number = parse_uint(part);
      if (!number) return false;
      visible.insert(static_cast<int>(*number));
    }
    return std::none_of(integrated.begin(), integrated.end(), [&](const Gpu* gpu) { return visible.contains(gpu->index); });
  }
  return false;
}

std::optional<Finding> igpu_finding(const Host& host, const std::vector<const Gpu*>& gpus, const BuiltIn& built) {
  std::vector<const Gpu*> integrated;
  std::vector<const Gpu*> discrete;
  for (const auto* gpu : gpus) (gpu->apu ? integrated : discrete).push_back(gpu);
  if (integrated.empty() || discrete.empty()) return std::nullopt;
  const bool hidden = hides(host, integrated);
  std::vector<std::string> names;
  for (const auto* gpu : integrated) {
    names.push_back(gpu->label() + (built.has(gpu->gfx) ? "" : ", not built into " + built.release));
  }
  auto finding = make_finding("gpu.igpu-present", hidden ? Severity::info : Severity::warning,
                              fmt::format("Integrated GPU beside the discrete one: {}{}", join(names, "; "),
                                          hidden ? " (hidden by the visibility variables)" : ""))
                     .because("ROCm numbers every GPU KFD lists, the integrated one included; frameworks often "
                              "pick device 0 or spread work across all devices, and AMD's install guide warns the "
                              "runtime may crash with an integrated GPU present. Limit ROCm to the discrete GPU(s) "
                              "(or disable the iGPU in the firmware setup).");
  for (const auto* gpu : integrated) {
    finding.with_evidence(fmt::format("/sys/class/kfd/kfd/topology/nodes/{}/properties", gpu->node_id.value_or(-1)),
                          gpu->label() + " (integrated)");
  }
  if (!hidden) {
    const auto visible = gpu_list(discrete);
    const auto home = [&] {
      auto user = host.user_by_name(host.identity().user);
      return user ? user->home : std::string("~");
    }();
    finding.with_fix(make_fix(kCheckId, "Expose only the discrete GPU(s) to ROCm, now and for future logins",
                              {"export ROCR_VISIBLE_DEVICES=" + visible, "export HIP_VISIBLE_DEVICES=" + visible,
                               "echo " + shell_quote("export ROCR_VISIBLE_DEVICES=" + visible) + " >> " +
                                   shell_quote(home + "/.profile")},
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
            .because("Memory already taken by other processes (a desktop session, a leftover job) is not available "
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
  auto finding = make_finding("gpu.override-multi-gpu", Severity::warning,
                              fmt::format("One global {}={} applies to GPUs of {} different families", kVariable,
                                          *global, by_family.size()))
                     .because(fmt::format(
                         "A single override makes every GPU report the same target, so at least one of them runs "
                         "code for the wrong family. {}",
                         per_device
                             ? fmt::format("{} supports the per-device form {}_<node>, where <node> is the KFD "
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
  auto finding =
      make_finding("gpu.none-visible", Severity::error,
                   "amdgpu is loaded but the KFD topology lists no GPU: ROCm sees no device")
          .because("KFD skips GPUs it cannot drive for compute: most often the platform lacks PCIe atomics "
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
    const auto fix = make_fix(kCheckId,
                              "Compare with the live file; on a live machine a corrupt topology means a driver "
                              "problem (look in the kernel log), in a snapshot a damaged capture (capture it again)",
                              {"cat " + shell_quote(problem.source), "sudo dmesg | grep -iE 'kfd|amdgpu'"},
                              FixNeeds{.root = true});
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
    return {"gpu.none-visible",      "gpu.supported",       "gpu.override-needed",
            "gpu.override-invalid",  "gpu.override-unneeded", "gpu.override-multi-gpu",
            "gpu.unsupported",       "gpu.igpu-present",    "gpu.vram-in-use",
            "gpu.kfd-mismatch",      "gpu.kfd-properties-invalid"};
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
      auto findings = kfd_problem_findings(inventory);
      if (inventory.amdgpu_loaded && inventory.kfd_present && !inventory.pci_gpus().empty()) {
        findings.push_back(none_visible(inventory));
      }
      if (!findings.empty()) return findings;
      return CheckOutcome::skipped("no AMD GPU is visible to ROCm (see the driver check)");
    }
    const auto built = built_in(ctx);
    const auto locations = override_locations(ctx.host());
    const Judge judge(ctx, built, locations);
    std::vector<Finding> findings = kfd_problem_findings(inventory);
    for (auto& finding : mismatch_findings(inventory)) findings.push_back(std::move(finding));
    if (use_targets) {
      for (const auto& subject : target_subjects(ctx.host(), targets)) judge.judge(subject, findings);
      return findings;
    }
    // An integrated GPU beside a discrete one is better hidden than made to work: igpu-present covers it.
    const bool has_discrete = std::any_of(gpus.begin(), gpus.end(), [](const Gpu* gpu) { return !gpu->apu; });
    std::vector<const Gpu*> judged;
    for (const auto* gpu : gpus) {
      if (!(has_discrete && gpu->apu)) judged.push_back(gpu);
    }
    for (const auto& subject : gpu_subjects(ctx.host(), judged)) judge.judge(subject, findings);
    if (auto finding = multi_gpu_finding(ctx, gpus, built, locations)) findings.push_back(std::move(*finding));
    if (auto finding = igpu_finding(ctx.host(), gpus, built)) findings.push_back(std::move(*finding));
    for (auto& finding : vram_findings(gpus)) findings.push_back(std::move(finding));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::GpuArchCheck)
