// `rocm-install`: which ROCm user-space release is installed, and whether
// programs and shells can find it (dynamic loader, PATH).
#include "rocm_doctor/facts/rocm_install.h"

#include <algorithm>

#include "env_variables_table.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "rocm_install.h"

namespace rocm_doctor::rocm_install_check {
namespace {

constexpr std::string_view kCheckId = "rocm-install";

Finding link_dangling(const RocmInstallation& install) {
  auto finding = make_finding("rocm.link-dangling", Severity::error,
                              "/opt/rocm points to " + install.opt_rocm_resolved + ", which does not exist")
                     .because(
                         "Build systems, scripts and frameworks look for ROCm under /opt/rocm. A link to a "
                         "removed release makes them fail or silently pick something else.")
                     .with_evidence("/opt/rocm", "-> " + install.opt_rocm_target.value_or(""))
                     .with_evidence(install.opt_rocm_resolved, "not found");
  const auto newest = std::find_if(install.releases.begin(), install.releases.end(),
                                   [](const auto& release) { return !release.distro_packaged; });
  if (newest == install.releases.end()) {
    return finding.with_fix(make_fix(kCheckId,
                                     "No ROCm release is left under /opt: remove the stale link (then install "
                                     "ROCm again if you need it).",
                                     {"sudo rm /opt/rocm"}, {.root = true}));
  }
  const bool alternatives = install.opt_rocm_target.value_or("").starts_with("/etc/alternatives/");
  if (alternatives) {
    return finding.with_fix(make_fix(
        kCheckId,
        "/opt/rocm is managed by update-alternatives (name `rocm`): register " + newest->prefix + " and select it.",
        {"sudo update-alternatives --install /opt/rocm rocm " + shell_quote(newest->prefix) + " 100",
         "sudo update-alternatives --set rocm " + shell_quote(newest->prefix)},
        {.root = true}));
  }
  return finding.with_fix(make_fix(kCheckId, "Point /opt/rocm at the installed release " + newest->prefix + ".",
                                   {"sudo ln -sfn " + shell_quote(newest->prefix) + " /opt/rocm"}, {.root = true}));
}

Finding not_installed(const CheckContext& ctx) {
  if (auto advice = bundled_only(ctx)) return std::move(*advice);
  const auto& facts = ctx.fact<SystemFacts>();
  auto finding = make_finding("rocm.not-installed", Severity::error, "No ROCm installation found")
                     .because(
                         "ROCm's user space (HIP runtime, rocminfo, libraries) is what programs load to use an "
                         "AMD GPU. (PyTorch's ROCm wheels bundle their own copy, but the system tools are still "
                         "needed to diagnose it.)")
                     .with_evidence("/opt/rocm", "not found")
                     .with_evidence("/opt/rocm-*", "none")
                     .with_evidence("libamdhip64.so*", "not in /usr/lib/x86_64-linux-gnu, /usr/lib64 or /usr/lib");
  const bool debian_like =
      facts.os_id == "debian" || facts.os_id == "ubuntu" || facts.os_id_like.find("debian") != std::string::npos;
  if (ctx.host().exists("/usr/bin/amdgpu-install")) {
    return finding.with_fix(make_fix(kCheckId, "AMD's installer is present: install the ROCm use case.",
                                     {"sudo amdgpu-install --usecase=rocm"}, {.root = true}));
  }
  if (facts.os_id == "debian") {
    return finding.with_fix(make_fix(
        kCheckId,
        "Debian packages ROCm itself (main archive); AMD's repository offers newer releases for supported systems "
        "(https://rocm.docs.amd.com/projects/install-on-linux/).",
        {"sudo apt update", "sudo apt install rocminfo libamdhip64-dev"}, {.root = true}));
  }
  if (debian_like) {
    return finding.with_fix(
        make_fix(kCheckId,
                 "Add AMD's ROCm repository as described at https://rocm.docs.amd.com/projects/install-on-linux/ "
                 "(amdgpu-install package), then install ROCm.",
                 {"sudo apt update", "sudo apt install rocm"}, {.root = true}));
  }
  return finding.with_fix(make_fix(
      kCheckId,
      "Install ROCm from AMD's repository for this distribution: https://rocm.docs.amd.com/projects/install-on-linux/",
      {}, {.root = true}));
}

Finding version_info(const RocmInstallation& install) {
  const auto& active = *install.active;
  auto finding = make_finding("rocm.version", Severity::info, release_label(active))
                     .because("The ROCm release decides which GPUs, kernels and framework builds are supported.")
                     .with_evidence(active.evidence, active.version.empty() ? "unreadable" : active.version)
                     .with_evidence("layout", layout_evidence(install, active));
  if (!active.hip_version.empty()) finding.with_evidence("HIP runtime", active.hip_version);
  if (install.opt_rocm_target) {
    const bool chain = install.opt_rocm_resolved != normalize_path(*install.opt_rocm_target);
    finding.with_evidence("/opt/rocm",
                          "-> " + *install.opt_rocm_target + (chain ? " -> " + install.opt_rocm_resolved : ""));
  }
  return finding;
}

// Where something expects /opt/rocm: PATH, the loader's folders, ROCM_PATH/HIP_PATH.
std::vector<Evidence> opt_rocm_references(const CheckContext& ctx, const RocmInstallation& install) {
  std::vector<Evidence> found;
  for (const auto& dir : split_search_path(ctx.host().env("PATH").value_or(""))) {
    if (path_is_under(normalize_path(dir), "/opt/rocm")) found.push_back({"env PATH", dir});
  }
  for (const auto& dir : install.loader_dirs) {
    if (path_is_under(dir.path, "/opt/rocm")) found.push_back({dir.origin, dir.path});
  }
  for (const auto& name : env_lint::env_variables_table().path_variables) {
    const auto value = ctx.host().env(name);
    if (value && path_is_under(normalize_path(*value), "/opt/rocm"))
      found.push_back({std::string("env ") + name, *value});
  }
  return found;
}

// One /opt/rocm-X.Y.Z and no /opt/rocm at all (amdgpu-install on some distributions, a
// partial or copied install): the fix is the link, not PATH edits naming the version.
std::optional<Finding> link_missing(const CheckContext& ctx, const RocmInstallation& install) {
  if (install.opt_rocm_target || ctx.host().exists("/opt/rocm") || !install.active) return std::nullopt;
  const auto vendor = std::count_if(install.releases.begin(), install.releases.end(),
                                    [](const auto& release) { return !release.distro_packaged; });
  const auto& active = *install.active;
  if (vendor != 1 || active.distro_packaged || !active.prefix.starts_with("/opt/rocm-")) return std::nullopt;
  const auto references = opt_rocm_references(ctx, install);
  auto finding =
      make_finding("rocm.link-missing", references.empty() ? Severity::warning : Severity::error,
                   "/opt/rocm does not exist; ROCm is installed only as " + active.prefix)
          .because(
              "Build systems (CMake's ROCm modules, hipcc wrappers, llama.cpp and koboldcpp Makefiles), "
              "frameworks and AMD's own post-install settings look for ROCm under /opt/rocm. Without the link "
              "they fail with '/opt/rocm/bin/hipcc: not found' or fall back to a CPU build; naming the "
              "version in PATH instead breaks again at the next upgrade.")
          .with_evidence("/opt/rocm", "not found")
          .with_evidence(active.evidence, active.version.empty() ? "unknown version" : active.version);
  for (const auto& item : references) finding.with_evidence(item.source, item.value + " (expects /opt/rocm)");
  const bool alternatives = ctx.host().exists("/var/lib/dpkg/alternatives/rocm");
  return finding.with_fix(make_fix(kCheckId,
                                   alternatives ? "Let update-alternatives recreate the /opt/rocm link."
                                                : "Create the /opt/rocm link to the installed release.",
                                   {alternatives ? std::string("sudo update-alternatives --auto rocm")
                                                 : "sudo ln -sfn " + shell_quote(active.prefix) + " /opt/rocm"},
                                   {.root = true}));
}

// Several releases side by side are fine (AMD supports it); they matter when
// something mixes them or nothing says which one is meant.
Finding multiple_installs(const CheckContext& ctx, const RocmInstallation& install) {
  const auto& active = *install.active;
  std::vector<std::string> labels, mixups;
  for (const auto& release : install.releases) labels.push_back(release_label(release));
  const bool distro =
      std::any_of(install.releases.begin(), install.releases.end(), [](const auto& r) { return r.distro_packaged; });
  const bool vendor = std::any_of(install.releases.begin(), install.releases.end(), [](const auto& r) {
    return r.layout == RocmLayout::legacy || r.layout == RocmLayout::core_sdk;
  });
  // A Python environment's copy serves that environment only; it is not a second system release.
  const auto system_wide = std::count_if(install.releases.begin(), install.releases.end(),
                                         [](const auto& r) { return r.layout != RocmLayout::python; });
  std::vector<Evidence> evidence;
  for (const auto& release : install.releases) {
    if (release.prefix == active.prefix || release.distro_packaged) continue;
    for (const auto& dir : install.loader_dirs) {
      if (path_is_under(dir.path, release.prefix)) evidence.push_back({dir.origin, dir.path});
    }
    for (const auto& dir : split_search_path(ctx.host().env("PATH").value_or(""))) {
      if (path_is_under(normalize_path(dir), release.prefix)) evidence.push_back({"env PATH", dir});
    }
    for (const char* name : {"ROCM_PATH", "HIP_PATH"}) {
      const auto value = ctx.host().env(name);
      if (value && path_is_under(normalize_path(*value), release.prefix))
        evidence.push_back({std::string("env ") + name, *value});
    }
  }
  const bool no_link = !install.selection_known() && vendor;
  const bool matters = (distro && vendor) || !evidence.empty() || (no_link && system_wide > 1);
  std::string summary = std::to_string(install.releases.size()) + " ROCm releases side by side; ";
  if (!install.opt_rocm_resolved.empty()) {
    summary += "/opt/rocm points to " + install.opt_rocm_resolved;
  } else if (install.selection_known()) {
    summary += "/opt/rocm/lib (update-alternatives) points to " + install.opt_rocm_lib_resolved;
  } else {
    summary += "no /opt/rocm link says which one is meant";
  }
  auto finding =
      make_finding("rocm.multiple-installs", matters ? Severity::warning : Severity::info, summary)
          .because(matters ? "Parts of different releases get mixed: the dynamic loader or PATH picks "
                             "libraries or tools of a release other than " +
                                 active.prefix +
                                 " (libhsa-runtime64.so.1 has the same name in every release), which breaks "
                                 "programs in confusing ways."
                           : "Releases installed side by side are supported; /opt/rocm selects the one in use.")
          .with_evidence("releases", join(labels, "; "));
  for (auto& item : evidence) finding.evidence.push_back(std::move(item));
  if (!matters) return finding;
  if (distro && vendor) {
    finding.with_evidence("mixed", "distribution ROCm packages and AMD's /opt ROCm are both installed");
    return finding.with_fix(make_fix(kCheckId,
                                     "Use one ROCm stack: remove the distribution's ROCm runtime packages (or the "
                                     "/opt release you do not use).",
                                     {"dpkg -l 'libamdhip64-*' 'libhsa-runtime64-*' 'rocminfo'"}, {.root = true}));
  }
  if (no_link && active.layout == RocmLayout::core_sdk) {
    return finding.with_fix(make_fix(
        kCheckId, "Select the Core SDK release to use with update-alternatives (name `rocm-lib`, and `rocm-bin`).",
        {"sudo update-alternatives --config rocm-lib", "sudo update-alternatives --config rocm-bin"}, {.root = true}));
  }
  if (no_link) {
    return finding.with_fix(make_fix(kCheckId, "Select the release to use by pointing /opt/rocm at it.",
                                     {"sudo ln -sfn " + shell_quote(active.prefix) + " /opt/rocm"}, {.root = true}));
  }
  std::vector<std::string> commands;
  const bool from_env = std::any_of(finding.evidence.begin(), finding.evidence.end(), [](const auto& item) {
    return item.source == "LD_LIBRARY_PATH" || item.source.starts_with("env ");
  });
  if (from_env) {
    const auto identity = ctx.host().identity();
    const auto user = identity.user.empty() ? std::nullopt : ctx.host().user_by_name(identity.user);
    const std::string home = user && !user->home.empty() ? shell_quote(user->home) : std::string("~");
    commands.push_back("grep -n " + shell_quote("/opt/rocm-") + " " + home + "/.bashrc " + home +
                       "/.profile /etc/environment");
  } else {
    commands = {"grep -rn " + shell_quote("/opt/rocm-") + " /etc/ld.so.conf /etc/ld.so.conf.d", "sudo ldconfig"};
  }
  return finding.with_fix(make_fix(kCheckId,
                                   "Remove the other release's folders from the places shown above (shell start-up "
                                   "files for variables, /etc/ld.so.conf.d for the loader, then `sudo ldconfig`), so "
                                   "only " +
                                       active.prefix + " (via /opt/rocm) is used; open a new shell.",
                                   commands, {.root = !from_env}));
}

bool is_hip_soname(std::string_view path, const std::string& soname) {
  const auto name = path.substr(path.rfind('/') + 1);
  return name == soname || (name.starts_with(soname) && name[soname.size()] == '.');
}

// The soname programs built for the active release ask the loader for: the one in its lib
// folder (the Core SDK's HIP major is not the release's: ROCm 7.14 ships libamdhip64.so.7),
// else the release's major.
std::string wanted_soname(const RocmRelease& release) {
  if (!release.hip_soname.empty()) return release.hip_soname;
  if (release.version.empty() || release.layout == RocmLayout::core_sdk) return "libamdhip64.so";
  return "libamdhip64.so." + std::string(split(release.version, '.').front());
}

const LoaderHit* loader_finds(const RocmInstallation& install, const std::string& soname) {
  const auto found = std::find_if(install.hip_libraries.begin(), install.hip_libraries.end(),
                                  [&](const auto& hit) { return is_hip_soname(hit.path, soname); });
  return found == install.hip_libraries.end() ? nullptr : &*found;
}

std::optional<Finding> lib_not_found(const CheckContext& ctx, const RocmInstallation& install) {
  const auto& active = *install.active;
  const auto& host = ctx.host();
  const auto soname = wanted_soname(active);
  if (loader_finds(install, soname)) return std::nullopt;

  std::vector<std::string> searched;
  for (const auto& dir : install.loader_dirs) searched.push_back(dir.path);
  // A Python environment's runtime is loaded by rocm_sdk inside Python: other programs missing it is
  // worth knowing, not a broken install.
  const bool python = active.layout == RocmLayout::python;
  auto finding = make_finding("rocm.lib-not-found", python ? Severity::info : Severity::error,
                              "The dynamic loader cannot find " + soname + " of " + release_label(active))
                     .because(
                         "Programs built with HIP load libamdhip64 through the dynamic loader; they fail with "
                         "\"error while loading shared libraries: " +
                         soname + "\" when no searched folder holds it." +
                         (python ? " Python programs of this environment are not affected: rocm_sdk loads the "
                                   "runtime from the package folder."
                                 : ""))
                     .with_evidence("searched", join(searched, ":"));
  for (const auto& hit : install.hip_libraries) finding.with_evidence(hit.origin, hit.path + " (another release)");
  const auto entries = host.list_dir(active.lib_dir);
  const bool present = entries && std::any_of(entries->begin(), entries->end(), [&](const auto& entry) {
                         return is_hip_soname(active.lib_dir + "/" + entry.name, soname);
                       });
  if (!present) {
    finding.with_evidence(active.lib_dir, "no " + soname);
    const auto command = hip_runtime_install_command(active);
    return finding.with_fix(make_fix(kCheckId,
                                     "The HIP runtime is not installed in " + active.prefix + ": install it (" +
                                         command.substr(command.rfind(' ') + 1) + ").",
                                     {command}, {.root = command.starts_with("sudo ")}));
  }
  finding.with_evidence(active.lib_dir, "holds " + soname);
  auto advice = loader_advice(install, active);
  return finding.with_fix(
      make_fix(kCheckId, std::move(advice.description), std::move(advice.commands), {.root = advice.needs_root}));
}

// Where this user's login shell reads its settings from.
std::string persist_command(const Host& host, const std::string& line, const std::string& bin) {
  const auto identity = host.identity();
  const auto user = identity.user.empty() ? std::nullopt : host.user_by_name(identity.user);
  const std::string home = user && !user->home.empty() ? user->home : "~";
  const std::string shell = user ? user->shell.substr(user->shell.rfind('/') + 1) : "";
  if (shell == "fish") return "fish -c " + shell_quote("fish_add_path " + bin);
  const std::string file = shell == "zsh" ? "/.zshrc" : shell == "bash" ? "/.bashrc" : "/.profile";
  const auto target = home == "~" ? "~" + file : shell_quote(home + file);
  return "echo " + shell_quote(line) + " >> " + target;
}

std::optional<Finding> bin_not_on_path(const CheckContext& ctx, const RocmInstallation& install) {
  const auto& active = *install.active;
  const auto& host = ctx.host();
  if (active.distro_packaged) return std::nullopt;  // /usr/bin is always on PATH
  // pip puts the tools' launchers into the environment's bin folder, on PATH once it is activated.
  if (active.layout == RocmLayout::python) return std::nullopt;
  std::vector<std::string> tools;
  for (const char* tool : {"rocminfo", "hipconfig"}) {
    if (host.exists(active.bin_dir + "/" + tool)) tools.emplace_back(tool);
  }
  if (tools.empty()) return std::nullopt;
  const auto path = host.env("PATH").value_or("");
  for (const auto& dir : split_search_path(path)) {
    // /opt/rocm/bin behind a dangling or missing /opt/rocm: rocm.link-dangling or
    // rocm.link-missing says how to fix it.
    if ((install.opt_rocm_dangling || !install.opt_rocm_target) && normalize_path(dir) == "/opt/rocm/bin" &&
        !host.exists("/opt/rocm")) {
      return std::nullopt;
    }
    for (const auto& tool : tools) {
      if (host.exists(normalize_path(dir) + "/" + tool)) return std::nullopt;
    }
  }
  const auto bin = preferred_bin_dir(host, install, active);
  const auto line = "export PATH=\"$PATH:" + bin + "\"";
  auto fix =
      make_fix(kCheckId,
               "Add " + bin + " to PATH now and for every new shell of this user" +
                   (ctx.options().image_mode ? " (in a Dockerfile: ENV PATH=\"${PATH}:" + bin + "\")" : "") + ".",
               {line, persist_command(host, line, bin)});
  return make_finding("rocm.bin-not-on-path", Severity::warning,
                      join(tools, " and ") + " are in " + active.bin_dir + ", which is not on PATH")
      .because(
          "ROCm's tools (rocminfo, hipconfig, hipcc, amd-smi) are not found by name, and build scripts that "
          "run `hipconfig` fail.")
      .with_evidence("env PATH", path.empty() ? "(unset)" : path)
      .with_evidence(active.bin_dir, join(tools, ", "))
      .with_fix(fix);
}

Finding ok_finding(const RocmInstallation& install) {
  const auto& active = *install.active;
  const auto* hit = loader_finds(install, wanted_soname(active));
  if (hit == nullptr && active.layout == RocmLayout::python) {
    return make_finding("rocm.ok", Severity::ok, release_label(active) + " is usable from its Python environment")
        .because(
            "Python programs of the environment load the runtime through rocm_sdk; its tools are on PATH "
            "while the environment is active.")
        .with_evidence(active.lib_dir, active.hip_soname);
  }
  auto finding =
      make_finding("rocm.ok", Severity::ok, release_label(active) + " is usable: libraries and tools are found")
          .because("The dynamic loader finds the HIP runtime and the tools are on PATH.");
  if (hit != nullptr) finding.with_evidence(hit->origin, hit->path);
  return finding;
}

class RocmInstallCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm installation"; }
  int order() const override { return 40; }
  std::vector<std::string_view> finding_ids() const override {
    return {"rocm.not-installed",        "rocm.version",         "rocm.multiple-installs", "rocm.link-dangling",
            "rocm.lib-not-found",        "rocm.bin-not-on-path", "rocm.link-missing",      "rocm.ok",
            "rocm.release-unknown-newer"};
  }

