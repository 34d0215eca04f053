#include "plugins/plugin_scan.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "rocm_doctor/text.h"

namespace rocm_doctor::plugins {

namespace {

constexpr std::uint32_t kOtherWrite = 0002;
constexpr std::uint32_t kGroupWrite = 0020;
constexpr std::uint32_t kSticky = 01000;
constexpr std::uint32_t kAnyExecute = 0111;

// Leftovers of editors and package managers that are never plugins.
constexpr std::array<std::string_view, 9> kIgnoredSuffixes = {"~",        ".bak",     ".orig",     ".swp", ".rpmnew",
                                                              ".rpmsave", ".rpmorig", ".disabled", ".tmp"};
constexpr std::array<std::string_view, 2> kIgnoredInfixes = {".dpkg-", ".ucf-"};

std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string parent_of(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

FolderState missing_or_unreadable(const HostError& error) {
  return error.kind == HostErrorKind::not_found || error.kind == HostErrorKind::not_a_directory
             ? FolderState::missing
             : FolderState::unreadable;
}

// The folder and every folder above it must be safe: whoever can rename a
// parent can swap the whole plugin folder.
void judge_folder_safety(const Host& host, const Trust& trust, ScannedFolder& folder) {
  if (auto problem = unsafe_reason(*folder.node, trust)) {
    folder.state = FolderState::unsafe;
    folder.unsafe_path = folder.spec.path;
    folder.problem = *problem;
    return;
  }
  for (auto ancestor = parent_of(folder.spec.path);; ancestor = parent_of(ancestor)) {
    const auto node = host.stat_node(ancestor);
    if (node) {
      if (auto problem = unsafe_reason(*node, trust, true)) {
        folder.state = FolderState::unsafe;
        folder.unsafe_path = ancestor;
        folder.node = *node;
        folder.problem = fmt::format("the folder above it, {}, is {}", ancestor, *problem);
        return;
      }
    }
    if (ancestor == "/") return;
  }
}

// nullopt: not a plugin (a folder, a README, anything not executable).
std::optional<ScannedPlugin> examine_file(const Host& host, const Trust& trust, const ScannedFolder& folder,
                                          const std::string& file_name, const std::vector<ScannedPlugin>& earlier) {
  ScannedPlugin plugin;
  plugin.path = folder.spec.path == "/" ? "/" + file_name : folder.spec.path + "/" + file_name;
  plugin.folder = folder.spec.path;
  plugin.name = plugin_name(file_name);
  const auto node = host.stat_node(plugin.path);
  if (!node) {
    plugin.state = PluginState::broken;
    plugin.problem = node.error().message;
    return plugin;
  }
  if (node->type != EntryType::file || (node->mode & kAnyExecute) == 0) return std::nullopt;
  plugin.node = *node;
  const auto first = std::find_if(earlier.begin(), earlier.end(), [&](const auto& p) { return p.name == plugin.name; });
  if (plugin.name.empty()) {
    plugin.state = PluginState::bad_name;
    plugin.problem = "'" + file_name + "' has no letters or digits to name the plugin by";
  } else if (auto problem = unsafe_reason(*node, trust)) {
    plugin.state = PluginState::refused;
    plugin.problem = *problem;
  } else if (first != earlier.end()) {
    plugin.state = PluginState::duplicate;
    plugin.problem = "the name '" + plugin.name + "' is already taken by " + first->path;
  }
  return plugin;
}

void scan_folder(const Host& host, const Trust& trust, ScannedFolder& folder, std::vector<ScannedPlugin>& plugins) {
  const auto node = host.stat_node(folder.spec.path);
  if (!node) {
    folder.state = missing_or_unreadable(node.error());
    if (folder.state == FolderState::unreadable) folder.problem = node.error().message;
    return;
  }
  folder.node = *node;
  if (node->type != EntryType::directory) {
    folder.state = FolderState::unreadable;
    folder.problem = "not a folder";
    return;
  }
  folder.state = FolderState::ok;
  judge_folder_safety(host, trust, folder);
  if (folder.state != FolderState::ok) return;  // an unsafe folder is not even listed
  const auto entries = host.list_dir(folder.spec.path);
  if (!entries) {
    folder.state = FolderState::unreadable;
    folder.problem = entries.error().message;
    return;
  }
  for (const auto& entry : *entries) {
    if (ignored_file_name(entry.name)) continue;
    if (entry.type != EntryType::file && entry.type != EntryType::symlink) continue;
    if (auto plugin = examine_file(host, trust, folder, entry.name, plugins)) plugins.push_back(std::move(*plugin));
  }
}

}  // namespace

std::optional<std::string> unsafe_reason(const NodeInfo& node, const Trust& trust, bool is_ancestor) {
  // A host that cannot tell the owner (a replayed file without a record) proves nothing safe.
  if (!node.permissions_known) return "of unknown owner and mode";
  std::vector<std::string> problems;
  if (node.uid != 0 && node.uid != trust.uid) {
    problems.push_back(trust.uid == 0 ? fmt::format("owned by uid {}, not root", node.uid)
                                      : fmt::format("owned by uid {}, neither root nor the user the doctor runs as "
                                                    "(uid {})",
                                                    node.uid, trust.uid));
  }
  const bool sticky_folder = is_ancestor && (node.mode & kSticky) != 0;
  if ((node.mode & kOtherWrite) != 0 && !sticky_folder) {
    problems.push_back(fmt::format("writable by every user (mode {})", octal_mode(node.mode)));
  }
  if ((node.mode & kGroupWrite) != 0 && node.gid != 0 && node.gid != trust.gid && !sticky_folder) {
    problems.push_back(fmt::format("writable by group gid {} (mode {})", node.gid, octal_mode(node.mode)));
  }
  if (problems.empty()) return std::nullopt;
  return join(problems, " and ");
}

std::string plugin_name(std::string_view file_name) {
  std::string_view stem = file_name;
  if (const auto dot = stem.rfind('.'); dot != std::string_view::npos && dot > 0) stem = stem.substr(0, dot);
  std::string name;
  for (const char c : stem) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (keep) {
      name.push_back(lower);
    } else if (!name.empty() && name.back() != '-') {
      name.push_back('-');
    }
  }
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name;
}

bool ignored_file_name(std::string_view file_name) {
  if (file_name.empty() || file_name.front() == '.') return true;
  const auto ends = [&](std::string_view suffix) { return file_name.ends_with(suffix); };
  const auto has = [&](std::string_view infix) { return file_name.find(infix) != std::string_view::npos; };
  return std::any_of(kIgnoredSuffixes.begin(), kIgnoredSuffixes.end(), ends) ||
         std::any_of(kIgnoredInfixes.begin(), kIgnoredInfixes.end(), has);
}

std::vector<FolderSpec> plugin_folders(const Host& host, const std::vector<std::string>& extra_folders) {
  std::vector<FolderSpec> folders{{std::string(kSystemFolder), "system"}};
  std::string home = host.env("HOME").value_or("");
  if (!home.starts_with('/')) {
    const auto identity = host.identity();
    const auto user = identity.user.empty() ? std::nullopt : host.user_by_name(identity.user);
    home = user ? user->home : "";
  }
  if (home.starts_with('/')) {
    folders.push_back({without_trailing_slashes(home) + "/" + std::string(kUserFolderBelowHome), "user"});
  }
  for (const auto& extra : extra_folders) folders.push_back({without_trailing_slashes(extra), "--plugin-dir"});
  std::vector<FolderSpec> unique;
  for (auto& folder : folders) {
    const bool seen = std::any_of(unique.begin(), unique.end(), [&](const auto& f) { return f.path == folder.path; });
    if (!seen) unique.push_back(std::move(folder));
  }
  return unique;
}

std::vector<const ScannedPlugin*> PluginScan::runnable() const {
  std::vector<const ScannedPlugin*> result;
  for (const auto& plugin : plugins) {
    if (plugin.state == PluginState::runnable) result.push_back(&plugin);
  }
  return result;
}

PluginScan scan_plugins(const Host& host, const std::vector<std::string>& extra_folders) {
  PluginScan scan;
  const auto identity = host.identity();
  scan.trust = {identity.uid, identity.gid};
  for (auto& spec : plugin_folders(host, extra_folders)) {
    ScannedFolder folder;
    folder.spec = std::move(spec);
    scan_folder(host, scan.trust, folder, scan.plugins);
    scan.folders.push_back(std::move(folder));
  }
  return scan;
}

std::string octal_mode(std::uint32_t mode) {
  return fmt::format("{:04o}", mode & 07777U);
}

std::string_view to_string(FolderState state) {
  switch (state) {
    case FolderState::missing: return "missing";
    case FolderState::ok: return "ok";
    case FolderState::unsafe: return "unsafe";
    case FolderState::unreadable: return "unreadable";
  }
  return "unreadable";
}

std::string_view to_string(PluginState state) {
  switch (state) {
    case PluginState::runnable: return "runnable";
    case PluginState::refused: return "refused";
    case PluginState::duplicate: return "duplicate";
    case PluginState::bad_name: return "bad-name";
    case PluginState::broken: return "broken";
  }
  return "broken";
}

namespace {

void add_node(nlohmann::json& json, const std::optional<NodeInfo>& node) {
  if (!node) return;
  json["uid"] = node->uid;
  json["gid"] = node->gid;
  json["mode"] = octal_mode(node->mode);
}

}  // namespace

nlohmann::json folder_json(const ScannedFolder& folder) {
  nlohmann::json json = {
      {"path", folder.spec.path}, {"origin", folder.spec.origin}, {"state", to_string(folder.state)}};
  if (folder.state == FolderState::missing) return json;
  if (!folder.problem.empty()) json["problem"] = folder.problem;
  if (!folder.unsafe_path.empty()) json["unsafe_path"] = folder.unsafe_path;
  add_node(json, folder.node);
  return json;
}

nlohmann::json plugin_json(const ScannedPlugin& plugin) {
  nlohmann::json json = {{"name", plugin.name}, {"path", plugin.path}, {"folder", plugin.folder}};
  if (plugin.state != PluginState::runnable) {
    json["status"] = to_string(plugin.state);
    json["problem"] = plugin.problem;
  }
  add_node(json, plugin.node);
  return json;
}

}  // namespace rocm_doctor::plugins
