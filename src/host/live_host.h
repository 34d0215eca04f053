// The real machine, read-only.
#pragma once

#include <functional>

#include "rocm_doctor/host.h"

namespace rocm_doctor {

// Answers probe(name) on a live run; supplied by the probe runner.
using ProbeLookup = std::function<std::optional<nlohmann::json>(std::string_view)>;
// Runs the site check plugins with the facts document (src/plugins).
using PluginLauncher = std::function<std::optional<nlohmann::json>(const nlohmann::json& facts)>;

class LiveHost final : public Host {
 public:
  explicit LiveHost(ProbeLookup probes = {}, PluginLauncher plugins = {});

  [[nodiscard]] std::string_view source() const override { return "live"; }
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
  // Without a launcher (a plain LiveHost) nothing is run: nullopt.
  [[nodiscard]] std::optional<nlohmann::json> run_plugins(const nlohmann::json& facts) const override;

 private:
  ProbeLookup probes_;
  PluginLauncher plugins_;
};

}  // namespace rocm_doctor
