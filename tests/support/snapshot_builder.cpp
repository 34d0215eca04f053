#include "support/snapshot_builder.h"

#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace rocm_doctor::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string name = (fs::temp_directory_path() / "rocm-doctor-test-XXXXXX").string();
  if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = name;
}

TempDir::~TempDir() {
  if (path_.empty()) return;  // moved from
  std::error_code error;
  fs::remove_all(path_, error);
}

SnapshotBuilder::SnapshotBuilder() {
  manifest_ = {{"format", "rocm-doctor-snapshot"},
               {"version", 1},
               {"captured_at", "2026-11-30T07:00:00Z"},
               {"captured_by", "rocm-doctor tests"},
               {"env", {{"PATH", "/usr/local/bin:/usr/bin:/bin"}}},
               {"identity", {{"user", "alice"}, {"uid", 1000}, {"gid", 1000}, {"groups", {1000}}}},
               {"nodes", nlohmann::json::object()},
               {"probes", nlohmann::json::object()}};
  fs::create_directories(root());
}

SnapshotBuilder& SnapshotBuilder::file(const std::string& path, const std::string& content) {
  const auto target = root() / path.substr(1);
  fs::create_directories(target.parent_path());
  std::ofstream(target, std::ios::binary | std::ios::trunc) << content;
  return *this;
}

SnapshotBuilder& SnapshotBuilder::symlink(const std::string& path, const std::string& target) {
  const auto link = root() / path.substr(1);
  fs::create_directories(link.parent_path());
  fs::create_symlink(target, link);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::dir(const std::string& path) {
  fs::create_directories(root() / path.substr(1));
  return *this;
}

namespace {

nlohmann::json node_entry(const Node& node) {
  nlohmann::json entry = {{"type", node.type}, {"mode", node.mode}, {"uid", node.uid}, {"gid", node.gid}};
  if (node.acl) entry["acl"] = true;
  if (!node.access.empty()) entry["access"] = node.access;
  if (!node.access_error.empty()) entry["access_error"] = node.access_error;
  return entry;
}

}  // namespace

SnapshotBuilder& SnapshotBuilder::node(const std::string& path, Node node) {
  manifest_["nodes"][path] = node_entry(node);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::stat(const std::string& path, Node entry) {
  manifest_["stat"][path] = node_entry(entry);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::env(const std::string& name, const std::string& value) {
  manifest_["env"][name] = value;
  return *this;
}

SnapshotBuilder& SnapshotBuilder::identity(const std::string& user, std::uint32_t uid, std::uint32_t gid,
                                           std::vector<std::uint32_t> groups) {
  manifest_["identity"] = {{"user", user}, {"uid", uid}, {"gid", gid}, {"groups", groups}};
  return *this;
}

SnapshotBuilder& SnapshotBuilder::probe(const std::string& name, nlohmann::json result) {
  manifest_["probes"][name] = std::move(result);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::manifest_key(const std::string& key, nlohmann::json value) {
  manifest_[key] = std::move(value);
  return *this;
}

SnapshotBuilder& SnapshotBuilder::os_release(const std::string& id, const std::string& version_id,
                                             const std::string& pretty) {
  return file("/etc/os-release", "PRETTY_NAME=\"" + pretty + "\"\nID=" + id + "\nVERSION_ID=\"" + version_id + "\"\n");
}

SnapshotBuilder& SnapshotBuilder::kernel(const std::string& release) {
  file("/proc/sys/kernel/osrelease", release + "\n");
  return file("/proc/version", "Linux version " + release + " (builder@localhost) (gcc 12.2.0) #1 SMP\n");
}

SnapshotBuilder& SnapshotBuilder::pci_device(const std::string& bdf, const std::string& vendor,
                                             const std::string& device, const std::string& pci_class,
                                             const std::string& driver) {
  const std::string real = "/sys/devices/pci0000:00/0000:00:01.1/" + bdf;
  file(real + "/vendor", vendor + "\n");
  file(real + "/device", device + "\n");
  file(real + "/class", pci_class + "\n");
  symlink("/sys/bus/pci/devices/" + bdf, "../../../devices/pci0000:00/0000:00:01.1/" + bdf);
  if (!driver.empty()) {
    file("/sys/bus/pci/drivers/" + driver + "/module/initstate", "live\n");
    symlink(real + "/driver", "../../../../bus/pci/drivers/" + driver);
  }
  return *this;
}

const fs::path& SnapshotBuilder::write() {
  std::ofstream(dir_.path() / "snapshot.json", std::ios::trunc) << manifest_.dump(2);
  return dir_.path();
}

std::unique_ptr<SnapshotHost> SnapshotBuilder::open() {
  auto host = SnapshotHost::open(write());
  if (!host) throw std::runtime_error(host.error());
  return std::move(*host);
}

Report run_on(const Host& host, const std::vector<std::string>& check_ids, RunOptions options) {
  auto checks = select_checks(Selection{check_ids, {}});
  if (!checks) throw std::runtime_error(checks.error());
  return run_checks(host, options, *checks);
}

std::vector<Finding> all_findings(const Report& report) {
  std::vector<Finding> findings;
  for (const auto& check : report.checks) findings.insert(findings.end(), check.findings.begin(), check.findings.end());
  return findings;
}

const Finding* find_finding(const Report& report, const std::string& id) {
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      if (finding.id == id) return &finding;
    }
  }
  return nullptr;
}

}  // namespace rocm_doctor::testing
