// `env`: misspelled or invented variable names, install-path variables
// (ROCM_PATH, HIP_PATH, ROCM_HOME), and PATH / LD_LIBRARY_PATH entries of another release.
#include <fmt/format.h>

#include <algorithm>

#include "env.h"
#include "env_lint.h"
#include "env_variables_table.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::env_check {

using env_lint::judge_variable;
using env_lint::NameVerdict;

namespace {

// Whether `unset NAME` can be pasted as it is: a name of letters, digits and '_'
// not starting with a digit. Any other name (the environment allows any bytes but
// '=') stays out of fix commands, where it could inject shell syntax.
bool is_shell_name(std::string_view name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<std::string> unset_commands(const std::string& name) {
  if (is_shell_name(name)) return {"unset " + name};
  return {};
}

// Files that show a folder is a ROCm (or HIP) install.
bool looks_like_rocm_install(const Host& host, const std::string& folder) {
  for (const char* marker :
       {"/.info/version", "/bin/hipcc", "/bin/hipconfig", "/include/hip/hip_runtime.h", "/share/hip/version",
        "/lib/libamdhip64.so", "/lib/x86_64-linux-gnu/libamdhip64.so", "/lib/cmake/hip", "/lib64/libamdhip64.so"}) {
    if (host.exists(folder + marker)) return true;
  }
  return false;
}

// "/opt/rocm-6.1.2/lib" -> "6.1.2".
std::optional<std::string> release_in_path(std::string_view entry) {
  for (const auto part : split(entry, '/')) {
    if (auto version = parse_versioned_folder(part)) return version;
  }
  return std::nullopt;
}

}  // namespace

void name_findings(const Environment& env, std::vector<Finding>& findings) {
  for (const auto& [name, value] : env.values) {
    const auto judgement = judge_variable(name);
    if (judgement.verdict == NameVerdict::invented) {
      auto finding = make_finding("env.unknown-variable", Severity::warning, name + " is not a real variable")
                         .because(judgement.why + " " + judgement.instead)
                         .with_evidence("env " + name, value);
      finding.with_fix(make_fix(kCheckId, "Remove it (it has no effect).", unset_commands(name)));
      findings.push_back(std::move(finding));
    } else if (judgement.verdict == NameVerdict::misspelled) {
      std::string summary = fmt::format("{} is not a ROCm variable: did you mean {}?", name, judgement.suggestion);
      std::string detail = "A misspelled variable is silently ignored: the setting it was meant to make never happens.";
      if (judgement.why == "case") detail += " Environment variable names are case-sensitive.";
      if (judgement.why == "suffix") {
        detail += " The per-device form takes the KFD topology node number (/sys/class/kfd/kfd/topology/nodes/<n>).";
      }
      auto finding = make_finding("env.unknown-variable", Severity::warning, summary)
                         .because(detail)
                         .with_evidence("env " + name, value);
      std::vector<std::string> commands = unset_commands(name);
      if (is_shell_name(judgement.suggestion)) {
        commands.push_back("export " + judgement.suggestion + "=" + shell_quote(value));
      }
      finding.with_fix(make_fix(kCheckId, "Rename it.", commands));
      findings.push_back(std::move(finding));
    } else if (judgement.verdict == NameVerdict::unknown) {
      findings.push_back(make_finding("env.unknown-variable", Severity::info,
                                      name + " looks like a ROCm variable but is not one rocm-doctor knows")
                             .because("No documented ROCm, HIP, MIOpen or RCCL variable is close to this name; if it "
                                      "is meant for ROCm, check its spelling in the component's documentation.")
                             .with_evidence("env " + name, value));
    }
  }
}

void path_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings) {
  const auto& install = ctx.fact<RocmInstallation>();
  for (const auto& name : env_lint::env_variables_table().path_variables) {
    const auto value = env.get(name);
    if (!value) continue;
    auto folder = std::string(trim(*value));
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    std::string problem;
    if (folder.empty() || folder.front() != '/')
      problem = "is not an absolute path";
    else if (!ctx.host().exists(folder))
      problem = "does not exist";
    else if (!looks_like_rocm_install(ctx.host(), folder))
      problem = "holds no ROCm install (no .info/version, hipcc or libamdhip64)";
    if (problem.empty()) continue;
    auto finding = make_finding("env.path-invalid", Severity::error, fmt::format("{}={} {}", name, *value, problem))
                       .because(name +
                                " tells build tools (hipcc, CMake, PyTorch extensions via ROCM_HOME) where "
                                "ROCm is; pointing it at nothing makes them fail or silently pick another "
                                "release. /opt/rocm/hip was removed in ROCm 6.0: HIP lives in /opt/rocm itself.")
                       .with_evidence("env " + name, *value);
    std::vector<std::string> commands;
    if (install.active && !install.active->prefix.empty()) {
      const auto prefix =
          install.opt_rocm_target || ctx.host().exists("/opt/rocm") ? std::string("/opt/rocm") : install.active->prefix;
      commands.push_back("export " + name + "=" +
                         shell_quote(install.active->distro_packaged ? install.active->prefix : prefix));
      finding.with_evidence("installed ROCm", install.active->prefix + " " + install.active->version);
    } else {
      commands.push_back("unset " + name);
    }
    finding.with_fix(make_fix(
        kCheckId, "Point it at the installed release (or unset it: the tools default to /opt/rocm).", commands));
    findings.push_back(std::move(finding));
  }
}

void mixed_release_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings) {
  const auto& install = ctx.fact<RocmInstallation>();
  if (!install.active || install.active->version.empty()) return;
  const auto active = install.active->version;
  for (const std::string name : {"PATH", "LD_LIBRARY_PATH"}) {
    const auto value = env.get(name);
    if (!value) continue;
    for (const auto& entry : split_search_path(*value, name == "LD_LIBRARY_PATH")) {
      const auto release = release_in_path(entry);
      if (!release || compare_versions(*release, active) == 0) continue;
      const bool installed = std::any_of(install.releases.begin(), install.releases.end(), [&](const RocmRelease& r) {
        return compare_versions(r.version, *release) == 0;
      });
      auto finding =
          make_finding("env.mixed-releases", Severity::warning,
                       fmt::format("{} has {} (ROCm {}) but the active release is {}", name, entry, *release, active))
              .because(std::string(installed ? "Two ROCm releases are mixed: "
                                             : "A release that is no longer installed is still listed: ") +
                       (name == "PATH" ? "tools (hipcc, rocminfo) come from one release"
                                       : "libraries come from one release") +
                       " and the rest from another, which breaks builds and gives errors such as "
                       "undefined symbols or 'invalid device function'.")
              .with_evidence("env " + name, *value)
              .with_evidence(install.active->evidence.empty() ? install.active->prefix : install.active->evidence,
                             active);
      const auto replacement = install.active->prefix + entry.substr(entry.find(*release) + release->size());
      std::string fixed;
      for (const auto& other : split_search_path(*value, name == "LD_LIBRARY_PATH")) {
        fixed += (fixed.empty() ? "" : ":") + (other == entry ? replacement : other);
      }
      finding.with_fix(make_fix(
          kCheckId, "Use the active release's folder (and fix the line in ~/.bashrc or /etc/profile.d that adds it).",
          {"export " + name + "=" + shell_quote(fixed)}));
      findings.push_back(std::move(finding));
      break;
    }
  }
}

}  // namespace rocm_doctor::env_check
