// `wsl`: the ROCm runtime for WSL (librocdxg, or the older
// hsa-runtime-rocr4wsl-amdgpu) and HSA_ENABLE_DXG_DETECTION judged by release:
// needed as 1 before ROCm 7.13, on by default from 7.13 (rocm-systems PR
// #3863), and 0 turns the WSL GPU path off on every release.
#include <fmt/format.h>

#include <algorithm>

#include "rocm_doctor/facts/dpkg_database.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"
#include "wsl.h"

namespace rocm_doctor::wsl {

namespace {

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

Fix librocdxg_fix(const CheckContext& ctx) {
  const auto release = active_release(ctx);
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

Fix variable_fix(const Host& host, const std::string& value) {
  // Without HOME the shell expands it (a quoted '~/.bashrc' would name a folder '~').
  const auto home = host.env("HOME").value_or("");
  const auto bashrc = home.empty() ? std::string("\"$HOME\"/.bashrc") : shell_quote(home + "/.bashrc");
  return make_fix(
      kCheckId, fmt::format("Set {}={} for every session (then open a new shell)", data().enable_variable, value),
      {fmt::format("echo {} >> {}", shell_quote("export " + data().enable_variable + "=" + value), bashrc)});
}

Finding dxcore_missing() {
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

std::optional<Finding> variable_finding(const CheckContext& ctx, const std::string& library,
                                        std::vector<Evidence>& ok_evidence) {
  const auto& host = ctx.host();
  const auto value = host.env(data().enable_variable);
  const auto release = active_release(ctx);
  const auto verdict = judge_dxg_variable(value, release, data().dxg_required_before, data().dxg_disable_value);
  const auto shown = value ? "'" + *value + "'" : std::string("unset");
  if (!verdict.blocks) {
    ok_evidence.push_back({library, "present"});
    ok_evidence.push_back({"env " + data().enable_variable, shown + " (" + verdict.reason + ")"});
    return std::nullopt;
  }
  const bool disabled = value && *value == data().dxg_disable_value;
  auto finding =
      make_finding("wsl.runtime-missing", verdict.certain ? Severity::error : Severity::warning,
                   disabled
                       ? fmt::format("{}={} turns off the WSL GPU path of librocdxg", data().enable_variable, *value)
                       : fmt::format("librocdxg is installed but {} is not set to 1{}", data().enable_variable,
                                     release.empty() ? "" : " (ROCm " + release + ")"))
          .because(verdict.reason +
                   " Without the WSL path the runtime looks for /dev/kfd, which WSL does not have, and rocminfo "
                   "fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES or 'No WDDM adapters found'.")
          .with_evidence(library, "present")
          .with_evidence("env " + data().enable_variable, shown)
          .with_evidence("ROCm release", release.empty() ? "unknown" : release)
          .with_evidence("source", data().dxg_source);
  if (disabled) {
    return finding.with_fix(make_fix(kCheckId,
                                     fmt::format("Remove {}={} from your shell startup files and environment, then "
                                                 "open a new shell",
                                                 data().enable_variable, *value),
                                     {"unset " + data().enable_variable}));
  }
  return finding.with_fix(variable_fix(host, "1"));
}

}  // namespace

std::string active_release(const CheckContext& ctx) {
  const auto& install = ctx.fact<RocmInstallation>();
  return install.active ? install.active->version : std::string();
}

DxgVerdict judge_dxg_variable(const std::optional<std::string>& value, std::string_view release,
                              std::string_view required_before, std::string_view disable_value) {
  const std::string cutoff(required_before);
  if (value && *value == disable_value) {
    return {true, true, "Set to " + std::string(disable_value) + ", it turns the DXG (WSL GPU) detection off."};
  }
  if (value && *value == "1") return {false, true, "set to 1: the runtime looks for the WSL GPU"};
  if (!release.empty() && !kb::version_less(release, cutoff)) {
    return {false, true, "on by default from ROCm " + cutoff};
  }
  if (release.empty()) {
    return {true, false,
            "The ROCm release is unknown: releases before " + cutoff +
                " look for the WSL GPU through librocdxg only when this variable is 1 (newer ones by default)."};
  }
  return {true, true,
          "ROCm " + std::string(release) +
              " looks for the WSL GPU through librocdxg only when this variable is 1 "
              "(on by default only from ROCm " +
              cutoff + ")."};
}

std::optional<Finding> runtime_finding(const CheckContext& ctx, std::vector<Evidence>& ok_evidence) {
  const auto& host = ctx.host();
  if (!host.exists(data().dxcore)) return dxcore_missing();
  ok_evidence.push_back({data().dxcore, "present"});
  if (const auto library = find_librocdxg(ctx)) return variable_finding(ctx, *library, ok_evidence);
  if (const auto version = ctx.fact<DpkgDatabase>().installed_version(data().legacy_package)) {
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

}  // namespace rocm_doctor::wsl
