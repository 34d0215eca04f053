#include "host/snapshot_host.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::SnapshotBuilder;

TEST(SnapshotHost, FollowsRelativeSysfsLinksLikeTheKernel) {
  SnapshotBuilder builder;
  builder.pci_device("0000:03:00.0", "0x1002", "0x744c", "0x030000", "amdgpu");
  builder.symlink("/sys/class/drm/card0", "../../devices/pci0000:00/0000:00:01.1/0000:03:00.0/drm/card0");
  builder.symlink("/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0/drm/card0/device", "../../../0000:03:00.0");
  auto host = builder.open();
  EXPECT_EQ(host->read_trimmed("/sys/bus/pci/devices/0000:03:00.0/device").value(), "0x744c");
  EXPECT_EQ(host->read_trimmed("/sys/class/drm/card0/device/vendor").value(), "0x1002");
  EXPECT_EQ(host->read_link("/sys/bus/pci/devices/0000:03:00.0/driver").value(), "../../../../bus/pci/drivers/amdgpu");
  EXPECT_TRUE(host->exists("/sys/bus/pci/devices/0000:03:00.0/driver/module"));
}

TEST(SnapshotHost, AbsoluteLinksResolveInsideTheSnapshot) {
  SnapshotBuilder builder;
  builder.file("/opt/rocm-6.2.4/.info/version", "6.2.4-120\n");
  builder.symlink("/etc/alternatives/rocm", "/opt/rocm-6.2.4");
  builder.symlink("/opt/rocm", "/etc/alternatives/rocm");
  auto host = builder.open();
  EXPECT_EQ(host->read_trimmed("/opt/rocm/.info/version").value(), "6.2.4-120");
  EXPECT_EQ(host->read_link("/opt/rocm").value(), "/etc/alternatives/rocm");
}

TEST(SnapshotHost, LinksCannotEscapeTheRoot) {
  SnapshotBuilder builder;
  builder.symlink("/etc/shadow-link", "../../../../../../../../etc/passwd");
  builder.symlink("/escape", "/../../..");
  auto host = builder.open();
  // ../.. at the root stays at the root: /etc/passwd of the snapshot, which does not exist.
  EXPECT_EQ(host->read_file("/etc/shadow-link", kDefaultReadLimit).error().kind, HostErrorKind::not_found);
  auto listing = host->list_dir("/escape");
  ASSERT_TRUE(listing);
  for (const auto& entry : *listing) EXPECT_NE(entry.name, "snapshot.json");
}

TEST(SnapshotHost, SymlinkLoopsAreAnErrorNotAHang) {
  SnapshotBuilder builder;
  builder.symlink("/sys/a", "b");
  builder.symlink("/sys/b", "a");
  auto host = builder.open();
  EXPECT_EQ(host->read_file("/sys/a", kDefaultReadLimit).error().kind, HostErrorKind::loop);
}

// The resolver remembers folders it resolved; answers must not depend on
// what was read before (the same folder by another route, .. after a link,
// a file where a folder is expected, a repeated miss).
TEST(SnapshotHost, RememberedFoldersAnswerLikeAFreshWalk) {
  SnapshotBuilder builder;
  builder.file("/sys/devices/pci0000:00/0000:03:00.0/drm/card0/dev", "226:0\n");
  builder.file("/sys/devices/pci0000:00/0000:03:00.0/vendor", "0x1002\n");
  builder.symlink("/sys/class/drm/card0", "../../devices/pci0000:00/0000:03:00.0/drm/card0");
  builder.file("/etc/hostname", "node\n");
  auto host = builder.open();
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    EXPECT_EQ(host->read_trimmed("/sys/class/drm/card0/dev").value(), "226:0");
    EXPECT_EQ(host->read_trimmed("/sys/devices/pci0000:00/0000:03:00.0/drm/card0/dev").value(), "226:0");
    // .. after a link is the link target's parent, as the kernel walks it.
    EXPECT_EQ(host->read_trimmed("/sys/class/drm/card0/../../vendor").value(), "0x1002");
    EXPECT_EQ(host->read_trimmed("//sys/./class/drm/card0/dev").value(), "226:0");
    EXPECT_EQ(host->read_file("/etc/hostname/x", kDefaultReadLimit).error().kind, HostErrorKind::not_a_directory);
    EXPECT_EQ(host->read_file("/sys/class/drm/card1/dev", kDefaultReadLimit).error().kind, HostErrorKind::not_found);
    EXPECT_EQ(host->read_link("/sys/class/drm/card0").value(), "../../devices/pci0000:00/0000:03:00.0/drm/card0");
    EXPECT_EQ(host->read_link("/sys/class/drm/card0/dev").error().kind, HostErrorKind::not_a_link);
    EXPECT_EQ(host->stat_node("/sys/class/drm/card0")->type, EntryType::directory);
    EXPECT_EQ(host->read_file("/", kDefaultReadLimit).error().kind, HostErrorKind::io);
  }
}

