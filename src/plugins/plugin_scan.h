// Finding the site check plugins (docs/plugins.md): which folders are looked
// at, which files in them are plugins, and which of them may be executed.
// Everything is read through the Host seam; nothing here runs anything.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/host.h"

namespace rocm_doctor::plugins {

inline constexpr std::string_view kSystemFolder = "/etc/rocm-doctor/checks.d";
inline constexpr std::string_view kUserFolderBelowHome = ".config/rocm-doctor/checks.d";

// Who may safely own and write what a plugin stage executes: root, and the
// user the doctor runs as (a root-run doctor trusts root only).
struct Trust {
  std::uint32_t uid = 0;  // effective uid of the doctor
  std::uint32_t gid = 0;  // effective gid of the doctor
};

// Why a folder or file may not be trusted, or nullopt when it may.
// `is_ancestor`: a folder above the plugin folder, where a sticky
// world-writable folder (/tmp) is fine: others cannot rename what is in it.
std::optional<std::string> unsafe_reason(const NodeInfo& node, const Trust& trust, bool is_ancestor = false);

// "gpu_Firmware.sh" -> "gpu-firmware": the last extension dropped, lower case,
// anything but [a-z0-9] turned into '-', runs of '-' collapsed, ends trimmed.
std::string plugin_name(std::string_view file_name);

// Dotfiles, editor backups and package-manager leftovers (`*~`, `*.dpkg-old`,
// `*.rpmnew`, ...) are never plugins.
bool ignored_file_name(std::string_view file_name);

struct FolderSpec {
  std::string path;
  std::string origin;  // "system", "user" or "--plugin-dir"
};

// The folders to look in, in order: /etc/rocm-doctor/checks.d, the running
// user's ~/.config/rocm-doctor/checks.d ($HOME, else the passwd entry), then
// each --plugin-dir; a folder named twice is looked at once.
std::vector<FolderSpec> plugin_folders(const Host& host, const std::vector<std::string>& extra_folders);

enum class FolderState { missing, ok, unsafe, unreadable };

struct ScannedFolder {
  FolderSpec spec;
  FolderState state = FolderState::missing;
  std::optional<NodeInfo> node;  // what stat said about the folder (or the unsafe ancestor)
  std::string unsafe_path;       // the folder itself, or the ancestor that makes it unsafe
  std::string problem;           // unsafe/unreadable: why
};

// runnable: may be executed; refused: the file is unsafe (unsafe_reason);
// duplicate: an earlier plugin has the same name; bad_name: the name sanitises
// to nothing; broken: stat failed (a dangling link).
enum class PluginState { runnable, refused, duplicate, bad_name, broken };

struct ScannedPlugin {
  std::string name;  // sanitised file name: ids are site.<name>.<...>
  std::string path;  // folder + "/" + file name
  std::string folder;
  PluginState state = PluginState::runnable;
  std::optional<NodeInfo> node;
  std::string problem;  // refused/duplicate/bad_name: why
};

struct PluginScan {
  Trust trust;
  std::vector<ScannedFolder> folders;
  std::vector<ScannedPlugin> plugins;  // in folder order, then by file name

  [[nodiscard]] std::vector<const ScannedPlugin*> runnable() const;
};

PluginScan scan_plugins(const Host& host, const std::vector<std::string>& extra_folders);

// 0755 -> "0755".
std::string octal_mode(std::uint32_t mode);

std::string_view to_string(FolderState state);
std::string_view to_string(PluginState state);

// The scan as recorded in probes.plugins (docs/snapshot-format.md).
nlohmann::json folder_json(const ScannedFolder& folder);
nlohmann::json plugin_json(const ScannedPlugin& plugin);

}  // namespace rocm_doctor::plugins
