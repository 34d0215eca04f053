// The ROCm runtimes of Python environments (rocm_doctor/facts/rocm_installs.h): TheRock's pip
// packages (rocm-sdk-core, rocm-sdk-libraries-{family}, rocm-sdk-device-{family}), PyTorch ROCm
// wheels (torch/lib/libamdhip64.so*) and conda environments (lib/libamdhip64.so*).
#include <algorithm>
#include <cctype>
#include <set>

#include "facts/rocm_installs_detail.h"
#include "rocm_doctor/facts/python_env.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::installs_detail {

namespace {

struct Site {
  std::string path;    // .../lib/python3.12/site-packages
  std::string python;  // the interpreter of its environment
  std::string prefix;  // the environment (sys.prefix)
};

// A prefix's site-packages folders (lib/python3*/site-packages and dist-packages).
void add_prefix(const Host& host, const std::string& prefix, std::vector<Site>& sites) {
  const auto lib = prefix + "/lib";
  for (const auto& entry : host.list_dir(lib).value_or(std::vector<DirEntry>{})) {
    if (!glob_match("python3*", entry.name)) continue;
    for (const char* leaf : {"site-packages", "dist-packages"}) {
      const auto site = lib + "/" + entry.name + "/" + leaf;
      if (!host.list_dir(site)) continue;
      if (std::any_of(sites.begin(), sites.end(), [&](const Site& known) { return known.path == site; })) continue;
      auto python = prefix + "/bin/python3";
      if (prefix == "/usr" || prefix == "/usr/local" || !host.exists(python)) python = "python3";
      sites.push_back({site, python, prefix});
    }
  }
}

// Every Python environment the doctor finds: the active one (--python, PATH, VIRTUAL_ENV,
// CONDA_PREFIX), the user's and the system's, conda's environments and venvs in each home.
std::vector<Site> python_sites(const CheckContext& ctx) {
  const auto& host = ctx.host();
  std::vector<Site> sites;
  const auto& active = ctx.fact<PythonEnvironment>();
  if (!active.prefix.empty()) add_prefix(host, active.prefix, sites);
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (const auto value = host.env(variable); value && value->starts_with('/'))
      add_prefix(host, normalize_path(*value), sites);
  }
  for (const auto& home : user_homes(host)) {
    add_prefix(host, home + "/.local", sites);
    for (const char* venv : {".venv", "venv", ".virtualenvs"}) add_prefix(host, home + "/" + venv, sites);
    for (const char* conda : {"miniconda3", "anaconda3", "miniforge3", "mambaforge", ".conda"}) {
      const auto base = home + "/" + conda;
      add_prefix(host, base, sites);
      for (const auto& env : host.list_dir(base + "/envs").value_or(std::vector<DirEntry>{})) {
        add_prefix(host, base + "/envs/" + env.name, sites);
      }
    }
    // Project venvs one level down (~/project/.venv), bounded.
    std::size_t seen = 0;
    for (const auto& entry : host.list_dir(home).value_or(std::vector<DirEntry>{})) {
      if (++seen > kMaxEntries || entry.type != EntryType::directory) continue;
      add_prefix(host, home + "/" + entry.name + "/.venv", sites);
    }
  }
  for (const char* prefix : {"/opt/conda", "/opt/venv", "/usr/local", "/usr"}) add_prefix(host, prefix, sites);
  for (const auto& env : host.list_dir("/opt/conda/envs").value_or(std::vector<DirEntry>{})) {
    add_prefix(host, "/opt/conda/envs/" + env.name, sites);
  }
  return sites;
}

std::string who(const Site& site) {
  return (site.python == "python3" ? std::string("python3") : site.python) + " (" + site.prefix + ")";
}

void add_therock(const Host& host, const Site& site, const std::vector<DirEntry>& entries,
                 std::vector<RocmInstall>& out, std::vector<TheRockFamilies>& therock) {
  RocmInstall install;
  install.kind = InstallKind::python_wheel;
  install.prefix = site.path + "/_rocm_sdk_core";
  install.lib_dir = install.prefix + "/lib";
  install.hip_library = hip_library_in(host, install.lib_dir);
  install.python = site.python;
  install.site = site.path;
  install.used_by.push_back(who(site));
  TheRockFamilies families;
  families.site = site.path;
  families.python = site.python;
  std::set<std::string> installed;
  for (const auto& entry : entries) {
    if (auto version = parse_dist_info_version(entry.name, "rocm_sdk_core")) {
      install.version = *version;
      install.version_source = site.path + "/" + entry.name;
    }
    for (const char* stem : {"_rocm_sdk_libraries_", "_rocm_sdk_device_"}) {
      if (auto family = family_of_package(entry.name, stem); !family.empty()) installed.insert(family);
    }
  }
  families.installed.assign(installed.begin(), installed.end());
  families.version = install.version;
  const auto dist_info = site.path + "/rocm_sdk/_dist_info.py";
  if (const auto text = host.read_file(dist_info, 1U << 20)) {
    auto parsed = parse_sdk_dist_info(*text);
    families.available = std::move(parsed.available);
    families.default_family = std::move(parsed.default_family);
    families.dist_info = dist_info;
    if (install.version.empty() && !parsed.version.empty() && parsed.version != "DEFAULT") {
      install.version = parsed.version;
      install.version_source = dist_info;
    }
  }
  if (families.available.empty()) families.available = families.installed;
  install.families = families.installed;
  std::set<std::string> targets;
  for (const auto& family : families.installed) {
    for (const auto& target : family_targets(family)) targets.insert(target);
  }
  if (const auto text = host.read_file(install.prefix + "/share/therock/dist_info.json", 1U << 20)) {
    for (auto& target : parse_therock_dist_info(*text)) targets.insert(std::move(target));
  }
  install.gfx.assign(targets.begin(), targets.end());
  if (!install.gfx.empty()) install.gfx_source = "rocm-sdk-libraries-* / rocm-sdk-device-* packages in " + site.path;
  out.push_back(std::move(install));
  therock.push_back(std::move(families));
}

