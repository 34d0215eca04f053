// `wsl`: ROCm under WSL2 reaches the GPU through /dev/dxg and the Windows driver, with a
// WSL-specific runtime (librocdxg, or the older hsa-runtime-rocr4wsl-amdgpu) and a much
// shorter GPU list than native Linux. Not under WSL: skipped.
#include "wsl.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/dpkg_database.h"
#include "rocm_doctor/facts/rocm_install.h"
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

constexpr std::string_view kCheckId = "wsl";

struct Data {
  std::vector<std::string> libraries;
  std::string legacy_package;
  std::string enable_variable;
  std::string lib_dir;
  std::string dxcore;
  std::string driver_requirement;
  std::string driver_source;
  std::vector<SupportRow> supported;
};

const Data& data() {
  static const Data parsed = [] {
    const auto json = nlohmann::json::parse(embedded::data_wsl());
    Data d;
    d.libraries = json.at("runtime_libraries").get<std::vector<std::string>>();
    d.legacy_package = json.at("legacy_runtime_package").get<std::string>();
    d.enable_variable = json.at("enable_variable").get<std::string>();
    d.lib_dir = json.at("wsl_lib_dir").get<std::string>();
    d.dxcore = json.at("dxcore").get<std::string>();
    d.driver_requirement = json.at("driver_requirement").get<std::string>();
    d.driver_source = json.at("driver_requirement_source").get<std::string>();
    for (const auto& row : json.at("supported")) {
      d.supported.push_back({row.at("gfx").get<std::string>(), row.at("products").get<std::vector<std::string>>()});
    }
    return d;
  }();
  return parsed;
}

std::string distro_name(const Host& host) {
  return host.env("WSL_DISTRO_NAME").value_or("Ubuntu");
}

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
  const auto distro = distro_name(host);
  if (wsl1) {
    return finding.with_fix(make_fix(kCheckId, "Convert this distribution to WSL2, in PowerShell on Windows:",
                                     {shell_command({"wsl", "--set-version", distro, "2"})}));
  }
  return finding.with_fix(make_fix(kCheckId,
                                   "Update WSL and install the current AMD Adrenalin driver on Windows, then "
                                   "restart WSL, in PowerShell on Windows:",
                                   {"wsl --update", "wsl --shutdown"}));
}

