// `rocm-installs`: every ROCm on the machine (rocm_doctor/facts/rocm_installs.h) judged for
// what the user runs: a bundled runtime (ollama, lemonade, LM Studio, llama.cpp, a TheRock
// tarball) without code for the GPUs its programs will use, and TheRock's pip packages picking
// a family that does not carry the GPU that runs (lemonade-sdk/lemonade#2705). Fixes are given
// in the install's own terms: the application's systemd drop-in, pip in that environment,
// ROCM_SDK_TARGET_FAMILY, the right tarball.
#include "rocm_installs.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::rocm_installs_check {
namespace {

constexpr std::string_view kCheckId = "rocm-installs";

// Every GPU ROCm lists, with what it runs as under HSA_OVERRIDE_GFX_VERSION[_<node>] of `env`.
std::vector<SeenGpu> seen_gpus(const CheckContext& ctx, const Environment& env) {
  std::vector<SeenGpu> gpus;
  for (const auto* gpu : ctx.fact<GpuInventory>().kfd_gpus()) {
    SeenGpu seen{gpu->index, gpu->gfx, gpu->gfx, gpu->label()};
    auto value = env.find("HSA_OVERRIDE_GFX_VERSION");
    if (gpu->node_id) {
      if (const auto node = env.find(fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *gpu->node_id)); node != env.end())
        value = node;
    }
    if (value != env.end()) {
      if (const auto version = parse_override_value(value->second)) seen.runs_as = gfx_name(*version);
    }
    gpus.push_back(std::move(seen));
  }
  return gpus;
}

Environment shell_environment(const Host& host) {
  Environment env;
  for (const char* name : {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
                           "HSA_OVERRIDE_GFX_VERSION", "ROCM_SDK_TARGET_FAMILY"}) {
    if (const auto value = host.env(name)) env[name] = *value;
  }
  for (const auto& name : host.env_names()) {
    if (name.starts_with("HSA_OVERRIDE_GFX_VERSION_")) env[name] = host.env(name).value_or("");
  }
  return env;
}

// The unit an application runs as, with its drop-ins; nullopt when it has none here.
struct Unit {
  std::string path;     // the unit file read first
  std::string drop_in;  // where a drop-in of ours would go
  Environment env;
};

std::optional<Unit> service_unit(const Host& host, const std::string& service) {
  if (service.empty()) return std::nullopt;
  Unit unit;
  unit.drop_in = "/etc/systemd/system/" + service + ".service.d";
  bool found = false;
  for (const auto& folder : {"/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"}) {
    const auto path = std::string(folder) + "/" + service + ".service";
    const auto text = host.read_file(path, 1U << 16);
    if (!text) continue;
    unit.path = path;
    unit.env = parse_unit_environment(*text);
    found = true;
    break;
  }
  if (!found) return std::nullopt;
  for (const auto& entry : host.list_dir(unit.drop_in).value_or(std::vector<DirEntry>{})) {
    if (!entry.name.ends_with(".conf")) continue;
    if (const auto text = host.read_file(unit.drop_in + "/" + entry.name, 1U << 16)) {
      for (auto& [name, value] : parse_unit_environment(*text)) unit.env[name] = value;
    }
  }
  return unit;
}

std::string evidence_line(const RocmInstall& install) {
  std::string text = std::string(to_string(install.kind));
  text += install.version.empty() ? ", version unknown" : ", ROCm " + install.version;
  text += install.brings_hip() ? ", HIP runtime " + install.hip_library.substr(install.hip_library.rfind('/') + 1)
                               : ", no HIP runtime of its own";
  if (!install.gfx.empty()) text += ", carries " + join(install.gfx, " ");
  if (!install.families.empty()) text += ", families " + join(install.families, " ");
  if (!install.used_by.empty()) text += "; used by " + join(install.used_by, ", ");
  return text;
}

Finding inventory(const RocmInstalls& installs) {
  auto finding = make_finding("rocm.installs", Severity::info,
                              fmt::format("{} ROCm install{} on this machine", installs.installs.size(),
                                          installs.installs.size() == 1 ? "" : "s"))
                     .because(
                         "Programs load the HIP runtime of the ROCm they were shipped with: a system release, a "
                         "Python environment's packages, or the copy an application bundles. Each is judged for "
                         "the GPUs its programs will use.");
  for (const auto& install : installs.installs) finding.with_evidence(install.prefix, evidence_line(install));
  if (!installs.root.empty()) {
    finding.with_evidence(installs.root_source, installs.root + (installs.root_missing ? " (no ROCm tree there)" : ""));
  }
  return finding;
}

