// A snapshot as one FILE.tar.gz for a ticket (`capture --archive`), and back
// (`--replay FILE.tar.gz`). Unpacking trusts nothing: absolute paths, `..`,
// device files, hard links and symbolic links leading out of root/ are refused
// before anything is written.
#pragma once

#include <filesystem>
#include <string>
#include <tl/expected.hpp>

namespace rocm_doctor {

// Packs `folder` (a snapshot: snapshot.json and root/) into a gzip-compressed
// POSIX tar written atomically to `archive`.
tl::expected<void, std::string> write_snapshot_archive(const std::filesystem::path& folder,
                                                       const std::filesystem::path& archive);

// Unpacks `archive` into the empty folder `into`. On error `into` may hold a
// part of the archive; the caller removes it.
tl::expected<void, std::string> extract_snapshot_archive(const std::filesystem::path& archive,
                                                         const std::filesystem::path& into);

// A snapshot folder to replay: the folder itself, or an archive unpacked into
// a temporary folder that is removed when this goes away.
class ReplayFolder {
 public:
  ReplayFolder(std::filesystem::path path, bool temporary) : path_(std::move(path)), temporary_(temporary) {}
  ReplayFolder(ReplayFolder&& other) noexcept;
  ReplayFolder& operator=(ReplayFolder&&) = delete;
  ReplayFolder(const ReplayFolder&) = delete;
  ~ReplayFolder();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool temporary_ = false;
};

// `--replay PATH`: a folder as it is, a regular file as an archive.
tl::expected<ReplayFolder, std::string> open_replay_folder(const std::string& path);

}  // namespace rocm_doctor
