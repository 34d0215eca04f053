#include "host/read_once_host.h"

#include <gtest/gtest.h>

#include <map>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::SnapshotBuilder;

// Forwards to a snapshot and counts what reaches it.
class CountingHost final : public Host {
 public:
  explicit CountingHost(const Host& inner) : inner_(inner) {}
  mutable std::map<std::string, int> asked;

  std::string_view source() const override { return inner_.source(); }
  HostResult<std::string> read_file(std::string_view path, std::size_t max_bytes) const override {
    ++asked["read " + std::string(path)];
    return inner_.read_file(path, max_bytes);
  }
  HostResult<std::vector<DirEntry>> list_dir(std::string_view path) const override {
    ++asked["list " + std::string(path)];
    return inner_.list_dir(path);
  }
  HostResult<std::string> read_link(std::string_view path) const override {
    ++asked["link " + std::string(path)];
    return inner_.read_link(path);
  }
  HostResult<NodeInfo> stat_node(std::string_view path) const override {
    ++asked["stat " + std::string(path)];
    return inner_.stat_node(path);
  }
  std::optional<std::string> env(std::string_view name) const override { return inner_.env(name); }
  std::vector<std::string> env_names() const override { return inner_.env_names(); }
  Identity identity() const override { return inner_.identity(); }
  std::optional<GroupEntry> group_by_gid(std::uint32_t gid) const override { return inner_.group_by_gid(gid); }
  std::optional<GroupEntry> group_by_name(std::string_view name) const override { return inner_.group_by_name(name); }
  std::optional<UserEntry> user_by_name(std::string_view name) const override { return inner_.user_by_name(name); }
  std::optional<nlohmann::json> probe(std::string_view name) const override { return inner_.probe(name); }

 private:
  const Host& inner_;
};

struct ReadOnceFixture {
  SnapshotBuilder builder;
  std::unique_ptr<Host> snapshot;
  std::unique_ptr<CountingHost> counting;
  std::unique_ptr<ReadOnceHost> host;

  ReadOnceFixture() {
    builder.file("/etc/os-release", "ID=ubuntu\n");
    builder.file("/var/lib/dpkg/status", std::string(ReadOnceHost::kKeptFileLimit + 1, 'x'));
    builder.symlink("/sys/class/drm/card0", "../../devices/card0");
    builder.file("/sys/devices/card0/dev", "226:0\n");
    snapshot = builder.open();
    counting = std::make_unique<CountingHost>(*snapshot);
    host = std::make_unique<ReadOnceHost>(*counting);
  }
};

TEST(ReadOnceHost, SmallFilesAndMissesReachTheMachineOnce) {
  ReadOnceFixture fixture;
  auto& host = *fixture.host;
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(host.read_file("/etc/os-release", kDefaultReadLimit).value(), "ID=ubuntu\n");
    EXPECT_EQ(host.read_file("/etc/missing", kDefaultReadLimit).error().kind, HostErrorKind::not_found);
    EXPECT_EQ(host.list_dir("/sys/devices/card0")->size(), 1U);
    EXPECT_EQ(host.read_link("/sys/class/drm/card0").value(), "../../devices/card0");
    EXPECT_EQ(host.stat_node("/sys/class/drm/card0")->type, EntryType::directory);
  }
  const auto& asked = fixture.counting->asked;
  EXPECT_EQ(asked.at("read /etc/os-release"), 1);
  EXPECT_EQ(asked.at("read /etc/missing"), 1);
  EXPECT_EQ(asked.at("list /sys/devices/card0"), 1);
  EXPECT_EQ(asked.at("link /sys/class/drm/card0"), 1);
  EXPECT_EQ(asked.at("stat /sys/class/drm/card0"), 1);
}

TEST(ReadOnceHost, AKeptFileHonoursEachCallersBound) {
  ReadOnceFixture fixture;
  auto& host = *fixture.host;
  ASSERT_TRUE(host.read_file("/etc/os-release", kDefaultReadLimit));
  const auto small = host.read_file("/etc/os-release", 4);
  ASSERT_FALSE(small);
  EXPECT_EQ(small.error().kind, HostErrorKind::too_large);
  EXPECT_EQ(small.error().message, "/etc/os-release: larger than 4 bytes");
  EXPECT_EQ(fixture.counting->asked.at("read /etc/os-release"), 1);
}

TEST(ReadOnceHost, TooLargeAnswersAndBigFilesAreNotKept) {
  ReadOnceFixture fixture;
  auto& host = *fixture.host;
  EXPECT_EQ(host.read_file("/etc/os-release", 4).error().kind, HostErrorKind::too_large);
  EXPECT_EQ(host.read_file("/etc/os-release", kDefaultReadLimit).value(), "ID=ubuntu\n");  // a larger bound reads
  EXPECT_EQ(fixture.counting->asked.at("read /etc/os-release"), 2);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(host.read_file("/var/lib/dpkg/status", kDefaultReadLimit)->size(), ReadOnceHost::kKeptFileLimit + 1);
  }
  EXPECT_EQ(fixture.counting->asked.at("read /var/lib/dpkg/status"), 2);
}

}  // namespace
}  // namespace rocm_doctor