void add_torch(const Host& host, const Site& site, std::vector<RocmInstall>& out) {
  const auto lib = site.path + "/torch/lib";
  const auto hip = hip_library_in(host, lib);
  if (hip.empty()) return;  // CUDA and CPU wheels, and ROCm builds that use the system's runtime
  RocmInstall install;
  install.kind = InstallKind::torch_wheel;
  install.app = "PyTorch";
  install.prefix = site.path + "/torch";
  install.lib_dir = lib;
  install.hip_library = hip;
  install.python = site.python;
  install.site = site.path;
  install.used_by.push_back(who(site));
  if (const auto text = host.read_file(site.path + "/torch/version.py")) {
    const auto parsed = parse_version_py(*text);
    TorchFiles files;
    files.version = parsed.version.value_or("");
    files.hip = parsed.hip;
    files.rocm = parsed.rocm;
    install.version = wheel_rocm_release(files);
    install.version_source = site.path + "/torch/version.py";
  }
  read_targets(host, install, "");
  out.push_back(std::move(install));
}

void add_conda(const Host& host, const Site& site, std::vector<RocmInstall>& out) {
  if (!host.exists(site.prefix + "/conda-meta")) return;
  const auto lib = site.prefix + "/lib";
  const auto hip = hip_library_in(host, lib);
  if (hip.empty()) return;
  if (std::any_of(out.begin(), out.end(), [&](const auto& install) { return install.lib_dir == lib; })) return;
  RocmInstall install;
  install.kind = InstallKind::conda;
  install.prefix = site.prefix;
  install.lib_dir = lib;
  install.hip_library = hip;
  install.python = site.python;
  install.used_by.push_back(who(site));
  // conda-meta/<name>-<version>-<build>.json of the package that ships the runtime.
  for (const auto& entry : host.list_dir(site.prefix + "/conda-meta").value_or(std::vector<DirEntry>{})) {
    for (const char* name : {"rocm-core-", "hip-runtime-amd-", "hip-"}) {
      const std::string_view file = entry.name;
      if (!file.starts_with(name) || !file.ends_with(".json")) continue;
      const auto version = file.substr(std::string_view(name).size());
      const auto end = version.find('-');
      if (end == std::string_view::npos || !std::isdigit(static_cast<unsigned char>(version.front()))) continue;
      install.version = std::string(version.substr(0, end));
      install.version_source = site.prefix + "/conda-meta/" + entry.name;
      break;
    }
    if (!install.version.empty()) break;
  }
  if (install.version.empty()) {
    const auto name = hip.substr(hip.rfind('/') + 1);
    if (auto version = hip_version_from_library_name(name)) {
      install.version = *version;
      install.version_source = hip;
    }
  }
  read_targets(host, install, "");
  out.push_back(std::move(install));
}

}  // namespace

void add_python_installs(const CheckContext& ctx, std::vector<RocmInstall>& out,
                         std::vector<TheRockFamilies>& therock) {
  const auto& host = ctx.host();
  for (const auto& site : python_sites(ctx)) {
    const auto entries = host.list_dir(site.path);
    if (!entries) continue;
    const auto has = [&](std::string_view name) {
      return std::any_of(entries->begin(), entries->end(), [&](const auto& entry) { return entry.name == name; });
    };
    const std::size_t before = out.size();
    if (has("_rocm_sdk_core")) add_therock(host, site, *entries, out, therock);
    if (has("torch")) add_torch(host, site, out);
    add_conda(host, site, out);
    if (has("vllm")) {
      // vLLM runs on whatever this environment's torch loads: mark the runtimes it found.
      for (std::size_t i = before; i < out.size(); ++i) out[i].used_by.push_back("vLLM (" + site.path + "/vllm)");
    }
  }
}

}  // namespace rocm_doctor::installs_detail
