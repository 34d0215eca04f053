// The GPUs this process may use (facts/job_gpus.h), and which GPUs seen on PCI
// are another job's (closed_by_device_cgroup, declared in facts/gpu_inventory.h).
#include "rocm_doctor/facts/job_gpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// The variables Slurm sets for a job's GPUs (sbatch(1), srun(1) "OUTPUT
// ENVIRONMENT VARIABLES"; gres_common.c writes the global ids there and, under
// ConstrainDevices, ids relative to the job in CUDA/ROCR_VISIBLE_DEVICES), and
// the one flux-core sets when containment is active (flux-core PR 7806).
constexpr std::array<std::string_view, 7> kSlurmGpuVariables = {
    "SLURM_STEP_GPUS",     "SLURM_JOB_GPUS",      "SLURM_GPUS_ON_NODE", "SLURM_GPUS",
    "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK", "SLURM_JOB_GRES"};
constexpr std::array<std::string_view, 1> kFluxGpuVariables = {"FLUX_EXEC_CONSTRAINED_RESOURCES"};

std::optional<std::string> lookup(const std::map<std::string, std::string>& environment, std::string_view name) {
  const auto it = environment.find(std::string(name));
  if (it == environment.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> render_node_of(const Host& host, const std::string& bdf) {
  const auto entries = host.list_dir("/sys/bus/pci/devices/" + bdf + "/drm");
  if (!entries) return std::nullopt;
  for (const auto& entry : *entries) {
    if (entry.name.starts_with("renderD")) return "/dev/dri/" + entry.name;
  }
  return std::nullopt;
}

enum class RenderState { open, closed, unknown };

// EPERM from access(2) is the device cgroup's answer; a node absent from /dev
// where other render nodes exist is a container given other GPUs.
RenderState render_state(const Host& host, const std::string& path) {
  const auto node = host.stat_node(path);
  if (!node) {
    return node.error().kind == HostErrorKind::not_found && host.exists("/dev/dri") ? RenderState::closed
                                                                                    : RenderState::unknown;
  }
  if (node->access_error == "EPERM") return RenderState::closed;
  if (node->access == "rw") return RenderState::open;
  return RenderState::unknown;
}

std::map<std::string, std::string> job_environment(const Host& host) {
  std::map<std::string, std::string> environment;
  const auto keep = [&](std::string_view name) {
    if (auto value = host.env(name)) environment[std::string(name)] = *value;
  };
  for (const auto name : {"SLURM_JOB_ID", "SLURM_STEP_ID", "FLUX_JOB_ID"}) keep(name);
  for (const auto name : kSlurmGpuVariables) keep(name);
  for (const auto name : kFluxGpuVariables) keep(name);
  return environment;
}

}  // namespace

bool closed_by_device_cgroup(const Host& host, const GpuInventory& inventory, const std::string& bdf,
                             std::size_t pci_only_gpus) {
  if (inventory.closed_kfd_nodes.empty()) return false;
  if (const auto render = render_node_of(host, bdf)) {
    const auto state = render_state(host, *render);
    if (state != RenderState::unknown) return state == RenderState::closed;
  }
  return pci_only_gpus <= inventory.closed_kfd_nodes.size();
}

std::vector<std::string> parse_gpu_id_list(std::string_view value) {
  std::vector<std::string> ids;
  for (const auto part : split(value, ',')) {
    const auto id = trim(part);
    if (id.empty() || id == "NoDevFiles") continue;
    ids.emplace_back(id);
  }
  return ids;
}

std::optional<SchedulerJob> scheduler_job(const std::map<std::string, std::string>& environment) {
  SchedulerJob job;
  if (auto id = lookup(environment, "SLURM_JOB_ID")) {
    job.scheduler = "slurm";
    job.id = *id;
    job.step = lookup(environment, "SLURM_STEP_ID").value_or("");
    for (const auto name : kSlurmGpuVariables) {
      if (auto value = lookup(environment, name)) job.gpu_variables[std::string(name)] = *value;
    }
    const auto ids = lookup(environment, "SLURM_STEP_GPUS");
    job.allocated = parse_gpu_id_list(ids ? *ids : lookup(environment, "SLURM_JOB_GPUS").value_or(""));
    return job;
  }
  if (auto id = lookup(environment, "FLUX_JOB_ID")) {
    job.scheduler = "flux";
    job.id = *id;
    for (const auto name : kFluxGpuVariables) {
      if (auto value = lookup(environment, name)) job.gpu_variables[std::string(name)] = *value;
    }
    return job;
  }
  return std::nullopt;
}

std::string JobGpus::usable_list() const {
  std::vector<std::string> indices;
  for (const auto& gpu : usable) indices.push_back(std::to_string(gpu.index));
  return join(indices, ", ");
}

JobGpus JobGpus::collect(const CheckContext& ctx) {
  const Host& host = ctx.host();
  const auto& inventory = ctx.fact<GpuInventory>();
  JobGpus gpus;
  gpus.job = scheduler_job(job_environment(host));
  gpus.closed_kfd_nodes = inventory.closed_kfd_nodes;
  // Every GPU node in KFD order, open or closed: the machine's own numbering.
  std::vector<int> nodes = inventory.closed_kfd_nodes;
  for (const auto* gpu : inventory.kfd_gpus()) {
    if (gpu->node_id) nodes.push_back(*gpu->node_id);
  }
  std::sort(nodes.begin(), nodes.end());
  gpus.machine_gpus = static_cast<int>(inventory.kfd_gpus().size() + inventory.closed_kfd_nodes.size());
  for (const auto* gpu : inventory.kfd_gpus()) {
    JobGpu row;
    row.index = gpu->index;
    row.kfd_node = gpu->node_id;
    if (gpu->node_id) {
      row.node_index = static_cast<int>(std::find(nodes.begin(), nodes.end(), *gpu->node_id) - nodes.begin());
    }
    row.pci_address = gpu->bdf;
    row.render_node = gpu->render_node();
    gpus.usable.push_back(std::move(row));
  }
  for (const auto& gpu : inventory.gpus) {
    if (gpu.closed) gpus.closed_pci.push_back(gpu.bdf);
  }
  if (const auto entries = host.list_dir("/dev/dri"); entries && gpus.confined()) {
    for (const auto& entry : *entries) {
      if (!entry.name.starts_with("renderD")) continue;
      const auto path = "/dev/dri/" + entry.name;
      if (render_state(host, path) == RenderState::closed) gpus.closed_render_nodes.push_back(path);
    }
  }
  return gpus;
}

nlohmann::ordered_json JobGpus::to_json() const {
  nlohmann::ordered_json out;
  if (job) {
    out["scheduler"] = job->scheduler;
    out["id"] = job->id;
    out["step"] = job->step.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(job->step);
    out["allocated"] = job->allocated;
    nlohmann::ordered_json variables = nlohmann::ordered_json::object();
    for (const auto& [name, value] : job->gpu_variables) variables[name] = value;
    out["variables"] = std::move(variables);
  } else {
    out["scheduler"] = nullptr;
  }
  out["confined"] = confined();
  out["machine_gpus"] = machine_gpus;
  auto rows = nlohmann::ordered_json::array();
  for (const auto& gpu : usable) {
    nlohmann::ordered_json row;
    row["index"] = gpu.index;
    row["machine_index"] = gpu.node_index >= 0 ? nlohmann::ordered_json(gpu.node_index) : nullptr;
    row["kfd_node"] = gpu.kfd_node ? nlohmann::ordered_json(*gpu.kfd_node) : nullptr;
    row["pci_address"] = gpu.pci_address;
    row["render_node"] =
        gpu.render_node.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.render_node);
    rows.push_back(std::move(row));
  }
  out["usable"] = std::move(rows);
  out["closed_kfd_nodes"] = closed_kfd_nodes;
  out["closed_pci_addresses"] = closed_pci;
  out["closed_render_nodes"] = closed_render_nodes;
  return out;
}

}  // namespace rocm_doctor