// TheRock's own family for a target ("gfx1201" -> "gfx120X-all"), else the target itself.
std::string family_of_gfx(const std::string& gfx) {
  for (const char* suffix : {"-all", "-dgpu", "-igpu", "-dcgpu"}) {
    auto family = gfx.substr(0, gfx.size() - 1) + "X" + suffix;
    const auto targets = family_targets(family);
    if (std::find(targets.begin(), targets.end(), gfx) != targets.end()) return family;
  }
  return gfx;
}

// The fix for a bundle without code for `gpu`, in the application's own terms.
std::vector<Fix> bundle_fixes(const RocmInstall& install, const SeenGpu& gpu, const std::vector<SeenGpu>& carried,
                              const std::optional<Unit>& unit, bool container) {
  std::vector<Fix> fixes;
  const auto* target = kb::knowledge_base().target(gpu.gfx);
  const auto name = install.app.empty() ? std::string(to_string(install.kind)) : install.app;
  const auto set_variable = [&](const std::string& variable, const std::string& value, const std::string& why) {
    if (unit) {
      const auto file = unit->drop_in + "/rocm-doctor.conf";
      fixes.push_back(make_fix(
          kCheckId, why + " Set it in " + name + "'s systemd drop-in (the service never reads your shell's variables).",
          {"sudo mkdir -p " + shell_quote(unit->drop_in),
           "printf '[Service]\\nEnvironment=\"" + variable + "=" + value + "\"\\n' | sudo tee " + shell_quote(file),
           "sudo systemctl daemon-reload", "sudo systemctl restart " + install.service},
          {.root = true}));
    } else if (container) {
      // No command: the container is started elsewhere (docker run -e, a compose file, a pod spec).
      fixes.push_back(make_fix(kCheckId, why + " Start the container with " + variable + "=" + value +
                                             " (docker run -e / podman run -e, or the compose file's environment:)."));
    } else {
      fixes.push_back(
          make_fix(kCheckId, why + " Set it where " + name + " is started.", {"export " + variable + "=" + value}));
    }
  };
  if (target && target->workaround && !target->workaround->known_unreliable() &&
      install.carries(target->workaround->runs_as)) {
    set_variable("HSA_OVERRIDE_GFX_VERSION", target->workaround->override_value,
                 fmt::format("{} can run the {} code this bundle carries with HSA_OVERRIDE_GFX_VERSION={} "
                             "(unofficial).",
                             gpu.gfx, target->workaround->runs_as, target->workaround->override_value));
  }
  if (!carried.empty()) {
    std::vector<std::string> indices;
    for (const auto& other : carried) indices.push_back(std::to_string(other.index));
    set_variable("ROCR_VISIBLE_DEVICES", join(indices, ","),
                 fmt::format("Hide {} from {} so it uses only the GPUs its bundle carries code for.", gpu.label, name));
  }
  if (install.kind == InstallKind::standalone && !install.version.empty()) {
    // TheRock publishes one tarball per family: repo.amd.com/rocm/tarball/therock-dist-linux-<family>-<version>.tar.gz.
    const auto family = family_of_gfx(gpu.gfx);
    const auto tarball = "therock-dist-linux-" + family + "-" + install.version + ".tar.gz";
    const auto folder = install.prefix + "-" + family;
    fixes.push_back(
        make_fix(kCheckId,
                 fmt::format("Unpack TheRock's {} tarball (https://repo.amd.com/rocm/tarball/{}, it "
                             "carries {}) into a folder of its own and use that one instead of {}.",
                             family, tarball, gpu.gfx, install.prefix),
                 {"mkdir -p " + shell_quote(folder), "tar -xzf " + shell_quote(tarball) + " -C " + shell_quote(folder),
                  "export ROCM_PATH=" + shell_quote(folder)}));
    return fixes;
  }
  fixes.push_back(
      make_fix(kCheckId, fmt::format("Or use a {} build whose ROCm carries {} (a newer release, or the bundle "
                                     "built for that GPU family).",
                                     name, gpu.gfx)));
  return fixes;
}

