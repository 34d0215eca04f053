// `env`: debugging switches left on, the PyTorch allocator config, and build
// target lists against the gfx targets this machine needs.
#include <fmt/format.h>

#include <algorithm>

#include "env.h"
#include "env_lint.h"
#include "env_variables_table.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::env_check {

using env_lint::base_target;
using env_lint::check_alloc_conf;
using env_lint::parse_arch_list;
using env_lint::switch_on;

namespace {

// The gfx targets this machine needs: each GPU's own, or its override's.
std::vector<std::string> needed_targets(const CheckContext& ctx, const Environment& env) {
  if (ctx.options().image_mode) return ctx.options().target_gfx;
  std::vector<std::string> targets;
  std::optional<std::string> global_override;
  if (auto value = env.get("HSA_OVERRIDE_GFX_VERSION")) {
    if (auto version = parse_override_value(trim(*value))) global_override = gfx_name(*version);
  }
  for (const auto* gpu : ctx.fact<GpuInventory>().kfd_gpus()) {
    std::optional<std::string> target = global_override;
    if (gpu->node_id) {
      if (auto value = env.get(fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *gpu->node_id))) {
        if (auto version = parse_override_value(trim(*value))) target = gfx_name(*version);
      }
    }
    if (!target && !gpu->gfx.empty()) target = gpu->gfx;
    if (target && std::find(targets.begin(), targets.end(), *target) == targets.end()) targets.push_back(*target);
  }
  return targets;
}

}  // namespace

void debug_switch_findings(const Environment& env, std::vector<Finding>& findings) {
  if (auto value = env.get("HIP_LAUNCH_BLOCKING"); value && switch_on(*value)) {
    auto finding = make_finding("env.launch-blocking", Severity::warning,
                                "HIP_LAUNCH_BLOCKING=" + *value + " makes every kernel launch wait for the GPU")
                       .because(
                           "HIP_LAUNCH_BLOCKING is a debugging switch: each launch blocks until the kernel ends, "
                           "so CPU and GPU never overlap and training runs several times slower. It does not "
                           "tune all-reduce or multi-GPU communication (a widely copied tuning guide says it "
                           "does: that advice is wrong). Set it only while hunting which kernel faults.")
                       .with_evidence("env HIP_LAUNCH_BLOCKING", *value);
    finding.with_fix(
        make_fix(kCheckId, "Unset it (and remove it from ~/.bashrc or /etc/profile.d if it is exported there).",
                 {"unset HIP_LAUNCH_BLOCKING",
                  "grep -n HIP_LAUNCH_BLOCKING ~/.bashrc ~/.profile /etc/profile /etc/profile.d/* 2>/dev/null"}));
    findings.push_back(std::move(finding));
  }
  for (const std::string name : {"AMD_SERIALIZE_KERNEL", "AMD_SERIALIZE_COPY"}) {
    const auto value = env.get(name);
    if (!value || !switch_on(*value)) continue;
    auto finding = make_finding("env.serialize", Severity::warning,
                                name + "=" + *value + " serializes " +
                                    (name == "AMD_SERIALIZE_KERNEL" ? "kernel launches" : "memory copies"))
                       .because(
                           "A debugging switch of the HIP runtime (1: wait before, 2: wait after, 3: both): "
                           "every operation waits for the previous one, which costs a large slowdown. Leave it "
                           "off outside a debugging session.")
                       .with_evidence("env " + name, *value);
    finding.with_fix(make_fix(kCheckId, "Unset it.", {"unset " + name}));
    findings.push_back(std::move(finding));
  }
  if (auto value = env.get("AMD_LOG_LEVEL")) {
    const auto level = parse_uint(trim(*value));
    if (level && *level >= 3) {
      auto finding =
          make_finding("env.debug-logging", Severity::warning, "AMD_LOG_LEVEL=" + *value + " logs every HIP call")
              .because(
                  "Levels 3 (info) and 4 (debug) print a line for every runtime call to stderr: a "
                  "debugging aid that slows everything down and floods logs. 0 (the default) or 1 "
                  "(errors) are meant for normal runs.")
              .with_evidence("env AMD_LOG_LEVEL", *value);
      finding.with_fix(
          make_fix(kCheckId, "Unset it (or use AMD_LOG_LEVEL=1 for errors only).", {"unset AMD_LOG_LEVEL"}));
      findings.push_back(std::move(finding));
    }
  }
}

