#include "rocm_doctor/facts/rocm_install.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "facts/rocm_install_releases.h"
#include "rocm_doctor/facts/dpkg_database.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/versions.h"

namespace rocm_doctor {

namespace install_detail {

bool is_dotted_number(std::string_view text, std::size_t min_parts) {
  if (text.empty()) return false;
  std::size_t parts = 0;
  for (const auto part : split(text, '.')) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); })) {
      return false;
    }
    ++parts;
  }
  return parts >= min_parts;
}

}  // namespace install_detail

using install_detail::is_dotted_number;

namespace {

std::string join_path(std::string_view folder, std::string_view name) {
  std::string path(folder);
  if (!path.ends_with('/')) path += '/';
  return path + std::string(name);
}

std::string parent_folder(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

}  // namespace

std::optional<std::string> parse_rocm_version_file(std::string_view text) {
  auto value = trim(text);
  if (const auto newline = value.find('\n'); newline != std::string_view::npos) value = trim(value.substr(0, newline));
  value = value.substr(0, value.find('-'));
  if (!is_dotted_number(value, 2)) return std::nullopt;
  return std::string(value);
}

std::optional<std::string> parse_versioned_folder(std::string_view name) {
  if (!name.starts_with("rocm-")) return std::nullopt;
  const auto version = name.substr(5);
  if (!is_dotted_number(version, 2)) return std::nullopt;
  return std::string(version);
}

std::optional<std::string> parse_core_folder(std::string_view name) {
  if (!name.starts_with("core-")) return std::nullopt;
  auto version = name.substr(5);
  if (version.starts_with("asan-")) version.remove_prefix(5);  // the ASAN build variant
  if (!is_dotted_number(version, 2)) return std::nullopt;
  return std::string(version);
}

std::optional<std::string> parse_dist_info_version(std::string_view folder_name, std::string_view package) {
  constexpr std::string_view kSuffix = ".dist-info";
  if (!folder_name.ends_with(kSuffix)) return std::nullopt;
  auto stem = folder_name.substr(0, folder_name.size() - kSuffix.size());
  if (!stem.starts_with(package) || stem.size() <= package.size() + 1 || stem[package.size()] != '-')
    return std::nullopt;
  const auto version = stem.substr(package.size() + 1);
  // PEP 440: the release is the leading dotted number ("7.15.0a20260630", "7.14.0rc1", "7.14.0.post1").
  auto end = version.find_first_not_of("0123456789.");
  auto release = version.substr(0, end == std::string_view::npos ? version.size() : end);
  while (release.ends_with('.')) release.remove_suffix(1);
  if (!is_dotted_number(release, 2)) return std::nullopt;
  return std::string(release);
}

std::optional<std::string> hip_version_from_library_name(std::string_view name) {
  constexpr std::string_view kStem = "libamdhip64.so.";
  if (!name.starts_with(kStem)) return std::nullopt;
  const auto version = name.substr(kStem.size());
  if (!is_dotted_number(version, 3)) return std::nullopt;
  return std::string(version);
}

std::optional<std::string> parse_hip_version_file(std::string_view text) {
  const auto values = parse_env_file(text);
  const auto get = [&](const char* key) -> std::string {
    const auto it = values.find(key);
    return it == values.end() ? "" : std::string(trim(it->second));
  };
  const auto version = get("HIP_VERSION_MAJOR") + "." + get("HIP_VERSION_MINOR") + "." + get("HIP_VERSION_PATCH");
  if (!is_dotted_number(version, 3)) return std::nullopt;
  return version;
}

std::string upstream_version(std::string_view debian_version) {
  auto value = trim(debian_version);
  if (const auto colon = value.find(':'); colon != std::string_view::npos) value = value.substr(colon + 1);
  if (const auto dash = value.rfind('-'); dash != std::string_view::npos) value = value.substr(0, dash);
  const auto end =
      std::find_if(value.begin(), value.end(), [](unsigned char c) { return !std::isdigit(c) && c != '.'; });
  auto result = std::string(value.begin(), end);
  while (result.ends_with('.')) result.pop_back();
  return result;
}

int compare_versions(std::string_view a, std::string_view b) {
  // Lenient on purpose (a component that is not a number counts as 0); the
  // ordering itself is the one of rocm_doctor/versions.h.
  const auto numbers = [](std::string_view text) {
    std::vector<std::uint64_t> result;
    for (const auto part : split(text, '.')) result.push_back(parse_uint(part).value_or(0));
    return result;
  };
  return versions::compare_release(numbers(a), numbers(b));
}

std::vector<LdConfLine> parse_ld_so_conf(std::string_view text) {
  std::vector<LdConfLine> result;
  for (const auto raw : lines(text)) {
    auto line = std::string_view(raw);
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const auto words = split_words(line);
    if (words.front() == "include" && words.size() > 1) {
      for (std::size_t i = 1; i < words.size(); ++i)
        result.push_back({LdConfLine::Kind::include, std::string(words[i])});
      continue;
    }
    if (words.front() == "hwcap") continue;
    // glibc takes the whole line as one folder; an "=TYPE" suffix is obsolete.
    auto folder = line.substr(0, line.find('='));
    folder = trim(folder);
    while (folder.size() > 1 && folder.ends_with('/')) folder.remove_suffix(1);
    if (!folder.empty()) result.push_back({LdConfLine::Kind::directory, std::string(folder)});
  }
  return result;
}

bool glob_match(std::string_view pattern, std::string_view name) {
  if (pattern.empty()) return name.empty();
  const char first = pattern.front();
  if (first == '*') {
    for (std::size_t skip = 0; skip <= name.size(); ++skip) {
      if (glob_match(pattern.substr(1), name.substr(skip))) return true;
    }
    return false;
  }
  if (name.empty()) return false;
  if (first == '?') return glob_match(pattern.substr(1), name.substr(1));
  if (first == '[') {
    const auto close = pattern.find(']', 2);
    if (close != std::string_view::npos) {
      auto set = pattern.substr(1, close - 1);
      const bool negate = !set.empty() && (set.front() == '!' || set.front() == '^');
      if (negate) set.remove_prefix(1);
      bool hit = false;
      for (std::size_t i = 0; i < set.size(); ++i) {
        if (i + 2 < set.size() && set[i + 1] == '-') {
          hit = hit || (name.front() >= set[i] && name.front() <= set[i + 2]);
          i += 2;
        } else {
          hit = hit || name.front() == set[i];
        }
      }
      return hit != negate && glob_match(pattern.substr(close + 1), name.substr(1));
    }
  }
  return first == name.front() && glob_match(pattern.substr(1), name.substr(1));
}

std::vector<std::string> split_search_path(std::string_view value, bool allow_semicolon) {
  std::vector<std::string> result;
  std::string current;
  for (const char c : value) {
    if (c == ':' || (allow_semicolon && c == ';')) {
      if (!current.empty()) result.push_back(std::exchange(current, {}));
    } else {
      current += c;
    }
  }
  if (!current.empty()) result.push_back(current);
  return result;
}

std::string normalize_path(std::string_view path) {
  std::vector<std::string_view> parts;
  for (const auto part : split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string result;
  for (const auto part : parts) result += "/" + std::string(part);
  return result.empty() ? "/" : result;
}

std::string RocmInstallation::active_major_minor() const {
  if (!active || active->version.empty()) return "";
  const auto parts = split(active->version, '.');
  if (parts.size() < 2) return active->version;
  return std::string(parts[0]) + "." + std::string(parts[1]);
}

// ---------------------------------------------------------------- collection

namespace {

constexpr std::size_t kMaxIncludeDepth = 8;
constexpr int kMaxLinkHops = 16;

// Follows /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-6.2.4 one link at a time.
std::string resolve_link_chain(const Host& host, std::string path) {
  for (int hop = 0; hop < kMaxLinkHops; ++hop) {
    const auto target = host.read_link(path);
    if (!target) return path;
    path = target->starts_with('/') ? normalize_path(*target) : normalize_path(parent_folder(path) + "/" + *target);
  }
  return path;
}

std::vector<RocmRelease> distro_releases(const CheckContext& ctx) {
  const auto& host = ctx.host();
  std::vector<RocmRelease> releases;
  for (const std::string folder : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
    const auto entries = host.list_dir(folder);
    if (!entries) continue;
    std::optional<std::string> hip;
    for (const auto& entry : *entries) {
      if (auto version = hip_version_from_library_name(entry.name)) hip = version;
    }
    if (!hip) continue;
    RocmRelease release;
    release.prefix = "/usr";
    release.lib_dir = folder;
    release.bin_dir = "/usr/bin";
    release.distro_packaged = true;
    release.layout = RocmLayout::distro;
    release.hip_version = *hip;
    release.hip_soname = install_detail::hip_soname_in(host, folder);
    const auto major = std::string(split(*hip, '.').front());
    const auto package_version = ctx.fact<DpkgDatabase>().installed_version("libamdhip64-" + major);
    if (package_version && !upstream_version(*package_version).empty()) {
      release.version = upstream_version(*package_version);
      release.evidence = std::string(DpkgDatabase::kStatusPath) + ": libamdhip64-" + major + " " + *package_version;
    } else {
      const auto parts = split(*hip, '.');
      release.version = std::string(parts[0]) + "." + std::string(parts[1]);
      release.evidence = folder + "/libamdhip64.so." + *hip;
    }
    releases.push_back(std::move(release));
    break;  // one distro stack: the first multiarch folder wins
  }
  return releases;
}

void add_conf_file(const Host& host, const std::string& file, std::size_t depth, std::vector<LoaderDir>& dirs) {
  if (depth > kMaxIncludeDepth) return;
  const auto text = host.read_file(file);
  if (!text) return;
  for (const auto& line : parse_ld_so_conf(*text)) {
    if (line.kind == LdConfLine::Kind::directory) {
      dirs.push_back({normalize_path(line.value), file});
      continue;
    }
    // Globs are expanded in their last component, as ld.so.conf files use them.
    const auto pattern = line.value.starts_with('/') ? line.value : parent_folder(file) + "/" + line.value;
    const auto folder = parent_folder(pattern);
    const auto name_pattern = pattern.substr(pattern.rfind('/') + 1);
    const auto entries = host.list_dir(folder);
    if (!entries) continue;
    for (const auto& entry : *entries) {  // list_dir is sorted, as glob(3) is
      if (glob_match(name_pattern, entry.name)) add_conf_file(host, join_path(folder, entry.name), depth + 1, dirs);
    }
  }
}

std::vector<LoaderDir> collect_loader_dirs(const Host& host) {
  std::vector<LoaderDir> dirs;
  if (const auto value = host.env("LD_LIBRARY_PATH")) {
    for (const auto& folder : split_search_path(*value, true))
      dirs.push_back({normalize_path(folder), "LD_LIBRARY_PATH"});
  }
  add_conf_file(host, "/etc/ld.so.conf", 0, dirs);
  for (const char* folder :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}) {
    dirs.push_back({folder, "default"});
  }
  std::set<std::string> seen;
  std::vector<LoaderDir> unique;
  for (auto& dir : dirs) {
    if (seen.insert(dir.path).second) unique.push_back(std::move(dir));
  }
  return unique;
}

std::vector<LoaderHit> find_hip_libraries(const Host& host, const std::vector<LoaderDir>& dirs) {
  std::vector<LoaderHit> hits;
  for (const auto& dir : dirs) {
    const auto entries = host.list_dir(dir.path);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      const auto path = join_path(dir.path, entry.name);
      // A dangling link is no library: stat_node follows links.
      if (entry.name.starts_with(install_detail::kHipStem) && host.stat_node(path)) hits.push_back({path, dir.origin});
    }
  }
  return hits;
}

}  // namespace

