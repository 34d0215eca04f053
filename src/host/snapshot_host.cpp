#include "host/snapshot_host.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <fstream>
#include <sstream>

#include "host/account_files.h"
#include "host/live_host.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

constexpr int kMaxSymlinkHops = 40;  // as Linux's MAXSYMLINKS

std::deque<std::string> path_components(std::string_view path) {
  std::deque<std::string> parts;
  for (const auto part : split(path, '/')) {
    if (!part.empty() && part != ".") parts.emplace_back(part);
  }
  return parts;
}

std::filesystem::path join_inside(const std::filesystem::path& root, const std::vector<std::string>& parts) {
  std::filesystem::path result = root;
  for (const auto& part : parts) result /= part;
  return result;
}

HostError not_absolute(std::string_view path) {
  return HostError{HostErrorKind::not_found, std::string(path) + ": not an absolute path"};
}

std::string read_small_file(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream content;
  content << stream.rdbuf();
  return content.str();
}

}  // namespace

SnapshotHost::SnapshotHost(std::filesystem::path root, SnapshotManifest manifest)
    : root_(std::move(root)), manifest_(std::move(manifest)) {
  if (auto text = read_file("/etc/group", 64 * 1024 * 1024)) groups_ = parse_group_file(*text);
  if (auto text = read_file("/etc/passwd", 64 * 1024 * 1024)) users_ = parse_passwd_file(*text);
}

tl::expected<std::unique_ptr<SnapshotHost>, std::string> SnapshotHost::open(const std::filesystem::path& directory) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) {
    return tl::unexpected(directory.string() + ": not a snapshot folder (no such directory)");
  }
  const auto manifest_path = directory / "snapshot.json";
  if (!std::filesystem::is_regular_file(manifest_path, error)) {
    return tl::unexpected(manifest_path.string() + ": missing (a snapshot folder holds snapshot.json and root/)");
  }
  if (std::filesystem::file_size(manifest_path, error) > 256U * 1024 * 1024) {
    return tl::unexpected(manifest_path.string() + ": larger than 256 MiB");
  }
  // Links inside root/ are resolved inside it; root/ itself being a link would
  // hand the replay some other folder (even the live /) without saying so.
  if (std::filesystem::is_symlink(directory / "root", error)) {
    return tl::unexpected((directory / "root").string() + ": a symbolic link; a snapshot's files must be inside it");
  }
  auto manifest = parse_snapshot_manifest(read_small_file(manifest_path));
  if (!manifest) return tl::unexpected(manifest_path.string() + ": " + manifest.error());
  return std::unique_ptr<SnapshotHost>(new SnapshotHost(directory / "root", std::move(*manifest)));
}

HostResult<std::filesystem::path> SnapshotHost::resolve(std::string_view path, FollowLast follow) const {
  if (!path.starts_with('/')) return tl::unexpected(not_absolute(path));
  std::deque<std::string> pending = path_components(path);
  std::vector<std::string> resolved;
  int hops = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part == "..") {
      if (!resolved.empty()) resolved.pop_back();
      continue;
    }
    resolved.push_back(part);
    const auto candidate = join_inside(root_, resolved);
    struct stat info {};
    if (::lstat(candidate.c_str(), &info) != 0) {
      return tl::unexpected(host_error_from_errno(errno, path));
    }
    const bool is_last = pending.empty();
    if (!S_ISLNK(info.st_mode) || (is_last && follow == FollowLast::no)) {
      if (!is_last && !S_ISDIR(info.st_mode)) {
        return tl::unexpected(HostError{HostErrorKind::not_a_directory, std::string(path) + ": not a directory"});
      }
      continue;
    }
    if (++hops > kMaxSymlinkHops) {
      return tl::unexpected(HostError{HostErrorKind::loop, std::string(path) + ": too many levels of symbolic links"});
    }
    std::error_code error;
    const auto target = std::filesystem::read_symlink(candidate, error).string();
    resolved.pop_back();
    if (target.starts_with('/')) resolved.clear();  // absolute targets are paths inside root/
    auto target_parts = path_components(target);
    pending.insert(pending.begin(), target_parts.begin(), target_parts.end());
  }
  return join_inside(root_, resolved);
}

HostResult<void> SnapshotHost::check_readable(std::string_view path) const {
  if (manifest_.unreadable.contains(std::string(path))) {
    return tl::unexpected(HostError{HostErrorKind::permission_denied, std::string(path) + ": Permission denied"});
  }
  return {};
}

