// The `miopen` check: can MIOpen keep its user database and kernel cache
// (read-only mounts, folders root took from the user), and when it is not used at all.
#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

constexpr const char* kReadOnlyRoot = "overlay / overlay ro,relatime,lowerdir=/var/lib/docker/overlay2/l/A 0 0\n";
constexpr const char* kWritableRoot = "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\n";

SnapshotBuilder alice(const char* mounts) {
  SnapshotBuilder b;
  b.identity("alice", 1000, 1000, {1000, 44})
      .env("HOME", "/home/alice")
      .env("MIOPEN_FIND_MODE", "FAST")  // MIOpen is in use
      .dir("/home/alice")
      .file("/proc/mounts", mounts);
  return b;
}

std::vector<Finding> unwritable(const Report& report) {
  std::vector<Finding> found;
  for (const auto& finding : all_findings(report)) {
    if (finding.id == "miopen.cache-unwritable") found.push_back(finding);
  }
  return found;
}

TEST(MiopenCheck, SkipsWhenNothingUsesMiopen) {
  SnapshotBuilder b;
  b.env("HOME", "/home/alice").file("/proc/mounts", kReadOnlyRoot);
  const auto report = run_on(*b.open(), {"miopen"});
  ASSERT_FALSE(report.checks.empty());
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
  EXPECT_TRUE(unwritable(report).empty());
}

TEST(MiopenCheck, AReadOnlyRootMovesBothFoldersToTmp) {
  auto b = alice(kReadOnlyRoot);
  const auto found = unwritable(run_on(*b.open(), {"miopen"}));
  ASSERT_EQ(found.size(), 2U);
  for (const auto& finding : found) {
    EXPECT_EQ(finding.severity, Severity::warning);
    EXPECT_NE(finding.summary.find("read-only mount (/)"), std::string::npos) << finding.summary;
  }
  EXPECT_EQ(found[0].fixes.at(0).commands,
            (std::vector<std::string>{"mkdir -p /tmp/miopen", "export MIOPEN_USER_DB_PATH=/tmp/miopen"}));
  EXPECT_EQ(found[1].fixes.at(0).commands.at(1), "export MIOPEN_CUSTOM_CACHE_DIR=/tmp/miopen");
}

TEST(MiopenCheck, AFolderRootTookIsGivenBack) {
  auto b = alice(kWritableRoot);
  b.dir("/home/alice/.cache/miopen").stat("/home/alice/.cache/miopen", Node::chr("0755", 0, 0).of_type("dir"));
  const auto found = unwritable(run_on(*b.open(), {"miopen"}));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].summary.find("kernel cache"), std::string::npos) << found[0].summary;
  EXPECT_EQ(found[0].fixes.at(0).commands,
            (std::vector<std::string>{"sudo chown -R alice: /home/alice/.cache/miopen"}));
  EXPECT_TRUE(found[0].fixes.at(0).needs_root);
}

TEST(MiopenCheck, ItsOwnWritableFoldersAreOk) {
  auto b = alice(kWritableRoot);
  b.dir("/home/alice/.cache/miopen").stat("/home/alice/.cache/miopen", Node::chr("0755", 1000, 1000).of_type("dir"));
  const auto report = run_on(*b.open(), {"miopen"});
  EXPECT_TRUE(unwritable(report).empty());
  const auto* ok = find_finding(report, "miopen.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->summary,
            "MIOpen's database and cache folders are writable: /home/alice/.config/miopen, /home/alice/.cache/miopen");
}

TEST(MiopenCheck, TheVariablesChooseTheFolders) {
  auto b = alice(kWritableRoot);
  b.env("MIOPEN_CUSTOM_CACHE_DIR", "/scratch/miopen/").file("/scratch/miopen", "not a folder");
  const auto found = unwritable(run_on(*b.open(), {"miopen"}));
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].summary,
            "MIOpen cannot write its kernel cache (compiled kernels): /scratch/miopen is not a folder");
}

}  // namespace
}  // namespace rocm_doctor::testing
