// Builds snapshot folders in a temporary directory, so unit tests run the
// real SnapshotHost against machines described in a few fluent lines.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/runner.h"
#include "host/snapshot_host.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/report.h"

namespace rocm_doctor::testing {

// A temporary folder removed when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  TempDir& operator=(TempDir&&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A device node entry of snapshot.json: Node::chr("0660", 0, 110).with_acl().with_access("rw").
struct Node {
  std::string type = "char";
  std::string mode = "0660";
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  bool acl = false;
  std::string access;             // "" = not measured
  std::string access_error = {};  // "" = none recorded; "EPERM" for a device cgroup

  static Node chr(std::string mode, std::uint32_t uid, std::uint32_t gid) {
    Node node;
    node.mode = std::move(mode);
    node.uid = uid;
    node.gid = gid;
    return node;
  }
  Node& with_acl() {
    acl = true;
    return *this;
  }
  Node& with_access(std::string measured) {
    access = std::move(measured);
    return *this;
  }
  // Closed by a device cgroup (Slurm ConstrainDevices, docker --device, a pod):
  // access(2) and open(2) answer EPERM whatever the mode says.
  Node& closed_by_cgroup() {
    access = "none";
    access_error = "EPERM";
    return *this;
  }
  Node& of_type(std::string entry_type) {
    type = std::move(entry_type);
    return *this;
  }
};

class SnapshotBuilder {
 public:
  SnapshotBuilder();

  SnapshotBuilder& file(const std::string& path, const std::string& content);
  SnapshotBuilder& symlink(const std::string& path, const std::string& target);
  SnapshotBuilder& dir(const std::string& path);
  SnapshotBuilder& node(const std::string& path, Node node);
  // Owner and mode of a path outside /dev (`stat` in snapshot.json):
  // stat("/home/alice/.cache/miopen", Node::chr("0755", 0, 0).of_type("dir")).
  SnapshotBuilder& stat(const std::string& path, Node entry);
  SnapshotBuilder& env(const std::string& name, const std::string& value);
  SnapshotBuilder& identity(const std::string& user, std::uint32_t uid, std::uint32_t gid,
                            std::vector<std::uint32_t> groups);
  SnapshotBuilder& probe(const std::string& name, nlohmann::json result);
  // Overrides a raw key of snapshot.json (for malformed-manifest tests).
  SnapshotBuilder& manifest_key(const std::string& key, nlohmann::json value);

  // Common machine pieces with real layouts.
  SnapshotBuilder& os_release(const std::string& id, const std::string& version_id, const std::string& pretty);
  SnapshotBuilder& kernel(const std::string& release);
  // A PCI function under /sys/devices with the /sys/bus/pci/devices link.
  SnapshotBuilder& pci_device(const std::string& bdf, const std::string& vendor, const std::string& device,
                              const std::string& pci_class, const std::string& driver = "");

  // Writes snapshot.json; returns the folder.
  const std::filesystem::path& write();
  [[nodiscard]] std::unique_ptr<SnapshotHost> open();

 private:
  std::filesystem::path root() const { return dir_.path() / "root"; }
  TempDir dir_;
  nlohmann::json manifest_;
};

// Runs the named checks (all when empty) on a host.
Report run_on(const Host& host, const std::vector<std::string>& check_ids = {}, RunOptions options = {});
// All findings of a report, flattened.
std::vector<Finding> all_findings(const Report& report);
const Finding* find_finding(const Report& report, const std::string& id);
// A finding of a temporary report would dangle once the statement ends: bind the report first.
const Finding* find_finding(Report&& report, const std::string& id) = delete;

}  // namespace rocm_doctor::testing