HostResult<std::string> SnapshotHost::read_file(std::string_view path, std::size_t max_bytes) const {
  if (auto readable = check_readable(path); !readable) return tl::unexpected(readable.error());
  auto file = resolve(path, FollowLast::yes);
  if (!file) return tl::unexpected(file.error());
  std::error_code error;
  if (std::filesystem::is_directory(*file, error)) {
    return tl::unexpected(HostError{HostErrorKind::io, std::string(path) + ": is a directory"});
  }
  if (!std::filesystem::is_regular_file(*file, error)) {
    return tl::unexpected(HostError{HostErrorKind::io, std::string(path) + ": not a regular file in the snapshot"});
  }
  const auto size = std::filesystem::file_size(*file, error);
  if (error) return tl::unexpected(HostError{HostErrorKind::io, std::string(path) + ": " + error.message()});
  if (size > max_bytes) {
    return tl::unexpected(HostError{HostErrorKind::too_large,
                                    std::string(path) + ": larger than " + std::to_string(max_bytes) + " bytes"});
  }
  return read_small_file(*file);
}

HostResult<std::vector<DirEntry>> SnapshotHost::list_dir(std::string_view path) const {
  std::vector<DirEntry> entries;
  std::string prefix(path);
  if (!prefix.ends_with('/')) prefix += '/';
  // Device nodes live in snapshot.json; their folders exist implicitly.
  for (const auto& [node_path, node] : manifest_.nodes) {
    if (!node_path.starts_with(prefix)) continue;
    const auto rest = std::string_view(node_path).substr(prefix.size());
    const auto slash = rest.find('/');
    const auto type = slash == std::string_view::npos ? node.type : EntryType::directory;
    entries.push_back({std::string(rest.substr(0, slash)), type});
  }
  auto directory = resolve(path, FollowLast::yes);
  std::error_code error;
  if (directory && std::filesystem::is_directory(*directory, error)) {
    for (const auto& entry : std::filesystem::directory_iterator(*directory, error)) {
      struct stat info {};
      const auto type = ::lstat(entry.path().c_str(), &info) == 0 ? entry_type_from_mode(info.st_mode) : EntryType::other;
      entries.push_back({entry.path().filename().string(), type});
    }
  } else if (entries.empty()) {
    if (!directory) return tl::unexpected(directory.error());
    return tl::unexpected(HostError{HostErrorKind::not_a_directory, std::string(path) + ": not a directory"});
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  entries.erase(std::unique(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name == b.name; }),
                entries.end());
  return entries;
}

HostResult<std::string> SnapshotHost::read_link(std::string_view path) const {
  auto link = resolve(path, FollowLast::no);
  if (!link) return tl::unexpected(link.error());
  std::error_code error;
  auto target = std::filesystem::read_symlink(*link, error);
  if (error) return tl::unexpected(HostError{HostErrorKind::not_a_link, std::string(path) + ": not a symbolic link"});
  return target.string();
}

HostResult<NodeInfo> SnapshotHost::stat_node(std::string_view path) const {
  const std::string key(path);
  if (const auto it = manifest_.nodes.find(key); it != manifest_.nodes.end()) return it->second;
  const std::string prefix = key.ends_with('/') ? key : key + "/";
  const bool is_node_folder = std::any_of(manifest_.nodes.begin(), manifest_.nodes.end(),
                                          [&](const auto& node) { return node.first.starts_with(prefix); });
  if (is_node_folder) return NodeInfo{EntryType::directory, 0755, 0, 0, false, std::nullopt};
  auto file = resolve(path, FollowLast::yes);
  if (!file) return tl::unexpected(file.error());
  struct stat info {};
  if (::stat(file->c_str(), &info) != 0) return tl::unexpected(host_error_from_errno(errno, path));
  // Files under root/ belong to whoever unpacked the snapshot: report them as root's.
  return NodeInfo{entry_type_from_mode(info.st_mode), info.st_mode & 0777U, 0, 0, false, std::nullopt};
}

std::optional<std::string> SnapshotHost::env(std::string_view name) const {
  const auto it = manifest_.env.find(std::string(name));
  if (it == manifest_.env.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> SnapshotHost::env_names() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : manifest_.env) names.push_back(name);
  return names;
}

std::optional<GroupEntry> SnapshotHost::group_by_gid(std::uint32_t gid) const {
  const auto it = std::find_if(groups_.begin(), groups_.end(), [&](const auto& group) { return group.gid == gid; });
  if (it == groups_.end()) return std::nullopt;
  return *it;
}

std::optional<GroupEntry> SnapshotHost::group_by_name(std::string_view name) const {
  const auto it = std::find_if(groups_.begin(), groups_.end(), [&](const auto& group) { return group.name == name; });
  if (it == groups_.end()) return std::nullopt;
  return *it;
}

std::optional<UserEntry> SnapshotHost::user_by_name(std::string_view name) const {
  const auto it = std::find_if(users_.begin(), users_.end(), [&](const auto& user) { return user.name == name; });
  if (it == users_.end()) return std::nullopt;
  return *it;
}

std::optional<nlohmann::json> SnapshotHost::probe(std::string_view name) const {
  const auto it = manifest_.probes.find(std::string(name));
  if (it == manifest_.probes.end()) return std::nullopt;
  return *it;
}

}  // namespace rocm_doctor
