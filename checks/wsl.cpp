// `wsl`: ROCm under WSL2 reaches the GPU through /dev/dxg and the Windows driver, with a
// WSL-specific runtime (librocdxg, or the older hsa-runtime-rocr4wsl-amdgpu) and a much
// shorter GPU list than native Linux, which grew release by release. The Windows
// adapters come from DXCore (the dxcore probe), so an unsupported GPU is named even
// when HIP sees none. Not under WSL: skipped.
#include "wsl.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/wsl_adapters.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::wsl {

bool is_wsl1_kernel(std::string_view kernel_release) {
  // WSL1 reports the Windows build with a capital "Microsoft" ("4.4.0-19041-Microsoft");
  // WSL2 kernels end in "-microsoft-standard-WSL2" (older: "-microsoft-standard").
  return kernel_release.find("Microsoft") != std::string_view::npos &&
         kernel_release.find("microsoft-standard") == std::string_view::npos;
}

std::optional<std::string> supported_entry(const std::vector<SupportRow>& rows, std::string_view gfx) {
  for (const auto& row : rows) {
    if (row.gfx == gfx) return row.gfx;
  }
  return std::nullopt;
}

namespace {

Finding no_dxg_finding(const Host& host, const SystemFacts& facts) {
  const bool wsl1 = is_wsl1_kernel(facts.kernel_release);
  auto finding =
      make_finding("wsl.no-dxg", Severity::error,
                   wsl1 ? "This is WSL1: it has no GPU access (/dev/dxg is missing)"
                        : "/dev/dxg is missing: WSL2's GPU paravirtualization is not available")
          .because(
              "ROCm under WSL talks to the Windows AMD driver through /dev/dxg (there is no /dev/kfd under "
              "WSL). WSL1 has no GPU support at all; under WSL2 the node is missing when Windows or WSL is too "
              "old or the Windows GPU driver is not installed.")
          .with_evidence("/dev/dxg", "absent")
          .with_evidence("/proc/sys/kernel/osrelease", facts.kernel_release);
  const auto distro = host.env("WSL_DISTRO_NAME").value_or("Ubuntu");
  if (wsl1) {
    return finding.with_fix(make_fix(kCheckId, "Convert this distribution to WSL2, in PowerShell on Windows:",
                                     {shell_command({"wsl", "--set-version", distro, "2"})}));
  }
  return finding.with_fix(make_fix(kCheckId,
                                   "Update WSL and install the current AMD Adrenalin driver on Windows, then "
                                   "restart WSL, in PowerShell on Windows:",
                                   {"wsl --update", "wsl --shutdown"}));
}

struct GpuIdentity {
  std::string gfx;
  std::string name;
  std::string source;
};

// A probe outcome's result (older snapshots stored the result's fields beside `status`).
const nlohmann::json* probe_result(const std::optional<nlohmann::json>& outcome) {
  if (!outcome || !outcome->is_object()) return nullptr;
  if (const auto it = outcome->find("result"); it != outcome->end() && it->is_object()) return &*it;
  return &*outcome;
}

std::vector<GpuIdentity> hip_gpus(const CheckContext& ctx) {
  std::vector<GpuIdentity> gpus;
  const auto outcome = ctx.host().probe("hip");
  const auto* result = probe_result(outcome);
  if (result == nullptr || !result->contains("devices") || !(*result)["devices"].is_array()) return gpus;
  for (const auto& device : (*result)["devices"]) {
    if (!device.is_object()) continue;
    GpuIdentity gpu{device.value("gfx", ""), device.value("name", ""), "probe hip"};
    if (gpu.gfx.empty()) {
      // "gfx1100" from an isa string such as "amdgcn-amd-amdhsa--gfx1100".
      const auto isa = device.value("isa", "");
      if (const auto at = isa.find("gfx"); at != std::string::npos) gpu.gfx = isa.substr(at, isa.find(':', at) - at);
    }
    if (!gpu.gfx.empty()) gpus.push_back(std::move(gpu));
  }
  return gpus;
}

// The GPUs to judge: the Windows AMD adapters DXCore lists, else HIP's devices, else --target-gfx.
std::vector<GpuIdentity> wsl_gpus(const CheckContext& ctx) {
  std::vector<GpuIdentity> gpus;
  for (const auto& adapter : ctx.fact<WslAdapters>().adapters) {
    if (!adapter.amd() || adapter.hardware == false) continue;
    const auto id = fmt::format("{:04x}:{:04x}", *adapter.vendor_id, adapter.device_id.value_or(0));
    gpus.push_back({adapter.gfx, adapter.display_name(), "DXCore adapter " + id});
  }
  if (gpus.empty()) gpus = hip_gpus(ctx);
  if (gpus.empty()) {
    for (const auto& gfx : ctx.options().target_gfx) gpus.push_back({gfx, "", "--target-gfx"});
  }
  return gpus;
}

std::string supported_names() {
  std::vector<std::string> names;
  for (const auto& row : data().supported) {
    for (const auto& product : row.products) names.push_back(product);
  }
  return join(names, ", ");
}

std::string label(const GpuIdentity& gpu) {
  if (gpu.name.empty()) return gpu.gfx;
  return gpu.gfx.empty() ? gpu.name : gpu.name + " (" + gpu.gfx + ")";
}

// nullopt: supported on this release (or nothing to judge).
std::optional<Finding> gpu_finding(const GpuIdentity& gpu, const std::string& release) {
  const auto row = std::find_if(data().supported.begin(), data().supported.end(),
                                [&](const SupportRow& r) { return r.gfx == gpu.gfx; });
  if (row == data().supported.end()) {
    return make_finding("wsl.unsupported-gpu", Severity::error,
                        fmt::format("{} is not on ROCm-on-WSL's support list", label(gpu)))
        .because(
            "ROCm under WSL supports far fewer GPUs than native Linux (RDNA3/RDNA4 Radeon and a few "
            "Ryzen AI APUs): " +
            supported_names() +
            ". HSA_OVERRIDE_GFX_VERSION does not help: the WSL runtime finds no WDDM adapter it "
            "supports.")
        .with_evidence(gpu.source, gpu.gfx.empty() ? gpu.name : gpu.gfx)
        .with_fix(make_fix(kCheckId,
                           "Use a listed GPU, or run ROCm on native Linux (dual boot) where this GPU's "
                           "support follows the regular ROCm list",
                           {}));
  }
  if (release.empty() || !kb::version_less(release, row->since)) return std::nullopt;
  return make_finding("wsl.unsupported-gpu", Severity::error,
                      fmt::format("{} needs ROCm {} or newer on WSL; this is ROCm {}", label(gpu), row->since, release))
      .because(fmt::format("ROCm-on-WSL's list grew release by release; {} first appears in the WSL matrix of ROCm {} "
                           "({}). Older WSL runtimes find no WDDM adapter they support, so HIP reports no device.",
                           gpu.gfx, row->since, row->note))
      .with_evidence(gpu.source, gpu.gfx)
      .with_evidence("ROCm release", release)
      .with_fix(make_fix(kCheckId,
                         fmt::format("Install ROCm {} or newer for WSL (and the Windows driver it lists), as AMD's "
                                     "ROCm-on-WSL guide describes",
                                     row->since),
                         {}));
}

// The release AMD shipped for WSL that the installed one follows, with its Windows driver.
const ReleaseRow* wsl_release(const std::string& release) {
  const ReleaseRow* found = nullptr;
  for (const auto& row : data().releases) {
    if (!release.empty() && !kb::version_less(release, row.rocm)) found = &row;
  }
  return found;
}

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

Finding driver_finding(const CheckContext& ctx) {
  const auto& facts = ctx.fact<SystemFacts>();
  auto finding =
      make_finding("wsl.driver", Severity::info, "Under WSL the GPU driver is the Windows AMD Adrenalin driver")
          .because(data().driver_requirement)
          .with_evidence("source", data().driver_source)
          .with_evidence("/proc/sys/kernel/osrelease", facts.kernel_release);
  if (const auto* row = wsl_release(active_release(ctx))) {
    finding.with_evidence("ROCm " + row->rocm + " for WSL", "released with Adrenalin " + row->adrenalin);
  }
  for (const auto& adapter : ctx.fact<WslAdapters>().adapters) {
    if (adapter.amd() && !adapter.driver_version.empty()) {
      finding.with_evidence("Windows driver of " + adapter.display_name(), adapter.driver_version);
    }
  }
  std::vector<std::string> packages;
  if (const auto store = ctx.host().list_dir(data().driver_store_dir)) {
    for (const auto& entry : *store) {
      if (entry.name.rfind(data().amd_package_prefix, 0) == 0) packages.push_back(entry.name);
    }
    finding.with_evidence(data().driver_store_dir, packages.empty() ? "no AMD driver package" : join(packages, ", "));
  }
  return finding;
}

std::vector<Finding> memory_findings(const CheckContext& ctx) {
  std::vector<Finding> findings;
  for (const auto& adapter : ctx.fact<WslAdapters>().adapters) {
    const auto usable = adapter.usable_memory();
    if (!adapter.amd() || !usable) continue;
    findings.push_back(
        make_finding(
            "wsl.gpu-memory", Severity::info,
            fmt::format("{}: {} a workload can use ({} dedicated + {} shared system memory)", adapter.display_name(),
                        gib(*usable),
                        gib(adapter.dedicated_memory.value_or(0) + adapter.dedicated_system_memory.value_or(0)),
                        gib(adapter.shared_memory.value_or(0))))
            .because("Windows reports the adapter's dedicated memory and the system memory it may share; a WSL "
                     "workload allocates from both, the shared part at system-memory speed and within the WSL VM's "
                     "memory limit (.wslconfig).")
            .with_evidence("DXCore adapter", adapter.description)
            .with_evidence("dedicated_adapter_memory", std::to_string(adapter.dedicated_memory.value_or(0)))
            .with_evidence("shared_system_memory", std::to_string(adapter.shared_memory.value_or(0))));
  }
  return findings;
}

class WslCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm on WSL2"; }
  int order() const override { return 16; }
  std::vector<std::string_view> finding_ids() const override {
    return {"wsl.no-dxg",
            "wsl.runtime-missing",
            "wsl.unsupported-gpu",
            "wsl.windows-too-old",
            "wsl.driver",
            "wsl.gpu-memory",
            "wsl.ok"};
  }
  std::vector<std::string_view> probes() const override { return {"hip", "dxcore", "wsl-interop"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& facts = ctx.fact<SystemFacts>();
    if (!facts.wsl) return CheckOutcome::skipped("not running under WSL");
    if (ctx.options().image_mode) return CheckOutcome::skipped("--image: no GPU is expected in an image build");
    const auto& host = ctx.host();
    std::vector<Finding> findings;
    if (!host.exists("/dev/dxg")) {
      findings.push_back(driver_finding(ctx));
      findings.push_back(no_dxg_finding(host, facts));
      return findings;
    }
    findings.push_back(driver_finding(ctx));
    std::vector<Evidence> ok_evidence = {{"/dev/dxg", "present"}};
    bool healthy = true;
    const auto add = [&](std::optional<Finding> finding) {
      if (!finding) return;
      healthy = healthy && finding->severity < Severity::warning;
      findings.push_back(std::move(*finding));
    };
    add(windows_finding(ctx, ok_evidence));
    add(runtime_finding(ctx, ok_evidence));
    const auto release = active_release(ctx);
    for (const auto& gpu : wsl_gpus(ctx)) {
      if (gpu.gfx.empty()) {
        ok_evidence.push_back({gpu.source, gpu.name + " (not in the PCI id table: not judged)"});
        continue;
      }
      auto finding = gpu_finding(gpu, release);
      if (!finding) ok_evidence.push_back({gpu.source, label(gpu)});
      add(std::move(finding));
    }
    if (const auto& adapters = ctx.fact<WslAdapters>(); !adapters.unavailable.empty()) {
      ok_evidence.push_back({"DXCore", adapters.unavailable});
    }
    for (auto& finding : memory_findings(ctx)) findings.push_back(std::move(finding));
    if (healthy) {
      auto ok = make_finding("wsl.ok", Severity::ok, "ROCm's WSL path is in place: /dev/dxg and the WSL runtime")
                    .because(
                        "WSL reaches the GPU through /dev/dxg and the Windows driver; the WSL runtime is "
                        "installed for a GPU and Windows its release supports.");
      ok.evidence = ok_evidence;
      findings.push_back(std::move(ok));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::wsl

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::wsl::WslCheck)