RocmInstallation RocmInstallation::collect(const CheckContext& ctx) {
  const auto& host = ctx.host();
  RocmInstallation install;
  if (auto target = host.read_link("/opt/rocm")) {
    install.opt_rocm_target = *target;
    install.opt_rocm_resolved = resolve_link_chain(host, "/opt/rocm");
    install.opt_rocm_dangling = !host.exists("/opt/rocm");
  } else if (host.exists("/opt/rocm")) {
    auto core = install_detail::core_sdk_releases(host);
    if (core.empty()) {
      if (auto release = install_detail::opt_release(host, "/opt/rocm", std::nullopt))
        install.releases.push_back(std::move(*release));
    } else {
      // /opt/rocm holds the Core SDK: its lib, bin, ... are update-alternatives links (full installs).
      for (auto& release : core) install.releases.push_back(std::move(release));
      if (auto target = host.read_link("/opt/rocm/lib")) {
        install.opt_rocm_lib_target = *target;
        install.opt_rocm_lib_resolved = resolve_link_chain(host, "/opt/rocm/lib");
      }
    }
  }
  if (const auto entries = host.list_dir("/opt")) {
    for (const auto& entry : *entries) {
      const auto version = parse_versioned_folder(entry.name);
      if (!version) continue;
      const auto prefix = "/opt/" + entry.name;
      if (!host.list_dir(prefix)) continue;
      if (auto release = install_detail::opt_release(host, prefix, version))
        install.releases.push_back(std::move(*release));
    }
  }
  for (auto& release : distro_releases(ctx)) install.releases.push_back(std::move(release));
  for (auto& release : install_detail::python_releases(host)) install.releases.push_back(std::move(release));
  std::stable_sort(install.releases.begin(), install.releases.end(),
                   [](const auto& a, const auto& b) { return compare_versions(a.version, b.version) > 0; });

  const auto pointed = std::find_if(install.releases.begin(), install.releases.end(), [&](const auto& release) {
    return !install.opt_rocm_resolved.empty() && release.prefix == install.opt_rocm_resolved;
  });
  const auto selected_core = std::find_if(install.releases.begin(), install.releases.end(), [&](const auto& release) {
    return release.layout == RocmLayout::core_sdk && !install.opt_rocm_lib_resolved.empty() &&
           path_is_under(install.opt_rocm_lib_resolved, release.prefix);
  });
  // A system-wide release serves every program; a Python environment's copy only that environment.
  const auto system_wide = std::find_if(install.releases.begin(), install.releases.end(),
                                        [](const auto& release) { return release.layout != RocmLayout::python; });
  if (pointed != install.releases.end()) {
    install.active = *pointed;
  } else if (selected_core != install.releases.end()) {
    install.active = *selected_core;
  } else if (system_wide != install.releases.end()) {
    install.active = *system_wide;
  } else if (!install.releases.empty()) {
    install.active = install.releases.front();
  }
  install.loader_dirs = collect_loader_dirs(host);
  install.hip_libraries = find_hip_libraries(host, install.loader_dirs);
  return install;
}

}  // namespace rocm_doctor