  // Runs with --image too: ROCm's user space is exactly what an image build checks.
  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& install = ctx.fact<RocmInstallation>();
    std::vector<Finding> findings;
    if (install.opt_rocm_dangling) findings.push_back(link_dangling(install));
    if (!install.installed()) {
      findings.push_back(not_installed(ctx));
      return findings;
    }
    findings.push_back(version_info(install));
    if (auto finding = release_unknown_newer(*install.active)) findings.push_back(std::move(*finding));
    auto missing_link = link_missing(ctx, install);
    // The loader told to look in /opt/rocm/lib: the missing link is the cause, not the loader configuration.
    const bool link_explains_loader =
        missing_link && std::any_of(install.loader_dirs.begin(), install.loader_dirs.end(),
                                    [](const auto& dir) { return path_is_under(dir.path, "/opt/rocm"); });
    if (missing_link) findings.push_back(std::move(*missing_link));
    if (install.releases.size() > 1) findings.push_back(multiple_installs(ctx, install));
    if (!link_explains_loader) {
      if (auto finding = lib_not_found(ctx, install)) findings.push_back(std::move(*finding));
    }
    if (auto finding = bin_not_on_path(ctx, install)) findings.push_back(std::move(*finding));
    const bool healthy = std::none_of(findings.begin(), findings.end(),
                                      [](const auto& finding) { return finding.severity >= Severity::warning; });
    if (healthy) findings.push_back(ok_finding(install));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::rocm_install_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::rocm_install_check::RocmInstallCheck)
