// Judging each rule kind on the run's facts (through the Host and the
// FactCache, so live runs and --replay agree). One small function per kind.
#include "policy/policy_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <nlohmann/json.hpp>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/amdgpu_driver.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/math_libraries.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/facts/torch_view.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/text_case.h"

namespace rocm_doctor::policy {

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

Judgement passed(std::string text, std::vector<Evidence> evidence = {}) {
  return {Verdict::pass, std::move(text), std::move(evidence), {}};
}
Judgement failed(std::string text, std::vector<Evidence> evidence = {}) {
  return {Verdict::fail, std::move(text), std::move(evidence), {}};
}
Judgement unknown(std::string text, std::string to_evaluate, std::vector<Evidence> evidence = {}) {
  return {Verdict::unknown, std::move(text), std::move(evidence), std::move(to_evaluate)};
}

// Several problems (fail) or open questions (unknown) -> one judgement; problems win.
Judgement combine(const std::vector<std::string>& problems, const std::vector<std::string>& open, std::string pass_text,
                  std::vector<Evidence> evidence, std::string to_evaluate = {}) {
  if (!problems.empty()) return failed(join(problems, "; "), std::move(evidence));
  if (!open.empty()) return unknown(join(open, "; "), std::move(to_evaluate), std::move(evidence));
  return passed(std::move(pass_text), std::move(evidence));
}

Judgement judge_version(const std::string& what, const std::string& text, const versions::Range& range,
                        Evidence evidence) {
  const auto version = versions::parse(text);
  if (!version) return unknown(what + " version cannot be read: " + version.error(), "", {std::move(evidence)});
  if (range.contains(*version)) return passed(what + " " + text + " is within " + range.text, {std::move(evidence)});
  return failed(what + " " + text + " is outside " + range.text, {std::move(evidence)});
}

Judgement image_has_no_hardware(std::string_view what) {
  return unknown("building an image (--image): " + std::string(what) + " is the host's, not the image's",
                 "judge it with a node policy on the machine that runs the image");
}

Judgement judge_rocm(const Rule& rule, const CheckContext& ctx) {
  const auto& range = std::get<VersionRule>(rule.spec).range;
  const auto& install = ctx.fact<RocmInstallation>();
  if (!install.active) return failed("no ROCm installation was found", {{"ROCm", "not installed"}});
  const auto& release = *install.active;
  if (release.version.empty()) {
    return unknown("the active ROCm at " + release.prefix + " has no readable version",
                   "the rocm-install check shows where the doctor looked", {{release.prefix, "no version"}});
  }
  return judge_version("ROCm", release.version, range, {release.evidence, release.version});
}

// The driver's own numbering ("6.8.5") and/or the ROCm release it shipped with ("6.2").
Judgement judge_driver_version(const DriverRule& spec, const std::string& version) {
  const Evidence module{"/sys/module/amdgpu/version", version};
  if (spec.version) {
    auto judgement = judge_version("amdgpu driver", version, *spec.version, module);
    if (judgement.verdict != Verdict::pass || !spec.rocm) return judgement;
  }
  const auto release = amdgpu_driver::rocm_release_of_driver(amdgpu_driver::driver_rules(), version);
  if (!release) {
    return unknown("amdgpu " + version +
                       " is not in the driver table (checks/data/amdgpu_driver.json), so its ROCm "
                       "release is unknown",
                   "judge the driver's own numbering with \"version\" instead", {module});
  }
  Evidence shipped{"checks/data/amdgpu_driver.json", "amdgpu " + version + " shipped with ROCm " + *release};
  if (versions::satisfies(*release, *spec.rocm)) {
    return passed("amdgpu " + version + " (ROCm " + *release + ") is within " + spec.rocm->text, {module, shipped});
  }
  return failed("amdgpu " + version + " shipped with ROCm " + *release + ", outside " + spec.rocm->text,
                {module, shipped});
}

Judgement judge_driver(const Rule& rule, const CheckContext& ctx) {
  const auto& spec = std::get<DriverRule>(rule.spec);
  if (ctx.options().image_mode) return image_has_no_hardware("the amdgpu driver");
  const auto& host = ctx.host();
  if (const auto version = host.read_trimmed("/sys/module/amdgpu/version"); version && !version->empty()) {
    return judge_driver_version(spec, *version);
  }
  if (!host.exists("/sys/module/amdgpu"))
    return failed("the amdgpu driver is not loaded", {{"/sys/module/amdgpu", "absent"}});
  return failed(
      "the amdgpu driver is the kernel's own (in-tree) driver, which has no release to compare; "
      "amdgpu-dkms reports one",
      {{"/sys/module/amdgpu/version", "absent (in-tree driver)"}});
}

struct GfxSeen {
  std::vector<std::string> targets;  // one entry per GPU ("" when unknown)
  std::string source;
};

std::optional<GfxSeen> gfx_seen(const CheckContext& ctx) {
  const auto gpus = ctx.fact<GpuInventory>().kfd_gpus();
  if (!gpus.empty()) {
    GfxSeen seen{{}, "KFD topology"};
    for (const Gpu* gpu : gpus) seen.targets.push_back(gpu->gfx);
    return seen;
  }
  if (!ctx.options().target_gfx.empty()) return GfxSeen{ctx.options().target_gfx, "--target-gfx"};
  return std::nullopt;
}

Judgement judge_gfx(const Rule& rule, const CheckContext& ctx) {
  const auto& spec = std::get<GfxRule>(rule.spec);
  const auto seen = gfx_seen(ctx);
  if (!seen && ctx.options().image_mode) {
    return unknown("building an image (--image) without --target-gfx: no gfx target to judge",
                   "pass the targets the image is meant for: --target-gfx " +
                       join(spec.require.empty() ? spec.allow : spec.require, ","));
  }
  if (!seen) return failed("no GPU is visible to ROCm", {{"KFD topology", "no GPU node"}});
  std::vector<std::string> problems;
  for (const auto& wanted : spec.require) {
    if (std::find(seen->targets.begin(), seen->targets.end(), wanted) == seen->targets.end()) {
      problems.push_back(wanted + " is not among them");
    }
  }
  if (!spec.allow.empty()) {
    for (const auto& target : seen->targets) {
      if (std::find(spec.allow.begin(), spec.allow.end(), target) == spec.allow.end()) {
        problems.push_back((target.empty() ? std::string("a GPU of unknown gfx") : target) + " is not allowed");
      }
    }
  }
  const Evidence evidence{seen->source, join(seen->targets, ", ")};
  if (!problems.empty())
    return failed("gfx targets " + join(seen->targets, ", ") + ": " + join(problems, "; "), {evidence});
  return passed("gfx targets " + join(seen->targets, ", ") + " meet the rule", {evidence});
}

std::string gpu_list(const std::vector<const Gpu*>& gpus) {
  std::vector<std::string> labels;
  for (const Gpu* gpu : gpus) labels.push_back(gpu->label());
  return join(labels, "; ");
}

Judgement judge_gpu_count(const Rule& rule, const CheckContext& ctx) {
  const int min = std::get<GpuCountRule>(rule.spec).min;
  if (ctx.options().image_mode) return image_has_no_hardware("the GPU count");
  const auto gpus = ctx.fact<GpuInventory>().kfd_gpus();
  const auto count = static_cast<int>(gpus.size());
  const Evidence evidence{"KFD topology", fmt::format("{} GPU(s){}", count, gpus.empty() ? "" : ": " + gpu_list(gpus))};
  if (count >= min) return passed(fmt::format("{} GPU(s) visible to ROCm, at least {}", count, min), {evidence});
  return failed(fmt::format("{} GPU(s) visible to ROCm, the policy requires at least {}", count, min), {evidence});
}

Judgement judge_gpu_vram(const Rule& rule, const CheckContext& ctx) {
  const double min_gib = std::get<GpuVramRule>(rule.spec).min_gib;
  if (ctx.options().image_mode) return image_has_no_hardware("GPU memory");
  const auto gpus = ctx.fact<GpuInventory>().kfd_gpus();
  if (gpus.empty()) return failed("no GPU is visible to ROCm", {{"KFD topology", "no GPU node"}});
  std::vector<std::string> problems;
  std::vector<std::string> open;
  std::vector<Evidence> evidence;
  for (const Gpu* gpu : gpus) {
    const auto source = "/sys/class/drm/" + gpu->card + "/device/mem_info_vram_total";
    if (!gpu->vram_total) {
      open.push_back(gpu->label() + ": VRAM size unknown");
      evidence.push_back({source, "unreadable"});
      continue;
    }
    const double gib = static_cast<double>(*gpu->vram_total) / kGiB;
    evidence.push_back({source, fmt::format("{} bytes ({:.1f} GiB)", *gpu->vram_total, gib)});
    if (gib < min_gib)
      problems.push_back(fmt::format("{} has {:.1f} GiB, less than {:g} GiB", gpu->label(), gib, min_gib));
  }
  return combine(problems, open, fmt::format("every GPU has at least {:g} GiB of VRAM", min_gib), std::move(evidence),
                 "the gpu-arch check reports the GPU inventory");
}

// ---- torch: from its files or the python probe (rocm_doctor/facts/torch_view.h) ----

std::optional<std::string> string_field(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return std::nullopt;
  return object[key].get<std::string>();
}

// "rocm6.2" -> "6.2"; nullopt for another local tag ("cu121", "git1b2c3d").
std::optional<std::string> rocm_tag(std::string_view local) {
  if (!local.starts_with("rocm") || local.size() == 4) return std::nullopt;
  return std::string(local.substr(4));
}

std::optional<Judgement> torch_unavailable(const std::optional<nlohmann::json>& outcome) {
  if (!outcome) {
    return unknown("the python probe did not run (--level quick, or a snapshot captured without probe results)",
                   "run at --level standard (the default) or full; capture snapshots the same way");
  }
  const auto status = outcome->value("status", std::string("unknown"));
  if (status != "ok" || !outcome->contains("result") || !(*outcome)["result"].is_object()) {
    return unknown("the python probe did not finish (" + status + ")",
                   "see the probe check; --probe-timeout gives it more time");
  }
  return std::nullopt;
}

Judgement judge_torch(const Rule& rule, const CheckContext& ctx) {
  const auto& spec = std::get<TorchRule>(rule.spec);
  const auto& outcome = ctx.fact<TorchView>().outcome;
  if (auto reason = torch_unavailable(outcome)) return *reason;
  const auto& result = (*outcome)["result"];
  // The evidence names the source: torch's files, or the probe's `import torch`.
  const std::string source = result.value("source", std::string()) == "files" ? "torch files" : "probe python";
  const auto executable = string_field(result, "executable");
  if (!executable) {
    return failed(
        "no Python interpreter was found (" + string_field(result, "error").value_or("python3 not on PATH") + ")",
        {{source, "no interpreter"}});
  }
  const auto& torch = result.contains("torch") ? result["torch"] : nlohmann::json();
  if (!torch.is_object()) return failed("PyTorch is not installed for " + *executable, {{source, *executable}});
  if (const auto error = string_field(torch, "error"))
    return failed("import torch failed: " + *error, {{source, *error}});
  const auto text = string_field(torch, "version").value_or("");
  const auto version = versions::parse(text);
  if (!version)
    return unknown("torch.__version__ '" + text + "' cannot be read", "", {{source + " torch.__version__", text}});
  std::vector<Evidence> evidence = {{source + " torch.__version__", text + " (" + *executable + ")"}};
  std::vector<std::string> problems;
  if (spec.version && !spec.version->contains(*version))
    problems.push_back("torch " + text + " is outside " + spec.version->text);
  if (spec.rocm) {
    auto tag = rocm_tag(version->local);
    std::string tag_source = "+rocm tag";
    if (!tag) {
      // Source builds carry no tag; torch.version.hip ("6.2.41134-8c743ae5d") still names the release.
      if (const auto hip = string_field(torch, "hip")) {
        tag = *hip;
        tag_source = "torch.version.hip";
        evidence.push_back({source + " torch.version.hip", *hip});
      }
    }
    if (!tag) {
      const auto cuda = string_field(torch, "cuda");
      problems.push_back("torch " + text + " is not a ROCm build" + (cuda ? " (CUDA " + *cuda + ")" : std::string()));
    } else if (!versions::satisfies(*tag, *spec.rocm)) {
      problems.push_back("torch " + text + " is built for ROCm " + *tag + " (" + tag_source + "), outside " +
                         spec.rocm->text);
    }
  }
  return combine(problems, {}, "torch " + text + " meets the rule", std::move(evidence));
}

// ---- libraries, env, os ----

Judgement judge_libraries(const Rule& rule, const CheckContext& ctx) {
  const auto& spec = std::get<LibrariesRule>(rule.spec);
  const auto& libraries = ctx.fact<MathLibraries>();
  if (!ctx.fact<RocmInstallation>().active)
    return failed("no ROCm installation was found", {{"ROCm", "not installed"}});
  std::vector<std::string> problems;
  std::vector<std::string> open;
  std::vector<Evidence> evidence;
  for (const auto& wanted : spec.require) {
    const auto* library = libraries.find(wanted.name);
    if (library == nullptr) {
      problems.push_back(wanted.name + " is not installed in " + libraries.lib_dir);
      evidence.push_back({libraries.lib_dir, "no " + wanted.name});
      continue;
    }
    evidence.push_back({library->file, library->version.empty() ? "present" : library->version});
    for (const auto& gfx : wanted.kernels_for) {
      const auto carries = library->carries(gfx);
      if (!carries)
        open.push_back(wanted.name + " has no kernel folder to look for " + gfx + " in");
      else if (!*carries)
        problems.push_back(wanted.name + " has no " + gfx + " kernels in " + library->kernel_dir);
    }
  }
  return combine(problems, open, "every required library is installed with its kernels", std::move(evidence),
                 "the libraries check shows where the kernel files were looked for");
}

Judgement judge_env(const Rule& rule, const CheckContext& ctx) {
  const auto& spec = std::get<EnvRule>(rule.spec);
  std::vector<std::string> problems;
  std::vector<Evidence> evidence;
  for (const auto& [name, wanted] : spec.require) {
    const auto value = ctx.host().env(name);
    evidence.push_back({"env " + name, value.value_or("unset")});
    if (!value)
      problems.push_back(name + " is not set" + (wanted ? " (required: " + *wanted + ")" : std::string()));
    else if (wanted && *value != *wanted)
      problems.push_back(name + "=" + *value + ", the policy requires " + *wanted);
  }
  for (const auto& [name, unwanted] : spec.forbid) {
    const auto value = ctx.host().env(name);
    if (!value) continue;
    evidence.push_back({"env " + name, *value});
    if (!unwanted || *value == *unwanted) problems.push_back(name + "=" + *value + " is forbidden");
  }
  return combine(problems, {}, "the environment meets the rule", std::move(evidence));
}

bool os_matches(const OsAllowed& allowed, const SystemFacts& facts) {
  if (lower(allowed.id) != lower(facts.os_id)) return false;
  return !allowed.version || versions::satisfies(facts.os_version_id, *allowed.version);
}

Judgement judge_os(const Rule& rule, const CheckContext& ctx) {
  const auto& spec = std::get<OsRule>(rule.spec);
  const auto& facts = ctx.fact<SystemFacts>();
  if (facts.os_id.empty()) {
    return unknown("/etc/os-release has no ID", "the os check shows what was read", {{"/etc/os-release", "no ID"}});
  }
  const auto system = facts.os_id + (facts.os_version_id.empty() ? "" : " " + facts.os_version_id);
  const Evidence evidence{"/etc/os-release", "ID=" + facts.os_id + " VERSION_ID=" + facts.os_version_id};
  std::vector<std::string> allowed;
  for (const auto& entry : spec.allow) {
    if (os_matches(entry, facts)) return passed(system + " is allowed", {evidence});
    allowed.push_back(entry.id + (entry.version ? " " + entry.version->text : std::string()));
  }
  return failed(system + " is not among the allowed systems (" + join(allowed, "; ") + ")", {evidence});
}

using Judge = std::function<Judgement(const Rule&, const CheckContext&)>;

const std::map<std::string_view, Judge>& judges() {
  static const std::map<std::string_view, Judge> table = {
      {"rocm", judge_rocm},
      {"amdgpu-driver", judge_driver},
      {"gfx", judge_gfx},
      {"gpu-count", judge_gpu_count},
      {"gpu-vram", judge_gpu_vram},
      {"torch", judge_torch},
      {"libraries", judge_libraries},
      {"env", judge_env},
      {"os", judge_os},
  };
  return table;
}

}  // namespace

Judgement judge(const Rule& rule, const CheckContext& ctx) {
  const auto it = judges().find(rule.name);
  if (it == judges().end()) return unknown("rule kind '" + rule.name + "' has no judge in this build", "");
  return it->second(rule, ctx);
}

}  // namespace rocm_doctor::policy
