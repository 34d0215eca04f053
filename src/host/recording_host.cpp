#include "host/recording_host.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "host/account_files.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxRecordedSymlinkHops = 40;

std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> parts;
  for (const auto part : split(path, '/')) {
    if (!part.empty() && part != ".") parts.emplace_back(part);
  }
  return parts;
}

std::string to_path(const std::vector<std::string>& parts) {
  std::string path;
  for (const auto& part : parts) path += "/" + part;
  return path.empty() ? "/" : path;
}

}  // namespace

// The folders between root/ and `inside` must not be symbolic links: the
// recorder itself mirrors the machine's links there, and a machine that
// changes under it (a user swapping a folder for a link while capture runs
// as root) must never make it write through one of them, outside the snapshot.
bool RecordingHost::stays_inside(const fs::path& inside) const {
  fs::path walked = root_;
  const auto relative = inside.lexically_relative(root_);
  if (relative.empty() || *relative.begin() == "..") return false;
  for (auto part = relative.begin(); part != relative.end(); ++part) {
    if (std::next(part) == relative.end()) break;  // the last component is checked by its creator
    walked /= *part;
    struct stat info {};
    if (::lstat(walked.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
      spdlog::warn("capture: not recording {}: {} became a symbolic link while recording", inside.string(),
                   walked.string());
      return false;
    }
  }
  return true;
}

void RecordingHost::make_folders(const fs::path& inside) const {
  if (!stays_inside(inside / "x")) return;
  std::error_code error;
  fs::create_directories(inside, error);
}

void RecordingHost::make_symlink(const std::string& target, const fs::path& inside) const {
  std::error_code error;
  make_folders(inside.parent_path());
  if (!stays_inside(inside) || fs::is_symlink(fs::symlink_status(inside, error))) return;
  fs::create_symlink(target, inside, error);
}

RecordingHost::RecordingHost(const Host& inner, fs::path snapshot_dir)
    : inner_(inner), root_(snapshot_dir / "root"), snapshot_dir_(std::move(snapshot_dir)) {
  fs::create_directories(root_);
}

std::string RecordingHost::mirror_path(std::string_view path) const {
  std::vector<std::string> pending = components(path);
  std::reverse(pending.begin(), pending.end());
  std::vector<std::string> resolved;
  int hops = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == "..") {
      if (!resolved.empty()) resolved.pop_back();
      continue;
    }
    resolved.push_back(part);
    const std::string real = to_path(resolved);
    struct stat info {};
    if (::lstat(real.c_str(), &info) != 0 || !S_ISLNK(info.st_mode) || ++hops > kMaxRecordedSymlinkHops) {
      if (!pending.empty() && ::lstat(real.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
        make_folders(root_ / real.substr(1));
      }
      continue;
    }
    std::error_code error;
    const auto target = fs::read_symlink(real, error).string();
    make_symlink(target, root_ / real.substr(1));
    resolved.pop_back();
    if (target.starts_with('/')) resolved.clear();
    auto target_parts = components(target);
    pending.insert(pending.end(), target_parts.rbegin(), target_parts.rend());
  }
  return to_path(resolved);
}

namespace {

// All of `content` at `offset` (pwrite(2), EINTR retried); false when the disk refused it.
bool write_at(int fd, const std::string& content, std::uint64_t offset) {
  for (std::size_t written = 0; written < content.size();) {
    const ssize_t count =
        ::pwrite(fd, content.data() + written, content.size() - written, static_cast<off_t>(offset + written));
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) return false;
    written += static_cast<std::size_t>(count);
  }
  return true;
}

}  // namespace

void RecordingHost::write_file(const std::string& real_path, const std::string& content) const {
  const auto inside = root_ / real_path.substr(1);
  make_folders(inside.parent_path());
  if (!stays_inside(inside)) return;
  // O_NOFOLLOW: a mirrored link at the file's own place is never written through.
  const int fd = ::open(inside.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    spdlog::warn("capture: cannot record {}: {}", real_path, std::strerror(errno));
    return;
  }
  if (!write_at(fd, content, 0)) write_failed_ = true;
  ::close(fd);
}

