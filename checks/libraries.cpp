// `libraries`: which ROCm math libraries the active release has, and whether
// rocBLAS, hipBLASLt and MIOpen carry kernels for every GPU's target.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/math_libraries.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::libraries_check {
namespace {

constexpr std::string_view kCheckId = "libraries";

// The gfx each GPU loads code for: its own, or the override's (per-device form first).
struct Wanted {
  std::string gfx;
  std::string why;  // "GPU 0 AMD Radeon RX 6700 XT (gfx1031) via HSA_OVERRIDE_GFX_VERSION=10.3.0"
};

std::vector<Wanted> wanted_targets(const CheckContext& ctx) {
  const auto& host = ctx.host();
  std::vector<Wanted> wanted;
  std::set<std::string> seen;
  const auto add = [&](const std::string& gfx, const std::string& why) {
    if (!gfx.empty() && seen.insert(gfx).second) wanted.push_back({gfx, why});
  };
  const auto gpus = ctx.fact<GpuInventory>().kfd_gpus();
  const bool use_targets = ctx.options().image_mode || gpus.empty();
  if (use_targets) {
    for (const auto& gfx : ctx.options().target_gfx) add(gfx, "target " + gfx + " (--target-gfx)");
    return wanted;
  }
  const bool has_discrete = std::any_of(gpus.begin(), gpus.end(), [](const Gpu* gpu) { return !gpu->apu; });
  for (const auto* gpu : gpus) {
    if (has_discrete && gpu->hideable_igpu()) continue;  // gpu-arch advises hiding it
    std::string variable = gpu->node_id ? fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *gpu->node_id) : "";
    auto value = variable.empty() ? std::nullopt : host.env(variable);
    if (!value) variable = "HSA_OVERRIDE_GFX_VERSION", value = host.env(variable);
    if (value) {
      if (auto parsed = parse_override_value(*value)) {
        add(gfx_name(*parsed), fmt::format("{} via {}={}", gpu->label(), variable, *value));
      }
      continue;  // a malformed override is gpu-arch's finding
    }
    add(gpu->gfx, gpu->label());
  }
  return wanted;
}

Finding inventory_finding(const MathLibraries& libraries) {
  std::vector<std::string> names;
  for (const auto& library : libraries.libraries) {
    names.push_back(library.version.empty() ? library.name : library.name + " " + library.version);
  }
  auto finding = make_finding("lib.installed", Severity::info,
                              fmt::format("{} math libraries: {}", libraries.release_label,
                                          names.empty() ? std::string("none found") : join(names, ", ")))
                     .because("Frameworks load these at run time; a missing one fails only when first used.");
  for (const auto& library : libraries.libraries) {
    finding.with_evidence(library.file.empty() ? library.kernel_dir : library.file,
                          library.kernel_dir.empty()
                              ? library.version
                              : fmt::format("{} kernel files in {}", library.kernel_files.size(), library.kernel_dir));
  }
  return finding;
}

// Whether the library carries any target of `gfx`'s family (else it is not built for that family at all).
bool carries_family(const std::set<std::string>& available, std::string_view gfx) {
  const auto& kb = kb::knowledge_base();
  const auto* wanted = kb.target(gfx);
  return std::any_of(available.begin(), available.end(), [&](const std::string& name) {
    const auto* target = kb.target(name);
    return wanted == nullptr || (target != nullptr && target->isa_family == wanted->isa_family);
  });
}

Finding not_built_for_family(const InstalledLibrary& library, const Wanted& wanted, const MathLibraries& libraries,
                             const std::set<std::string>& available) {
  return make_finding(library.layout->finding, Severity::info,
                      fmt::format("{} in {} is not built for {}'s family ({})", library.name, libraries.release_label,
                                  wanted.gfx, wanted.why))
      .because(fmt::format("This {} build targets {} only; frameworks use it where it has kernels and fall back to "
                           "rocBLAS/hipBLAS elsewhere, so this is a limitation of the release, not a broken install.",
                           library.name, join({available.begin(), available.end()}, ", ")))
      .with_evidence(library.kernel_dir, "carries " + join({available.begin(), available.end()}, ", "));
}

Finding missing_finding(const InstalledLibrary& library, const Wanted& wanted, const MathLibraries& libraries) {
  const auto& layout = *library.layout;
  const auto available = library.gfx_targets();
  if (layout.family_absent_severity == "info" && !available.empty() && !carries_family(available, wanted.gfx)) {
    return not_built_for_family(library, wanted, libraries, available);
  }
  auto finding =
      make_finding(layout.finding, Severity::error,
                   fmt::format("{} in {} has no kernels for {} ({})", library.name, libraries.release_label, wanted.gfx,
                               wanted.why))
          .because(fmt::format("{} looks its kernels up per gfx target in {}; without files for {} the first call "
                               "fails (rocBLAS: 'Cannot read TensileLibrary.dat ... for GPU arch', MIOpen: falls back "
                               "to slow compilation or fails, hipBLASLt: no solution found).",
                               library.name, library.kernel_dir, wanted.gfx))
          .with_evidence(library.kernel_dir,
                         available.empty()
                             ? fmt::format("{} files, none for {}", library.kernel_files.size(), wanted.gfx)
                             : "carries " + join({available.begin(), available.end()}, ", "));
  const auto* target = kb::knowledge_base().target(wanted.gfx);
  if (target != nullptr && target->workaround && library.carries(target->workaround->runs_as).value_or(false)) {
    return finding.with_fix(make_fix(
        "libraries",
        fmt::format("Run as {} with HSA_OVERRIDE_GFX_VERSION={} (see the gpu-arch check), or install a {} build that "
                    "includes {}",
                    target->workaround->runs_as, target->workaround->override_value, library.name, wanted.gfx),
        {"export HSA_OVERRIDE_GFX_VERSION=" + target->workaround->override_value}));
  }
  return finding.with_fix(
      make_fix(kCheckId, fmt::format("Reinstall {} from a ROCm release that supports {} (a partial install "
                                     "or a trimmed container image drops kernel files), or build it with "
                                     "-DAMDGPU_TARGETS={}",
                                     library.name, wanted.gfx, wanted.gfx)));
}

class LibrariesCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm math libraries"; }
  int order() const override { return 60; }
  std::vector<std::string_view> finding_ids() const override {
    return {"lib.installed", "lib.arch-covered", "lib.rocblas-arch-missing", "lib.miopen-arch-missing",
            "lib.hipblaslt-arch-missing"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& libraries = ctx.fact<MathLibraries>();
    if (libraries.release_label.empty()) return CheckOutcome::skipped("no ROCm release installed (see rocm-install)");
    std::vector<Finding> findings = {inventory_finding(libraries)};
    const auto wanted = wanted_targets(ctx);
    std::vector<std::string> covered;
    for (const auto& library : libraries.libraries) {
      if (!library.layout || library.kernel_dir.empty()) continue;
      bool all = !wanted.empty();
      for (const auto& target : wanted) {
        if (!library.carries(target.gfx).value_or(true)) {
          findings.push_back(missing_finding(library, target, libraries));
          all = false;
        }
      }
      if (all) covered.push_back(library.name);
    }
    if (!covered.empty()) {
      std::vector<std::string> gfx;
      for (const auto& target : wanted) gfx.push_back(target.gfx);
      findings.push_back(make_finding("lib.arch-covered", Severity::ok,
                                      fmt::format("{} carry kernels for {}", join(covered, ", "), join(gfx, ", ")))
                             .because("Every GPU's target has kernel files in these libraries.")
                             .with_evidence("targets", join(gfx, ", ")));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::libraries_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::libraries_check::LibrariesCheck)