std::vector<std::string> runtime_dirs(const CheckContext& ctx) {
  std::vector<std::string> dirs;
  const auto add = [&](std::string dir) {
    if (!dir.empty() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(std::move(dir));
  };
  const auto& install = ctx.fact<RocmInstallation>();
  if (install.active) add(install.active->lib_dir);
  for (const auto& release : install.releases) add(release.lib_dir);
  add("/opt/rocm/lib");
  add("/usr/local/lib");
  add("/usr/lib/x86_64-linux-gnu");
  return dirs;
}

std::optional<std::string> find_librocdxg(const CheckContext& ctx) {
  for (const auto& dir : runtime_dirs(ctx)) {
    for (const auto& name : data().libraries) {
      const auto path = dir + "/" + name;
      if (ctx.host().exists(path)) return path;
    }
  }
  return std::nullopt;
}

std::optional<std::string> legacy_runtime(const CheckContext& ctx) {
  return ctx.fact<DpkgDatabase>().installed_version(data().legacy_package);
}

Fix librocdxg_fix(const CheckContext& ctx) {
  const auto& install = ctx.fact<RocmInstallation>();
  const auto release = install.active ? install.active->version : std::string();
  const bool new_runtime = !release.empty() && !kb::version_less(release, "7.1");
  if (new_runtime || release.empty()) {
    return make_fix(kCheckId,
                    fmt::format("Build and install librocdxg (ROCm {} uses it under WSL) as its README describes: it "
                                "needs the Windows SDK headers (export win_sdk=... pointing at /mnt/c/Program Files "
                                "(x86)/Windows Kits/10/Include/<version>), then enable it with {}=1",
                                release.empty() ? "7.1 and newer" : release, data().enable_variable),
                    {"git clone https://github.com/ROCm/librocdxg.git"});
  }
  return make_fix(kCheckId,
                  fmt::format("Install the WSL runtime of ROCm {} ({}) with AMD's installer, without the kernel "
                              "driver (WSL uses the Windows one)",
                              release, data().legacy_package),
                  {"sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms"}, FixNeeds{.root = true});
}

std::optional<Finding> runtime_finding(const CheckContext& ctx, std::vector<Evidence>& ok_evidence) {
  const auto& host = ctx.host();
  if (!host.exists(data().dxcore)) {
    return make_finding("wsl.runtime-missing", Severity::error,
                        fmt::format("WSL's GPU library {} is missing", data().dxcore))
        .because(fmt::format("WSL2 mounts the Windows driver's user-mode libraries (libdxcore.so among them) at {}; "
                             "the ROCm WSL runtime loads them to reach /dev/dxg.",
                             data().lib_dir))
        .with_evidence(data().dxcore, "absent")
        .with_fix(make_fix(kCheckId,
                           "Update WSL and reinstall the AMD driver on Windows, then restart WSL, in PowerShell "
                           "on Windows:",
                           {"wsl --update", "wsl --shutdown"}));
  }
  ok_evidence.push_back({data().dxcore, "present"});
  if (const auto library = find_librocdxg(ctx)) {
    const auto enabled = host.env(data().enable_variable);
    if (!enabled || *enabled != "1") {
      // Without HOME the shell expands it (a quoted '~/.bashrc' would name a folder '~').
      const auto home = host.env("HOME").value_or("");
      const auto bashrc = home.empty() ? std::string("\"$HOME\"/.bashrc") : shell_quote(home + "/.bashrc");
      auto fix =
          make_fix(kCheckId, fmt::format("Set {}=1 for every session (then open a new shell)", data().enable_variable),
                   {fmt::format("echo {} >> {}", shell_quote("export " + data().enable_variable + "=1"), bashrc)});
      return make_finding("wsl.runtime-missing", Severity::error,
                          fmt::format("librocdxg is installed but {} is not set to 1", data().enable_variable))
          .because(
              "The ROCm runtime looks for the WSL GPU through librocdxg only when this variable is 1; without it "
              "it looks for /dev/kfd, which WSL does not have, and rocminfo fails with "
              "HSA_STATUS_ERROR_OUT_OF_RESOURCES.")
          .with_evidence(*library, "present")
          .with_evidence("env " + data().enable_variable, enabled.value_or("unset"))
          .with_fix(fix);
    }
    ok_evidence.push_back({*library, "present"});
    return std::nullopt;
  }
  if (const auto version = legacy_runtime(ctx)) {
    ok_evidence.push_back({"dpkg " + data().legacy_package, *version});
    return std::nullopt;
  }
  auto finding = make_finding("wsl.runtime-missing", Severity::error, "The ROCm runtime for WSL is not installed")
                     .because(
                         "The regular ROCm runtime looks for /dev/kfd, which WSL does not have: under WSL ROCm needs "
                         "librocdxg (ROCm 7.1 and newer) or the WSL build of the HSA runtime (" +
                         data().legacy_package +
                         ", earlier releases). Without it rocminfo fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES or "
                         "'ROCk module is NOT loaded'.")
                     .with_evidence("librocdxg.so", "not found in " + join(runtime_dirs(ctx), ", "))
                     .with_evidence("dpkg " + data().legacy_package, "not installed");
  return finding.with_fix(librocdxg_fix(ctx));
}

struct GpuIdentity {
  std::string gfx;
  std::string name;
  std::string source;
};

std::vector<GpuIdentity> wsl_gpus(const CheckContext& ctx) {
  std::vector<GpuIdentity> gpus;
  if (const auto hip = ctx.host().probe("hip"); hip && hip->is_object() && hip->contains("devices")) {
    for (const auto& device : hip->at("devices")) {
      if (!device.is_object()) continue;
      GpuIdentity gpu{device.value("gfx", ""), device.value("name", ""), "probe hip"};
      if (gpu.gfx.empty()) {
        // "gfx1100" from an isa string such as "amdgcn-amd-amdhsa--gfx1100".
        const auto isa = device.value("isa", "");
        if (const auto at = isa.find("gfx"); at != std::string::npos) gpu.gfx = isa.substr(at, isa.find(':', at) - at);
      }
      if (!gpu.gfx.empty()) gpus.push_back(std::move(gpu));
    }
  }
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

class WslCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm on WSL2"; }
  int order() const override { return 16; }
  std::vector<std::string_view> finding_ids() const override {
    return {"wsl.no-dxg", "wsl.runtime-missing", "wsl.unsupported-gpu", "wsl.driver", "wsl.ok"};
  }
  std::vector<std::string_view> probes() const override { return {"hip"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& facts = ctx.fact<SystemFacts>();
    if (!facts.wsl) return CheckOutcome::skipped("not running under WSL");
    if (ctx.options().image_mode) return CheckOutcome::skipped("--image: no GPU is expected in an image build");
    const auto& host = ctx.host();
    std::vector<Finding> findings;
    findings.push_back(
        make_finding("wsl.driver", Severity::info, "Under WSL the GPU driver is the Windows AMD Adrenalin driver")
            .because(data().driver_requirement)
            .with_evidence("source", data().driver_source)
            .with_evidence("/proc/sys/kernel/osrelease", facts.kernel_release));
    if (!host.exists("/dev/dxg")) {
      findings.push_back(no_dxg_finding(host, facts));
      return findings;
    }
    std::vector<Evidence> ok_evidence = {{"/dev/dxg", "present"}};
    bool healthy = true;
    if (auto finding = runtime_finding(ctx, ok_evidence)) {
      findings.push_back(std::move(*finding));
      healthy = false;
    }
    for (const auto& gpu : wsl_gpus(ctx)) {
      if (supported_entry(data().supported, gpu.gfx)) {
        ok_evidence.push_back({gpu.source, gpu.name.empty() ? gpu.gfx : gpu.name + " (" + gpu.gfx + ")"});
        continue;
      }
      healthy = false;
      findings.push_back(
          make_finding("wsl.unsupported-gpu", Severity::error,
                       fmt::format("{} is not on ROCm-on-WSL's support list",
                                   gpu.name.empty() ? gpu.gfx : gpu.name + " (" + gpu.gfx + ")"))
              .because("ROCm under WSL supports far fewer GPUs than native Linux (RDNA3/RDNA4 Radeon and a few "
                       "Ryzen AI APUs): " +
                       supported_names() +
                       ". HSA_OVERRIDE_GFX_VERSION does not help when the WSL runtime finds no WDDM adapter it "
                       "supports.")
              .with_evidence(gpu.source, gpu.gfx)
              .with_fix(make_fix(kCheckId,
                                 "Use a listed GPU, or run ROCm on native Linux (dual boot) where this GPU's "
                                 "support follows the regular ROCm list",
                                 {})));
    }
    if (healthy) {
      auto ok = make_finding("wsl.ok", Severity::ok, "ROCm's WSL path is in place: /dev/dxg and the WSL runtime")
                    .because(
                        "WSL reaches the GPU through /dev/dxg and the Windows driver; the WSL runtime is "
                        "installed.");
      ok.evidence = ok_evidence;
      findings.push_back(std::move(ok));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::wsl

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::wsl::WslCheck)