TEST(SnapshotHost, DeviceNodesComeFromTheManifest) {
  SnapshotBuilder builder;
  builder.node("/dev/kfd", testing::Node::chr("0660", 0, 110));
  builder.node("/dev/dri/renderD128", testing::Node::chr("0660", 0, 110).with_acl().with_access("rw"));
  auto host = builder.open();
  const auto kfd = host->stat_node("/dev/kfd");
  ASSERT_TRUE(kfd);
  EXPECT_EQ(kfd->type, EntryType::char_device);
  EXPECT_EQ(kfd->mode, 0660U);
  EXPECT_EQ(kfd->gid, 110U);
  EXPECT_FALSE(kfd->access);
  const auto render = host->stat_node("/dev/dri/renderD128");
  EXPECT_TRUE(render->has_acl);
  EXPECT_EQ(render->access, "rw");
  EXPECT_FALSE(host->exists("/dev/dri/card0"));
  EXPECT_TRUE(host->exists("/dev/dri"));
  const auto dev = host->list_dir("/dev").value();
  ASSERT_EQ(dev.size(), 2U);
  EXPECT_EQ(dev[0].name, "dri");
  EXPECT_EQ(dev[0].type, EntryType::directory);
  EXPECT_EQ(dev[1].type, EntryType::char_device);
}

// Files under root/ belong to whoever unpacked the snapshot; `stat` keeps
// the captured owner and mode of ordinary folders and files.
TEST(SnapshotHost, RecordedOwnersAndModesComeFromTheManifest) {
  SnapshotBuilder builder;
  builder.dir("/home/alice/.cache/miopen");
  builder.file("/usr/bin/python3.11", "");
  builder.symlink("/usr/bin/python3", "python3.11");
  builder.stat("/home/alice/.cache/miopen", testing::Node::chr("0755", 0, 0).of_type("dir"));
  builder.stat("/usr/bin/python3.11", testing::Node::chr("0755", 0, 0).of_type("file"));
  builder.stat("/var/cache/gone", testing::Node::chr("2775", 1000, 44).of_type("dir").with_acl());
  auto host = builder.open();

  const auto cache = host->stat_node("/home/alice/.cache/miopen");
  ASSERT_TRUE(cache);
  EXPECT_EQ(cache->type, EntryType::directory);
  EXPECT_EQ(cache->mode, 0755U);
  EXPECT_EQ(cache->uid, 0U);
  EXPECT_TRUE(cache->permissions_known);
  // Recorded under the link-resolved path: every route to that file finds it.
  const auto python = host->stat_node("/usr/bin/python3");
  ASSERT_TRUE(python);
  EXPECT_EQ(python->mode, 0755U) << "the unpacked file is 0644; the recorded mode wins";
  EXPECT_TRUE(python->permissions_known);
  // An entry answers for its path even where root/ holds nothing.
  const auto gone = host->stat_node("/var/cache/gone");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->mode, 02775U);
  EXPECT_EQ(gone->gid, 44U);
  EXPECT_TRUE(gone->has_acl);
}

