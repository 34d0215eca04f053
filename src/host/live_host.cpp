#include "host/live_host.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "host/posix_files.h"

extern char** environ;  // NOLINT: POSIX

namespace rocm_doctor {

namespace {

std::optional<GroupEntry> to_group_entry(const group* entry) {
  if (entry == nullptr) return std::nullopt;
  GroupEntry result{entry->gr_name, entry->gr_gid, {}};
  for (char** member = entry->gr_mem; member != nullptr && *member != nullptr; ++member) {
    result.members.emplace_back(*member);
  }
  return result;
}

// getgr*_r with a buffer that grows until the entry fits.
template <typename Lookup>
std::optional<GroupEntry> lookup_group(Lookup lookup) {
  std::vector<char> buffer(4096);
  while (buffer.size() <= (1U << 24)) {
    group entry{};
    group* result = nullptr;
    const int rc = lookup(&entry, buffer.data(), buffer.size(), &result);
    if (rc == ERANGE) {
      buffer.resize(buffer.size() * 4);
      continue;
    }
    return rc == 0 ? to_group_entry(result) : std::nullopt;
  }
  return std::nullopt;
}

template <typename Lookup>
std::optional<UserEntry> lookup_user(Lookup lookup) {
  std::vector<char> buffer(4096);
  while (buffer.size() <= (1U << 24)) {
    passwd entry{};
    passwd* result = nullptr;
    const int rc = lookup(&entry, buffer.data(), buffer.size(), &result);
    if (rc == ERANGE) {
      buffer.resize(buffer.size() * 4);
      continue;
    }
    if (rc != 0 || result == nullptr) return std::nullopt;
    return UserEntry{result->pw_name, result->pw_uid, result->pw_gid, result->pw_dir, result->pw_shell};
  }
  return std::nullopt;
}

std::optional<std::string> measured_access(const std::string& path) {
  const bool can_read = ::faccessat(AT_FDCWD, path.c_str(), R_OK, AT_EACCESS) == 0;
  const bool can_write = ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0;
  if (can_read && can_write) return "rw";
  if (can_read) return "r";
  if (can_write) return "w";
  return "none";
}

// Why read/write was refused. access(2) asks the device cgroup as open(2) does
// (inode_permission), so EPERM here is what open would answer for a device a
// Slurm job's, container's or pod's cgroup does not allow.
std::optional<std::string> access_error(const std::string& path) {
  if (::faccessat(AT_FDCWD, path.c_str(), R_OK | W_OK, AT_EACCESS) == 0) return std::nullopt;
  switch (errno) {
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case EROFS: return "EROFS";
    default: return std::nullopt;
  }
}

}  // namespace

LiveHost::LiveHost(ProbeLookup probes, PluginLauncher plugins)
    : probes_(std::move(probes)), plugins_(std::move(plugins)) {}

HostResult<std::string> LiveHost::read_file(std::string_view path, std::size_t max_bytes) const {
  const std::string file(path);
  // O_NONBLOCK: a FIFO or a character device must not hang the doctor.
  FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return tl::unexpected(host_error_from_errno(errno, path));
  struct stat info {};
  if (::fstat(fd.get(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return tl::unexpected(HostError{HostErrorKind::io, file + ": is a directory"});
  }
  return read_descriptor(fd.get(), path, max_bytes);
}

HostResult<std::string> LiveHost::read_range(std::string_view path, std::uint64_t offset, std::size_t length) const {
  return read_file_range(std::string(path), path, offset, length);
}

HostResult<std::uint64_t> LiveHost::file_size(std::string_view path) const {
  return regular_file_size(std::string(path), path);
}

HostResult<std::vector<DirEntry>> LiveHost::list_dir(std::string_view path) const {
  auto entries = read_directory(std::string(path), path);
  if (entries)
    std::sort(entries->begin(), entries->end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return entries;
}

HostResult<std::string> LiveHost::read_link(std::string_view path) const {
  const std::string link(path);
  std::vector<char> buffer(4096);
  const ssize_t length = ::readlink(link.c_str(), buffer.data(), buffer.size());
  if (length < 0) return tl::unexpected(host_error_from_errno(errno, path));
  return std::string(buffer.data(), static_cast<std::size_t>(length));
}

HostResult<NodeInfo> LiveHost::stat_node(std::string_view path) const {
  const std::string node(path);
  struct stat info {};
  if (::stat(node.c_str(), &info) != 0) return tl::unexpected(host_error_from_errno(errno, path));
  NodeInfo result;
  result.type = entry_type_from_mode(info.st_mode);
  result.mode = info.st_mode & 07777U;
  result.uid = info.st_uid;
  result.gid = info.st_gid;
  result.has_acl = ::getxattr(node.c_str(), "system.posix_acl_access", nullptr, 0) > 0;
  if (result.type == EntryType::char_device || result.type == EntryType::block_device) {
    result.access = measured_access(node);
    if (result.access != "rw") result.access_error = access_error(node);
  }
  return result;
}

std::optional<std::string> LiveHost::env(std::string_view name) const {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::vector<std::string> LiveHost::env_names() const {
  std::vector<std::string> names;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    names.emplace_back(text.substr(0, text.find('=')));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Identity LiveHost::identity() const {
  Identity identity;
  identity.uid = ::geteuid();
  identity.gid = ::getegid();
  const int count = ::getgroups(0, nullptr);
  std::vector<gid_t> groups(static_cast<std::size_t>(std::max(count, 0)));
  const int got = count > 0 ? ::getgroups(count, groups.data()) : 0;
  groups.resize(static_cast<std::size_t>(std::max(got, 0)));
  identity.groups.assign(groups.begin(), groups.end());
  if (std::find(identity.groups.begin(), identity.groups.end(), identity.gid) == identity.groups.end()) {
    identity.groups.push_back(identity.gid);
  }
  const auto user = lookup_user([&](passwd* entry, char* buffer, std::size_t size, passwd** result) {
    return ::getpwuid_r(identity.uid, entry, buffer, size, result);
  });
  if (user) identity.user = user->name;
  return identity;
}

std::optional<GroupEntry> LiveHost::group_by_gid(std::uint32_t gid) const {
  return lookup_group([&](group* entry, char* buffer, std::size_t size, group** result) {
    return ::getgrgid_r(gid, entry, buffer, size, result);
  });
}

std::optional<GroupEntry> LiveHost::group_by_name(std::string_view name) const {
  const std::string group_name(name);
  return lookup_group([&](group* entry, char* buffer, std::size_t size, group** result) {
    return ::getgrnam_r(group_name.c_str(), entry, buffer, size, result);
  });
}

std::optional<UserEntry> LiveHost::user_by_name(std::string_view name) const {
  const std::string user_name(name);
  return lookup_user([&](passwd* entry, char* buffer, std::size_t size, passwd** result) {
    return ::getpwnam_r(user_name.c_str(), entry, buffer, size, result);
  });
}

std::optional<nlohmann::json> LiveHost::probe(std::string_view name) const {
  if (!probes_) return std::nullopt;
  return probes_(name);
}

std::optional<nlohmann::json> LiveHost::run_plugins(const nlohmann::json& facts) const {
  if (!plugins_) return std::nullopt;
  return plugins_(facts);
}

}  // namespace rocm_doctor
