// The ROCm runtimes applications bundle (ollama, lemonade, LM Studio, llama.cpp's HIP plugin,
// checks/data/rocm_installs.json `bundles`) and TheRock tarballs or other trees under any
// prefix (rocm_doctor/facts/rocm_installs.h).
#include <algorithm>
#include <cctype>

#include "facts/rocm_installs_detail.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::installs_detail {

namespace {

InstallKind kind_of(std::string_view name) {
  if (name == "ollama") return InstallKind::ollama;
  if (name == "lemonade") return InstallKind::lemonade;
  if (name == "lm-studio") return InstallKind::lm_studio;
  return InstallKind::llama_cpp;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// .info/version of a tree (AMD's packages and TheRock tarballs both write it).
void read_info_version(const Host& host, RocmInstall& install) {
  if (const auto text = host.read_file(install.prefix + "/.info/version")) {
    if (auto version = parse_rocm_version_file(*text)) {
      install.version = *version;
      install.version_source = install.prefix + "/.info/version";
    }
  }
}

// A version from the libraries' names: rocBLAS's soname carries the ROCm release
// (librocblas.so.5.2.70201 -> 7.2.1), libamdhip64's the HIP version.
void version_from_libraries(const Host& host, RocmInstall& install) {
  for (const auto& entry : host.list_dir(install.lib_dir).value_or(std::vector<DirEntry>{})) {
    constexpr std::string_view kRocblas = "librocblas.so.";
    if (entry.name.starts_with(kRocblas)) {
      if (auto version = rocm_of_library_version(std::string_view(entry.name).substr(kRocblas.size()));
          !version.empty()) {
        install.version = version;
        install.version_source = join_path(install.lib_dir, entry.name);
        return;
      }
    }
  }
  const auto name = install.hip_library.substr(install.hip_library.rfind('/') + 1);
  if (auto version = hip_version_from_library_name(name)) {
    install.version = *version;
    install.version_source = install.hip_library + " (HIP version)";
  }
}

// One bundle folder: its runtime (here or in lib/), its kernels, version and targets.
std::optional<RocmInstall> bundle_at(const Host& host, const BundlePlace& place, const std::string& folder,
                                     std::string_view name) {
  RocmInstall install;
  install.kind = kind_of(place.kind);
  install.app = place.app;
  install.service = place.service;
  install.prefix = folder;
  install.lib_dir = folder;
  install.hip_library = hip_library_in(host, folder);
  if (install.hip_library.empty() && host.exists(folder + "/lib")) {
    install.lib_dir = folder + "/lib";
    install.hip_library = hip_library_in(host, install.lib_dir);
  }
  const auto kernels = place.kernels.empty() ? std::string() : join_path(folder, place.kernels);
  const bool has_kernels = !kernels.empty() && host.exists(kernels);
  if (install.hip_library.empty() && !has_kernels) return std::nullopt;
  read_info_version(host, install);
  if (install.version.empty()) {
    if (auto version = version_of_bundle_folder(name); !version.empty()) {
      install.version = version;
      install.version_source = folder;
    }
  }
  if (install.version.empty() && !install.hip_library.empty()) version_from_libraries(host, install);
  // lemonade's TheRock folders are named <family or gfx>-<version>.
  if (install.kind == InstallKind::lemonade && !family_targets(name.substr(0, name.rfind('-'))).empty()) {
    install.families.emplace_back(name.substr(0, name.rfind('-')));
  }
  if (const auto text = host.read_file(folder + "/share/therock/dist_info.json", 1U << 20)) {
    install.gfx = parse_therock_dist_info(*text);
    if (!install.gfx.empty()) install.gfx_source = folder + "/share/therock/dist_info.json";
  }
  if (install.gfx.empty()) read_targets(host, install, has_kernels ? kernels : "");
  if (install.gfx.empty() && !install.families.empty()) {
    install.gfx = family_targets(install.families.front());
    install.gfx_source = folder + " (the family in its name)";
  }
  for (const auto& program : place.programs) {
    if (host.exists(program)) install.used_by.push_back(place.app + " (" + program + ")");
  }
  if (install.used_by.empty()) install.used_by.push_back(place.app);
  return install;
}

bool known(const std::vector<RocmInstall>& out, const std::string& prefix) {
  return std::any_of(out.begin(), out.end(), [&](const auto& install) {
    return install.prefix == prefix || path_is_under(prefix, install.prefix);
  });
}

}  // namespace

void add_bundles(const CheckContext& ctx, std::vector<RocmInstall>& out) {
  const auto& host = ctx.host();
  const auto homes = user_homes(host);
  for (const auto& place : install_data().bundles) {
    std::vector<std::string> folders;
    for (const auto& folder : place.folders) {
      if (!folder.starts_with("~/")) {
        folders.push_back(folder);
        continue;
      }
      for (const auto& home : homes) folders.push_back(home + folder.substr(1));
    }
    for (const auto& folder : folders) {
      if (place.match.empty()) {
        if (known(out, folder)) continue;
        if (auto install = bundle_at(host, place, folder, folder.substr(folder.rfind('/') + 1)))
          out.push_back(std::move(*install));
        continue;
      }
      // Older layouts put the runtime in the folder itself (/usr/lib/ollama/libamdhip64.so.6).
      if (!known(out, folder) && !hip_library_in(host, folder).empty()) {
        if (auto install = bundle_at(host, place, folder, folder.substr(folder.rfind('/') + 1)))
          out.push_back(std::move(*install));
      }
      std::size_t seen = 0;
      for (const auto& entry : host.list_dir(folder).value_or(std::vector<DirEntry>{})) {
        if (++seen > kMaxEntries) break;
        if (entry.type == EntryType::file || !glob_match(place.match, lower(entry.name))) continue;
        const auto path = join_path(folder, entry.name);
        if (known(out, path)) continue;
        if (auto install = bundle_at(host, place, path, entry.name)) out.push_back(std::move(*install));
      }
    }
  }
}

std::optional<RocmInstall> standalone_tree(const Host& host, const std::string& prefix) {
  RocmInstall install;
  install.kind = InstallKind::standalone;
  install.prefix = prefix;
  install.lib_dir = prefix + "/lib";
  install.hip_library = hip_library_in(host, install.lib_dir);
  const bool therock = host.exists(prefix + "/share/therock/therock_manifest.json") ||
                       host.exists(prefix + "/share/therock/dist_info.json");
  if (install.hip_library.empty() && !therock) return std::nullopt;
  if (therock) install.app = "TheRock tarball";
  read_info_version(host, install);
  if (install.version.empty() && !install.hip_library.empty()) version_from_libraries(host, install);
  if (const auto text = host.read_file(prefix + "/share/therock/dist_info.json", 1U << 20)) {
    install.gfx = parse_therock_dist_info(*text);
    if (!install.gfx.empty()) install.gfx_source = prefix + "/share/therock/dist_info.json";
  }
  if (install.gfx.empty()) read_targets(host, install, "");
  return install;
}

void add_standalone_trees(const CheckContext& ctx, std::vector<RocmInstall>& out) {
  const auto& host = ctx.host();
  const auto consider = [&](const std::string& prefix) {
    if (known(out, prefix)) return false;
    auto tree = standalone_tree(host, prefix);
    if (!tree) return false;
    out.push_back(std::move(*tree));
    return true;
  };
  // /opt/<name> that is not AMD's own layout (those are the RocmInstallation fact's).
  for (const auto& entry : host.list_dir("/opt").value_or(std::vector<DirEntry>{})) {
    if (entry.name == "rocm" || entry.name.starts_with("rocm-") || entry.type == EntryType::file) continue;
    consider("/opt/" + entry.name);
  }
  // A tarball unpacked in a home: ~/<tree>, or ~/<rocm or therock folder>/<tree>.
  for (const auto& home : user_homes(host)) {
    std::size_t seen = 0;
    for (const auto& entry : host.list_dir(home).value_or(std::vector<DirEntry>{})) {
      if (++seen > kMaxEntries || entry.type == EntryType::file || entry.name.starts_with('.')) continue;
      const auto path = join_path(home, entry.name);
      if (consider(path)) continue;
      const auto name = lower(entry.name);
      if (name.find("rocm") == std::string::npos && name.find("therock") == std::string::npos) continue;
      std::size_t inner = 0;
      for (const auto& child : host.list_dir(path).value_or(std::vector<DirEntry>{})) {
        if (++inner > kMaxEntries || child.type == EntryType::file) continue;
        consider(join_path(path, child.name));
      }
    }
  }
}

}  // namespace rocm_doctor::installs_detail
