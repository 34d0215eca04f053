// Finds the math libraries of the active ROCm release and their per-gfx kernel files.
#include "rocm_doctor/facts/math_libraries.h"

#include <algorithm>

#include "rocm_doctor/facts/rocm_install.h"

namespace rocm_doctor {

namespace {

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

std::vector<std::string> file_names(const Host& host, const std::string& dir) {
  std::vector<std::string> names;
  if (auto entries = host.list_dir(dir)) {
    for (const auto& entry : *entries) {
      if (entry.type != EntryType::directory) names.push_back(entry.name);
    }
  }
  return names;
}

// Expands one '*' component ("rocblas/*/library") against the host.
std::vector<std::string> expand(const Host& host, const std::string& base, const std::string& pattern) {
  const auto star = pattern.find('*');
  if (star == std::string::npos) return {base + "/" + pattern};
  const auto head = base + "/" + pattern.substr(0, star);
  const auto tail = pattern.substr(star + 1);
  std::vector<std::string> out;
  if (auto entries = host.list_dir(head)) {
    for (const auto& entry : *entries) out.push_back(head + entry.name + tail);
  }
  return out;
}

void find_kernels(const Host& host, const RocmRelease& release, InstalledLibrary& library) {
  const auto& layout = *library.layout;
  const auto base = layout.base == "prefix" ? release.prefix : release.lib_dir;
  for (const auto& pattern : layout.dirs) {
    for (const auto& dir : expand(host, base, pattern)) {
      auto names = file_names(host, dir);
      if (names.empty()) continue;
      library.kernel_dir = dir;
      library.kernel_files = std::move(names);
      return;
    }
  }
}

std::optional<InstalledLibrary> find_library(const Host& host, const RocmRelease& release,
                                             const std::vector<std::string>& lib_files, const kb::MathLibrary& row) {
  InstalledLibrary library;
  for (const auto& name : lib_files) {
    auto version = soname_version(name, row.soname);
    if (!version) continue;
    if (library.file.empty() || version->size() > library.version.size()) {
      library.file = release.lib_dir + "/" + name;
      library.version = *version;
    }
  }
  library.name = row.name;
  library.layout = row.kernels;
  if (library.layout) find_kernels(host, release, library);
  if (library.file.empty() && library.kernel_dir.empty()) return std::nullopt;
  return library;
}

}  // namespace

std::set<std::string> gfx_tokens(std::string_view name) {
  std::set<std::string> tokens;
  for (auto at = name.find("gfx"); at != std::string_view::npos; at = name.find("gfx", at + 3)) {
    auto end = at + 3;
    while (end < name.size() && is_hex_digit(name[end])) ++end;
    if (end - at >= 6 && end - at <= 8) tokens.emplace(name.substr(at, end - at));
  }
  return tokens;
}

std::optional<std::string> soname_version(std::string_view file_name, std::string_view soname) {
  if (file_name == soname) return std::string();
  if (!file_name.starts_with(soname) || file_name.size() <= soname.size() + 1 || file_name[soname.size()] != '.') {
    return std::nullopt;
  }
  const auto version = file_name.substr(soname.size() + 1);
  if (!std::all_of(version.begin(), version.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; })) {
    return std::nullopt;
  }
  return std::string(version);
}

std::optional<bool> InstalledLibrary::carries(std::string_view gfx) const {
  if (!layout || kernel_dir.empty()) return std::nullopt;
  return std::any_of(kernel_files.begin(), kernel_files.end(), [&](const std::string& name) {
    if (layout->match == "prefix") {
      return name.starts_with(gfx) && (name.ends_with(".kdb") || name.ends_with(".db") || name.ends_with(".txt"));
    }
    return gfx_tokens(name).contains(std::string(gfx));
  });
}

std::set<std::string> InstalledLibrary::gfx_targets() const {
  std::set<std::string> all;
  if (!layout || layout->match != "token") return all;
  for (const auto& name : kernel_files) all.merge(gfx_tokens(name));
  return all;
}

const InstalledLibrary* MathLibraries::find(std::string_view name) const {
  const auto it = std::find_if(libraries.begin(), libraries.end(), [&](const auto& l) { return l.name == name; });
  return it == libraries.end() ? nullptr : &*it;
}

MathLibraries MathLibraries::collect(const CheckContext& ctx) {
  MathLibraries result;
  const auto& install = ctx.fact<RocmInstallation>();
  if (!install.active) return result;
  const auto& release = *install.active;
  result.release_label = "ROCm " + (release.version.empty() ? release.prefix : release.version);
  result.lib_dir = release.lib_dir;
  const auto lib_files = file_names(ctx.host(), release.lib_dir);
  for (const auto& row : kb::knowledge_base().libraries()) {
    if (auto library = find_library(ctx.host(), release, lib_files, row))
      result.libraries.push_back(std::move(*library));
  }
  return result;
}

}  // namespace rocm_doctor
