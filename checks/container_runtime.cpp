// `container`: which runtime this is (Docker, Podman, Kubernetes, Apptainer, LXC) from
// what it left behind, and the fix that passes the GPU in with that runtime.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "container.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "table_loader.h"

namespace rocm_doctor::container {

namespace {

std::string image_or_placeholder(const Runtime& runtime, std::string_view placeholder) {
  return runtime.image.empty() ? std::string(placeholder) : shell_quote(runtime.image);
}

Fix kubernetes_fix(const std::string& group_flags, bool only_groups) {
  std::vector<std::string> commands;
  if (!only_groups) commands = {shell_command({"kubectl", "create", "-f", data().plugin_manifest})};
  commands.push_back("kubectl get nodes -o custom-columns=NAME:.metadata.name,GPUS:.status.allocatable.amd\\.com/gpu");
  return make_fix(
      kCheckId,
      only_groups ? "Give the pod the numeric group of the device nodes: spec.securityContext.supplementalGroups: [" +
                        group_flags + "] (a group name cannot be used there). Run on a machine with kubectl access:"
                  : "Deploy AMD's GPU device plugin on the cluster (it needs the amdgpu driver on every GPU node) "
                    "and request the GPUs in the container spec: resources: limits: amd.com/gpu: 1 (GPUs go in "
                    "limits only). The plugin then passes /dev/kfd and the GPU's /dev/dri nodes in. Run on a "
                    "machine with kubectl access:",
      std::move(commands));
}

Fix apptainer_fix(const Runtime& runtime, bool only_groups) {
  if (only_groups) {
    return make_fix(kCheckId,
                    "Apptainer runs you with your host identity and groups: on the host, add your user to the group "
                    "that owns the GPU nodes (render), log in again, then start the container with --rocm.",
                    {"sudo usermod -aG render \"$USER\""}, FixNeeds{.relogin = true});
  }
  return make_fix(kCheckId,
                  "Start the container with --rocm: Apptainer then binds /dev/kfd, /dev/dri and the host's ROCm "
                  "libraries listed in rocmliblist.conf. Run on the host:",
                  {fmt::format("{} exec --rocm {} rocminfo", runtime.apptainer_command,
                               image_or_placeholder(runtime, "IMAGE.sif"))});
}

Fix lxc_fix(const std::string& group_flags) {
  std::string description =
      "Pass the GPU into the LXC/LXD/Incus container on the host (the container must then be restarted); "
      "for plain LXC add lxc.cgroup2.devices.allow and lxc.mount.entry lines for /dev/kfd and /dev/dri to its "
      "config. On the host:";
  if (!group_flags.empty()) {
    description += " Then give the container user the device nodes' numeric group (" + group_flags +
                   ") through the container's idmap, or the gid= option of the gpu device.";
  }
  return make_fix(
      kCheckId, std::move(description),
      {"lxc config device add CONTAINER gpu gpu", "lxc config device add CONTAINER kfd unix-char path=/dev/kfd"});
}

Fix rootless_podman_fix(const std::string& image, bool only_groups) {
  return make_fix(
      kCheckId,
      std::string(only_groups ? "The nodes are owned by a host group this rootless container cannot see. " : "") +
          "Recreate the container on the host with the devices and --group-add keep-groups (rootless "
          "podman then keeps your host user's supplementary groups, render included; it needs the crun "
          "runtime). Your host user must itself be in render. On the host:",
      {fmt::format("podman run --device /dev/kfd --device /dev/dri --group-add keep-groups "
                   "--security-opt seccomp=unconfined {}",
                   image)});
}

Fix docker_run_fix(const std::string& tool, const std::string& image, const std::string& group_flags,
                   bool only_groups) {
  const auto groups =
      group_flags.empty() ? fmt::format("--group-add video --group-add {}", kHostRenderGid) : group_flags;
  return make_fix(kCheckId,
                  fmt::format("A container's devices and groups are fixed when it starts: recreate it on the host "
                              "with the device nodes and the host's numeric group id{}. Run on the host (not in this "
                              "container):",
                              only_groups ? "" : " (getent on the host prints the host's render gid)"),
                  {fmt::format("{} run --device=/dev/kfd --device=/dev/dri {} --security-opt seccomp=unconfined {}",
                               tool, groups, image)});
}

}  // namespace

namespace {

// Throws "container.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
Data container_data_from(data_table::TableReader& reader) {
  Data d;
  d.shm_min = check_tables::value_of<std::uint64_t>(reader, "shm_min_bytes_multi_gpu");
  d.overflow_gid = check_tables::value_of<std::uint32_t>(reader, "overflow_gid");
  d.plugin_manifest = check_tables::value_of<std::string>(reader, "k8s_device_plugin_manifest");
  return d;
}

const check_tables::TableLoader<Data, &container_data_from> kContainerTable("container.json");

}  // namespace

const Data& data() {
  return kContainerTable.get();
}

Runtime describe_runtime(const Host& host, const std::string& kind) {
  Runtime runtime;
  runtime.kind = kind;
  if (host.exists("/.dockerenv")) runtime.evidence.push_back({"/.dockerenv", "present"});
  if (auto env = host.read_file("/run/.containerenv")) {
    const auto values = parse_env_file(*env);
    std::string summary;
    for (const char* key : {"engine", "image", "rootless"}) {
      if (const auto it = values.find(key); it != values.end()) {
        summary += (summary.empty() ? "" : " ") + std::string(key) + "=" + it->second;
      }
    }
    runtime.evidence.push_back({"/run/.containerenv", summary.empty() ? "present" : summary});
    if (const auto it = values.find("rootless"); it != values.end() && it->second == "1") runtime.rootless = true;
    if (const auto it = values.find("image"); it != values.end()) runtime.image = it->second;
  }
  if (auto value = host.env("KUBERNETES_SERVICE_HOST"))
    runtime.evidence.push_back({"env KUBERNETES_SERVICE_HOST", *value});
  if (host.exists("/var/run/secrets/kubernetes.io/serviceaccount")) {
    runtime.evidence.push_back({"/var/run/secrets/kubernetes.io/serviceaccount", "present"});
  }
  for (const char* name : {"APPTAINER_CONTAINER", "SINGULARITY_CONTAINER"}) {
    if (auto value = host.env(name)) {
      runtime.evidence.push_back({std::string("env ") + name, *value});
      if (runtime.image.empty()) runtime.image = *value;
      if (std::string_view(name).starts_with("SINGULARITY") && !host.env("APPTAINER_CONTAINER")) {
        runtime.apptainer_command = "singularity";
      }
    }
  }
  if (host.exists("/.singularity.d")) runtime.evidence.push_back({"/.singularity.d", "present"});
  if (auto value = host.env("container")) runtime.evidence.push_back({"env container", *value});
  if (auto cgroup = host.read_trimmed("/proc/1/cgroup"); cgroup && !cgroup->empty()) {
    const auto first = lines(*cgroup);
    if (!first.empty()) runtime.evidence.push_back({"/proc/1/cgroup", std::string(first.front())});
  }
  if (auto uid_map = host.read_file("/proc/self/uid_map")) {
    runtime.user_namespace = in_user_namespace(*uid_map);
    if (runtime.user_namespace) {
      runtime.evidence.push_back({"/proc/self/uid_map", std::string(trim(*uid_map))});
      if (kind == "podman") runtime.rootless = true;
    }
  }
  return runtime;
}

Fix pass_devices_fix(const Runtime& runtime, const std::string& group_flags, bool only_groups) {
  if (runtime.kind == "kubernetes") return kubernetes_fix(group_flags, only_groups);
  if (runtime.kind == "apptainer") return apptainer_fix(runtime, only_groups);
  if (runtime.kind == "lxc") return lxc_fix(group_flags);
  const auto image = image_or_placeholder(runtime, "IMAGE");
  const std::string tool = runtime.kind == "podman" ? "podman" : "docker";
  if (tool == "podman" && runtime.rootless) return rootless_podman_fix(image, only_groups);
  return docker_run_fix(tool, image, group_flags, only_groups);
}

}  // namespace rocm_doctor::container