void RecordingHost::note_error(std::string_view path, const HostError& error) const {
  if (error.kind == HostErrorKind::permission_denied) manifest_.unreadable.insert(std::string(path));
}

HostResult<std::string> RecordingHost::read_file(std::string_view path, std::size_t max_bytes) const {
  auto result = inner_.read_file(path, max_bytes);
  std::lock_guard lock(mutex_);
  if (result) {
    write_file(mirror_path(path), *result);
  } else {
    note_error(path, result.error());
  }
  return result;
}

// A big binary is recorded as a sparse file of its real size holding only the
// ranges read: replay reads the same bytes, and the snapshot stays small.
void RecordingHost::write_range(const std::string& real_path, std::uint64_t size, std::uint64_t offset,
                                const std::string& content) const {
  const auto inside = root_ / real_path.substr(1);
  make_folders(inside.parent_path());
  if (!stays_inside(inside)) return;
  const int fd = ::open(inside.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    spdlog::warn("capture: cannot record {}: {}", real_path, std::strerror(errno));
    return;
  }
  struct stat info {};
  if (::fstat(fd, &info) == 0 && static_cast<std::uint64_t>(info.st_size) < size &&
      ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    write_failed_ = true;
  }
  if (!write_at(fd, content, offset)) write_failed_ = true;
  ::close(fd);
}

HostResult<std::string> RecordingHost::read_range(std::string_view path, std::uint64_t offset,
                                                  std::size_t length) const {
  auto size = inner_.file_size(path);
  auto result = inner_.read_range(path, offset, length);
  std::lock_guard lock(mutex_);
  if (result && size) {
    write_range(mirror_path(path), *size, offset, *result);
  } else if (!result) {
    note_error(path, result.error());
  }
  return result;
}

HostResult<std::uint64_t> RecordingHost::file_size(std::string_view path) const {
  auto result = inner_.file_size(path);
  std::lock_guard lock(mutex_);
  if (result) {
    write_range(mirror_path(path), *result, 0, {});
  } else {
    note_error(path, result.error());
  }
  return result;
}

HostResult<std::vector<DirEntry>> RecordingHost::list_dir(std::string_view path) const {
  auto result = inner_.list_dir(path);
  if (!result) return result;
  std::lock_guard lock(mutex_);
  if (path.starts_with("/dev/") || path == "/dev") {
    for (const auto& entry : *result) {
      (void)stat_node(std::string(path) + "/" + entry.name);
    }
    return result;
  }
  const auto real_dir = mirror_path(path);
  make_folders(root_ / real_dir.substr(1));
  std::error_code error;
  for (const auto& entry : *result) {
    const std::string child = real_dir + "/" + entry.name;
    const auto inside = root_ / child.substr(1);
    if (!stays_inside(inside) || fs::exists(fs::symlink_status(inside, error))) continue;
    if (entry.type == EntryType::symlink) {
      make_symlink(fs::read_symlink(child, error).string(), inside);
    } else if (entry.type == EntryType::directory) {
      fs::create_directory(inside, error);
    } else {
      write_file(child, "");  // a placeholder: the content is written if a check reads it
    }
  }
  return result;
}

HostResult<std::string> RecordingHost::read_link(std::string_view path) const {
  auto result = inner_.read_link(path);
  std::lock_guard lock(mutex_);
  if (result) {
    const auto parent = mirror_path(fs::path(std::string(path)).parent_path().string());
    make_symlink(*result, root_ / parent.substr(1) / fs::path(std::string(path)).filename());
  }
  return result;
}

HostResult<NodeInfo> RecordingHost::stat_node(std::string_view path) const {
  auto result = inner_.stat_node(path);
  std::lock_guard lock(mutex_);
  if (!result) {
    note_error(path, result.error());
    return result;
  }
  if (path.starts_with("/dev/")) {
    manifest_.nodes[std::string(path)] = *result;
    return result;
  }
  // root/ cannot keep owners and modes (its files belong to whoever unpacks
  // it): snapshot.json does, for the path as the check asked.
  if (path.starts_with('/') && path != "/dev" && result->permissions_known) {
    manifest_.stat[std::string(path)] = *result;
  }
  if (result->type == EntryType::directory) {
    make_folders(root_ / mirror_path(path).substr(1));
  } else if (result->type == EntryType::file) {
    const auto real = mirror_path(path);
    if (!fs::exists(root_ / real.substr(1))) {
      if (auto content = inner_.read_file(path, kDefaultReadLimit)) write_file(real, *content);
    }
  }
  return result;
}

