// Remembers what the checks of one run read, so a fact several checks need
// (a GPU's PCI ids, os-release, /proc/cmdline) costs one read and every
// check sees the same answer even if the file changes during the run.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

#include "rocm_doctor/host.h"

namespace rocm_doctor {

class ReadOnceHost final : public Host {
 public:
  // Files larger than this are read again when asked again: only one fact
  // reads the big ones (dpkg's database, the kernel log), and keeping them
  // for the whole run would raise the peak memory instead.
  static constexpr std::size_t kKeptFileLimit = 64 * 1024;

  explicit ReadOnceHost(const Host& inner) : inner_(inner) {}

  [[nodiscard]] std::string_view source() const override { return inner_.source(); }
  [[nodiscard]] HostResult<std::string> read_file(std::string_view path, std::size_t max_bytes) const override;
  [[nodiscard]] HostResult<std::string> read_range(std::string_view path, std::uint64_t offset,
                                                   std::size_t length) const override;
  [[nodiscard]] HostResult<std::uint64_t> file_size(std::string_view path) const override;
  [[nodiscard]] HostResult<std::vector<DirEntry>> list_dir(std::string_view path) const override;
  [[nodiscard]] HostResult<std::string> read_link(std::string_view path) const override;
  [[nodiscard]] HostResult<NodeInfo> stat_node(std::string_view path) const override;
  [[nodiscard]] std::optional<std::string> env(std::string_view name) const override { return inner_.env(name); }
  [[nodiscard]] std::vector<std::string> env_names() const override { return inner_.env_names(); }
  [[nodiscard]] Identity identity() const override { return inner_.identity(); }
  [[nodiscard]] std::optional<GroupEntry> group_by_gid(std::uint32_t gid) const override {
    return inner_.group_by_gid(gid);
  }
  [[nodiscard]] std::optional<GroupEntry> group_by_name(std::string_view name) const override {
    return inner_.group_by_name(name);
  }
  [[nodiscard]] std::optional<UserEntry> user_by_name(std::string_view name) const override {
    return inner_.user_by_name(name);
  }
  [[nodiscard]] std::optional<nlohmann::json> probe(std::string_view name) const override;
  [[nodiscard]] std::optional<nlohmann::json> run_plugins(const nlohmann::json& facts) const override;

 private:
  // The remembered answer for `path`, or the inner host's (remembered when `keep` says so).
  template <typename T, typename Ask, typename Keep>
  HostResult<T> remembered(std::unordered_map<std::string, HostResult<T>>& answers, std::string_view path, Ask ask,
                           Keep keep) const;

  const Host& inner_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, HostResult<std::string>> files_;
  mutable std::unordered_map<std::string, HostResult<std::vector<DirEntry>>> folders_;
  mutable std::unordered_map<std::string, HostResult<std::string>> links_;
  mutable std::unordered_map<std::string, HostResult<NodeInfo>> nodes_;
};

}  // namespace rocm_doctor
