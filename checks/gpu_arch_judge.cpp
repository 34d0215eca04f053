// The judgement of the `gpu-arch` check (gpu_arch.h): does the installed release
// carry code for a GPU's gfx target, and is the override it runs with right,
// needed or harmful. One finding per subject, no Host reads beyond the profile path.
#include <fmt/format.h>

#include "gpu_arch.h"
#include "rocm_doctor/kb.h"

namespace rocm_doctor::gpu_arch {
namespace {

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

  Finding judge(const Subject& subject) const {
    const auto* target = kb_.target(subject.gfx);
    if (subject.value) return judge_override(subject, target);
    if (subject.gfx.empty() || target == nullptr) return unknown_target(subject);
    if (built_.has(subject.gfx)) return supported(subject, "");
    if (built_.unknown_newer) return support_unknown(subject);
    if (usable_workaround(target) && built_.has(target->workaround->runs_as)) return override_needed(subject, *target);
    return unsupported(subject, *target);
  }

 private:
  // A workaround that stays inside the GPU's ISA generation (isa_family in gfx_targets.json).
  // One across generations (RDNA1 gfx101x run as RDNA2 gfx1030) is never advised: the code
  // objects use instructions the GPU lacks, and crashes are reported.
  const kb::Workaround* usable_workaround(const kb::GfxTarget* target) const {
    if (target == nullptr || !target->workaround) return nullptr;
    const auto* runs_as = kb_.target(target->workaround->runs_as);
    if (runs_as == nullptr || runs_as->isa_family != target->isa_family) return nullptr;
    return &*target->workaround;
  }

  // An override the runtime cannot use for this GPU is invalid; otherwise judge_usable_override.
  Finding judge_override(const Subject& subject, const kb::GfxTarget* target) const {
    const auto& value = *subject.value;
    const auto parsed = parse_override_value(value);
    if (!parsed) {
      return invalid(subject, target,
                     value.empty() ? "is set but empty: the runtime then rejects it and hides every GPU"
                                   : fmt::format("'{}' is malformed: it must be three decimal numbers "
                                                 "major.minor.stepping (e.g. 10.3.0)",
                                                 value));
    }
    const auto named = gfx_name(*parsed);
    const auto* named_target = kb_.target(named);
    if (named_target == nullptr) {
      return invalid(subject, target, fmt::format("'{}' names {}, which is no known GPU target", value, named));
    }
    if (target != nullptr && named_target->isa_family != target->isa_family) {
      // A community attempt across generations (listed with its crash reports) is a warning;
      // any other target of another family is an error.
      const bool community_attempt = target->workaround && target->workaround->runs_as == named;
      auto finding = invalid(subject, target,
                             fmt::format("'{}' makes the {} card ({}, ISA generation {}) run {} code ({}, ISA "
                                         "generation {}): a different ISA generation, which crashes or faults",
                                         value, target->family, subject.gfx, target->isa_family, named,
                                         named_target->family, named_target->isa_family));
      if (community_attempt) {
        finding.severity = Severity::warning;
        finding.detail += " " + target->workaround->note;
        for (const auto& source : target->workaround->sources) finding.with_evidence("reports", source);
      }
      return finding;
    }
    return judge_usable_override(subject, target, named);
  }

