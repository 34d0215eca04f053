#include "host/snapshot_host.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <fstream>
#include <sstream>

#include "host/account_files.h"
#include "host/posix_files.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

constexpr int kMaxSymlinkHops = 40;  // as Linux's MAXSYMLINKS

std::vector<std::string> path_components(std::string_view path) {
  std::vector<std::string> parts;
  for (const auto part : split(path, '/')) {
    if (!part.empty() && part != ".") parts.emplace_back(part);
  }
  return parts;
}

HostError not_absolute(std::string_view path) {
  return HostError{HostErrorKind::not_found, std::string(path) + ": not an absolute path"};
}

HostError not_a_directory(std::string_view path) {
  return HostError{HostErrorKind::not_a_directory, std::string(path) + ": not a directory"};
}

HostResult<std::string> link_target(const std::string& link, std::string_view shown_path) {
  std::string target(PATH_MAX, '\0');
  const ssize_t length = ::readlink(link.c_str(), target.data(), target.size());
  if (length < 0) return tl::unexpected(host_error_from_errno(errno, shown_path));
  target.resize(static_cast<std::size_t>(length));
  return target;
}

std::string read_small_file(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream content;
  content << stream.rdbuf();
  return content.str();
}

}  // namespace

SnapshotHost::SnapshotHost(std::filesystem::path root, SnapshotManifest manifest)
    : root_(root.string()), manifest_(std::move(manifest)) {
  if (auto text = read_file("/etc/group", 64 * 1024 * 1024)) groups_ = parse_group_file(*text);
  if (auto text = read_file("/etc/passwd", 64 * 1024 * 1024)) users_ = parse_passwd_file(*text);
}

tl::expected<std::unique_ptr<SnapshotHost>, std::string> SnapshotHost::open(const std::filesystem::path& directory) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) {
    if (const auto folder = first_unenterable_folder(directory.string())) {
      return tl::unexpected(directory.string() + ": " + unenterable_folder_text(*folder));
    }
    if (std::filesystem::exists(directory, error)) {
      return tl::unexpected(directory.string() + ": not a snapshot folder (not a directory)");
    }
    return tl::unexpected(directory.string() + ": not a snapshot folder (no such directory)");
  }
  const auto manifest_path = directory / "snapshot.json";
  if (!std::filesystem::is_regular_file(manifest_path, error)) {
    if (const auto folder = first_unenterable_folder(directory.string())) {
      return tl::unexpected(directory.string() + ": " + unenterable_folder_text(*folder));
    }
    return tl::unexpected(manifest_path.string() + ": missing (a snapshot folder holds snapshot.json and root/)");
  }
  if (::faccessat(AT_FDCWD, manifest_path.c_str(), R_OK, AT_EACCESS) != 0 && (errno == EACCES || errno == EPERM)) {
    return tl::unexpected(manifest_path.string() + ": permission denied (this process may not read it)");
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

HostResult<SnapshotHost::Resolved> SnapshotHost::walk(std::string start, std::vector<std::string> pending,
                                                      FollowLast follow, std::string_view shown_path) const {
  Resolved current{std::move(start), S_IFDIR, 0};
  std::reverse(pending.begin(), pending.end());  // the next component is at the back
  int hops = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == "..") {
      // Every component was appended as "/name"; the root's parent is the root.
      if (current.path.size() > root_.size()) current.path.resize(current.path.rfind('/'));
      current.mode = S_IFDIR;  // only a folder's components are walked further
      continue;
    }
    const std::size_t parent_length = current.path.size();
    current.path += '/';
    current.path += part;
    struct stat info {};
    if (::lstat(current.path.c_str(), &info) != 0) return tl::unexpected(host_error_from_errno(errno, shown_path));
    const bool is_last = pending.empty();
    if (!S_ISLNK(info.st_mode) || (is_last && follow == FollowLast::no)) {
      if (!is_last && !S_ISDIR(info.st_mode)) return tl::unexpected(not_a_directory(shown_path));
      current.mode = info.st_mode;
      current.size = static_cast<std::uint64_t>(info.st_size);
      continue;
    }
    if (++hops > kMaxSymlinkHops) {
      return tl::unexpected(
          HostError{HostErrorKind::loop, std::string(shown_path) + ": too many levels of symbolic links"});
    }
    auto target = link_target(current.path, shown_path);
    if (!target) return tl::unexpected(target.error());
    current.path.resize(parent_length);
    if (target->starts_with('/')) current.path = root_;  // absolute targets are paths inside root/
    auto target_parts = path_components(*target);
    pending.insert(pending.end(), target_parts.rbegin(), target_parts.rend());
  }
  return current;
}

