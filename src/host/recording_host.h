// Wraps a host (the live one) and saves every answer into a snapshot folder,
// so `capture` records exactly what the checks read.
#pragma once

#include <filesystem>
#include <mutex>

#include "host/snapshot_manifest.h"
#include "rocm_doctor/host.h"

namespace rocm_doctor {

class RecordingHost final : public Host {
 public:
  // `inner` must be a LiveHost-like host whose paths are real paths of this
  // machine (symbolic links are mirrored by looking at them directly).
  RecordingHost(const Host& inner, std::filesystem::path snapshot_dir);

  [[nodiscard]] std::string_view source() const override { return inner_.source(); }
  [[nodiscard]] HostResult<std::string> read_file(std::string_view path, std::size_t max_bytes) const override;
  [[nodiscard]] HostResult<std::string> read_range(std::string_view path, std::uint64_t offset,
                                                   std::size_t length) const override;
  [[nodiscard]] HostResult<std::uint64_t> file_size(std::string_view path) const override;
  [[nodiscard]] HostResult<std::vector<DirEntry>> list_dir(std::string_view path) const override;
  [[nodiscard]] HostResult<std::string> read_link(std::string_view path) const override;
  [[nodiscard]] HostResult<NodeInfo> stat_node(std::string_view path) const override;
  [[nodiscard]] std::optional<std::string> env(std::string_view name) const override;
  [[nodiscard]] std::vector<std::string> env_names() const override;
  [[nodiscard]] Identity identity() const override;
  [[nodiscard]] std::optional<GroupEntry> group_by_gid(std::uint32_t gid) const override;
  [[nodiscard]] std::optional<GroupEntry> group_by_name(std::string_view name) const override;
  [[nodiscard]] std::optional<UserEntry> user_by_name(std::string_view name) const override;
  [[nodiscard]] std::optional<nlohmann::json> probe(std::string_view name) const override;
  // Runs them through the inner host and records the result as probes.plugins.
  [[nodiscard]] std::optional<nlohmann::json> run_plugins(const nlohmann::json& facts) const override;

  // Writes snapshot.json and the account files; call once, after the checks ran.
  [[nodiscard]] tl::expected<void, std::string> finish(std::string captured_at, std::string captured_by);

  // Records a probe result that was not asked for through probe() (e.g. run eagerly).
  void record_probe(const std::string& name, const nlohmann::json& result);

 private:
  // Re-creates the path's folders and symbolic links under root/ as they are
  // on this machine; returns the resolved real path.
  std::string mirror_path(std::string_view path) const;
  void write_file(const std::string& real_path, const std::string& content) const;
  void write_range(const std::string& real_path, std::uint64_t size, std::uint64_t offset,
                   const std::string& content) const;
  [[nodiscard]] bool stays_inside(const std::filesystem::path& inside) const;
  void make_folders(const std::filesystem::path& inside) const;
  void make_symlink(const std::string& target, const std::filesystem::path& inside) const;
  void record_group(const GroupEntry& group) const;
  void record_user(const UserEntry& user) const;
  void note_error(std::string_view path, const HostError& error) const;

  const Host& inner_;
  std::filesystem::path root_;
  std::filesystem::path snapshot_dir_;
  mutable std::recursive_mutex mutex_;
  mutable SnapshotManifest manifest_;
  mutable std::map<std::string, GroupEntry> groups_;
  mutable std::map<std::string, UserEntry> users_;
  mutable bool write_failed_ = false;
};

}  // namespace rocm_doctor
