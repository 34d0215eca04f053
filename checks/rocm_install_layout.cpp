// The `rocm-install` check's words for each ROCm layout (rocm_install.h): how a release is
// labelled, where its layout was seen, which bin folder to advise, and the release newer than
// the knowledge base.
#include <algorithm>

#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/rocm_installs.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"
#include "rocm_install.h"

namespace rocm_doctor::rocm_install_check {

std::string release_label(const RocmRelease& release) {
  const auto version = release.version.empty() ? std::string("unknown version") : "ROCm " + release.version;
  switch (release.layout) {
    case RocmLayout::distro: return version + " (distribution packages in " + release.lib_dir + ")";
    case RocmLayout::core_sdk: return version + " (Core SDK) in " + release.prefix;
    case RocmLayout::python: return version + " (Python packages) in " + release.prefix;
    case RocmLayout::legacy: break;
  }
  return version + " in " + release.prefix;
}

// Where a release's layout was seen, for the evidence of rocm.version.
std::string layout_evidence(const RocmInstallation& install, const RocmRelease& release) {
  switch (release.layout) {
    case RocmLayout::core_sdk:
      if (install.opt_rocm_lib_target && path_is_under(install.opt_rocm_lib_resolved, release.prefix)) {
        return "ROCm Core SDK (TheRock), full install: /opt/rocm/lib -> " + *install.opt_rocm_lib_target + " -> " +
               install.opt_rocm_lib_resolved;
      }
      return "ROCm Core SDK (TheRock), no update-alternatives link /opt/rocm/lib into " + release.prefix +
             " (a minimal or gfx-specific install)";
    case RocmLayout::python:
      return "pip packages (rocm[...] / rocm-sdk-core) in " + release.prefix.substr(0, release.prefix.rfind('/'));
    case RocmLayout::distro: return "distribution packages";
    case RocmLayout::legacy: break;
  }
  return install.opt_rocm_target ? "/opt/rocm-X.Y.Z with an /opt/rocm link" : "AMD's packages in " + release.prefix;
}

// The bin folder users should type for a release: /opt/rocm/bin when a link leads there.
std::string preferred_bin_dir(const Host& host, const RocmInstallation& install, const RocmRelease& release) {
  if (release.layout == RocmLayout::legacy && install.opt_rocm_resolved == release.prefix && !install.opt_rocm_dangling)
    return "/opt/rocm/bin";
  if (release.layout == RocmLayout::core_sdk && install.selection_known() && install.active &&
      install.active->prefix == release.prefix && host.read_link("/opt/rocm/bin"))
    return "/opt/rocm/bin";
  return release.bin_dir;
}

// A release newer than every row of rocm_releases.json: say so; the other checks judge nothing
// from its absence (gpu.support-unknown, no platform verdicts).
std::optional<Finding> release_unknown_newer(const RocmRelease& active) {
  if (active.version.empty()) return std::nullopt;
  const auto& kb = kb::knowledge_base();
  if (kb.release(active.version) != nullptr || !kb::version_less(kb.newest_release().release, active.version))
    return std::nullopt;
  return make_finding("rocm.release-unknown-newer", Severity::info,
                      "ROCm " + active.version + " is newer than anything this doctor knows (newest: ROCm " +
                          kb.newest_release().release + ")")
      .because(
          "Support lists, kernels and driver compatibility of this release are not in the knowledge base, so "
          "nothing is called unsupported for lack of data. `rocm-doctor knowledge` shows what is known; add the "
          "release's facts with --knowledge DIR or /etc/rocm-doctor/knowledge.d/ (docs/knowledge.md), or update "
          "rocm-doctor.")
      .with_evidence(active.evidence.empty() ? active.prefix : active.evidence, active.version)
      .with_evidence("knowledge base", "newest release ROCm " + kb.newest_release().release);
}

// " and carries gfx1151" for this machine's GPUs (all targets when it has none known).
std::string carried_phrase(const CheckContext& ctx, const RocmInstall& install) {
  std::vector<std::string> mine, missing;
  for (const auto* gpu : ctx.fact<GpuInventory>().kfd_gpus()) {
    if (gpu->gfx.empty()) continue;
    auto& list = install.carries(gpu->gfx) ? mine : missing;
    if (std::find(list.begin(), list.end(), gpu->gfx) == list.end()) list.push_back(gpu->gfx);
  }
  if (mine.empty() && missing.empty()) return " and carries " + join(install.gfx, " ");
  if (mine.empty()) return " but carries no code for " + join(missing, " ");
  return " and carries " + join(mine, " ");
}

// No system ROCm, but something brings a HIP runtime (an application's bundle, a Python
// environment's packages, a tarball): advice naming it, not an error (issue 27).
std::optional<Finding> bundled_only(const CheckContext& ctx) {
  const auto& installs = ctx.fact<RocmInstalls>();
  std::vector<std::string> parts;
  for (const auto& install : installs.installs) {
    if (!install.brings_hip()) continue;
    const auto name = install.app.empty() ? std::string(to_string(install.kind)) : install.app;
    auto part =
        name + " bundles " + (install.version.empty() ? "ROCm" : "ROCm " + install.version) + " in " + install.prefix;
    if (!install.gfx.empty()) part += carried_phrase(ctx, install);
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return std::nullopt;
  return make_finding("rocm.not-installed", Severity::info, "No system ROCm; " + join(parts, "; "))
      .because(
          "Programs that bring their own ROCm (applications' bundles, PyTorch wheels, TheRock's pip packages) "
          "need no system install. The system tools (rocminfo, amd-smi, hipcc) are not there, so building HIP "
          "code needs a system ROCm; `rocm-installs` judges each runtime for this machine's GPUs.")
      .with_evidence("/opt/rocm", "not found")
      .with_evidence("libamdhip64.so*", "not in /usr/lib/x86_64-linux-gnu, /usr/lib64 or /usr/lib");
}

}  // namespace rocm_doctor::rocm_install_check