HostResult<std::string> SnapshotHost::resolve_folder(const std::vector<std::string>& parts,
                                                     std::string_view shown_path) const {
  // keys[i]: the machine folder of the first i parts.
  std::vector<std::string> keys(parts.size() + 1);
  for (std::size_t i = 0; i < parts.size(); ++i) keys[i + 1] = keys[i] + '/' + parts[i];
  // Start from the deepest folder resolved before, then one component at a time.
  std::size_t known = parts.size();
  std::string folder = root_;
  {
    const std::lock_guard lock(folders_mutex_);
    for (; known > 0; --known) {
      if (const auto it = folders_.find(keys[known]); it != folders_.end()) {
        folder = it->second;
        break;
      }
    }
  }
  for (std::size_t i = known; i < parts.size(); ++i) {
    auto next = walk(std::move(folder), {parts[i]}, FollowLast::yes, shown_path);
    if (!next) return tl::unexpected(next.error());
    if (!S_ISDIR(next->mode)) return tl::unexpected(not_a_directory(shown_path));
    folder = std::move(next->path);
    const std::lock_guard lock(folders_mutex_);
    folders_.emplace(keys[i + 1], folder);
  }
  return folder;
}

HostResult<SnapshotHost::Resolved> SnapshotHost::resolve(std::string_view path, FollowLast follow) const {
  if (!path.starts_with('/')) return tl::unexpected(not_absolute(path));
  auto parts = path_components(path);
  if (parts.empty()) return walk(root_, {}, follow, path);
  std::string leaf = std::move(parts.back());
  parts.pop_back();
  auto folder = resolve_folder(parts, path);
  if (!folder) return tl::unexpected(folder.error());
  return walk(std::move(*folder), {std::move(leaf)}, follow, path);
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
  if (S_ISDIR(file->mode)) return tl::unexpected(HostError{HostErrorKind::io, std::string(path) + ": is a directory"});
  if (!S_ISREG(file->mode)) {
    return tl::unexpected(HostError{HostErrorKind::io, std::string(path) + ": not a regular file in the snapshot"});
  }
  if (file->size > max_bytes) return tl::unexpected(too_large_error(path, max_bytes));
  const FileDescriptor fd(::open(file->path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd.get() < 0) return tl::unexpected(host_error_from_errno(errno, path));
  return read_descriptor(fd.get(), path, max_bytes, static_cast<std::size_t>(file->size));
}

HostResult<std::string> SnapshotHost::read_range(std::string_view path, std::uint64_t offset,
                                                 std::size_t length) const {
  if (auto readable = check_readable(path); !readable) return tl::unexpected(readable.error());
  auto file = resolve(path, FollowLast::yes);
  if (!file) return tl::unexpected(file.error());
  if (!S_ISREG(file->mode)) {
    return tl::unexpected(HostError{HostErrorKind::io, std::string(path) + ": not a regular file in the snapshot"});
  }
  return read_file_range(file->path, path, offset, length);
}

HostResult<std::uint64_t> SnapshotHost::file_size(std::string_view path) const {
  if (auto readable = check_readable(path); !readable) return tl::unexpected(readable.error());
  auto file = resolve(path, FollowLast::yes);
  if (!file) return tl::unexpected(file.error());
  if (!S_ISREG(file->mode)) {
    return tl::unexpected(HostError{HostErrorKind::io, std::string(path) + ": not a regular file in the snapshot"});
  }
  return static_cast<std::uint64_t>(file->size);
}

HostResult<std::vector<DirEntry>> SnapshotHost::list_dir(std::string_view path) const {
  std::vector<DirEntry> entries;
  std::string prefix(path);
  if (!prefix.ends_with('/')) prefix += '/';
  // Device nodes live in snapshot.json; their folders exist implicitly.
  for (auto it = manifest_.nodes.lower_bound(prefix); it != manifest_.nodes.end() && it->first.starts_with(prefix);
       ++it) {
    const auto rest = std::string_view(it->first).substr(prefix.size());
    const auto slash = rest.find('/');
    const auto type = slash == std::string_view::npos ? it->second.type : EntryType::directory;
    entries.push_back({std::string(rest.substr(0, slash)), type});
  }
  // So do the files capture could not read (a confined job's KFD nodes of
  // other GPUs): their folders may hold nothing else, and git keeps no empty folder.
  for (auto it = manifest_.unreadable.lower_bound(prefix); it != manifest_.unreadable.end() && it->starts_with(prefix);
       ++it) {
    const auto rest = std::string_view(*it).substr(prefix.size());
    const auto slash = rest.find('/');
    entries.push_back(
        {std::string(rest.substr(0, slash)), slash == std::string_view::npos ? EntryType::file : EntryType::directory});
  }
  auto directory = resolve(path, FollowLast::yes);
  if (directory && S_ISDIR(directory->mode)) {
    auto listed = read_directory(directory->path, path);
    if (listed) entries.insert(entries.end(), listed->begin(), listed->end());
  } else if (entries.empty()) {
    if (!directory) return tl::unexpected(directory.error());
    return tl::unexpected(not_a_directory(path));
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  entries.erase(
      std::unique(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name == b.name; }),
      entries.end());
  return entries;
}

HostResult<std::string> SnapshotHost::read_link(std::string_view path) const {
  auto link = resolve(path, FollowLast::no);
  if (!link) return tl::unexpected(link.error());
  if (!S_ISLNK(link->mode)) {
    return tl::unexpected(HostError{HostErrorKind::not_a_link, std::string(path) + ": not a symbolic link"});
  }
  return link_target(link->path, path);
}

const NodeInfo* SnapshotHost::recorded_stat(const std::string& path) const {
  const auto it = manifest_.stat.find(path);
  return it == manifest_.stat.end() ? nullptr : &it->second;
}

HostResult<NodeInfo> SnapshotHost::stat_node(std::string_view path) const {
  const std::string key(path);
  if (const auto it = manifest_.nodes.find(key); it != manifest_.nodes.end()) return it->second;
  const std::string prefix = key.ends_with('/') ? key : key + "/";
  const auto below = manifest_.nodes.lower_bound(prefix);
  const bool is_node_folder = below != manifest_.nodes.end() && below->first.starts_with(prefix);
  if (is_node_folder) return NodeInfo{EntryType::directory, 0755, 0, 0, false, std::nullopt, false};
  // stat(2) follows links, so an entry describes the file at the end of them:
  // recorded under the path as asked, or under the path it resolves to.
  if (const auto* recorded = recorded_stat(key)) return *recorded;
  auto file = resolve(path, FollowLast::yes);
  if (!file) {
    // stat(2) was refused on the captured machine (a folder above it this user
    // may not search, such as another user's home): the path is not missing.
    if (file.error().kind == HostErrorKind::not_found) {
      if (auto readable = check_readable(path); !readable) return tl::unexpected(readable.error());
    }
    return tl::unexpected(file.error());
  }
  const auto machine_path = file->path.size() > root_.size() ? file->path.substr(root_.size()) : std::string("/");
  if (const auto* recorded = recorded_stat(machine_path)) return *recorded;
  // Files under root/ belong to whoever unpacked the snapshot: report them as
  // root's, and say that the owner and mode are not the captured machine's.
  return NodeInfo{entry_type_from_mode(file->mode), file->mode & 0777U, 0, 0, false, std::nullopt, false};
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
