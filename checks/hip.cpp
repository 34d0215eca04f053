// `hip`: what the HIP runtime itself says, from the isolated hip probe:
// which library the loader picks, its release, the devices it sees, and
// (at --level full) whether a 64 MiB copy survives a round trip.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "probe_support.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/facts/rocm_installs.h"
#include "rocm_doctor/shell.h"

namespace rocm_doctor::hip_check {
namespace {

constexpr std::string_view kCheckId = "hip";

using nlohmann::json;

constexpr int kHipErrorNoDevice = 100;  // hipErrorNoDevice, stable since HIP 4

// Variables that hide GPUs from HIP (ROCR_ at the HSA level, HIP_/CUDA_ at the HIP level).
constexpr std::array<std::string_view, 4> kVisibilityVariables = {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                                                  "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"};

// "5.2" from a version text such as "5.2.21153" or "6.0.2".
std::string major_minor(std::string_view version) {
  const auto first = version.find('.');
  if (first == std::string_view::npos) return std::string(version);
  const auto second = version.find('.', first + 1);
  return std::string(version.substr(0, second));
}

// GPU nodes KFD lists (non-zero gfx_target_version), from the shared GPU inventory.
std::optional<int> kfd_gpu_count(const CheckContext& ctx) {
  const auto& inventory = ctx.fact<GpuInventory>();
  if (!inventory.kfd_present) return std::nullopt;
  return static_cast<int>(inventory.kfd_gpus().size());
}

// Can this process open a node read-write? Measured access first, else mode bits.
bool node_rw(const NodeInfo& node, const Identity& who) {
  if (node.access) return *node.access == "rw";
  if (who.uid == 0) return true;
  unsigned bits = node.mode & 07;
  if (node.uid == who.uid)
    bits = (node.mode >> 6) & 07;
  else if (std::find(who.groups.begin(), who.groups.end(), node.gid) != who.groups.end() || node.gid == who.gid)
    bits = (node.mode >> 3) & 07;
  return (bits & 06) == 06;
}

// What the machine's files say about why HIP found no device.
void add_no_device_reasons(const CheckContext& ctx, Finding& finding) {
  const auto& host = ctx.host();
  std::vector<std::string> reasons;
  if (!host.exists("/sys/module/amdgpu")) {
    reasons.push_back("the amdgpu kernel module is not loaded");
    finding.with_evidence("/sys/module/amdgpu", "absent");
  }
  const auto kfd = host.stat_node("/dev/kfd");
  if (!kfd) {
    reasons.push_back("/dev/kfd does not exist (no driver, or a container started without --device /dev/kfd)");
    finding.with_evidence("/dev/kfd", "absent");
  } else if (!node_rw(*kfd, host.identity())) {
    reasons.push_back("this process may not open /dev/kfd read-write");
    finding.with_evidence("/dev/kfd", fmt::format("mode {:04o} uid {} gid {}{}", kfd->mode, kfd->uid, kfd->gid,
                                                  kfd->access ? ", measured access " + *kfd->access : ""));
  }
  for (const auto name : kVisibilityVariables) {
    if (auto value = host.env(name)) {
      reasons.push_back(fmt::format("{}={} restricts the visible GPUs", name, *value));
      finding.with_evidence("env " + std::string(name), *value);
    }
  }
  if (reasons.empty()) reasons.push_back("the driver, /dev/kfd and its permissions look fine: see `rocm-doctor -v`");
  finding.because(
      fmt::format("HIP returned hipErrorNoDevice: no application can use a GPU. Why, from this "
                  "machine's files: {}.",
                  fmt::join(reasons, "; ")));
}

// hipErrorNotFound: no loader folder has libamdhip64. When an installed release holds it, the
// fix is the loader entry for that release (never reinstalling a runtime that is there).
Finding not_found_finding(const CheckContext& ctx, const std::vector<std::string>& tried) {
  const auto& install = ctx.fact<RocmInstallation>();
  const bool image_mode = ctx.options().image_mode;
  const auto holder = std::find_if(install.releases.begin(), install.releases.end(),
                                   [](const RocmRelease& release) { return !release.hip_soname.empty(); });
  const bool only_python = holder != install.releases.end() && holder->layout == RocmLayout::python &&
                           std::all_of(install.releases.begin(), install.releases.end(),
                                       [](const RocmRelease& release) { return release.layout == RocmLayout::python; });
  const auto* release = install.active && !install.active->hip_soname.empty() ? &*install.active
                        : holder != install.releases.end()                    ? &*holder
                                                                              : nullptr;
  // No system ROCm at all, but an application's bundle, a wheel or a tarball brings its own runtime
  // (rocm-installs): the system loader not finding one is expected (issue 27).
  const bool bundled_only = install.releases.empty() && ctx.fact<RocmInstalls>().any_hip_runtime();
  auto finding =
      make_finding("hip.not-found", only_python || bundled_only ? Severity::info : Severity::error,
                   release ? "The HIP runtime is installed in " + release->lib_dir + " but the loader does not find it"
                           : "The HIP runtime (libamdhip64.so) cannot be found")
          .because(release ? "Every HIP application (PyTorch, llama.cpp, ...) loads libamdhip64 through the dynamic "
                             "loader, and no folder the loader searches holds it." +
                                 std::string(only_python ? " Python programs of the environment that installed it "
                                                           "load it through rocm_sdk and are not affected."
                                                         : "")
                           : "Every HIP application (PyTorch, llama.cpp, ...) loads libamdhip64 through the dynamic "
                             "loader; neither the loader's path nor the ROCm folders have it.")
          .with_evidence("dlopen", fmt::format("tried {}", fmt::join(tried, ", ")));
  if (bundled_only) {
    finding.with_evidence("rocm-installs",
                          "programs that bring their own ROCm load it themselves and are not affected");
  }
  if (release) {
    finding.with_evidence(release->lib_dir, release->hip_soname);
    auto advice = loader_advice(install, *release);
    return finding.with_fix(make_fix(kCheckId, std::move(advice.description), std::move(advice.commands),
                                     FixNeeds{.root = advice.needs_root}));
  }
  return finding.with_fix(make_fix(kCheckId,
                                   image_mode ? "Install the HIP runtime into the image (AMD's amdrocm-core package "
                                                "for ROCm 7.14 and later, rocm-hip-runtime before, or the "
                                                "distribution's libamdhip64 package)."
                                              : "Install the HIP runtime (AMD's amdrocm-core package for ROCm 7.14 "
                                                "and later, rocm-hip-runtime before, or the distribution's "
                                                "libamdhip64 package), or add its folder to the loader path.",
                                   {}, FixNeeds{.root = true}));
}

Finding load_finding(const CheckContext& ctx, const json& library) {
  std::vector<std::string> tried;
  for (const auto& attempt : library.value("attempts", json::array())) tried.push_back(attempt.value("name", ""));
  const bool failed = library.value("status", "") == "load-failed" || library.contains("missing_symbols");
  if (!failed) return not_found_finding(ctx, tried);
  std::string error = library.value("error", std::string());
  if (library.contains("missing_symbols")) error = fmt::format("{}", fmt::join(library["missing_symbols"], "; "));
  std::string culprit = library.value("path", std::string());
  for (const auto& attempt : library.value("attempts", json::array())) {
    if (culprit.empty() && attempt.contains("error") && attempt.value("error", "") == error)
      culprit = attempt.value("name", "");
  }
  auto finding = make_finding("hip.load-failed", Severity::error, "The HIP runtime was found but does not load")
                     .because(
                         "dlopen() found libamdhip64 but failed: usually a missing dependency (a partly "
                         "installed or mixed ROCm), or a library built for another architecture.")
                     .with_evidence("dlerror", error);
  std::vector<std::string> commands;
  if (!culprit.empty() && culprit.front() == '/') commands = {"ldd " + shell_quote(culprit) + " | grep 'not found'"};
  return finding.with_fix(
      make_fix(kCheckId, "See which dependency is missing, then install or repair the ROCm release it belongs to.",
               std::move(commands)));
}

std::string device_label(const json& device) {
  auto label = fmt::format("{} {}", device.value("index", 0), device.value("name", std::string("unnamed GPU")));
  if (device.contains("gfx")) label += " (" + device.value("gfx", std::string()) + ")";
  return label;
}

// The installed release the loaded runtime should belong to.
std::optional<Finding> version_finding(const CheckContext& ctx, const json& result) {
  const auto& install = ctx.fact<RocmInstallation>();
  if (!install.active || install.active->version.empty() || !result.contains("runtime_version_text"))
    return std::nullopt;
  const auto runtime = result.value("runtime_version_text", std::string());
  if (major_minor(runtime) == major_minor(install.active->version)) return std::nullopt;
  const auto path = result["library"].value("real_path", result["library"].value("path", std::string()));
  auto finding =
      make_finding(
          "hip.version-mismatch", Severity::warning,
          fmt::format("The HIP runtime loaded is {} but the installed ROCm is {}", runtime, install.active->version))
          .because(
              "Applications get the runtime the loader finds first, not the one ROCm installed: a distribution "
              "or bundled libamdhip64 shadows the ROCm release, so the math libraries and the runtime disagree.")
          .with_evidence("probe hip", fmt::format("{} from {}", runtime, path))
          .with_evidence(install.active->evidence.empty() ? install.active->prefix : install.active->evidence,
                         install.active->version);
  const auto folder = path.substr(0, path.rfind('/'));
  const auto ld_path = ctx.host().env("LD_LIBRARY_PATH").value_or("");
  if (!folder.empty() && ld_path.find(folder) != std::string::npos) {
    finding.with_evidence("env LD_LIBRARY_PATH", ld_path);
    return finding.with_fix(make_fix(kCheckId,
                                     "LD_LIBRARY_PATH puts another runtime first: remove " + folder + " from it.",
                                     {"unset LD_LIBRARY_PATH"}));
  }
  if (install.active->layout == RocmLayout::legacy && !install.active->lib_dir.empty()) {
    return finding.with_fix(make_fix(
        kCheckId, "Put the ROCm release's library folder first on the loader path (or remove the stray copy).",
        {"echo " + shell_quote(install.active->lib_dir) + " | sudo tee /etc/ld.so.conf.d/rocm.conf", "sudo ldconfig"},
        FixNeeds{.root = true}));
  }
  if (!install.active->distro_packaged && !install.active->lib_dir.empty()) {
    auto advice = loader_advice(install, *install.active);
    return finding.with_fix(
        make_fix(kCheckId,
                 "Put the ROCm release's library folder first on the loader path (or remove the stray copy). " +
                     advice.description,
                 std::move(advice.commands), FixNeeds{.root = advice.needs_root}));
  }
  return finding.with_fix(
      make_fix(kCheckId, "Remove the stray runtime at " + path + ", or install the ROCm release that matches it."));
}

std::optional<Finding> device_mismatch_finding(const CheckContext& ctx, int hip_count) {
  const auto kfd_count = kfd_gpu_count(ctx);
  if (!kfd_count || hip_count >= *kfd_count) return std::nullopt;
  auto finding = make_finding("hip.device-mismatch", Severity::warning,
                              fmt::format("HIP sees {} GPU(s) but the driver (KFD) lists {}", hip_count, *kfd_count))
                     .because(
                         "Some GPUs are hidden from applications: a *_VISIBLE_DEVICES variable, or a render "
                         "node this process may not open.")
                     .with_evidence("/sys/class/kfd/kfd/topology/nodes", fmt::format("{} GPU nodes", *kfd_count))
                     .with_evidence("probe hip", fmt::format("hipGetDeviceCount = {}", hip_count));
  std::vector<std::string> commands;
  for (const auto name : kVisibilityVariables) {
    if (auto value = ctx.host().env(name)) {
      finding.with_evidence("env " + std::string(name), *value);
      commands.push_back("unset " + std::string(name));
    }
  }
  return finding.with_fix(
      make_fix(kCheckId, "Unset the variables that hide GPUs (if that is not intended), and check render node access.",
               std::move(commands)));
}

std::vector<Finding> device_findings(const CheckContext& ctx, const json& result) {
  std::vector<Finding> findings;
  const int count = result.value("device_count", 0);
  const auto devices = result.value("devices", json::array());
  if (auto finding = device_mismatch_finding(ctx, count)) findings.push_back(std::move(*finding));
  for (const auto& device : devices) {
    if (!device.contains("smoke") || device["smoke"].value("ok", false)) continue;
    const auto& smoke = device["smoke"];
    auto finding = make_finding("hip.smoke-failed", Severity::error,
                                fmt::format("GPU {}: a {} MiB host-device-host copy failed", device_label(device),
                                            smoke.value("bytes", 0ULL) >> 20))
                       .because(
                           "Copying memory to the GPU and back is the first thing every workload does; when "
                           "it fails or returns different bytes, results cannot be trusted (driver, firmware "
                           "or hardware fault).");
    if (smoke.contains("error")) {
      finding.with_evidence("probe hip " + smoke["error"].value("call", std::string()),
                            smoke["error"].value("name", smoke["error"].value("text", std::string())));
    } else {
      finding.with_evidence("probe hip smoke",
                            fmt::format("{} bytes differ, first at offset {}", smoke.value("mismatched_bytes", 0ULL),
                                        smoke.value("first_mismatch", 0ULL)));
    }
    auto fix =
        make_fix(kCheckId, "Check the kernel log for amdgpu errors around the test, and update the driver/firmware.",
                 {"sudo dmesg | grep -iE 'amdgpu|kfd' | tail -n 30"}, FixNeeds{.root = true});
    fix.verify += " --level full";  // the copy test runs at the full level only
    finding.with_fix(fix);
    findings.push_back(std::move(finding));
  }
  if (!findings.empty() && findings.back().id == "hip.smoke-failed") return findings;
  std::vector<std::string> labels;
  for (const auto& device : devices) labels.push_back(device_label(device));
  auto ok =
      make_finding("hip.ok", Severity::ok,
                   fmt::format("HIP {} sees {} GPU(s): {}", result.value("runtime_version_text", std::string("?")),
                               count, fmt::join(labels, ", ")))
          .because("The HIP runtime loads and enumerates the GPUs the way applications will.")
          .with_evidence("probe hip library",
                         result["library"].value("real_path", result["library"].value("path", std::string())));
  if (result.contains("driver_version")) {
    ok.with_evidence("probe hip driver version", std::to_string(result.value("driver_version", 0)));
  }
  findings.push_back(std::move(ok));
  return findings;
}

class HipCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "HIP runtime"; }
  int order() const override { return 70; }
  std::vector<std::string_view> finding_ids() const override {
    return {"hip.not-found",        "hip.load-failed",     "hip.no-device",    "hip.init-failed",
            "hip.version-mismatch", "hip.device-mismatch", "hip.smoke-failed", "hip.ok"};
  }
  std::vector<std::string_view> probes() const override { return {"hip"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto outcome = ctx.host().probe("hip");
    if (auto reason = probe_support::unavailable_reason(outcome, "hip")) return CheckOutcome::skipped(*reason);
    const auto& result = (*outcome)["result"];
    const auto library = result.value("library", json::object());
    const bool image = ctx.options().image_mode;
    if (library.value("status", "") != "loaded" || library.contains("missing_symbols")) {
      return {{load_finding(ctx, library)}};
    }
    std::vector<Finding> findings;
    if (auto finding = version_finding(ctx, result)) findings.push_back(std::move(*finding));
    const bool none = !result.contains("device_count_error") && result.value("device_count", 0) == 0;
    if (result.contains("device_count_error") || none) {
      const auto error = none ? json{{"code", kHipErrorNoDevice}, {"name", "0 devices"}} : result["device_count_error"];
      const int code = error.value("code", -1);
      const auto name = error.value("name", fmt::format("error {}", code));
      if (code == kHipErrorNoDevice) {
        auto finding = make_finding("hip.no-device", image ? Severity::info : Severity::error,
                                    image ? "HIP sees no GPU (expected while building an image)"
                                          : "HIP loads but sees no GPU (hipErrorNoDevice)")
                           .with_evidence("probe hip hipGetDeviceCount", name);
        if (image) {
          finding.because("Image builds run without a GPU; the runtime itself loads, which is what the image needs.");
        } else {
          add_no_device_reasons(ctx, finding);
          finding.with_fix(make_fix(kCheckId, "Fix what the driver and access checks report, then confirm here.",
                                    {"rocm-doctor --only driver,access"}));
        }
        findings.push_back(std::move(finding));
      } else {
        auto finding = make_finding("hip.init-failed", image ? Severity::info : Severity::error,
                                    fmt::format("The HIP runtime failed to initialise: {}", name))
                           .because(fmt::format("hipGetDeviceCount returned {} ({}): the runtime cannot talk to the "
                                                "driver, so no HIP application will run.",
                                                name, error.value("text", std::string())))
                           .with_evidence("probe hip hipGetDeviceCount", fmt::format("{} ({})", name, code));
        probe_support::with_stderr(finding, *outcome, "hip");
        finding.with_fix(make_fix(kCheckId, "Look at the runtime's own log for the failing step.",
                                  {"AMD_LOG_LEVEL=4 rocminfo 2>&1 | tail -n 40"}));
        findings.push_back(std::move(finding));
      }
      return findings;
    }
    auto devices = device_findings(ctx, result);
    findings.insert(findings.end(), std::make_move_iterator(devices.begin()), std::make_move_iterator(devices.end()));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::hip_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::hip_check::HipCheck)