// Whether something will load this runtime: an application's bundle always; a tarball or conda
// environment when the root variables, PATH, LD_LIBRARY_PATH or CONDA_PREFIX name it.
// (LM Studio's backends are offered per GPU, so one of them lacking a GPU is a warning at most.)
bool in_use(const Host& host, const RocmInstall& install) {
  if (install.kind != InstallKind::standalone && install.kind != InstallKind::conda) return true;
  if (!install.selected_by.empty()) return true;
  if (const auto conda = host.env("CONDA_PREFIX"); conda && normalize_path(*conda) == install.prefix) return true;
  for (const char* name : {"PATH", "LD_LIBRARY_PATH"}) {
    for (const auto& dir : split_search_path(host.env(name).value_or(""), true)) {
      if (path_is_under(normalize_path(dir), install.prefix)) return true;
    }
  }
  return false;
}

std::vector<Finding> bundle_findings(const CheckContext& ctx, const RocmInstalls& installs) {
  std::vector<Finding> findings;
  const auto& host = ctx.host();
  const bool container = host.exists("/.dockerenv") || host.exists("/run/.containerenv");
  for (const auto& install : installs.installs) {
    switch (install.kind) {
      case InstallKind::system_package:
      case InstallKind::therock_package:
      case InstallKind::distro_package:
      case InstallKind::python_wheel:  // judged by its family below
      case InstallKind::torch_wheel:   // the torch check judges the wheel's targets
        continue;
      default: break;
    }
    if (install.gfx.empty()) continue;     // nothing says what it carries: no verdict
    if (!in_use(host, install)) continue;  // a tree lying unused in a home breaks nothing
    const auto unit = service_unit(host, install.service);
    const auto env = unit ? unit->env : shell_environment(host);
    const auto gpus = visible(seen_gpus(ctx, env), env, true);
    std::vector<SeenGpu> lacking, carried;
    for (const auto& gpu : gpus) {
      if (gpu.runs_as.empty()) continue;
      (install.carries(gpu.runs_as) ? carried : lacking).push_back(gpu);
    }
    if (lacking.empty()) continue;
    std::vector<std::string> names;
    for (const auto& gpu : lacking) names.push_back(gpu.label);
    const auto name = install.app.empty() ? std::string(to_string(install.kind)) : install.app;
    auto finding =
        make_finding(
            "rocm.bundle-lacks-gfx",
            carried.empty() && install.kind != InstallKind::lm_studio ? Severity::error : Severity::warning,
            fmt::format("{}'s ROCm {}in {} has no code for {}", name,
                        install.version.empty() ? "" : install.version + " ", install.prefix, join(names, ", ")))
            .because(fmt::format(
                "{} loads its own ROCm, not the system's, and runs only on GPUs that ROCm carries code for "
                "({}). {}",
                name, join(install.gfx, " "),
                carried.empty() ? "On this machine it falls back to the CPU or fails with 'no kernel image' / "
                                  "hipErrorNoBinaryForGpu."
                                : "It skips the other GPUs, or crashes when it picks one of them."))
            .with_evidence(install.gfx_source.empty() ? install.prefix : install.gfx_source, join(install.gfx, " "));
    for (const auto& gpu : lacking) {
      finding.with_evidence(gpu.label, gpu.runs_as == gpu.gfx ? "runs " + gpu.gfx : "runs as " + gpu.runs_as);
    }
    if (unit) finding.with_evidence(unit->path, "the service's environment");
    for (auto& fix : bundle_fixes(install, lacking.front(), carried, unit, container)) finding.with_fix(std::move(fix));
    findings.push_back(std::move(finding));
  }
  return findings;
}

// A family that carries `gfx`: an installed one, else an available one, else TheRock's own.
std::string family_for(const TheRockFamilies& sdk, const std::string& gfx) {
  for (const auto* list : {&sdk.installed, &sdk.available}) {
    for (const auto& family : *list) {
      const auto targets = family_targets(family);
      if (std::find(targets.begin(), targets.end(), gfx) != targets.end()) return family;
    }
  }
  return family_of_gfx(gfx);
}

