// The ROCm inventory (rocm_doctor/facts/rocm_installs.h): the root the user names, the system
// releases the RocmInstallation fact found, and the finders of the other places ROCm lives.
#include "rocm_doctor/facts/rocm_installs.h"

#include <algorithm>
#include <set>

#include "facts/rocm_installs_detail.h"
#include "rocm_doctor/code_objects.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

std::string_view to_string(InstallKind kind) {
  switch (kind) {
    case InstallKind::system_package: return "system-package";
    case InstallKind::therock_package: return "therock-package";
    case InstallKind::python_wheel: return "python-wheel";
    case InstallKind::distro_package: return "distro-package";
    case InstallKind::standalone: return "standalone";
    case InstallKind::conda: return "conda";
    case InstallKind::torch_wheel: return "torch-wheel";
    case InstallKind::ollama: return "ollama";
    case InstallKind::llama_cpp: return "llama.cpp";
    case InstallKind::lemonade: return "lemonade";
    case InstallKind::lm_studio: return "lm-studio";
  }
  return "standalone";
}

bool RocmInstall::carries(std::string_view gfx_target) const {
  return std::find(gfx.begin(), gfx.end(), gfx_target) != gfx.end();
}

std::string RocmInstall::label() const {
  std::string text = version.empty() ? std::string("ROCm (version unknown)") : "ROCm " + version;
  const auto kind_name = std::string(to_string(kind));
  text += " (" + (app.empty() ? kind_name : app) + ")";
  return text + " in " + prefix;
}

nlohmann::ordered_json RocmInstall::to_json() const {
  const auto or_null = [](const std::string& text) {
    return text.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(text);
  };
  return {{"kind", to_string(kind)},
          {"prefix", prefix},
          {"lib_dir", or_null(lib_dir)},
          {"version", or_null(version)},
          {"version_source", or_null(version_source)},
          {"hip_runtime", or_null(hip_library)},
          {"gfx_targets", gfx},
          {"gfx_source", or_null(gfx_source)},
          {"families", families},
          {"used_by", used_by},
          {"app", or_null(app)},
          {"python", or_null(python)},
          {"selected_by", or_null(selected_by)}};
}

namespace {
std::string& rocm_root_storage() {
  static std::string root;
  return root;
}
}  // namespace

void set_rocm_root_option(std::string dir) {
  rocm_root_storage() = std::move(dir);
}

const std::string& rocm_root_option() {
  return rocm_root_storage();
}

bool RocmInstalls::any_hip_runtime() const {
  return std::any_of(installs.begin(), installs.end(), [](const auto& install) { return install.brings_hip(); });
}

const RocmInstall* RocmInstalls::find(std::string_view prefix) const {
  const auto it =
      std::find_if(installs.begin(), installs.end(), [&](const auto& install) { return install.prefix == prefix; });
  return it == installs.end() ? nullptr : &*it;
}

nlohmann::ordered_json RocmInstalls::to_json() const {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& install : installs) list.push_back(install.to_json());
  nlohmann::ordered_json result = {{"installs", list}};
  if (!root.empty()) {
    result["root"] = {{"path", root}, {"source", root_source}, {"rocm_found", !root_missing}};
  }
  return result;
}

