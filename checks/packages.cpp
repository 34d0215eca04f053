// `packages`: the package manager's view of ROCm. Half-installed packages, repository
// entries that point at another release (or twice at the same one, or rely on apt-key),
// and an amdgpu driver further from the ROCm user space than AMD supports.
#include "packages.h"

#include <algorithm>
#include <map>
#include <set>

#include "driver_config.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/amdgpu_driver.h"
#include "rocm_doctor/facts/dpkg_database.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "rocm_packages_table.h"

namespace rocm_doctor::packages {

// The driver rules are this check's vocabulary.
using amdgpu_driver::Compatibility;
using amdgpu_driver::driver_rules;
using amdgpu_driver::InstalledDriver;
using amdgpu_driver::judge_skew;
using amdgpu_driver::major_minor;
using amdgpu_driver::rocm_release_of_driver;

namespace {

constexpr std::string_view kCheckId = "packages";

bool is_rocm_package(std::string_view name) {
  const auto& data = rocm_packages_table();
  const auto starts = [&](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& prefix) { return name.starts_with(prefix); });
  };
  return starts(data.package_prefixes) && !starts(data.package_exclude_prefixes);
}

// ---- rocm.install-broken ----

std::optional<Finding> install_broken(const DpkgDatabase& dpkg) {
  const auto& broken = rocm_packages_table().broken_states;
  std::vector<DpkgPackage> bad;
  for (const auto& package : dpkg.packages) {
    const bool state_bad = std::find(broken.begin(), broken.end(), package.state) != broken.end();
    if ((state_bad || package.flag == "reinstreq") && is_rocm_package(package.name)) bad.push_back(package);
  }
  if (bad.empty()) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& package : bad) names.push_back(package.name + " (" + package.state + ")");
  auto finding =
      make_finding("rocm.install-broken", Severity::error,
                   std::to_string(bad.size()) + " ROCm/amdgpu package(s) are half-installed: " + join(names, ", "))
          .because(
              "dpkg stopped in the middle of installing or configuring these packages (often the "
              "amdgpu-dkms build failing, or an interrupted upgrade). Their files may be missing or "
              "from two releases, and apt refuses further installs until it is repaired.");
  for (const auto& package : bad) {
    finding.with_evidence(std::string(DpkgDatabase::kStatusPath) + ":" + std::to_string(package.line),
                          "Package: " + package.name + " Version: " + package.version + " Status: " + package.want +
                              " " + package.flag + " " + package.state);
  }
  return finding.with_fix(make_fix(kCheckId,
                                   "Let dpkg finish, then let apt repair dependencies. If amdgpu-dkms fails again, "
                                   "its error names the cause (usually missing kernel headers).",
                                   {"sudo dpkg --configure -a", "sudo apt-get install -f"}, {.root = true}));
}

// ---- rocm.repo-stale ----

struct SourcedEntry {
  std::string file;
  RepoEntry entry;
  RadeonRepo repo;
  bool apt = false;
};

std::vector<SourcedEntry> radeon_entries(const Host& host) {
  std::vector<std::pair<std::string, int>> files;  // path, format: 0 list, 1 deb822, 2 ini
  if (host.exists("/etc/apt/sources.list")) files.emplace_back("/etc/apt/sources.list", 0);
  const auto add_dir = [&](const std::string& dir, const std::string& suffix, int format) {
    for (const auto& entry : host.list_dir(dir).value_or(std::vector<DirEntry>{})) {
      if (entry.name.ends_with(suffix)) files.emplace_back(dir + "/" + entry.name, format);
    }
  };
  add_dir("/etc/apt/sources.list.d", ".list", 0);
  add_dir("/etc/apt/sources.list.d", ".sources", 1);
  add_dir("/etc/yum.repos.d", ".repo", 2);
  add_dir("/etc/zypp/repos.d", ".repo", 2);
  std::vector<SourcedEntry> result;
  for (const auto& [path, format] : files) {
    const auto text = host.read_file(path);
    if (!text) continue;
    const auto entries = format == 0   ? parse_apt_list(*text)
                         : format == 1 ? parse_deb822(*text)
                                       : parse_repo_ini(*text);
    for (const auto& entry : entries) {
      if (!entry.enabled) continue;
      for (const auto& uri : entry.uris) {
        if (const auto repo = parse_amd_repo_url(uri, repo_hosts())) {
          result.push_back({path, entry, *repo, format != 2});
          break;
        }
      }
    }
  }
  return result;
}

std::string where(const SourcedEntry& source) {
  return source.file + ":" + std::to_string(source.entry.line);
}

// "6.2.0" -> "6.2": AMD's repository folders drop a zero patch level.
std::string repo_folder(const std::string& version) {
  const auto parts = split(version, '.');
  if (parts.size() == 3 && parts[2] == "0") return std::string(parts[0]) + "." + std::string(parts[1]);
  return version;
}

