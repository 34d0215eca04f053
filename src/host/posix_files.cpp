#include "host/posix_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace rocm_doctor {

HostError host_error_from_errno(int error_number, std::string_view path) {
  HostErrorKind kind = HostErrorKind::io;
  switch (error_number) {
    case ENOENT: kind = HostErrorKind::not_found; break;
    case EACCES:
    case EPERM: kind = HostErrorKind::permission_denied; break;
    case ENOTDIR: kind = HostErrorKind::not_a_directory; break;
    case ELOOP: kind = HostErrorKind::loop; break;
    case EINVAL: kind = HostErrorKind::not_a_link; break;
    default: break;
  }
  return HostError{kind, std::string(path) + ": " + std::strerror(error_number)};
}

EntryType entry_type_from_mode(unsigned mode) {
  if (S_ISREG(mode)) return EntryType::file;
  if (S_ISDIR(mode)) return EntryType::directory;
  if (S_ISLNK(mode)) return EntryType::symlink;
  if (S_ISCHR(mode)) return EntryType::char_device;
  if (S_ISBLK(mode)) return EntryType::block_device;
  return EntryType::other;
}

std::optional<std::string> first_unenterable_folder(const std::string& path) {
  std::error_code error;
  const auto absolute = std::filesystem::absolute(path, error);
  if (error) return std::nullopt;
  std::filesystem::path folder = absolute.root_path();
  for (const auto& part : absolute.relative_path()) {
    if (::faccessat(AT_FDCWD, folder.c_str(), X_OK, AT_EACCESS) != 0) {
      return errno == EACCES || errno == EPERM ? std::optional(folder.string()) : std::nullopt;
    }
    if (part.empty() || part == ".") continue;
    folder /= part;
  }
  struct stat info {};
  if (::stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return std::nullopt;
  if (::faccessat(AT_FDCWD, folder.c_str(), X_OK, AT_EACCESS) != 0 && (errno == EACCES || errno == EPERM)) {
    return folder.string();
  }
  return std::nullopt;
}

std::string unenterable_folder_text(const std::string& folder) {
  std::string text = "permission denied: this process cannot enter " + folder;
  struct stat info {};
  if (::stat(folder.c_str(), &info) == 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", info.st_mode & 07777U);
    text += std::string(" (mode ") + mode + ", owner uid " + std::to_string(info.st_uid) + ")";
  }
  return text;
}

HostError too_large_error(std::string_view path, std::size_t max_bytes) {
  return HostError{HostErrorKind::too_large,
                   std::string(path) + ": larger than " + std::to_string(max_bytes) + " bytes"};
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

HostResult<std::string> read_descriptor(int fd, std::string_view shown_path, std::size_t max_bytes,
                                        std::optional<std::size_t> known_size) {
  std::string content;
  if (known_size) content.reserve(std::min(*known_size, max_bytes));
  char chunk[8192];
  while (!known_size || content.size() < *known_size) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR) continue;
      // /dev/kmsg: EAGAIN is the end of the ring buffer; EPIPE says older
      // records were overwritten while we read, and the next read goes on.
      if (errno == EAGAIN) break;
      if (errno == EPIPE) continue;
      return tl::unexpected(host_error_from_errno(errno, shown_path));
    }
    if (got == 0) break;
    if (content.size() + static_cast<std::size_t>(got) > max_bytes) {
      return tl::unexpected(too_large_error(shown_path, max_bytes));
    }
    content.append(chunk, static_cast<std::size_t>(got));
  }
  return content;
}

namespace {

// The type readdir already knows (d_type); one lstat only for file systems
// that do not fill it in. /usr/lib/x86_64-linux-gnu has thousands of entries.
EntryType entry_type(const std::string& dir_path, const dirent& entry) {
  switch (entry.d_type) {
    case DT_REG: return EntryType::file;
    case DT_DIR: return EntryType::directory;
    case DT_LNK: return EntryType::symlink;
    case DT_CHR: return EntryType::char_device;
    case DT_BLK: return EntryType::block_device;
    case DT_UNKNOWN: break;
    default: return EntryType::other;
  }
  struct stat info {};
  const std::string full = dir_path + "/" + entry.d_name;
  return ::lstat(full.c_str(), &info) == 0 ? entry_type_from_mode(info.st_mode) : EntryType::other;
}

}  // namespace

HostResult<std::vector<DirEntry>> read_directory(const std::string& real_path, std::string_view shown_path) {
  DIR* dir = ::opendir(real_path.c_str());
  if (dir == nullptr) return tl::unexpected(host_error_from_errno(errno, shown_path));
  std::vector<DirEntry> entries;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    entries.push_back({std::string(name), entry_type(real_path, *entry)});
  }
  ::closedir(dir);
  return entries;
}

namespace {

// A regular file opened for reading, or why not (FIFOs and devices are refused: they never end).
HostResult<int> open_regular(const std::string& real_path, std::string_view shown_path, struct stat& info) {
  const int fd = ::open(real_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return tl::unexpected(host_error_from_errno(errno, shown_path));
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return tl::unexpected(HostError{HostErrorKind::io, std::string(shown_path) + ": not a regular file"});
  }
  return fd;
}

}  // namespace

HostResult<std::string> read_file_range(const std::string& real_path, std::string_view shown_path, std::uint64_t offset,
                                        std::size_t length) {
  struct stat info {};
  auto opened = open_regular(real_path, shown_path, info);
  if (!opened) return tl::unexpected(opened.error());
  const FileDescriptor fd(*opened);
  const auto size = static_cast<std::uint64_t>(info.st_size);
  if (offset >= size) return std::string();
  std::string content(static_cast<std::size_t>(std::min<std::uint64_t>(length, size - offset)), '\0');
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t got =
        ::pread(fd.get(), content.data() + done, content.size() - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(host_error_from_errno(errno, shown_path));
    }
    if (got == 0) break;  // the file shrank meanwhile
    done += static_cast<std::size_t>(got);
  }
  content.resize(done);
  return content;
}

HostResult<std::uint64_t> regular_file_size(const std::string& real_path, std::string_view shown_path) {
  struct stat info {};
  auto opened = open_regular(real_path, shown_path, info);
  if (!opened) return tl::unexpected(opened.error());
  const FileDescriptor fd(*opened);
  return static_cast<std::uint64_t>(info.st_size);
}

}  // namespace rocm_doctor
