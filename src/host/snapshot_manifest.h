// snapshot.json: the part of a snapshot that is not files (docs/snapshot-format.md).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

#include "rocm_doctor/host.h"

namespace rocm_doctor {

inline constexpr std::string_view kSnapshotFormat = "rocm-doctor-snapshot";
inline constexpr int kSnapshotVersion = 1;

struct SnapshotManifest {
  std::string captured_at;
  std::string captured_by;
  std::map<std::string, std::string> env;
  Identity identity;
  std::map<std::string, NodeInfo> nodes;  // absolute /dev paths
  // Owner, mode (and ACL, access) of other paths the checks stat()ed, keyed by
  // the path as asked; absent in snapshots written before it existed.
  std::map<std::string, NodeInfo> stat;
  std::set<std::string> unreadable;  // paths that existed but could not be read
  nlohmann::json probes = nlohmann::json::object();
};

// Parses and validates; the error names the offending key and what is wrong.
tl::expected<SnapshotManifest, std::string> parse_snapshot_manifest(std::string_view text);
nlohmann::json to_json(const SnapshotManifest& manifest);

}  // namespace rocm_doctor