// amdgpu repository folders named by ROCm release ("6.2") rather than by driver
// version ("30.10"). "6..2" or an overflowing number parses to no numbers at all.
bool is_rocm_numbered(const std::string& release) {
  const auto numbers = kb::version_numbers(release);
  return !numbers.empty() && numbers.front() < 10;
}

std::vector<Finding> repo_findings(const Host& host, const RocmInstallation& install,
                                   const std::optional<std::string>& driver_release) {
  const auto entries = radeon_entries(host);
  std::vector<Finding> findings;

  // Release in the URL vs what is installed.
  const std::string installed = install.active && !install.active->distro_packaged ? install.active->version : "";
  std::vector<const SourcedEntry*> stale;
  for (const auto& source : entries) {
    if (!source.repo.release) continue;
    const auto& release = *source.repo.release;
    if (source.repo.kind == "rocm" && !installed.empty() && compare_versions(release, installed) != 0) {
      stale.push_back(&source);
    } else if (source.repo.kind == "amdgpu" && driver_release && is_rocm_numbered(release) &&
               compare_versions(release, *driver_release) != 0) {
      stale.push_back(&source);
    }
  }
  if (!stale.empty()) {
    auto finding = make_finding("rocm.repo-stale", Severity::warning,
                                "AMD repository entries point at another release than the one installed (ROCm " +
                                    (installed.empty() ? std::string("?") : installed) + ")")
                       .because(
                           "Each repo.radeon.com folder holds one release. An entry for another release means a "
                           "half-done upgrade: the next `apt upgrade` (or a new package) mixes two releases, "
                           "which breaks the runtime in ways that are hard to trace.");
    for (const auto* source : stale) {
      finding.with_evidence(where(*source),
                            source->entry.text.empty() ? source->entry.uris.front() : source->entry.text);
    }
    if (!installed.empty()) finding.with_evidence("installed ROCm", installed + " (" + install.active->evidence + ")");
    if (driver_release) finding.with_evidence("installed amdgpu-dkms", "ROCm " + *driver_release + " driver");
    std::vector<std::string> commands;
    for (const auto* source : stale) commands.push_back(shell_command({"sudoedit", source->file}));
    commands.push_back(stale.front()->apt ? "sudo apt update" : "sudo dnf clean all");
    const auto target = installed.empty() ? std::string("the installed release") : repo_folder(installed);
    finding.with_fix(make_fix(kCheckId,
                              "Point each entry at the release you run (the folder " + target +
                                  " in the URL), or finish the upgrade to the newer release with AMD's upgrade steps.",
                              commands, {.root = true}));
    findings.push_back(std::move(finding));
  }

  // Duplicates.
  std::map<std::string, std::vector<const SourcedEntry*>> seen;
  for (const auto& source : entries) {
    auto uri = source.entry.uris.front();
    while (uri.ends_with('/')) uri.pop_back();
    seen[uri + " " + source.entry.suite + " " + source.entry.components].push_back(&source);
  }
  for (const auto& [key, list] : seen) {
    if (list.size() < 2) continue;
    auto finding = make_finding("rocm.repo-stale", Severity::warning,
                                "The same AMD repository is configured " + std::to_string(list.size()) + " times")
                       .because(
                           "Duplicate entries make apt warn on every update (\"configured multiple times\") and, "
                           "when a later edit changes only one of them, leave the old release in use.");
    std::vector<std::string> commands;
    for (const auto* source : list) finding.with_evidence(where(*source), source->entry.text);
    for (std::size_t i = 1; i < list.size(); ++i) commands.push_back(shell_command({"sudoedit", list[i]->file}));
    finding.with_fix(
        make_fix(kCheckId, "Keep one entry: delete the others (shown after the first).", commands, {.root = true}));
    findings.push_back(std::move(finding));
  }

  // apt-key era entries.
  std::vector<const SourcedEntry*> unsigned_entries;
  for (const auto& source : entries) {
    if (source.apt && !source.entry.signed_by) unsigned_entries.push_back(&source);
  }
  if (!unsigned_entries.empty()) {
    const auto& data = rocm_packages_table();
    auto finding = make_finding("rocm.repo-stale", Severity::warning,
                                "AMD repository entries have no signed-by= keyring (apt-key era)")
                       .because(
                           "apt-key is deprecated and gone from current Debian and Ubuntu releases; entries "
                           "trusted through it stop verifying (NO_PUBKEY) after an upgrade. The keyring form "
                           "trusts AMD's key for AMD's repositories only.");
    std::vector<std::string> commands = {"sudo mkdir --parents --mode=0755 /etc/apt/keyrings",
                                         "wget -qO- " + shell_quote(data.key_url) + " | gpg --dearmor | sudo tee " +
                                             shell_quote(data.keyring) + " > /dev/null"};
    for (const auto* source : unsigned_entries) {
      finding.with_evidence(where(*source), source->entry.text);
      const auto& entry = source->entry;
      if (source->file.ends_with(".list") && !entry.suite.empty()) {
        const auto line = "deb [arch=amd64 signed-by=" + data.keyring + "] " + entry.uris.front() + " " + entry.suite +
                          (entry.components.empty() ? "" : " " + entry.components);
        commands.push_back("echo " + shell_quote(line) + " | sudo tee " + shell_quote(source->file));
      } else {
        commands.push_back(shell_command({"sudoedit", source->file}));
      }
    }
    commands.push_back("sudo apt update");
    finding.with_fix(make_fix(kCheckId,
                              "Install AMD's key as a keyring and name it in each entry (signed-by=" + data.keyring +
                                  "; in .sources files a `Signed-By: " + data.keyring + "` line).",
                              commands, {.root = true}));
    findings.push_back(std::move(finding));
  }
  return findings;
}