std::optional<std::string> RecordingHost::env(std::string_view name) const {
  auto value = inner_.env(name);
  std::lock_guard lock(mutex_);
  if (value) manifest_.env[std::string(name)] = *value;
  return value;
}

// Only the names are asked here; values are recorded when a check reads them,
// so unrelated variables (tokens, secrets) never enter a snapshot.
std::vector<std::string> RecordingHost::env_names() const {
  return inner_.env_names();
}

Identity RecordingHost::identity() const {
  auto identity = inner_.identity();
  std::lock_guard lock(mutex_);
  manifest_.identity = identity;
  return identity;
}

void RecordingHost::record_group(const GroupEntry& group) const {
  groups_[group.name] = group;
}
void RecordingHost::record_user(const UserEntry& user) const {
  users_[user.name] = user;
}

std::optional<GroupEntry> RecordingHost::group_by_gid(std::uint32_t gid) const {
  auto group = inner_.group_by_gid(gid);
  std::lock_guard lock(mutex_);
  if (group) record_group(*group);
  return group;
}

std::optional<GroupEntry> RecordingHost::group_by_name(std::string_view name) const {
  auto group = inner_.group_by_name(name);
  std::lock_guard lock(mutex_);
  if (group) record_group(*group);
  return group;
}

std::optional<UserEntry> RecordingHost::user_by_name(std::string_view name) const {
  auto user = inner_.user_by_name(name);
  std::lock_guard lock(mutex_);
  if (user) record_user(*user);
  return user;
}

std::optional<nlohmann::json> RecordingHost::probe(std::string_view name) const {
  auto result = inner_.probe(name);
  std::lock_guard lock(mutex_);
  if (result) manifest_.probes[std::string(name)] = *result;
  return result;
}

std::optional<nlohmann::json> RecordingHost::run_plugins(const nlohmann::json& facts) const {
  auto result = inner_.run_plugins(facts);
  std::lock_guard lock(mutex_);
  if (result) manifest_.probes["plugins"] = *result;
  return result;
}

void RecordingHost::record_probe(const std::string& name, const nlohmann::json& result) {
  std::lock_guard lock(mutex_);
  manifest_.probes[name] = result;
}

tl::expected<void, std::string> RecordingHost::finish(std::string captured_at, std::string captured_by) {
  std::lock_guard lock(mutex_);
  manifest_.captured_at = std::move(captured_at);
  manifest_.captured_by = std::move(captured_by);
  if (manifest_.identity.user.empty() && manifest_.identity.groups.empty()) manifest_.identity = inner_.identity();
  // The account files hold exactly the entries the checks looked up, so
  // replay answers those lookups the same way (NSS/LDAP entries included).
  std::string group_text;
  for (const auto& [name, group] : groups_) group_text += format_group_line(group) + "\n";
  std::string passwd_text;
  for (const auto& [name, user] : users_) passwd_text += format_passwd_line(user) + "\n";
  write_file("/etc/group", group_text);
  write_file("/etc/passwd", passwd_text);
  std::ofstream stream(snapshot_dir_ / "snapshot.json", std::ios::trunc);
  // A variable's value may be any bytes; JSON holds UTF-8 only (others become U+FFFD).
  stream << to_json(manifest_).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  stream.close();
  if (!stream) return tl::unexpected((snapshot_dir_ / "snapshot.json").string() + ": could not be written");
  // A snapshot missing files (a full disk) would replay as a broken machine.
  if (write_failed_)
    return tl::unexpected(snapshot_dir_.string() + ": some recorded files could not be written (disk full?)");
  return {};
}

}  // namespace rocm_doctor