  // The override names a target this GPU can run (`named`): is it needed, and does the release carry it?
  Finding judge_usable_override(const Subject& subject, const kb::GfxTarget* target, const std::string& named) const {
    if (!subject.gfx.empty() && built_.has(subject.gfx)) return unneeded(subject);
    if (built_.has(named)) {
      auto finding = supported(subject, named);
      if (target != nullptr && target->workaround && target->workaround->runs_as == named &&
          target->workaround->known_unreliable()) {
        finding.severity = Severity::info;
      }
      return finding;
    }
    if (usable_workaround(target) && built_.has(target->workaround->runs_as)) return override_needed(subject, *target);
    if (built_.unknown_newer) return support_unknown(subject);
    if (target != nullptr) return unsupported(subject, *target);
    return unknown_target(subject);
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
                       .because(
                           "The ROCm runtime reads this variable for every GPU: a malformed value makes it "
                           "fail to start (no GPU agents), and a target of another family loads code the "
                           "GPU cannot execute (memory access faults, hangs). A stale line in a shell rc "
                           "file is the usual cause.");
    finding.with_evidence("env " + subject.variable, *subject.value);
    add_locations(finding, locations_);
    if (usable_workaround(target) && !built_.has(subject.gfx) && built_.has(target->workaround->runs_as)) {
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
                       .because(
                           "The override is not needed: it can hide a real architecture mismatch, makes the "
                           "runtime load another target's code, and breaks other GPUs in the box. Remove it.");
    finding.with_evidence("env " + subject.variable, *subject.value);
    add_locations(finding, locations_);
    with_release(finding);
    finding.with_fix(remove_override_fix(subject, locations_));
    return finding;
  }

  Finding unsupported(const Subject& subject, const kb::GfxTarget& target) const {
    std::string last;
    const auto* newest = kb_.last_release_listing(subject.gfx);
    if (const auto* first = first_release_listing(subject.gfx); first != nullptr && installed_before(*first)) {
      // A target newer than this install (gfx942 on ROCm 5.2), not one ROCm dropped.
      last = fmt::format(" Official support for it starts with ROCm {}; this install is older: upgrade ROCm.",
                         first->release);
    } else if (newest != nullptr) {
      last = fmt::format(" The last release that officially supported it is ROCm {}.", newest->release);
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
      last = fmt::format(
          " ROCm {} officially supports {}: this install's rocBLAS is incomplete (a trimmed image or "
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
    return finding.with_fix(make_fix(kCheckId,
                                     "Use a ROCm release (or a distribution build) that still carries code "
                                     "for " +
                                         subject.gfx + ", or a supported GPU"));
  }

  // The release is newer than anything the doctor knows: say so, judge nothing.
  Finding support_unknown(const Subject& subject) const {
    auto finding =
        make_finding("gpu.support-unknown", Severity::info,
                     fmt::format("{}: whether {} supports {} is not known to this doctor", subject.label,
                                 built_.release, subject.gfx))
            .because(fmt::format("{} is newer than every release in the knowledge base (newest: ROCm {}), and no "
                                 "installed rocBLAS files show which targets it carries, so {} is not judged. Add "
                                 "the release's facts with --knowledge DIR or /etc/rocm-doctor/knowledge.d/ "
                                 "(docs/knowledge.md), or update rocm-doctor.",
                                 built_.release, kb_.newest_release().release, subject.gfx));
    return with_release(finding);
  }

  Finding unknown_target(const Subject& subject) const {
    if (built_.unknown_newer && !subject.gfx.empty() && !built_.has(subject.gfx)) return support_unknown(subject);
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
                       .because(
                           "The target is not in the knowledge base (a newer GPU, or a KFD value the doctor "
                           "cannot decode), and " +
                           built_.release + " does not list it, judged from " + evidence_word(built_) + ".");
    with_release(finding);
    return finding.with_fix(
        make_fix(kCheckId, "Check AMD's current ROCm support list for this GPU, and update rocm-doctor"));
  }

  const CheckContext& ctx_;
  const BuiltIn& built_;

  [[nodiscard]] const kb::Release* first_release_listing(const std::string& gfx) const {
    for (const auto& release : kb_.releases()) {
      if (release.lists(gfx)) return &release;
    }
    return nullptr;
  }
  // Whether the installed release (or the one an image targets) comes before `release`.
  [[nodiscard]] bool installed_before(const kb::Release& release) const {
    if (built_.version.empty() || kb::version_numbers(built_.version).empty()) return false;
    // "5.2.3" against the release row "6.0": the row's x.0 is its first patch release.
    return kb::version_less(built_.version, release.release);
  }
  std::vector<Location> locations_;
  const kb::KnowledgeBase& kb_ = kb::knowledge_base();
};

}  // namespace

void judge_subjects(const CheckContext& ctx, const BuiltIn& built, const std::vector<Location>& locations,
                    const std::vector<Subject>& subjects, std::vector<Finding>& out) {
  const Judge judge(ctx, built, locations);
  for (const auto& subject : subjects) {
    auto finding = judge.judge(subject);
    // Kernels before gfx_target_version existed: say the gfx is the knowledge base's, not KFD's.
    if (subject.gpu != nullptr && subject.gpu->gfx_source == "pci-id table" && subject.gpu->node_id) {
      finding.with_evidence(fmt::format("/sys/class/kfd/kfd/topology/nodes/{}/properties", *subject.gpu->node_id),
                            fmt::format("no gfx_target_version line (older kernel): {} from the PCI id table "
                                        "(checks/data/pci_ids.json, device 0x{:04x})",
                                        subject.gpu->gfx, subject.gpu->device_id));
    }
    out.push_back(std::move(finding));
  }
}

}  // namespace rocm_doctor::gpu_arch
