// `code-objects`: which gfx targets a binary or library carries GPU code for
// (rocm_doctor/code_objects.h), and whether each GPU here, or each
// --target-gfx, can run it. The root cause of hipErrorNoBinaryForGpu and
// "invalid device function". Runs on the files `rocm-doctor targets FILE...` names.
#include "rocm_doctor/code_objects.h"

#include <fmt/format.h>

#include <algorithm>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::code_objects_check {
namespace {

constexpr std::string_view kCheckId = "code-objects";

struct Wanted {
  std::string gfx;  // "gfx1100"
  std::string why;  // "--target-gfx", "GPU 0 AMD Radeon ... (gfx1100)"
};

// --target-gfx when given (with or without --image), else every GPU ROCm sees here.
std::vector<Wanted> wanted_targets(const CheckContext& ctx) {
  std::vector<Wanted> wanted;
  for (const auto& gfx : ctx.options().target_gfx) wanted.push_back({gfx, "--target-gfx"});
  if (!wanted.empty() || ctx.options().image_mode) return wanted;
  for (const auto* gpu : ctx.fact<GpuInventory>().kfd_gpus()) {
    if (!gpu->gfx.empty()) wanted.push_back({gpu->gfx, gpu->label()});
  }
  return wanted;
}

std::string name_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Finding with_scan_evidence(Finding finding, const code_objects::Scan& scan) {
  finding.with_evidence(scan.path, fmt::format("{}, {} bundle(s) ({} compressed), {} bytes read of {}",
                                               scan.container.empty() ? "not a binary" : scan.container, scan.bundles,
                                               scan.compressed_bundles, scan.bytes_read, scan.file_size));
  if (!scan.targets.empty()) finding.with_evidence("code objects", join(scan.targets, " "));
  return finding;
}

// The override that makes `gfx` run code built for a carried target, when the knowledge base knows one.
std::optional<Fix> override_fix(const std::string& gfx, const code_objects::Scan& scan) {
  const auto* target = kb::knowledge_base().target(gfx);
  if (target == nullptr || !target->workaround || target->workaround->known_unreliable()) return std::nullopt;
  if (!scan.carries(target->workaround->runs_as)) return std::nullopt;
  return make_fix(kCheckId,
                  fmt::format("{} can run the {} code this file carries with HSA_OVERRIDE_GFX_VERSION={} "
                              "(unofficial); otherwise use a build that includes {}.",
                              gfx, target->workaround->runs_as, target->workaround->override_value, gfx),
                  {"export HSA_OVERRIDE_GFX_VERSION=" + target->workaround->override_value});
}

std::vector<Finding> judge_file(const CheckContext& ctx, const std::string& path, const std::vector<Wanted>& wanted) {
  const auto name = name_of(path);
  auto scan = code_objects::scan_file(ctx.host(), path);
  if (!scan) {
    return {make_finding("code-objects.unreadable", Severity::error, fmt::format("{} cannot be read", name))
                .because("rocm-doctor reads the file's ELF sections and offload bundles to know its GPU code.")
                .with_evidence(path, scan.error().message)};
  }
  std::vector<Finding> findings;
  if (!scan->problem.empty()) {
    findings.push_back(with_scan_evidence(
        make_finding("code-objects.malformed", Severity::error, fmt::format("{} is malformed: {}", name, scan->problem))
            .because("Its ELF structure or offload bundles are truncated or inconsistent: the "
                     "HIP runtime cannot load GPU code from it either (a partial download or "
                     "copy, a corrupted image layer, or not a ROCm build)."),
        *scan));
    if (scan->targets.empty()) return findings;
  }
  if (scan->targets.empty()) {
    findings.push_back(with_scan_evidence(
        make_finding("code-objects.none", Severity::info, fmt::format("{} carries no GPU code objects", name))
            .because("No .hip_fatbin section and no offload bundle: a host-only library, or one that loads its "
                     "kernels from separate files (rocBLAS and MIOpen keep theirs in their library folders)."),
        *scan));
    return findings;
  }
  std::vector<std::string> runs_on;
  for (const auto& target : wanted) {
    if (scan->carries(target.gfx)) {
      runs_on.push_back(target.gfx + " (" + target.why + ")");
      continue;
    }
    auto finding = with_scan_evidence(
        make_finding("code-objects.no-kernel", Severity::error,
                     fmt::format("{} has no code for {} ({})", name, target.gfx, target.why))
            .because("A HIP binary runs only on the gfx targets it carries code objects for; on any other the "
                     "first kernel launch fails with hipErrorNoBinaryForGpu or 'invalid device function'."),
        *scan);
    auto fix = override_fix(target.gfx, *scan);
    if (!fix) {
      fix = make_fix(kCheckId, "Install or build a version of this library that includes " + target.gfx +
                                   " (for a ROCm build, set its GPU_TARGETS / --offload-arch).");
    }
    // The check runs on named files only: verify by naming the file again.
    fix->verify = "rocm-doctor targets " + shell_quote(path) +
                  (target.why == "--target-gfx" ? " --target-gfx " + shell_quote(target.gfx) : std::string());
    finding.with_fix(std::move(*fix));
    findings.push_back(std::move(finding));
  }
  // What does run is said too (ok), unless nothing judged runs.
  if (!runs_on.empty() || wanted.empty()) {
    const auto judged = wanted.empty() ? std::string() : "; runs on " + join(runs_on, ", ");
    findings.push_back(with_scan_evidence(
        make_finding("code-objects.carries", Severity::ok,
                     fmt::format("{} carries code for {}{}", name, join(scan->targets, ", "), judged))
            .because(wanted.empty() ? "No GPU here and no --target-gfx to judge them against."
                                    : "These targets have code objects in this file."),
        *scan));
  }
  return findings;
}

class CodeObjectsCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "GPU code objects of binaries"; }
  int order() const override { return 88; }
  std::vector<std::string_view> finding_ids() const override {
    return {"code-objects.carries", "code-objects.no-kernel", "code-objects.none", "code-objects.malformed",
            "code-objects.unreadable"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& files = ctx.options().binaries;
    if (files.empty()) return CheckOutcome::skipped("no binary named (rocm-doctor targets FILE...)");
    const auto wanted = wanted_targets(ctx);
    std::vector<Finding> findings;
    for (const auto& path : files) {
      auto judged = judge_file(ctx, path, wanted);
      findings.insert(findings.end(), std::make_move_iterator(judged.begin()), std::make_move_iterator(judged.end()));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::code_objects_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::code_objects_check::CodeObjectsCheck)
