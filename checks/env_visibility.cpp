// `env`: GPU visibility lists (ROCR_/HIP_/CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL)
// judged against the GPUs this machine has.
#include <fmt/format.h>

#include <algorithm>

#include "env.h"
#include "env_lint.h"
#include "env_variables_table.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/job_gpus.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::env_check {

using env_lint::DeviceList;
using env_lint::parse_device_list;

namespace {

// "GPU-<16 hex digits>" of each KFD GPU, from its topology `unique_id`.
std::vector<std::string> gpu_uuids(const Host& host, const GpuInventory& inventory) {
  std::vector<std::string> uuids;
  for (const auto* gpu : inventory.kfd_gpus()) {
    if (!gpu->node_id) continue;
    auto text = host.read_file(fmt::format("/sys/class/kfd/kfd/topology/nodes/{}/properties", *gpu->node_id));
    if (!text) continue;
    auto node = parse_kfd_properties(*gpu->node_id, *text);
    if (!node) continue;
    if (auto id = node->get("unique_id"); id && *id != 0) uuids.push_back(fmt::format("{:016x}", *id));
  }
  return uuids;
}

// Why index `index` names no GPU: the machine has fewer, or (inside a confined
// job) the job's GPUs are numbered from 0 and this one is not among them.
std::string missing_gpu_text(unsigned index, int kfd_count, const JobGpus& job) {
  if (!job.confined()) {
    return fmt::format("there is no GPU {} (the driver lists {} GPU(s): 0 to {})", index, kfd_count, kfd_count - 1);
  }
  return fmt::format(
      "index {} names a GPU this job cannot use: its device cgroup leaves it {} of the machine's {} GPUs, which ROCm "
      "numbers 0 to {}",
      index, kfd_count, job.machine_gpus, kfd_count - 1);
}

// A list that repeats the scheduler's global ids (SLURM_JOB_GPUS) inside a
// confined job: ids, not the job's indices.
bool repeats_global_ids(const std::string& value, const JobGpus& job) {
  if (!job.confined() || !job.job || job.job->allocated.empty()) return false;
  return parse_gpu_id_list(value) == job.job->allocated;
}

}  // namespace

