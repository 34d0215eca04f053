// `torch`: the PyTorch the user's Python imports (from the python probe): is
// it a ROCm build, is this GPU in its arch list, does it see the GPU.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "probe_support.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/facts/torch_view.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text.h"
#include "torch_wheels.h"

namespace rocm_doctor::torch_check {
namespace {

using nlohmann::json;
constexpr std::string_view kCheckId = "torch";

std::string text_of(const json& object, const char* key) {
  if (!object.contains(key) || !object[key].is_string()) return {};
  return object[key].get<std::string>();
}

bool from_files(const json& result) {
  return result.value("source", std::string()) == "files";
}

void add_python_evidence(const Host& host, const json& result, Finding& finding) {
  const auto executable = text_of(result, "executable");
  if (!executable.empty()) {
    std::string python = executable;
    if (result.contains("environment") && result["environment"].is_object()) {
      const auto& env = result["environment"];
      if (const auto resolved = text_of(env, "resolved"); !resolved.empty()) python += " -> " + resolved;
      python += " " + text_of(result, "version") + " (" + text_of(env, "kind") + ")";
    } else {
      python += " " + text_of(result, "version");
    }
    finding.with_evidence("python", python);
  }
  // Which source gave the torch facts: its files (no interpreter started) or `import torch`.
  if (from_files(result)) {
    if (result.contains("torch") && result["torch"].is_object()) {
      finding.with_evidence("source", "files: " + text_of(result["torch"], "version_file") + " (nothing imported)");
    }
  } else if (!executable.empty()) {
    finding.with_evidence("source", "import torch in " + executable);
  }
  for (const char* name : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (auto value = host.env(name)) finding.with_evidence(std::string("env ") + name, *value);
  }
}

bool amd_gpu_expected(const CheckContext& ctx) {
  return ctx.options().image_mode || !ctx.fact<GpuInventory>().pci_gpus().empty();
}

// Why the GPU is out of reach, from this machine's files: points at the checks that say more.
// `certain` counts the reasons that alone keep every GPU away (the visible-devices filters only may).
std::vector<std::string> no_gpu_reasons(const CheckContext& ctx, Finding& finding, std::size_t& certain) {
  const auto& host = ctx.host();
  const auto& inventory = ctx.fact<GpuInventory>();
  std::vector<std::string> reasons;
  if (inventory.pci_gpus().empty()) {
    reasons.push_back("no AMD GPU on the PCI bus (see the gpu-arch check)");
  } else if (!inventory.amdgpu_loaded) {
    reasons.push_back("the amdgpu kernel module is not loaded (see the driver check)");
    finding.with_evidence("/sys/module/amdgpu", "absent");
  }
  if (auto kfd = host.stat_node("/dev/kfd"); !kfd) {
    reasons.push_back(
        "/dev/kfd does not exist (no driver, or a container without --device /dev/kfd: see the driver and container "
        "checks)");
    finding.with_evidence("/dev/kfd", "absent");
  } else if (kfd->access && *kfd->access != "rw") {
    reasons.push_back("this user may not open /dev/kfd read-write (see the access check)");
    finding.with_evidence("/dev/kfd", "access " + *kfd->access);
  }
  certain = reasons.size();
  for (const char* name : {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
    if (auto value = host.env(name)) {
      reasons.push_back(fmt::format("{}={} filters the GPUs (see the env check)", name, *value));
      finding.with_evidence(std::string("env ") + name, *value);
    }
  }
  return reasons;
}

// Where the arch list came from: the runtime, or the code objects of the wheel's libtorch_hip.so.
std::string arch_label(const json& torch) {
  const auto source = text_of(torch, "arch_list_source");
  return source.empty() ? std::string("torch.cuda.get_arch_list()") : "code objects in " + source;
}

std::string rocm_of_wheel(const json& torch) {
  const auto version = text_of(torch, "version");
  if (const auto at = version.find("+rocm"); at != std::string::npos) return version.substr(at + 5);
  if (auto rocm = text_of(torch, "rocm"); !rocm.empty()) return rocm;
  return major_minor_of(text_of(torch, "hip"));
}

// What to do first about `import torch` failing, chosen by what the error is: its error
// family (checks/data/error_families.json, the symptom catalogue's matcher) or Python's
// exception class (the probe's error line starts with it), never by words of the message.
std::string import_error_hint(const std::string& error) {
  for (const auto& match : symptom::default_matcher().scan(error)) {
    const auto family = match.family == nullptr ? std::string() : match.family->id;
    if (family == "shared-library-missing" || family == "symbol-version-mismatch") {
      return "A shared library is missing or from another release: unset LD_LIBRARY_PATH / LD_PRELOAD overrides, "
             "then reinstall the wheel.";
    }
  }
  if (error.starts_with("ModuleNotFoundError:"))
    return "A dependency is missing: reinstall torch with its dependencies.";
  return "Reinstall PyTorch in this environment.";
}

class TorchCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "PyTorch"; }
  int order() const override { return 85; }
  std::vector<std::string_view> finding_ids() const override {
    return {"torch.no-python", "torch.not-installed", "torch.probe-failed", "torch.import-failed", "torch.cuda-build",
            "torch.cpu-build", "torch.arch-missing",  "torch.no-gpu",       "torch.rocm-mismatch", "torch.ok"};
  }
  std::vector<std::string_view> probes() const override { return {"python"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& view = ctx.fact<TorchView>();
    const auto& outcome = view.outcome;
    if (!outcome) return CheckOutcome::skipped("neither torch's files nor the python probe said anything");
    const auto status = outcome->value("status", std::string("unknown"));
    if (status != "ok" || !outcome->contains("result") || !(*outcome)["result"].is_object()) {
      return {{probe_failed(*outcome, status)}};
    }
    const auto& result = (*outcome)["result"];
    const auto python = text_of(result, "executable");
    if (python.empty()) {
      auto finding = make_finding("torch.no-python", Severity::info, "No Python interpreter to check PyTorch with")
                         .because(
                             "rocm-doctor checks the PyTorch of the python3 on PATH (or --python PATH); there "
                             "is none, so PyTorch was not checked.")
                         .with_evidence("probe python", text_of(result, "error"));
      return {{finding}};
    }
    if (from_files(result) && !view.undecided.empty() && !result["torch"].is_object()) {
      return CheckOutcome::skipped("torch's files cannot decide (" + view.undecided +
                                   ") and --level quick imports nothing; the default level imports torch then");
    }
    if (!result.contains("torch") || !result["torch"].is_object()) {
      auto finding =
          make_finding("torch.not-installed", Severity::info, fmt::format("PyTorch is not installed for {}", python))
              .because(
                  "This interpreter cannot import torch. If PyTorch lives in a virtual environment "
                  "or conda environment, activate it (or pass --python PATH) and run again.");
      add_python_evidence(ctx.host(), result, finding);
      return {{finding}};
    }
    return judge(ctx, result, python);
  }

 private:
  static Finding probe_failed(const json& outcome, const std::string& status) {
    if (status == "crashed") {
      auto finding =
          make_finding("torch.import-failed", Severity::error,
                       fmt::format("Python crashed ({}) while importing torch",
                                   outcome.value("signal_name", std::string("exit code ") +
                                                                    std::to_string(outcome.value("exit_code", 0)))))
              .because(
                  "Importing torch loads its GPU libraries; a crash there usually means mixed ROCm "
                  "libraries (LD_LIBRARY_PATH or LD_PRELOAD putting another release's libraries in "
                  "front of the wheel's own) or a broken install.");
      probe_support::with_stderr(finding, outcome, "python");
      finding.with_fix(
          make_fix(kCheckId, "Run the import yourself to see the full error, without LD_LIBRARY_PATH overrides.",
                   {"env -u LD_LIBRARY_PATH -u LD_PRELOAD python3 -c 'import torch; print(torch.__version__)'"}));
      return finding;
    }
    auto finding = make_finding("torch.probe-failed", Severity::warning,
                                status == "timeout" ? fmt::format("Importing torch took longer than {} s",
                                                                  outcome.value("timeout_ms", 0) / 1000)
                                                    : "The python probe did not return a result (" + status + ")")
                       .because(
                           "The PyTorch state is unknown. A cold import of a ROCm wheel reads several GB from "
                           "disk; a hang usually sits in GPU initialisation.");
    probe_support::with_stderr(finding, outcome, "python");
    finding.with_fix(make_fix(kCheckId, "Give the probe more time.", {"rocm-doctor --only torch --probe-timeout 30"}));
    return finding;
  }

  // The runtime's torch.cuda.is_available() when torch was imported; from its files,
  // only what this machine's files make certain (no GPU, no driver, no /dev/kfd access).
  static std::optional<Finding> no_gpu(const CheckContext& ctx, const json& result, const std::string& version) {
    const auto& torch = result["torch"];
    const bool imported = !from_files(result);
    if (imported && torch.value("gpu_available", false) && torch.value("device_count", 0) > 0) return std::nullopt;
    auto finding =
        make_finding("torch.no-gpu", Severity::error, fmt::format("torch {} is a ROCm build but sees no GPU", version));
    std::size_t certain = 0;
    auto reasons = no_gpu_reasons(ctx, finding, certain);
    if (!imported && certain == 0) return std::nullopt;
    if (reasons.empty()) {
      reasons.push_back(
          "the driver and device files look fine: see the hip check, whose probe asks the HIP runtime directly");
    }
    finding.because(fmt::format("{}, so models run on the CPU. Why, from this machine: {}.",
                                imported ? "torch.cuda.is_available() is False"
                                         : "This machine gives it no GPU (read from its files; torch was not imported)",
                                join(reasons, "; ")));
    add_python_evidence(ctx.host(), result, finding);
    finding.with_fix(make_fix(kCheckId, "Fix the findings named above, then run this check again.", {}));
    return finding;
  }

  static std::vector<Finding> judge(const CheckContext& ctx, const json& result, const std::string& python) {
    const auto& torch = result["torch"];
    std::vector<Finding> findings;
    const auto error = text_of(torch, "error");
    const auto version = text_of(torch, "version");
    if (!error.empty() && version.empty()) {
      auto finding = make_finding("torch.import-failed", Severity::error, "import torch fails: " + error)
                         .because(
                             "torch is installed for this interpreter but cannot be imported, so every script "
                             "fails before touching the GPU.")
                         .with_evidence("python: import torch", error);
      add_python_evidence(ctx.host(), result, finding);
      auto fix = torch_wheels::wheel_fix(ctx, python);
      fix.description = import_error_hint(error) + " " + fix.description;
      finding.with_fix(fix);
      return {finding};
    }
    const auto hip = text_of(torch, "hip");
    const auto cuda = text_of(torch, "cuda");
    const bool amd = amd_gpu_expected(ctx);
    if (hip.empty()) {
      const bool is_cuda = !cuda.empty();
      auto severity = amd ? Severity::error : (is_cuda ? Severity::info : Severity::warning);
      auto finding =
          make_finding(is_cuda ? "torch.cuda-build" : "torch.cpu-build", severity,
                       is_cuda ? fmt::format("torch {} is an NVIDIA CUDA build (CUDA {}): it cannot use an AMD GPU",
                                             version, cuda)
                               : fmt::format("torch {} is a CPU-only build: it cannot use any GPU", version))
              .because(std::string(is_cuda ? "torch.version.cuda is set and torch.version.hip is None: "
                                           : "torch.version.hip and torch.version.cuda are both None: ") +
                       "plain `pip install torch` gets this build from PyPI. Only a wheel from a ROCm index "
                       "(download.pytorch.org/whl/rocmX.Y, version ending in +rocmX.Y) drives AMD GPUs; "
                       "torch.cuda.is_available() stays False until it is replaced." +
                       (amd ? "" : " (No AMD GPU was found on this machine either.)"))
              .with_evidence("torch.__version__", version)
              .with_evidence("torch.version.hip", "None")
              .with_evidence("torch.version.cuda", is_cuda ? cuda : "None");
      add_python_evidence(ctx.host(), result, finding);
      finding.with_fix(torch_wheels::wheel_fix(ctx, python));
      return {finding};
    }
    // A ROCm build.
    std::vector<std::string> arch_list;
    if (torch.contains("arch_list") && torch["arch_list"].is_array()) {
      for (const auto& arch : torch["arch_list"]) {
        if (arch.is_string()) arch_list.push_back(arch.get<std::string>());
      }
    }
    const auto in_list = [&](const std::string& gfx) {
      return std::any_of(arch_list.begin(), arch_list.end(),
                         [&](const std::string& arch) { return arch.substr(0, arch.find(':')) == gfx; });
    };
    const auto targets = torch_needed_targets(ctx);
    if (!arch_list.empty()) {
      std::vector<std::string> missing;
      int covered = 0;
      for (const auto& [gfx, why] : targets) {
        if (in_list(gfx))
          ++covered;
        else
          missing.push_back(gfx + " (" + why + ")");
      }
      if (!missing.empty()) {
        auto finding = make_finding("torch.arch-missing", covered > 0 ? Severity::warning : Severity::error,
                                    fmt::format("torch {} has no kernels for {}", version, join(missing, ", ")))
                           .because(
                               "A ROCm wheel carries GPU code only for the gfx targets in "
                               "torch.cuda.get_arch_list(); on any other target the first kernel fails with "
                               "hipErrorNoBinaryForGpu or 'invalid device function'.")
                           .with_evidence(arch_label(torch), join(arch_list, " "));
        add_python_evidence(ctx.host(), result, finding);
        std::vector<std::string> commands;
        std::string description =
            "Install a build that includes this target (a newer wheel, or AMD's own wheels "
            "from repo.radeon.com/rocm/manylinux).";
        for (const auto& [gfx, why] : targets) {
          if (in_list(gfx)) continue;
          const auto* target = kb::knowledge_base().target(gfx);
          if (target && target->workaround && in_list(target->workaround->runs_as) &&
              !target->workaround->known_unreliable()) {
            commands.push_back("export HSA_OVERRIDE_GFX_VERSION=" + target->workaround->override_value);
            description = fmt::format("{} can run {} code with HSA_OVERRIDE_GFX_VERSION={} (unofficial), or ", gfx,
                                      target->workaround->runs_as, target->workaround->override_value) +
                          description;
            break;
          }
        }
        finding.with_fix(make_fix(kCheckId, description, commands));
        findings.push_back(std::move(finding));
      }
    }
    if (!ctx.options().image_mode) {
      if (auto finding = no_gpu(ctx, result, version)) findings.push_back(std::move(*finding));
    }
    const auto& install = ctx.fact<RocmInstallation>();
    const auto wheel_rocm = rocm_of_wheel(torch);
    if (install.active && !install.active->version.empty() && !wheel_rocm.empty() &&
        major_minor_of(wheel_rocm) != major_minor_of(install.active->version)) {
      auto finding =
          make_finding("torch.rocm-mismatch", Severity::warning,
                       fmt::format("torch {} was built for ROCm {} but ROCm {} is installed", version, wheel_rocm,
                                   install.active->version))
              .because(
                  "This is usually fine for PyTorch itself: ROCm wheels bundle their own ROCm user-space "
                  "libraries in torch/lib, so /opt/rocm does not matter to them; what matters is the amdgpu "
                  "driver and that the GPU is in the wheel's arch list. It matters when something links against "
                  "both: extensions built from source against /opt/rocm (flash-attention, bitsandbytes, "
                  "custom ops) then load a second ROCm into the same process, which crashes or fails with "
                  "undefined symbols.")
              .with_evidence("torch.version.hip", hip)
              .with_evidence(install.active->evidence.empty() ? install.active->prefix : install.active->evidence,
                             install.active->version);
      add_python_evidence(ctx.host(), result, finding);
      auto fix = torch_wheels::wheel_fix(ctx, python);
      fix.description =
          "Nothing to change for PyTorch alone. Before building extensions against /opt/rocm, make "
          "the two agree: install ROCm " +
          wheel_rocm + " system-wide, or use this wheel. " + fix.description;
      finding.with_fix(fix);
      findings.push_back(std::move(finding));
    }
    if (std::none_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity >= Severity::warning; })) {
      std::vector<std::string> devices;
      if (torch.contains("devices") && torch["devices"].is_array()) {
        for (const auto& device : torch["devices"]) {
          if (device.is_string()) devices.push_back(device.get<std::string>());
        }
      }
      const auto summary = from_files(result)
                               ? fmt::format("torch {} (ROCm build, HIP {})", version, hip)
                               : fmt::format("torch {} (ROCm build, HIP {}) sees {} GPU(s){}", version, hip,
                                             torch.value("device_count", 0),
                                             devices.empty() ? std::string() : ": " + join(devices, ", "));
      auto finding = make_finding("torch.ok", Severity::ok, summary)
                         .because(from_files(result)
                                      ? "A ROCm wheel whose arch list covers this machine's GPUs, read from its files "
                                        "(`--level full` also imports it and asks the runtime which GPUs it sees)."
                                      : "A ROCm wheel whose arch list covers this machine's GPUs.");
      if (!arch_list.empty()) finding.with_evidence(arch_label(torch), join(arch_list, " "));
      add_python_evidence(ctx.host(), result, finding);
      findings.push_back(std::move(finding));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::torch_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::torch_check::TorchCheck)
