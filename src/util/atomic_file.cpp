#include "util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rocm_doctor {

namespace {
std::string describe(const std::filesystem::path& path, int error_number) {
  return path.string() + ": " + std::strerror(error_number);
}
}  // namespace

tl::expected<void, std::string> write_file_atomically(const std::filesystem::path& target, std::string_view content,
                                                      mode_t mode) {
  const auto directory = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string temp = (directory / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return tl::unexpected(describe(target, errno));
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t got = ::write(fd, content.data() + written, content.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const int error_number = got < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(temp.c_str());
      return tl::unexpected(describe(target, error_number));
    }
    written += static_cast<std::size_t>(got);
  }
  // Reports are read by other tools: world-readable like any output file
  // (mkstemp made it 0600).
  ::fchmod(fd, mode);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int error_number = errno;
    ::unlink(temp.c_str());
    return tl::unexpected(describe(target, error_number));
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int error_number = errno;
    ::unlink(temp.c_str());
    return tl::unexpected(describe(target, error_number));
  }
  return {};
}

}  // namespace rocm_doctor