void visibility_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings) {
  const auto& inventory = ctx.fact<GpuInventory>();
  const int kfd_count = static_cast<int>(inventory.kfd_gpus().size());
  const bool judge_existence = !ctx.options().image_mode && kfd_count > 0;
  const auto uuids = gpu_uuids(ctx.host(), inventory);
  const auto& job = ctx.fact<JobGpus>();
  std::optional<int> rocr_count;  // GPUs left after ROCR_VISIBLE_DEVICES
  std::map<std::string, DeviceList> parsed;
  const auto invalid = [&](const std::string& name, const std::string& value, const std::string& what,
                           const std::string& token) {
    auto finding = make_finding("env.visible-devices-invalid", Severity::error,
                                fmt::format("{}={} is invalid: {}", name, value, what))
                       .because(fmt::format("The runtime reads {} at start-up; an entry it cannot use hides GPUs "
                                            "(or all of them) from every application started from this environment.",
                                            name))
                       .with_evidence("env " + name, value);
    if (!token.empty()) finding.with_evidence("bad entry", token);
    if (judge_existence && job.confined()) {
      finding.with_evidence("/sys/class/kfd/kfd/topology/nodes",
                            fmt::format("{} GPU(s) this job may use, {} on the machine", kfd_count, job.machine_gpus));
    } else if (judge_existence) {
      finding.with_evidence("/sys/class/kfd/kfd/topology/nodes", fmt::format("{} GPU(s)", kfd_count));
    }
    if (repeats_global_ids(value, job)) {
      finding.detail += fmt::format(
          " {} holds the scheduler's global GPU ids ({}={}). Inside a job whose device cgroup keeps it to its GPUs, "
          "ROCm sees only those and numbers them from 0 (Slurm itself sets ROCR_VISIBLE_DEVICES=0,... under "
          "ConstrainDevices=yes), so the ids name GPUs this job cannot use.",
          name, job.job->gpu_variables.contains("SLURM_STEP_GPUS") ? "SLURM_STEP_GPUS" : "SLURM_JOB_GPUS",
          join(job.job->allocated, ","));
    }
    std::vector<std::string> all;
    for (int i = 0; i < kfd_count; ++i) all.push_back(std::to_string(i));
    std::vector<std::string> commands = {"unset " + name};
    if (kfd_count > 0) commands.push_back("export " + name + "=" + join(all, ","));
    finding.with_fix(make_fix(
        kCheckId,
        "Unset it (every GPU is visible), or list valid comma-separated indices" +
            std::string(name == "ROCR_VISIBLE_DEVICES" ? " or GPU-<uuid> values (rocminfo | grep Uuid)" : "") + ".",
        commands));
    findings.push_back(std::move(finding));
  };
  const auto& visibility_names = env_lint::env_variables_table().visibility_variables;  // ROCR_VISIBLE_DEVICES first
  for (const auto& name : visibility_names) {
    const auto value = env.get(name);
    if (!value) continue;
    auto list = parse_device_list(*value, name == "ROCR_VISIBLE_DEVICES");
    if (!list.error.empty()) {
      invalid(name, *value, list.error, list.bad_token);
      continue;
    }
    if (list.hides_all) {
      invalid(name, *value, trim(*value).empty() ? "an empty list hides every GPU" : "-1 hides every GPU", "");
      continue;
    }
    parsed[name] = list;
    if (name != "ROCR_VISIBLE_DEVICES") continue;
    if (!judge_existence) continue;
    bool ok = true;
    for (const auto& token : list.tokens) {
      if (token.index && static_cast<int>(*token.index) >= kfd_count) {
        invalid(name, *value, missing_gpu_text(*token.index, kfd_count, job), token.text);
        ok = false;
        break;
      }
      if (!token.uuid.empty() && !uuids.empty() &&
          std::none_of(uuids.begin(), uuids.end(), [&](const std::string& u) { return u == token.uuid; })) {
        invalid(name, *value,
                job.confined() ? "no GPU this job may use has this UUID (rocminfo | grep Uuid lists them)"
                               : "no GPU has this UUID (rocminfo | grep Uuid lists them)",
                token.text);
        ok = false;
        break;
      }
    }
    if (ok)
      rocr_count = static_cast<int>(list.tokens.size());
    else
      parsed.erase(name);
  }
  // HIP-level lists index the GPUs ROCR left visible.
  const int hip_base = rocr_count.value_or(kfd_count);
  for (const auto& name : std::vector<std::string>(visibility_names.begin() + 1, visibility_names.end())) {
    const auto it = parsed.find(name);
    if (it == parsed.end() || !judge_existence) continue;
    for (const auto& token : it->second.tokens) {
      if (!token.index || static_cast<int>(*token.index) < hip_base) continue;
      const auto value = *env.get(name);
      if (rocr_count) {
        const auto rocr = *env.get("ROCR_VISIBLE_DEVICES");
        auto finding =
            make_finding("env.visible-devices-conflict", Severity::warning,
                         fmt::format("ROCR_VISIBLE_DEVICES={} leaves {} GPU(s), so {}={} names a GPU that is gone",
                                     rocr, *rocr_count, name, value))
                .because(fmt::format("The filters compose: ROCR_VISIBLE_DEVICES filters first (at the HSA level) and "
                                     "renumbers what it keeps from 0; {} then picks from that renumbered list. "
                                     "Index {} does not exist after the first filter, so the application sees fewer "
                                     "GPUs than meant (or none).",
                                     name, *token.index))
                .with_evidence("env ROCR_VISIBLE_DEVICES", rocr)
                .with_evidence("env " + name, value);
        finding.with_fix(make_fix(kCheckId,
                                  "Use one variable: keep ROCR_VISIBLE_DEVICES (recommended on Linux) and drop the "
                                  "other, or index the renumbered list (0 to " +
                                      std::to_string(*rocr_count - 1) + ").",
                                  {"unset " + name}));
        findings.push_back(std::move(finding));
      } else {
        invalid(name, value, missing_gpu_text(*token.index, kfd_count, job), token.text);
      }
      break;
    }
  }
  // HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES both set, differently.
  const auto hip = env.get("HIP_VISIBLE_DEVICES");
  const auto cuda = env.get("CUDA_VISIBLE_DEVICES");
  if (hip && cuda && parsed.contains("HIP_VISIBLE_DEVICES") && parsed.contains("CUDA_VISIBLE_DEVICES") &&
      trim(*hip) != trim(*cuda)) {
    auto finding = make_finding("env.visible-devices-conflict", Severity::warning,
                                fmt::format("HIP_VISIBLE_DEVICES={} and CUDA_VISIBLE_DEVICES={} disagree", *hip, *cuda))
                       .because(
                           "Both select GPUs at the HIP level; HIP uses HIP_VISIBLE_DEVICES and the other is "
                           "ignored, so scripts that set CUDA_VISIBLE_DEVICES (launchers, schedulers) do not get "
                           "the GPUs they asked for. ROCR_VISIBLE_DEVICES, when set, filters before both.")
                       .with_evidence("env HIP_VISIBLE_DEVICES", *hip)
                       .with_evidence("env CUDA_VISIBLE_DEVICES", *cuda);
    finding.with_fix(make_fix(kCheckId, "Keep one of them.", {"unset CUDA_VISIBLE_DEVICES"}));
    findings.push_back(std::move(finding));
  }
}

}  // namespace rocm_doctor::env_check
