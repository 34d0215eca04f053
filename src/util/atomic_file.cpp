#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rocm_doctor {

namespace {

std::string describe_failure(const std::filesystem::path& path, int error_number) {
  return path.string() + ": " + std::strerror(error_number);
}

tl::expected<void, std::string> write_all(int fd, const std::filesystem::path& target, std::string_view content) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t got = ::write(fd, content.data() + written, content.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return tl::unexpected(describe_failure(target, got < 0 ? errno : EIO));
    written += static_cast<std::size_t>(got);
  }
  return {};
}

// `-o /dev/null`, `-o /dev/stdout`, a FIFO a collector reads: there is no
// file to replace, and renaming over it would replace the device node itself
// (as root, /dev/null would become a regular file). Such targets are written
// straight into. Not through somebody else's link, though: a link another
// user planted (in /tmp, say) must not steer a root-run doctor into a device.
enum class Target { replace, stream, refuse };

Target classify(const std::filesystem::path& target) {
  struct stat resolved {};
  if (::stat(target.c_str(), &resolved) != 0) return Target::replace;
  if (S_ISREG(resolved.st_mode) || S_ISDIR(resolved.st_mode)) return Target::replace;
  if (!S_ISCHR(resolved.st_mode) && !S_ISFIFO(resolved.st_mode)) return Target::refuse;
  struct stat link {};
  if (::lstat(target.c_str(), &link) != 0) return Target::refuse;
  if (!S_ISLNK(link.st_mode)) return Target::stream;
  return link.st_uid == 0 || link.st_uid == ::geteuid() ? Target::stream : Target::refuse;
}

tl::expected<void, std::string> write_into_stream(const std::filesystem::path& target, std::string_view content) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected(describe_failure(target, errno));
  auto written = write_all(fd, target, content);
  ::close(fd);
  return written;
}

}  // namespace

tl::expected<void, std::string> write_file_atomically(const std::filesystem::path& target, std::string_view content,
                                                      mode_t mode) {
  switch (classify(target)) {
    case Target::stream: return write_into_stream(target, content);
    case Target::refuse:
      return tl::unexpected(target.string() +
                            ": not a regular file (a block device, a socket, or another user's link to a device); "
                            "not written");
    case Target::replace: break;
  }
  const auto directory = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string temp = (directory / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return tl::unexpected(describe_failure(target, errno));
  if (auto written = write_all(fd, target, content); !written) {
    ::close(fd);
    ::unlink(temp.c_str());
    return written;
  }
  // Reports are read by other tools: world-readable like any output file
  // (mkstemp made it 0600).
  ::fchmod(fd, mode);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int error_number = errno;
    ::unlink(temp.c_str());
    return tl::unexpected(describe_failure(target, error_number));
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(temp.c_str());
    return tl::unexpected(describe_failure(target, error_number));
  }
  return {};
}

}  // namespace rocm_doctor