TEST(SnapshotHost, UnrecordedFilesSayTheirOwnerIsUnknown) {
  SnapshotBuilder builder;
  builder.dir("/home/alice/.config/miopen");
  auto host = builder.open();
  const auto folder = host->stat_node("/home/alice/.config/miopen");
  ASSERT_TRUE(folder);
  EXPECT_EQ(folder->type, EntryType::directory);
  EXPECT_EQ(folder->uid, 0U);
  EXPECT_FALSE(folder->permissions_known);
  EXPECT_EQ(host->stat_node("/home/alice/.cache/miopen").error().kind, HostErrorKind::not_found);
}

TEST(SnapshotHost, EnvIdentityAccountsAndProbes) {
  SnapshotBuilder builder;
  builder.env("HSA_OVERRIDE_GFX_VERSION", "10.3.0")
      .identity("alice", 1000, 1000, {1000, 44})
      .file("/etc/group", "root:x:0:\nvideo:x:44:alice\nrender:x:110:alice,bob\nbroken-line\n")
      .file("/etc/passwd", "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n")
      .probe("hip", {{"status", "ok"}});
  auto host = builder.open();
  EXPECT_EQ(host->env("HSA_OVERRIDE_GFX_VERSION"), "10.3.0");
  EXPECT_FALSE(host->env("ROCR_VISIBLE_DEVICES"));
  EXPECT_EQ(host->identity().groups, (std::vector<std::uint32_t>{1000, 44}));
  EXPECT_EQ(host->group_by_gid(110)->name, "render");
  EXPECT_EQ(host->group_by_name("render")->members, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(host->user_by_name("alice")->home, "/home/alice");
  EXPECT_FALSE(host->group_by_gid(4242));
  EXPECT_EQ(host->probe("hip")->at("status"), "ok");
  EXPECT_FALSE(host->probe("smi"));
}

TEST(SnapshotHost, UnreadablePathsAnswerPermissionDenied) {
  SnapshotBuilder builder;
  builder.file("/dev/kmsg", "").manifest_key("unreadable", {"/dev/kmsg"});
  auto host = builder.open();
  EXPECT_EQ(host->read_file("/dev/kmsg", kDefaultReadLimit).error().kind, HostErrorKind::permission_denied);
}

// Capture notes a refused stat(2) (another user's home folder) as unreadable:
// replay must not answer "missing", which a check would judge differently.
TEST(SnapshotHost, RefusedStatsAnswerPermissionDeniedNotMissing) {
  SnapshotBuilder builder;
  builder.file("/etc/shadow", "").manifest_key("unreadable", {"/home/bob/.cache/miopen", "/etc/shadow"});
  auto host = builder.open();
  EXPECT_EQ(host->stat_node("/home/bob/.cache/miopen").error().kind, HostErrorKind::permission_denied);
  EXPECT_EQ(host->stat_node("/home/bob/.cache").error().kind, HostErrorKind::not_found);
  EXPECT_TRUE(host->stat_node("/etc/shadow")) << "a file that could not be read can still be stat()ed";
}

TEST(SnapshotHost, ReadFileHonoursTheSizeBound) {
  SnapshotBuilder builder;
  builder.file("/sys/big", std::string(5000, 'x'));
  auto host = builder.open();
  EXPECT_EQ(host->read_file("/sys/big", 4096).error().kind, HostErrorKind::too_large);
  EXPECT_EQ(host->read_file("/sys/big", 5000)->size(), 5000U);
}

TEST(SnapshotHost, MissingFolderOrManifestIsAClearError) {
  EXPECT_NE(SnapshotHost::open("/nonexistent/snap").error().find("no such directory"), std::string::npos);
  testing::TempDir empty;
  EXPECT_NE(SnapshotHost::open(empty.path()).error().find("snapshot.json: missing"), std::string::npos);
}

TEST(SnapshotHost, AFileWhereTheFolderShouldBeIsNotADirectory) {
  testing::TempDir dir;
  std::ofstream(dir.path() / "file") << "x";
  EXPECT_NE(SnapshotHost::open(dir.path() / "file").error().find("(not a directory)"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor
