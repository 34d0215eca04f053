// The release finders of the RocmInstallation fact, per layout (rocm_install_releases.h):
// AMD's /opt folders (legacy and Core SDK) and pip's rocm-sdk-core in Python environments.
#include "facts/rocm_install_releases.h"

#include <algorithm>

#include "rocm_doctor/host.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::install_detail {

namespace {

// site-packages folders pip may have put rocm-sdk-core into: the active virtual or conda
// environment, the system's (pip --break-system-packages), and the user's (pip --user).
std::vector<std::string> python_site_folders(const Host& host) {
  std::vector<std::string> lib_roots;
  for (const char* variable : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    if (const auto value = host.env(variable); value && value->starts_with('/'))
      lib_roots.push_back(normalize_path(*value) + "/lib");
  }
  if (const auto home = host.env("HOME"); home && home->starts_with('/') && *home != "/")
    lib_roots.push_back(normalize_path(*home) + "/.local/lib");
  lib_roots.push_back("/usr/local/lib");
  lib_roots.push_back("/usr/lib");
  std::vector<std::string> sites;
  for (const auto& root : lib_roots) {
    const auto entries = host.list_dir(root);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      if (!glob_match("python3*", entry.name)) continue;
      for (const char* leaf : {"site-packages", "dist-packages"}) {
        auto site = root + "/" + entry.name + "/" + leaf;
        if (std::find(sites.begin(), sites.end(), site) == sites.end()) sites.push_back(std::move(site));
      }
    }
  }
  return sites;
}

}  // namespace

std::string release_hip_version(const Host& host, const std::string& prefix) {
  if (const auto text = host.read_file(prefix + "/share/hip/version")) {
    if (auto version = parse_hip_version_file(*text)) return *version;
  }
  return "";
}

bool has_hip_library(const Host& host, const std::string& folder) {
  const auto entries = host.list_dir(folder);
  if (!entries) return false;
  return std::any_of(entries->begin(), entries->end(),
                     [](const auto& entry) { return entry.name.starts_with(kHipStem); });
}

// "libamdhip64.so.7" when the folder holds it (the name programs ask the loader for), else
// "libamdhip64.so" when only the development link is there, else "".
std::string hip_soname_in(const Host& host, const std::string& folder) {
  const auto entries = host.list_dir(folder);
  if (!entries) return "";
  std::string found;
  for (const auto& entry : *entries) {
    if (!entry.name.starts_with(kHipStem)) continue;
    const auto rest = std::string_view(entry.name).substr(kHipStem.size());
    if (rest.size() > 1 && rest.front() == '.' && is_dotted_number(rest.substr(1), 1) &&
        rest.find('.', 1) == std::string_view::npos) {
      return entry.name;
    }
    if (rest.empty()) found = entry.name;
  }
  return found;
}

// A folder under /opt counts as a release when it carries ROCm's version file or its runtime or tools.
std::optional<RocmRelease> opt_release(const Host& host, const std::string& prefix,
                                       std::optional<std::string> folder_version) {
  RocmRelease release;
  release.prefix = prefix;
  release.lib_dir = prefix + "/lib";
  release.bin_dir = prefix + "/bin";
  if (const auto text = host.read_file(prefix + "/.info/version")) {
    if (auto version = parse_rocm_version_file(*text)) {
      release.version = *version;
      release.evidence = prefix + "/.info/version";
    }
  }
  if (release.version.empty()) {
    const bool looks_installed = has_hip_library(host, release.lib_dir) || host.exists(release.bin_dir + "/rocminfo") ||
                                 host.exists(release.bin_dir + "/hipconfig");
    if (!looks_installed) return std::nullopt;
    release.version = folder_version.value_or("");
    release.evidence = prefix;
  }
  release.hip_version = release_hip_version(host, prefix);
  release.hip_soname = hip_soname_in(host, release.lib_dir);
  return release;
}

// The Core SDK (ROCm 7.14+): real folders /opt/rocm/core-X.Y; /opt/rocm/core and /opt/rocm/core-N
// are update-alternatives links to one of them and are not releases of their own.
std::vector<RocmRelease> core_sdk_releases(const Host& host) {
  std::vector<RocmRelease> releases;
  const auto entries = host.list_dir("/opt/rocm");
  if (!entries) return releases;
  for (const auto& entry : *entries) {
    const auto version = parse_core_folder(entry.name);
    if (!version || entry.type == EntryType::symlink) continue;
    const auto prefix = "/opt/rocm/" + entry.name;
    if (host.read_link(prefix)) continue;
    if (auto release = opt_release(host, prefix, version)) {
      release->layout = RocmLayout::core_sdk;
      releases.push_back(std::move(*release));
    }
  }
  return releases;
}

std::vector<RocmRelease> python_releases(const Host& host) {
  constexpr std::string_view kCorePackage = "_rocm_sdk_core";
  std::vector<RocmRelease> releases;
  for (const auto& site : python_site_folders(host)) {
    const auto entries = host.list_dir(site);
    if (!entries) continue;
    const bool has_core =
        std::any_of(entries->begin(), entries->end(), [&](const auto& entry) { return entry.name == kCorePackage; });
    if (!has_core) continue;
    RocmRelease release;
    release.layout = RocmLayout::python;
    release.prefix = site + "/" + std::string(kCorePackage);
    release.lib_dir = release.prefix + "/lib";
    release.bin_dir = release.prefix + "/bin";
    release.evidence = release.prefix;
    for (const auto& entry : *entries) {
      if (auto version = parse_dist_info_version(entry.name, "rocm_sdk_core")) {
        release.version = *version;
        release.evidence = site + "/" + entry.name;
      }
    }
    if (release.version.empty()) {
      if (const auto text = host.read_file(release.prefix + "/.info/version")) {
        if (auto version = parse_rocm_version_file(*text)) {
          release.version = *version;
          release.evidence = release.prefix + "/.info/version";
        }
      }
    }
    release.hip_version = release_hip_version(host, release.prefix);
    release.hip_soname = hip_soname_in(host, release.lib_dir);
    releases.push_back(std::move(release));
  }
  return releases;
}

}  // namespace rocm_doctor::install_detail