namespace installs_detail {

std::string join_path(std::string_view folder, std::string_view name) {
  std::string path(folder);
  if (!path.ends_with('/')) path += '/';
  return path + std::string(name);
}

std::vector<std::string> user_homes(const Host& host) {
  std::vector<std::string> homes;
  const auto add = [&](const std::string& home) {
    if (home.size() < 2 || !home.starts_with('/') || homes.size() >= kMaxHomes) return;
    const auto path = normalize_path(home);
    if (std::find(homes.begin(), homes.end(), path) == homes.end()) homes.push_back(path);
  };
  if (const auto home = host.env("HOME")) add(*home);
  const auto identity = host.identity();
  if (!identity.user.empty()) {
    if (const auto user = host.user_by_name(identity.user)) add(user->home);
  }
  for (const auto& entry : host.list_dir("/home").value_or(std::vector<DirEntry>{})) {
    if (entry.type == EntryType::directory) add("/home/" + entry.name);
  }
  return homes;
}

std::string hip_library_in(const Host& host, const std::string& folder) {
  const auto entries = host.list_dir(folder);
  if (!entries) return "";
  std::string found;
  for (const auto& entry : *entries) {
    if (!entry.name.starts_with("libamdhip64.so")) continue;
    if (!host.stat_node(join_path(folder, entry.name))) continue;  // a dangling link brings nothing
    // The most specific name: libamdhip64.so.7.2.26015 over .so.7 over .so.
    if (entry.name.size() > found.size()) found = entry.name;
  }
  return found.empty() ? "" : join_path(folder, found);
}

void read_targets(const Host& host, RocmInstall& install, const std::string& kernels_library) {
  if (!kernels_library.empty() && host.exists(kernels_library)) {
    if (const auto scan = code_objects::scan_file(host, kernels_library); scan && !scan->targets.empty()) {
      std::set<std::string> processors;
      for (const auto& target : scan->targets) processors.insert(code_objects::processor_of(target));
      install.gfx.assign(processors.begin(), processors.end());
      install.gfx_source = kernels_library;
      return;
    }
  }
  const auto library = install.lib_dir + "/rocblas/library";
  const auto entries = host.list_dir(library);
  if (!entries) return;
  std::set<std::string> targets;
  std::size_t seen = 0;
  for (const auto& entry : *entries) {
    if (++seen > kMaxEntries) break;
    if (auto gfx = gfx_of_library_file(entry.name); !gfx.empty()) targets.insert(std::move(gfx));
  }
  if (targets.empty()) return;
  install.gfx.assign(targets.begin(), targets.end());
  install.gfx_source = library;
}

void add_system_installs(const CheckContext& ctx, std::vector<RocmInstall>& out) {
  const auto& host = ctx.host();
  const auto& system = ctx.fact<RocmInstallation>();
  // Arch packages ROCm into /opt/rocm itself (rocm-core owns /opt/rocm/.info/version).
  std::string pacman_rocm;
  for (const auto& entry : host.list_dir("/var/lib/pacman/local").value_or(std::vector<DirEntry>{})) {
    if (entry.name.starts_with("rocm-core-")) pacman_rocm = entry.name;
  }
  for (const auto& release : system.releases) {
    if (release.layout == RocmLayout::python) continue;  // every Python environment is read below
    RocmInstall install;
    install.prefix = release.prefix;
    install.lib_dir = release.lib_dir;
    install.version = release.version;
    install.version_source = release.evidence;
    install.hip_library = hip_library_in(host, release.lib_dir);
    switch (release.layout) {
      case RocmLayout::core_sdk: install.kind = InstallKind::therock_package; break;
      case RocmLayout::distro: install.kind = InstallKind::distro_package; break;
      default: install.kind = InstallKind::system_package; break;
    }
    if (release.prefix == "/opt/rocm" && !pacman_rocm.empty()) {
      install.kind = InstallKind::distro_package;
      install.version_source += " (pacman: /var/lib/pacman/local/" + pacman_rocm + ")";
    }
    if (install.kind != InstallKind::distro_package || release.prefix != "/usr") read_targets(host, install, "");
    const bool loaded = std::any_of(system.hip_libraries.begin(), system.hip_libraries.end(),
                                    [&](const auto& hit) { return path_is_under(hit.path, release.lib_dir); });
    if (loaded) install.used_by.push_back("every program the dynamic loader serves (" + release.lib_dir + ")");
    out.push_back(std::move(install));
  }
}

}  // namespace installs_detail

namespace {

// rocprofv3-doctor's order (doctor_layout.detect_rocm_root): --rocm-root, then ROCM_PATH,
// ROCM_HOME, ROCM_DIR; HIP_PATH last (legacy HIP and TheRock's Windows setup name the root with it).
void resolve_root(const CheckContext& ctx, RocmInstalls& result) {
  const auto& host = ctx.host();
  if (!rocm_root_option().empty()) {
    result.root = normalize_path(rocm_root_option());
    result.root_source = "--rocm-root";
  } else {
    for (const char* name : {"ROCM_PATH", "ROCM_HOME", "ROCM_DIR", "HIP_PATH"}) {
      const auto value = host.env(name);
      if (!value || !value->starts_with('/')) continue;
      result.root = normalize_path(*value);
      result.root_source = name;
      break;
    }
  }
  if (result.root.empty()) return;
  for (auto& install : result.installs) {
    // A venv prefix names the wheel inside it; HIP_PATH=/opt/rocm/hip names a folder of the release.
    if (path_is_under(install.prefix, result.root) || path_is_under(result.root, install.prefix)) {
      install.selected_by = result.root_source;
      return;
    }
  }
  if (auto tree = installs_detail::standalone_tree(host, result.root)) {
    tree->selected_by = result.root_source;
    result.installs.push_back(std::move(*tree));
    return;
  }
  result.root_missing = true;
}

}  // namespace

RocmInstalls RocmInstalls::collect(const CheckContext& ctx) {
  RocmInstalls result;
  installs_detail::add_system_installs(ctx, result.installs);
  installs_detail::add_python_installs(ctx, result.installs, result.therock);
  installs_detail::add_bundles(ctx, result.installs);
  installs_detail::add_standalone_trees(ctx, result.installs);
  resolve_root(ctx, result);
  return result;
}

}  // namespace rocm_doctor