// ---- rocm.driver-skew ----

struct DriverRelease {
  std::string release;  // ROCm release of the driver ("6.2" or "6.2.4")
  std::string evidence_source;
  std::string evidence_value;
};

std::optional<DriverRelease> driver_release(const InstalledDriver& installed) {
  const auto& rules = driver_rules();
  if (const auto& version = installed.module_version) {
    if (const auto release = rocm_release_of_driver(rules, *version)) {
      return DriverRelease{*release, "/sys/module/amdgpu/version", *version + " (the driver of ROCm " + *release + ")"};
    }
  }
  if (const auto& version = installed.dkms_package_version) {
    if (const auto release = rocm_release_from_package_version(*version)) {
      return DriverRelease{*release, std::string(DpkgDatabase::kStatusPath), "amdgpu-dkms " + *version};
    }
  }
  return std::nullopt;
}

std::optional<Finding> driver_skew(const DriverRelease& driver, const RocmInstallation& install) {
  if (!install.active || install.active->distro_packaged || install.active->version.empty()) return std::nullopt;
  const auto& userspace = install.active->version;
  std::vector<std::string> releases;
  for (const auto& row : kb::knowledge_base().releases()) releases.push_back(row.release);
  const auto& rules = driver_rules();
  if (judge_skew(rules, driver.release, userspace, releases) != Compatibility::unsupported) return std::nullopt;
  auto finding = make_finding("rocm.driver-skew", Severity::warning,
                              "The amdgpu driver (ROCm " + major_minor(driver.release) + ") and the ROCm user space (" +
                                  userspace + ") are further apart than AMD supports")
                     .because(
                         "The kernel driver and the ROCm runtime talk through the KFD interface; AMD tests them "
                         "together only within a window. " +
                         rules.rule + " Outside it, features fail or the runtime misbehaves (hangs, missing GPUs).")
                     .with_evidence(driver.evidence_source, driver.evidence_value)
                     .with_evidence("ROCm user space", userspace + " (" + install.active->evidence + ")")
                     .with_evidence("support window", "checks/data/amdgpu_driver.json: " + rules.sources.front());
  return finding.with_fix(make_fix(kCheckId,
                                   "Install the amdgpu-dkms of your ROCm release (" + major_minor(userspace) +
                                       "): point AMD's amdgpu repository at it, then reinstall the driver and reboot.",
                                   {"sudo apt update", "sudo apt install amdgpu-dkms", "sudo reboot"}, {.root = true}));
}

class PackagesCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm packages and repositories"; }
  int order() const override { return 41; }
  std::vector<std::string_view> finding_ids() const override {
    return {"rocm.install-broken", "rocm.repo-stale", "rocm.driver-skew"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& host = ctx.host();
    const auto& facts = ctx.fact<SystemFacts>();
    const auto& install = ctx.fact<RocmInstallation>();
    const auto& dpkg = ctx.fact<DpkgDatabase>();
    std::vector<Finding> findings;
    if (auto finding = install_broken(dpkg)) findings.push_back(std::move(*finding));
    const auto driver = driver_release(ctx.fact<InstalledDriver>());
    std::optional<std::string> driver_rocm;
    if (driver && split(driver->release, '.').size() == 3) driver_rocm = driver->release;  // x.y.z from the package
    for (auto& finding : repo_findings(host, install, driver_rocm)) findings.push_back(std::move(finding));
    // The driver judgement needs a native driver: not in an image build, not under WSL.
    if (driver && !ctx.options().image_mode && !facts.wsl) {
      if (auto finding = driver_skew(*driver, install)) findings.push_back(std::move(*finding));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::packages

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::packages::PackagesCheck)
