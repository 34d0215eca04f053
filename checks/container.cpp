// `container`: inside Docker, Podman, Kubernetes, Apptainer/Singularity or LXC, are the GPU
// device nodes passed in, does the process hold their numeric group, and do the shared-memory,
// seccomp and driver/image versions fit what ROCm's container guide expects?
#include "container.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/amdgpu_driver.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::container {

namespace {

constexpr std::string_view kKfd = "/dev/kfd";

std::vector<std::string> render_nodes(const Host& host) {
  std::vector<std::string> paths;
  if (auto entries = host.list_dir("/dev/dri")) {
    for (const auto& entry : *entries) {
      if (entry.name.starts_with("renderD")) paths.push_back("/dev/dri/" + entry.name);
    }
  }
  return paths;
}

bool holds_gid(const Identity& identity, std::uint32_t gid) {
  return identity.gid == gid || std::find(identity.groups.begin(), identity.groups.end(), gid) != identity.groups.end();
}

// What /dev/kfd is here, for evidence: "present", "absent", or what sits there instead
// (-v /dev/kfd:/dev/kfd makes a directory when the host lacks the device).
std::string kfd_state(const Host& host) {
  const auto node = host.stat_node(kKfd);
  if (!node) return "absent";
  switch (node->type) {
    case EntryType::char_device: return "present";
    case EntryType::directory: return "a directory, not the device (passed as a volume?)";
    case EntryType::file: return "a regular file, not the device";
    default: return "not a character device";
  }
}

Finding not_passed_finding(const Runtime& runtime, const std::string& kfd_evidence,
                           const std::vector<std::string>& renders) {
  const bool kfd = kfd_evidence == "present";
  std::string missing = !kfd && renders.empty() ? "/dev/kfd and /dev/dri/renderD*"
                        : !kfd                  ? "/dev/kfd"
                                                : "/dev/dri/renderD*";
  auto finding =
      make_finding("container.kfd-not-passed", Severity::error,
                   fmt::format("The GPU was not passed into this {} container: {} missing", runtime.kind, missing))
          .because(
              "A container sees only the device nodes its runtime passes in. ROCm needs /dev/kfd (the compute "
              "interface shared by all GPUs) and the /dev/dri/renderD* node of each GPU; without them rocminfo "
              "fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES and HIP sees no device. The host's amdgpu driver "
              "is used as it is: the image brings only the user-space libraries.")
          .with_evidence("/dev/kfd", kfd_evidence)
          .with_evidence("/dev/dri/renderD*", renders.empty() ? "none" : join(renders, ", "));
  for (const auto& evidence : runtime.evidence) finding.evidence.push_back(evidence);
  return finding.with_fix(pass_devices_fix(runtime, "", false));
}

struct NodeFacts {
  std::string path;
  NodeInfo node;
};

Finding gid_mismatch_finding(const Host& host, const Runtime& runtime, const Identity& identity,
                             const std::vector<NodeFacts>& nodes) {
  std::vector<std::uint32_t> gids;
  for (const auto& node : nodes) gids.push_back(node.node.gid);
  const auto flags = group_add_flags(gids);
  const bool overflow = std::any_of(gids.begin(), gids.end(), [](auto gid) { return gid == data().overflow_gid; });
  std::vector<std::string> labels;
  for (const auto& node : nodes) {
    const auto group = host.group_by_gid(node.node.gid);
    labels.push_back(fmt::format("{} (gid {}{})", node.path, node.node.gid,
                                 group ? ", named " + group->name + " in this image" : ", no name in this image"));
  }
  std::string why =
      "The kernel checks the numeric group id on the device node, and the node's id is the host's. A group name is "
      "looked up in the image's own /etc/group when the container starts, so `--group-add render` gives the "
      "image's render id (if the image has one at all), which is rarely the host's: only the number crosses the "
      "boundary.";
  if (const auto render = host.group_by_name("render")) {
    if (std::find(gids.begin(), gids.end(), render->gid) == gids.end()) {
      why += fmt::format(" Here the image's render group is {}, the nodes' group is {}.", render->gid,
                         gids.empty() ? 0 : gids.front());
    }
  }
  if (overflow) {
    why += fmt::format(
        " Gid {} is the overflow id: the host's group is not mapped into this user namespace "
        "(rootless container), so even root in the container cannot use it.",
        data().overflow_gid);
  }
  auto finding = make_finding("container.gid-mismatch", Severity::error,
                              fmt::format("The GPU nodes belong to a host group this process does not have: {}",
                                          join(labels, "; ")))
                     .because(why);
  std::vector<std::string> held;
  for (const auto gid : identity.groups) held.push_back(std::to_string(gid));
  finding.with_evidence("process identity",
                        fmt::format("uid {} gid {} groups [{}]", identity.uid, identity.gid, join(held, ", ")));
  for (const auto& node : nodes) {
    finding.with_evidence(node.path,
                          fmt::format("mode {:04o} uid {} gid {}{}", node.node.mode, node.node.uid, node.node.gid,
                                      node.node.access ? "; access " + *node.node.access : ""));
  }
  for (const auto& evidence : runtime.evidence) finding.evidence.push_back(evidence);
  if (runtime.kind == "kubernetes") {
    std::vector<std::string> numbers;
    for (const auto gid : gids) {
      if (std::find(numbers.begin(), numbers.end(), std::to_string(gid)) == numbers.end()) {
        numbers.push_back(std::to_string(gid));
      }
    }
    return finding.with_fix(pass_devices_fix(runtime, join(numbers, ", "), true));
  }
  if (overflow && !(runtime.kind == "podman" && runtime.rootless)) {
    auto fix = pass_devices_fix(runtime, fmt::format("--group-add {}", kHostRenderGid), true);
    return finding.with_fix(fix);
  }
  return finding.with_fix(pass_devices_fix(runtime, flags, true));
}

// Is the process shut out of this node by its group? Root outside a user namespace never is.
bool group_blocks(const NodeInfo& node, const Identity& identity, const Runtime& runtime) {
  if (node.access && *node.access == "rw") return false;
  const bool real_root = identity.uid == 0 && !runtime.user_namespace;
  if (real_root) return false;
  if (holds_gid(identity, node.gid)) return false;
  if (identity.uid == node.uid && identity.uid != 0) return false;
  if ((node.mode & 06U) == 06U && node.gid != data().overflow_gid) return false;  // others may read/write
  return (node.mode & 060U) == 060U || node.gid == data().overflow_gid;
}

std::optional<Finding> shm_finding(const Host& host, std::size_t gpu_count) {
  const auto mounts = host.read_file("/proc/mounts");
  if (!mounts) return std::nullopt;
  const auto size = parse_shm_size(*mounts);
  if (!size || *size >= data().shm_min) return std::nullopt;
  const bool multi = gpu_count > 1;
  std::string line;
  for (const auto text : lines(*mounts)) {
    const auto fields = split_words(text);
    if (fields.size() >= 2 && fields[1] == "/dev/shm") line = std::string(text);
  }
  auto finding =
      make_finding("container.no-ipc-host", multi ? Severity::warning : Severity::info,
                   fmt::format("/dev/shm is only {} MiB{}", *size / (1024 * 1024),
                               multi ? fmt::format(" with {} GPUs", gpu_count) : ""))
          .because(
              "Multi-process data loaders (PyTorch DataLoader workers) and RCCL's shared-memory transport "
              "pass tensors through /dev/shm; container runtimes give it 64 MiB by default, and a full /dev/shm "
              "ends in 'bus error' or 'No space left on device'. ROCm's container examples use --ipc=host or a "
              "larger --shm-size.")
          .with_evidence("/proc/mounts", line);
  return finding.with_fix(make_fix(kCheckId,
                                   "Recreate the container with the host's IPC namespace or a larger /dev/shm (on the "
                                   "host; Kubernetes: mount an emptyDir with medium: Memory at /dev/shm):",
                                   {"docker run --ipc=host ...", "docker run --shm-size=16g ..."}));
}

std::optional<Finding> seccomp_finding(const Host& host) {
  const auto status = host.read_file("/proc/self/status");
  if (!status) return std::nullopt;
  const auto mode = parse_seccomp_mode(*status);
  if (!mode || *mode == 0) return std::nullopt;
  return make_finding("container.seccomp", Severity::info, "A seccomp filter confines this container")
      .because(
          "ROCm's Docker guide lists --security-opt seccomp=unconfined as optional: it allows the memory "
          "policy calls (numactl, HPC applications binding GPU and CPU memory) that the default profile "
          "blocks. Most single-GPU work runs without it.")
      .with_evidence("/proc/self/status", fmt::format("Seccomp: {}", *mode));
}

std::optional<Finding> version_finding(const CheckContext& ctx) {
  const auto& host = ctx.host();
  const auto& install = ctx.fact<RocmInstallation>();
  if (!install.active || install.active->version.empty()) return std::nullopt;
  const auto image_release = install.active->version;
  const auto module = host.read_trimmed("/sys/module/amdgpu/version");
  if (!module || module->empty()) {
    if (!host.exists("/sys/module/amdgpu")) return std::nullopt;
    return make_finding("container.image-rocm-version", Severity::info,
                        fmt::format("Image ROCm {}; the host runs the kernel's own amdgpu driver", image_release))
        .because(
            "Containers share the host's kernel driver. /sys/module/amdgpu/version is absent, which is how "
            "the amdgpu built into distribution kernels looks (amdgpu-dkms writes a version): its "
            "compatibility follows the kernel release. " +
            amdgpu_driver::driver_rules().rule)
        .with_evidence("/sys/module/amdgpu/version", "absent")
        .with_evidence(install.active->evidence, image_release);
  }
  const auto& rules = amdgpu_driver::driver_rules();
  const auto driver_release = amdgpu_driver::rocm_release_of_driver(rules, *module);
  std::vector<std::string> releases;
  for (const auto& release : kb::knowledge_base().releases()) releases.push_back(release.release);
  std::string verdict;
  if (driver_release) {
    const auto distance = release_distance(releases, *driver_release, image_release);
    const bool newer_rule = !kb::version_less(*driver_release, rules.year_window_since) &&
                            !kb::version_less(image_release, rules.year_window_since);
    if (distance && (static_cast<std::size_t>(*distance) <= rules.window || newer_rule)) {
      verdict = fmt::format("within the supported window ({} release(s) apart)", *distance);
    } else if (distance) {
      verdict = fmt::format(
          "{} releases apart: outside the supported window; match the image to the host "
          "driver (or update amdgpu-dkms on the host)",
          *distance);
    }
  }
  auto finding =
      make_finding("container.image-rocm-version", Severity::info,
                   driver_release
                       ? fmt::format("Image ROCm {} on host amdgpu {} (shipped with ROCm {}){}", image_release, *module,
                                     *driver_release, verdict.empty() ? "" : ": " + verdict)
                       : fmt::format("Image ROCm {} on host amdgpu {}", image_release, *module))
          .because("The image brings the ROCm user space, the host brings the kernel driver (amdgpu-dkms). " +
                   amdgpu_driver::driver_rules().rule)
          .with_evidence("/sys/module/amdgpu/version", *module)
          .with_evidence(install.active->evidence, image_release);
  return finding;
}

class ContainerCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Container GPU passthrough"; }
  int order() const override { return 15; }
  std::vector<std::string_view> finding_ids() const override {
    return {"container.kfd-not-passed", "container.gid-mismatch",       "container.seccomp",
            "container.no-ipc-host",    "container.image-rocm-version", "container.ok"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.container.empty()) return CheckOutcome::skipped("not running in a container");
    if (ctx.options().image_mode) return CheckOutcome::skipped("--image: devices are passed when the image runs");
    if (facts.wsl) return CheckOutcome::skipped("WSL: the wsl check covers /dev/dxg");
    const Host& host = ctx.host();
    const auto runtime = describe_runtime(host, facts.container);
    const auto kfd_evidence = kfd_state(host);
    const auto renders = render_nodes(host);
    std::vector<Finding> findings;
    if (kfd_evidence != "present" || renders.empty()) {
      findings.push_back(not_passed_finding(runtime, kfd_evidence, renders));
    } else {
      const auto identity = host.identity();
      std::vector<NodeFacts> blocked;
      std::vector<std::string> all = {std::string(kKfd)};
      all.insert(all.end(), renders.begin(), renders.end());
      for (const auto& path : all) {
        auto node = host.stat_node(path);
        if (node && group_blocks(*node, identity, runtime)) blocked.push_back({path, *node});
      }
      if (!blocked.empty()) {
        findings.push_back(gid_mismatch_finding(host, runtime, identity, blocked));
      } else {
        auto ok = make_finding("container.ok", Severity::ok,
                               fmt::format("/dev/kfd and {} render node{} are passed into this {} container",
                                           renders.size(), renders.size() == 1 ? "" : "s", runtime.kind))
                      .because("The runtime passed the GPU device nodes in and this process may open them.")
                      .with_evidence("/dev/dri/renderD*", join(renders, ", "));
        for (const auto& evidence : runtime.evidence) ok.evidence.push_back(evidence);
        findings.push_back(std::move(ok));
      }
    }
    if (auto finding = shm_finding(host, renders.size())) findings.push_back(std::move(*finding));
    if (auto finding = seccomp_finding(host)) findings.push_back(std::move(*finding));
    if (auto finding = version_finding(ctx)) findings.push_back(std::move(*finding));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::container

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::container::ContainerCheck)
