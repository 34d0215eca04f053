// A captured machine: snapshot.json plus the files under root/.
#pragma once

#include <filesystem>
#include <memory>

#include "host/snapshot_manifest.h"
#include "rocm_doctor/host.h"

namespace rocm_doctor {

class SnapshotHost final : public Host {
 public:
  // Opens SNAPSHOT/; the error names the file and the problem.
  static tl::expected<std::unique_ptr<SnapshotHost>, std::string> open(const std::filesystem::path& directory);

  [[nodiscard]] std::string_view source() const override { return "snapshot"; }
  [[nodiscard]] HostResult<std::string> read_file(std::string_view path, std::size_t max_bytes) const override;
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
  // Maps an absolute machine path to the file inside root/, resolving
  // symbolic links as the captured machine would, never leaving root/.
  [[nodiscard]] HostResult<std::filesystem::path> resolve(std::string_view path, FollowLast follow) const;
  [[nodiscard]] HostResult<void> check_readable(std::string_view path) const;

  std::filesystem::path root_;
  SnapshotManifest manifest_;
  std::vector<GroupEntry> groups_;
  std::vector<UserEntry> users_;
};

}  // namespace rocm_doctor
