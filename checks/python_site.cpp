// `python-site`: Python packages of a ROCm release (amdsmi) installed with pip into a
// per-user, /usr/local or virtualenv site folder, against the installed release. pip
// copies outlive upgrades and side-by-side installs: amdsmi's Python wrapper of one
// release then calls libamd_smi.so of another ("undefined symbol:
// amdsmi_get_cpu_affinity_with_scope"), and amd-smi or `import torch` fail.
#include "python_site.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"
#include "table_loader.h"

namespace rocm_doctor {

// "amdsmi-7.0.2.dist-info" -> {"amdsmi", "7.0.2"}; "amdsmi-24.6.2+9f8f.egg-info" -> {"amdsmi", "24.6.2+9f8f"}.
std::optional<std::pair<std::string, std::string>> parse_dist_info_name(std::string_view folder) {
  for (const std::string_view suffix : {".dist-info", ".egg-info"}) {
    if (!folder.ends_with(suffix)) continue;
    const auto stem = folder.substr(0, folder.size() - suffix.size());
    const auto dash = stem.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == stem.size()) return std::nullopt;
    return std::pair{std::string(stem.substr(0, dash)), std::string(stem.substr(dash + 1))};
  }
  return std::nullopt;
}

namespace python_site_check {
namespace {

constexpr std::string_view kCheckId = "python-site";

struct Package {
  std::string name;
  std::string rocm_source;  // relative to the release's prefix
  std::string what;
};

struct Data {
  std::vector<Package> packages;
  int rocm_numbered_below = 20;
};

// Throws "python_site.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
Data python_site_from(data_table::TableReader& reader) {
  Data result;
  result.packages = check_tables::read_key(reader, "packages", [](const nlohmann::json& rows) {
    std::vector<Package> packages;
    for (const auto& row : rows) {
      packages.push_back({row.at("name").get<std::string>(), row.at("rocm_source").get<std::string>(),
                          row.at("what").get<std::string>()});
    }
    return packages;
  });
  result.rocm_numbered_below = check_tables::value_of<int>(reader, "rocm_numbered_below");
  return result;
}

const check_tables::TableLoader<Data, &python_site_from> kPythonSiteTable("python_site.json");

const Data& data() {
  return kPythonSiteTable.get();
}

// A site folder pip installs into, and how to run that interpreter's pip.
struct SiteDir {
  std::string path;    // ".../python3.12/site-packages"
  std::string python;  // "python3.12", or a virtualenv's bin/python
  std::string kind;    // "user", "system", "venv"
};

void add_versions(const Host& host, const std::string& lib, const std::vector<std::string>& leaves,
                  const std::string& kind, std::vector<SiteDir>& dirs) {
  for (const auto& entry : host.list_dir(lib).value_or(std::vector<DirEntry>{})) {
    if (!entry.name.starts_with("python3.")) continue;
    for (const auto& leaf : leaves) {
      const auto path = lib + "/" + entry.name + "/" + leaf;
      if (host.exists(path)) dirs.push_back({path, entry.name, kind});
    }
  }
}

std::vector<SiteDir> site_dirs(const Host& host) {
  std::vector<SiteDir> dirs;
  if (const auto venv = host.env("VIRTUAL_ENV"); venv && venv->starts_with('/')) {
    add_versions(host, normalize_path(*venv) + "/lib", {"site-packages"}, "venv", dirs);
    for (auto& dir : dirs) dir.python = normalize_path(*venv) + "/bin/python";
  }
  const auto identity = host.identity();
  const auto user = identity.user.empty() ? std::nullopt : host.user_by_name(identity.user);
  std::string home = user && !user->home.empty() ? user->home : host.env("HOME").value_or("");
  if (home.starts_with('/')) add_versions(host, normalize_path(home) + "/.local/lib", {"site-packages"}, "user", dirs);
  add_versions(host, "/usr/local/lib", {"dist-packages", "site-packages"}, "system", dirs);
  add_versions(host, "/usr/local/lib64", {"site-packages"}, "system", dirs);
  return dirs;
}

struct Installed {
  const Package* package = nullptr;
  const SiteDir* site = nullptr;
  std::string folder;  // the dist-info/egg-info folder
  std::string version;
};

std::vector<Installed> find_installed(const Host& host, const std::vector<SiteDir>& dirs) {
  std::vector<Installed> found;
  for (const auto& dir : dirs) {
    for (const auto& entry : host.list_dir(dir.path).value_or(std::vector<DirEntry>{})) {
      const auto parsed = parse_dist_info_name(entry.name);
      if (!parsed) continue;
      for (const auto& package : data().packages) {
        if (parsed->first == package.name)
          found.push_back({&package, &dir, dir.path + "/" + entry.name, parsed->second});
      }
    }
  }
  return found;
}

// Same major.minor as the ROCm release; nullopt when the version is not numbered like ROCm
// (AMD SMI's own 24.x/25.x numbering of older releases).
std::optional<bool> same_release(const std::string& package_version, const std::string& rocm_version) {
  const auto package = kb::version_numbers(package_version);
  const auto rocm = kb::version_numbers(rocm_version);
  if (package.size() < 2 || rocm.size() < 2 || package[0] >= data().rocm_numbered_below) return std::nullopt;
  return package[0] == rocm[0] && package[1] == rocm[1];
}

std::vector<std::string> reinstall_commands(const Host& host, const Installed& item, const RocmRelease& active) {
  const auto& site = *item.site;
  const bool system = site.kind == "system";
  const std::string python = site.kind == "venv" ? shell_quote(site.python) : site.python;
  const std::string sudo = system ? "sudo " : "";
  const bool managed = site.kind != "venv" && host.exists("/usr/lib/" + site.python + "/EXTERNALLY-MANAGED");
  const std::string flags =
      std::string(site.kind == "user" ? " --user" : "") + (managed ? " --break-system-packages" : "");
  const auto source = active.prefix + "/" + item.package->rocm_source;
  const auto target = host.exists(source + "/pyproject.toml") || host.exists(source + "/setup.py")
                          ? shell_quote(source)
                          : shell_quote(item.package->name + "==" + active.version);
  return {
      sudo + python + " -m pip uninstall -y" + (managed ? " --break-system-packages" : "") + " " + item.package->name,
      sudo + python + " -m pip install" + flags + " " + target};
}

class PythonSiteCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm Python packages installed with pip"; }
  int order() const override { return 86; }
  std::vector<std::string_view> finding_ids() const override { return {"python.rocm-package-mismatch"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& install = ctx.fact<RocmInstallation>();
    if (!install.active || install.active->version.empty()) {
      return CheckOutcome::skipped("no ROCm release with a known version to compare with");
    }
    const auto& active = *install.active;
    const auto& host = ctx.host();
    const auto dirs = site_dirs(host);
    std::vector<Finding> findings;
    for (const auto& item : find_installed(host, dirs)) {
      if (same_release(item.version, active.version).value_or(true)) continue;
      findings.push_back(
          make_finding("python.rocm-package-mismatch", Severity::warning,
                       item.package->name + " " + item.version + " (pip, " + item.site->kind + " site) is from " +
                           "another ROCm release than the installed " + active.version)
              .because("pip's copy of " + item.package->what +
                       " outlives ROCm upgrades and shadows the release's "
                       "own: its wrapper calls functions the installed library does not have (\"undefined "
                       "symbol\"), so amd-smi, `import torch` or vLLM fail at start-up.")
              .with_evidence(item.folder, item.version)
              .with_evidence("installed ROCm", active.version + " (" + active.evidence + ")")
              .with_fix(make_fix(kCheckId,
                                 "Replace it, for the same interpreter, with the installed release's copy (" +
                                     active.prefix + "/" + item.package->rocm_source +
                                     ", else the PyPI release of the same number).",
                                 reinstall_commands(host, item, active), {.root = item.site->kind == "system"})));
    }
    if (findings.empty()) return CheckOutcome{};
    return findings;
  }
};

}  // namespace
}  // namespace python_site_check
}  // namespace rocm_doctor

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::python_site_check::PythonSiteCheck)
