// A captured machine: snapshot.json plus the files under root/.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "host/snapshot_manifest.h"
#include "rocm_doctor/host.h"

namespace rocm_doctor {

class SnapshotHost final : public Host {
 public:
  // Opens SNAPSHOT/; the error names the file and the problem.
  static tl::expected<std::unique_ptr<SnapshotHost>, std::string> open(const std::filesystem::path& directory);

  [[nodiscard]] std::string_view source() const override { return "snapshot"; }
  [[nodiscard]] HostResult<std::string> read_file(std::string_view path, std::size_t max_bytes) const override;
  [[nodiscard]] HostResult<std::string> read_range(std::string_view path, std::uint64_t offset,
                                                   std::size_t length) const override;
  [[nodiscard]] HostResult<std::uint64_t> file_size(std::string_view path) const override;
  [[nodiscard]] HostResult<std::vector<DirEntry>> list_dir(std::string_view path) const override;
  [[nodiscard]] HostResult<std::string> read_link(std::string_view path) const override;
  [[nodiscard]] HostResult<NodeInfo> stat_node(std::string_view path) const override;
  [[nodiscard]] std::optional<std::string> env(std::string_view name) const override;
  [[nodiscard]] std::vector<std::string> env_names() const override;
  [[nodiscard]] Identity identity() const override { return manifest_.identity; }
  [[nodiscard]] std::optional<GroupEntry> group_by_gid(std::uint32_t gid) const override;
  [[nodiscard]] std::optional<GroupEntry> group_by_name(std::string_view name) const override;
  [[nodiscard]] std::optional<UserEntry> user_by_name(std::string_view name) const override;
  [[nodiscard]] std::optional<nlohmann::json> probe(std::string_view name) const override;

  [[nodiscard]] const SnapshotManifest& manifest() const { return manifest_; }

 private:
  SnapshotHost(std::filesystem::path root, SnapshotManifest manifest);

  enum class FollowLast { no, yes };
  // A machine path's file inside root/, and its type and size (lstat's).
  struct Resolved {
    std::string path;
    unsigned mode = 0;
    std::uint64_t size = 0;
  };
  // Maps an absolute machine path to the file inside root/, resolving
  // symbolic links as the captured machine would, never leaving root/.
  [[nodiscard]] HostResult<Resolved> resolve(std::string_view path, FollowLast follow) const;
  // The folder inside root/ for the machine folder /parts[0]/parts[1]/...
  [[nodiscard]] HostResult<std::string> resolve_folder(const std::vector<std::string>& parts,
                                                       std::string_view shown_path) const;
  // Walks `pending` from `start`, a folder inside root/ (already resolved).
  [[nodiscard]] HostResult<Resolved> walk(std::string start, std::vector<std::string> pending, FollowLast follow,
                                          std::string_view shown_path) const;
  [[nodiscard]] HostResult<void> check_readable(std::string_view path) const;
  // The `stat` entry of snapshot.json for a machine path, or nullptr.
  [[nodiscard]] const NodeInfo* recorded_stat(const std::string& path) const;

  std::string root_;
  SnapshotManifest manifest_;
  std::vector<GroupEntry> groups_;
  std::vector<UserEntry> users_;
  // Folders resolved so far (machine path -> path inside root/): a sysfs
  // read resolves a handful of links per path, and thousands of reads share
  // their folders. A snapshot does not change while it is replayed.
  mutable std::mutex folders_mutex_;
  mutable std::unordered_map<std::string, std::string> folders_;
};

}  // namespace rocm_doctor