std::optional<Finding> family_finding(const CheckContext& ctx, const TheRockFamilies& sdk) {
  const auto env = shell_environment(ctx.host());
  const auto all = seen_gpus(ctx, env);
  const auto running = visible(all, env, true);
  if (running.empty() || running.front().runs_as.empty()) return std::nullopt;
  const auto& gpu = running.front();
  const auto pick = pick_family(sdk, visible(all, env, false), env);
  std::vector<std::string> wrong;
  for (const auto& family : pick.candidates) {
    const auto targets = family_targets(family);
    if (std::find(targets.begin(), targets.end(), gpu.runs_as) == targets.end()) wrong.push_back(family);
  }
  if (wrong.empty()) return std::nullopt;
  const bool certain = wrong.size() == pick.candidates.size();
  const auto right = family_for(sdk, gpu.runs_as);
  const bool right_installed = std::find(sdk.installed.begin(), sdk.installed.end(), right) != sdk.installed.end();
  // Either way broken: the pick is wrong for sure, or the right family's libraries are not there.
  const bool broken = certain || (!right_installed && !sdk.installed.empty());
  auto finding =
      make_finding("rocm.therock-family-mismatch", broken ? Severity::error : Severity::warning,
                   fmt::format("TheRock's packages in {} {} family {}, which has no code for {}", sdk.site,
                               certain ? "pick" : "may pick", join(wrong, " / "), gpu.label))
          .because(fmt::format(
              "rocm_sdk loads the math libraries of one GPU family: ROCM_SDK_TARGET_FAMILY, else the family of "
              "the first GPU offload-arch lists (it reads them into an unordered set, and HIP_VISIBLE_DEVICES "
              "does not hide a GPU from it), else the default. The program runs on {}, so rocBLAS/hipBLASLt "
              "kernels for it are missing ('kernel not found', a backend crash; lemonade-sdk/lemonade#2705).",
              gpu.label))
          .with_evidence("picked by", pick.reason + ": " + join(pick.candidates, ", "))
          .with_evidence("installed families", sdk.installed.empty() ? "(none)" : join(sdk.installed, ", "))
          .with_evidence("runs on", gpu.label);
  if (!sdk.dist_info.empty()) finding.with_evidence(sdk.dist_info, "available: " + join(sdk.available, ", "));
  std::vector<std::string> commands;
  if (!right_installed) {
    commands.push_back(shell_quote(sdk.python) + " -m pip install " +
                       shell_quote("rocm-sdk-libraries-" + right + (sdk.version.empty() ? "" : "==" + sdk.version)));
  }
  commands.push_back("export ROCM_SDK_TARGET_FAMILY=" + right);
  finding.with_fix(make_fix(kCheckId,
                            fmt::format("Make rocm_sdk use {} ({} carries {}){}.", right, right, gpu.runs_as,
                                        right_installed ? ""
                                                        : ": install its libraries package into this environment "
                                                          "from the index the other rocm-sdk packages came from"),
                            commands));
  if (gpu.index >= 0) {
    finding.with_fix(make_fix(kCheckId,
                              "Or hide the other GPUs at the HSA level, which offload-arch honours too "
                              "(HIP_VISIBLE_DEVICES does not reach it).",
                              {fmt::format("export ROCR_VISIBLE_DEVICES={}", gpu.index)}));
  }
  return finding;
}

class RocmInstallsCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm installs and bundled runtimes"; }
  int order() const override { return 41; }
  std::vector<std::string_view> finding_ids() const override {
    return {"rocm.installs", "rocm.bundle-lacks-gfx", "rocm.therock-family-mismatch"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& installs = ctx.fact<RocmInstalls>();
    if (installs.installs.empty()) return CheckOutcome::skipped("no ROCm install found (rocm-install says what to do)");
    std::vector<Finding> findings{inventory(installs)};
    if (ctx.options().image_mode) return findings;  // no GPU to judge against
    for (auto& finding : bundle_findings(ctx, installs)) findings.push_back(std::move(finding));
    for (const auto& sdk : installs.therock) {
      if (auto finding = family_finding(ctx, sdk)) findings.push_back(std::move(*finding));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::rocm_installs_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::rocm_installs_check::RocmInstallsCheck)
