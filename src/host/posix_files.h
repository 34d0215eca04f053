// The POSIX calls both file-backed hosts share: the live machine reads its
// own paths, a snapshot reads the paths its resolver mapped inside root/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/host.h"

namespace rocm_doctor {

// Maps an errno value from an operation on `path` to a HostError.
HostError host_error_from_errno(int error_number, std::string_view path);
// Converts st_mode's file type bits.
EntryType entry_type_from_mode(unsigned mode);
// The answer for a file over a reader's bound, in every host's words.
HostError too_large_error(std::string_view path, std::size_t max_bytes);

// Closes the descriptor it owns.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

// Reads an open descriptor to its end, refusing more than max_bytes.
// `shown_path` is the path error messages name (the machine's, not root/'s).
// With `known_size` (a file that cannot change meanwhile, as in a snapshot)
// reading stops there instead of asking once more for the end.
HostResult<std::string> read_descriptor(int fd, std::string_view shown_path, std::size_t max_bytes,
                                        std::optional<std::size_t> known_size = std::nullopt);

// The first folder on `path` (an ancestor, or `path` itself) this process may
// not enter (search permission refused), as an absolute path; nullopt when
// every folder on it can be entered. Says "permission denied" precisely where
// "no such directory" would mislead (a checkout in a mode 0700 home).
std::optional<std::string> first_unenterable_folder(const std::string& path);
// "permission denied: this process cannot enter /root (mode 0700, owner uid 0)"
// for the folder first_unenterable_folder() found.
std::string unenterable_folder_text(const std::string& folder);
// pread(2) of up to `length` bytes at `offset` of the regular file at `real_path`
// (error messages name `shown_path`); fewer at its end.
HostResult<std::string> read_file_range(const std::string& real_path, std::string_view shown_path, std::uint64_t offset,
                                        std::size_t length);
// The size of the regular file at `real_path` (following links).
HostResult<std::uint64_t> regular_file_size(const std::string& real_path, std::string_view shown_path);

// The entries of a folder except . and .., in readdir order.
HostResult<std::vector<DirEntry>> read_directory(const std::string& real_path, std::string_view shown_path);

}  // namespace rocm_doctor