void alloc_conf_findings(const Environment& env, std::vector<Finding>& findings) {
  for (const auto& name : env_lint::env_variables_table().alloc_conf_variables) {
    const auto value = env.get(name);
    if (!value) continue;
    const auto error = check_alloc_conf(*value);
    if (!error) continue;
    auto finding = make_finding("env.alloc-conf-invalid", Severity::error,
                                fmt::format("{}: '{}' is invalid: {}", name, error->token, error->reason))
                       .because(
                           "PyTorch parses the caching allocator config on the first GPU allocation and stops "
                           "with a RuntimeError on an option it does not accept, so every script fails at its "
                           "first tensor on the GPU. Options are key:value pairs separated by commas.")
                       .with_evidence("env " + name, *value)
                       .with_evidence("bad token", error->token);
    finding.with_fix(make_fix(kCheckId,
                              "Correct the token (e.g. garbage_collection_threshold:0.8,max_split_size_mb:512,"
                              "expandable_segments:True), or unset the variable.",
                              {"unset " + name}));
    findings.push_back(std::move(finding));
  }
}

void arch_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings) {
  const auto needed = needed_targets(ctx, env);
  for (const auto& name : env_lint::env_variables_table().arch_list_variables) {
    const auto value = env.get(name);
    if (!value) continue;
    const auto listed = parse_arch_list(*value);
    std::vector<std::string> unknown;
    std::vector<std::string> missing;
    for (const auto& target : listed) {
      if (kb::knowledge_base().target(base_target(target)) == nullptr) unknown.push_back(target);
    }
    for (const auto& target : needed) {
      if (std::none_of(listed.begin(), listed.end(), [&](const std::string& t) { return base_target(t) == target; })) {
        missing.push_back(target);
      }
    }
    if (unknown.empty() && missing.empty()) continue;
    std::vector<std::string> problems;
    if (!missing.empty()) problems.push_back(fmt::format("lacks {} (this machine's GPUs)", join(missing, ", ")));
    if (!unknown.empty()) problems.push_back(fmt::format("names {} (no such gfx target)", join(unknown, ", ")));
    auto finding = make_finding("env.rocm-arch-mismatch", Severity::warning,
                                fmt::format("{}={} {}", name, *value, join(problems, " and ")))
                       .because(name +
                                " chooses the GPU targets code is compiled for (a PyTorch or extension "
                                "source build, CMake projects): a binary without this GPU's target fails at "
                                "run time with hipErrorNoBinaryForGpu / 'invalid device function'.")
                       .with_evidence("env " + name, *value);
    if (!needed.empty()) finding.with_evidence("needed targets", join(needed, ", "));
    std::vector<std::string> fixed;
    for (const auto& target : listed) {
      if (kb::knowledge_base().target(base_target(target)) != nullptr) fixed.push_back(target);
    }
    for (const auto& target : missing) fixed.push_back(target);
    // Every one of these variables is a CMake list, so the fix writes ';' whatever was read.
    std::string joined;
    for (const auto& target : fixed) joined += (joined.empty() ? "" : ";") + target;
    if (!joined.empty())
      finding.with_fix(make_fix(kCheckId, "List this machine's targets (semicolon-separated).",
                                {"export " + name + "=" + shell_quote(joined)}));
    findings.push_back(std::move(finding));
  }
}

}  // namespace rocm_doctor::env_check
