// `rocm-doctor knowledge`, and the knowledge overlays every run installs (docs/knowledge.md).
#include <fmt/format.h>

#include <filesystem>

#include "cli/cli.h"
#include "core/runner.h"
#include "host/live_host.h"
#include "host/snapshot_host.h"
#include "rocm_doctor/knowledge.h"

namespace rocm_doctor {

tl::expected<std::vector<knowledge::TableOrigin>, std::string> apply_knowledge(const Host& host,
                                                                               const RunCommandOptions& options) {
  const LiveHost local;  // --knowledge DIR is on the machine running the doctor, also when replaying
  std::vector<std::string> dirs;
  for (const auto& dir : options.knowledge_dirs) {
    std::error_code error;
    const auto absolute = std::filesystem::absolute(dir, error);
    dirs.push_back(error ? dir : absolute.lexically_normal().string());
  }
  auto files = knowledge::read_overlays(host, local, dirs);
  if (!files) return tl::unexpected("knowledge overlay " + files.error());
  auto installed = knowledge::install(*files);
  if (!installed) return tl::unexpected("knowledge overlay " + installed.error());
  return installed;
}

int knowledge_command(const RunCommandOptions& options, const std::string& format) {
  std::unique_ptr<Host> host;
  if (!options.replay.empty()) {
    auto snapshot = SnapshotHost::open(options.replay);
    if (!snapshot) return usage_error("cannot replay: " + snapshot.error());
    host = std::move(*snapshot);
  } else {
    host = std::make_unique<LiveHost>();
  }
  const auto origins = apply_knowledge(*host, options);
  if (!origins) return usage_error(origins.error());
  if (format == "json") {
    fmt::print("{}\n", knowledge::describe_json(*origins, utc_timestamp().substr(0, 10)).dump(2));
  } else {
    fmt::print("{}", knowledge::describe(*origins, utc_timestamp().substr(0, 10)));
  }
  return 0;
}

}  // namespace rocm_doctor
