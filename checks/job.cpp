// `job`: which of this machine's GPUs this process may use. Inside a Slurm job
// with ConstrainDevices=yes, a flux job under containment, a Kubernetes pod or
// a `docker --device` container the device cgroup closes the other GPUs: that
// is a job's normal state, reported as information, never as a fault.
#include <fmt/format.h>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/job_gpus.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::job_check {
namespace {

constexpr std::string_view kCheckId = "job";

std::string job_name(const SchedulerJob& job) {
  const auto scheduler = job.scheduler == "slurm" ? std::string("Slurm") : std::string("flux");
  return job.step.empty() ? fmt::format("{} job {}", scheduler, job.id)
                          : fmt::format("{} job {} (step {})", scheduler, job.id, job.step);
}

// "this Slurm job 1234", "this container", "this process".
std::string subject_of(const JobGpus& gpus, const std::string& container) {
  if (gpus.job) return job_name(*gpus.job);
  if (!container.empty()) return "This " + container + " container";
  return "This process";
}

void add_job_evidence(Finding& finding, const JobGpus& gpus) {
  if (!gpus.job) return;
  finding.with_evidence(gpus.job->scheduler == "slurm" ? "env SLURM_JOB_ID" : "env FLUX_JOB_ID", gpus.job->id);
  for (const auto& [name, value] : gpus.job->gpu_variables) finding.with_evidence("env " + name, value);
}

void add_confinement_evidence(Finding& finding, const JobGpus& gpus) {
  std::vector<std::string> nodes;
  for (const auto node : gpus.closed_kfd_nodes) nodes.push_back(std::to_string(node));
  finding.with_evidence(
      "/sys/class/kfd/kfd/topology/nodes",
      fmt::format("node{} {}: properties answer EPERM", nodes.size() == 1 ? "" : "s", join(nodes, ", ")));
  if (!gpus.closed_render_nodes.empty()) {
    finding.with_evidence("access(2) EPERM", join(gpus.closed_render_nodes, ", "));
  }
  if (!gpus.closed_pci.empty()) finding.with_evidence("closed GPUs (PCI)", join(gpus.closed_pci, ", "));
}

std::string usable_rows(const JobGpus& gpus) {
  std::vector<std::string> rows;
  for (const auto& gpu : gpus.usable) {
    auto row = fmt::format("GPU {} = {}", gpu.index, gpu.pci_address);
    if (gpu.node_index >= 0 && gpus.confined()) row += fmt::format(" (the machine's GPU {})", gpu.node_index);
    if (!gpu.render_node.empty()) row += " " + gpu.render_node;
    rows.push_back(std::move(row));
  }
  return join(rows, "; ");
}

// What the scheduler allocated, when it says and the count differs from what the job may open.
std::string allocation_note(const JobGpus& gpus) {
  if (!gpus.job || gpus.job->allocated.empty()) return "";
  const auto allocated = gpus.job->allocated.size();
  if (allocated == gpus.usable.size()) return "";
  if (!gpus.confined()) {
    return fmt::format(
        " The scheduler allocated {} GPU(s) ({}) but no device cgroup keeps the job to them (Slurm "
        "ConstrainDevices=no): the job must keep to them itself, through the ROCR_VISIBLE_DEVICES Slurm sets.",
        allocated, join(gpus.job->allocated, ","));
  }
  return fmt::format(" The scheduler names {} GPU(s) ({}), the device cgroup lets this process open {}.", allocated,
                     join(gpus.job->allocated, ","), gpus.usable.size());
}

Finding gpus_finding(const JobGpus& gpus, const std::string& container) {
  const auto who = subject_of(gpus, container);
  std::string summary;
  std::string because;
  if (gpus.confined()) {
    summary = fmt::format("{} may use GPU{} {} ({} of {})", who, gpus.usable.size() == 1 ? "" : "s", gpus.usable_list(),
                          gpus.usable.size(), gpus.machine_gpus);
    because = fmt::format(
        "The device cgroup (Slurm ConstrainDevices=yes, flux containment, a container's --device list, a pod's "
        "device plugin) closes the other {} GPU(s): KFD answers EPERM for their topology nodes and their render "
        "nodes refuse open(2). ROCm skips them and numbers the GPUs this job may use from 0, so "
        "ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES count these, not the machine's. "
        "Nothing is wrong: this is how a job is kept to its GPUs.",
        gpus.machine_gpus - static_cast<int>(gpus.usable.size()));
  } else if (gpus.usable.empty()) {
    summary = fmt::format("Inside {}", job_name(*gpus.job));
    because = "ROCm lists no GPU on this machine (the driver and gpu-arch checks say why).";
  } else {
    summary = fmt::format("Inside {}: this process may use all {} GPU(s) of the machine", job_name(*gpus.job),
                          gpus.usable.size());
    because = "No device cgroup closes a GPU to this job; ROCm numbers every GPU of the machine.";
  }
  because += allocation_note(gpus);
  auto finding = make_finding("job.gpus", Severity::info, summary).because(because);
  add_job_evidence(finding, gpus);
  if (!gpus.usable.empty()) finding.with_evidence("usable GPUs", usable_rows(gpus));
  if (gpus.confined()) add_confinement_evidence(finding, gpus);
  return finding;
}

// No command: a new job is started by its owner, never by `rocm-doctor fix`.
Fix request_gpus_fix(const JobGpus& gpus, const std::string& container) {
  if (gpus.job && gpus.job->scheduler == "slurm") {
    return make_fix(kCheckId,
                    "Ask Slurm for GPUs when the job starts (a running job cannot gain any): srun or sbatch with "
                    "--gpus=N (or --gres=gpu:N), e.g. `srun --gpus=1 rocm-doctor` to see the job's GPU");
  }
  if (gpus.job) {
    return make_fix(kCheckId,
                    "Ask flux for GPUs when the job starts: flux run -g 1 (or --gpus-per-task=1), e.g. "
                    "`flux run -g 1 rocm-doctor`");
  }
  if (container == "kubernetes") {
    return make_fix(kCheckId,
                    "Give the pod GPUs: resources.limits amd.com/gpu: 1 in its spec (the AMD GPU device plugin "
                    "then passes /dev/kfd and the GPU's render node)");
  }
  return make_fix(kCheckId,
                  "Start the container with the GPU's device nodes: --device=/dev/kfd --device=/dev/dri/renderD<N> "
                  "(or --device=/dev/dri for all of them)");
}

Finding no_gpus_finding(const JobGpus& gpus, const std::string& container) {
  const auto who = subject_of(gpus, container);
  auto finding =
      make_finding("job.no-gpus", Severity::warning,
                   fmt::format("{} may use none of the machine's {} GPU(s)", who, gpus.machine_gpus))
          .because(
              "The device cgroup closes every GPU to this process: KFD answers EPERM for each GPU's topology node, "
              "so ROCm finds no device and every ROCm program here reports none (rocminfo lists CPUs only, "
              "torch.cuda.is_available() is False). The machine is fine: this job was given no GPU.");
  add_job_evidence(finding, gpus);
  add_confinement_evidence(finding, gpus);
  return finding.with_fix(request_gpus_fix(gpus, container));
}

class JobCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Job and device confinement"; }
  int order() const override { return 31; }  // right after access: which GPUs the access was about
  std::vector<std::string_view> finding_ids() const override { return {"job.gpus", "job.no-gpus"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode) return CheckOutcome::skipped("building an image: no job and no GPU");
    const auto& gpus = ctx.fact<JobGpus>();
    if (!gpus.job && !gpus.confined()) {
      return CheckOutcome::skipped("not in a Slurm or flux job, and no device cgroup closes a GPU");
    }
    const auto& container = ctx.fact<SystemFacts>().container;
    if (gpus.confined() && gpus.usable.empty()) return {{no_gpus_finding(gpus, container)}};
    return {{gpus_finding(gpus, container)}};
  }
};

}  // namespace
}  // namespace rocm_doctor::job_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::job_check::JobCheck)
