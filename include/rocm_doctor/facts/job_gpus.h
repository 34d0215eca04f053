// The GPUs this process may use: a Slurm job with ConstrainDevices=yes, a flux
// job under containment, a Kubernetes pod or a `docker --device` container sees
// every GPU in sysfs, but its device cgroup closes the render nodes of the
// others, KFD answers EPERM for their topology nodes and ROCm numbers the GPUs
// left from 0. That is a job's normal state, not a broken machine. Shared by
// the `job` check and the report's `job` section (docs/report-format.md#job).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

// The batch job this process runs in, from the variables its scheduler sets.
struct SchedulerJob {
  std::string scheduler;  // "slurm" or "flux"
  std::string id;         // SLURM_JOB_ID, FLUX_JOB_ID
  std::string step;       // SLURM_STEP_ID (empty when unset)
  // The scheduler's GPU variables that are set, name -> value, e.g.
  // SLURM_JOB_GPUS=4,5 (global ids, not relative to the device cgroup).
  std::map<std::string, std::string> gpu_variables;
  // The GPU ids the scheduler names for this step (SLURM_STEP_GPUS, else
  // SLURM_JOB_GPUS), as written; empty when it names none.
  std::vector<std::string> allocated;
};

// One GPU this process may use.
struct JobGpu {
  int index = -1;       // ROCm index inside the job (what *_VISIBLE_DEVICES count)
  int node_index = -1;  // its position among the machine's GPUs (KFD node order), as an unconfined rocm-smi numbers it
  std::optional<int> kfd_node;
  std::string pci_address;
  std::string render_node;
};

struct JobGpus {
  std::optional<SchedulerJob> job;
  int machine_gpus = 0;                          // GPUs KFD lists on this machine: usable and closed
  std::vector<JobGpu> usable;                    // in ROCm order
  std::vector<int> closed_kfd_nodes;             // KFD nodes whose properties answer EPERM
  std::vector<std::string> closed_pci;           // PCI addresses of GPUs closed to this process
  std::vector<std::string> closed_render_nodes;  // /dev/dri/renderD* that answered EPERM

  // The device cgroup closes some of this machine's GPUs to this process.
  [[nodiscard]] bool confined() const { return !closed_kfd_nodes.empty(); }
  // "0, 1" (ROCm indices of the usable GPUs).
  [[nodiscard]] std::string usable_list() const;
  [[nodiscard]] nlohmann::ordered_json to_json() const;

  static JobGpus collect(const CheckContext& ctx);
};

// Pure: the scheduler job from a variable lookup (tested with tables).
std::optional<SchedulerJob> scheduler_job(const std::map<std::string, std::string>& environment);
// "4,5" -> {"4", "5"}; Slurm may also write "NoDevFiles" or an empty list.
std::vector<std::string> parse_gpu_id_list(std::string_view value);

}  // namespace rocm_doctor
