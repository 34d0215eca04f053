// The recording host writes only inside its snapshot folder, whatever the
// machine it records does meanwhile, and keeps what root/ cannot hold.
#include "host/recording_host.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "host/live_host.h"
#include "host/snapshot_host.h"
#include "render/run_tool.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;

class RecordingInside : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(machine_.path() / "config");
    std::ofstream(machine_.path() / "config" / "settings") << "value\n";
  }
  [[nodiscard]] fs::path mirrored(const fs::path& real) const {
    return snapshot_.path() / "root" / real.relative_path();
  }
  TempDir machine_;   // stands for the machine's files
  TempDir snapshot_;  // the capture's folder
  TempDir outside_;   // where a hostile link points
  LiveHost live_;
};

TEST_F(RecordingInside, RecordsAFileItReads) {
  RecordingHost recorder(live_, snapshot_.path());
  const auto file = machine_.path() / "config" / "settings";
  ASSERT_TRUE(recorder.read_file(file.string(), 4096));
  EXPECT_EQ(read_text(mirrored(file)), "value\n");
}

// A folder recorded earlier as a link (the machine had a link there, then a
// user swapped it for a real folder) must not carry later writes outside.
TEST_F(RecordingInside, NeverWritesThroughALinkItRecordedEarlier) {
  RecordingHost recorder(live_, snapshot_.path());
  const auto folder = machine_.path() / "config";
  fs::create_directories(mirrored(folder).parent_path());
  fs::create_symlink(outside_.path(), mirrored(folder));

  const auto read = recorder.read_file((folder / "settings").string(), 4096);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, "value\n") << "the check still gets its answer";
  EXPECT_TRUE(fs::is_empty(outside_.path())) << "the recorder wrote through a link, outside its folder";
}

TEST_F(RecordingInside, NeverWritesThroughALinkAtTheFilesOwnPlace) {
  RecordingHost recorder(live_, snapshot_.path());
  const auto file = machine_.path() / "config" / "settings";
  fs::create_directories(mirrored(file).parent_path());
  const auto victim = outside_.path() / "victim";
  std::ofstream(victim) << "untouched";
  fs::create_symlink(victim, mirrored(file));

  ASSERT_TRUE(recorder.read_file(file.string(), 4096));
  EXPECT_EQ(read_text(victim), "untouched");
}

TEST_F(RecordingInside, ListingsDoNotCreateEntriesThroughALink) {
  RecordingHost recorder(live_, snapshot_.path());
  const auto folder = machine_.path() / "config";
  fs::create_directories(mirrored(folder).parent_path());
  fs::create_symlink(outside_.path(), mirrored(folder));

  ASSERT_TRUE(recorder.list_dir(folder.string()));
  EXPECT_TRUE(fs::is_empty(outside_.path()));
}

// A folder's owner and mode cannot survive in root/ (it belongs to whoever
// unpacks the snapshot): snapshot.json keeps them, and replay answers them.
TEST_F(RecordingInside, RecordsOwnerAndModeOfAFolderForReplay) {
  const auto folder = machine_.path() / "cache";
  fs::create_directory(folder);
  fs::permissions(folder,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);  // 0750, whatever the umask
  fs::create_directory_symlink(folder, machine_.path() / "cache-link");
  struct stat real {};
  ASSERT_EQ(::stat(folder.c_str(), &real), 0);
  {
    RecordingHost recorder(live_, snapshot_.path());
    ASSERT_TRUE(recorder.stat_node(folder.string()));
    ASSERT_TRUE(recorder.stat_node((machine_.path() / "cache-link").string()));
    ASSERT_TRUE(recorder.finish("2026-11-30T18:00:00Z", "test"));
  }
  fs::permissions(mirrored(folder), fs::perms::all);  // as unpacked elsewhere: 0777, owned by someone else
  auto replay = SnapshotHost::open(snapshot_.path());
  ASSERT_TRUE(replay) << replay.error();
  for (const auto& asked : {folder, machine_.path() / "cache-link"}) {
    const auto node = (*replay)->stat_node(asked.string());
    ASSERT_TRUE(node) << asked;
    EXPECT_EQ(node->type, EntryType::directory) << asked;
    EXPECT_EQ(node->mode, 0750U) << asked;
    EXPECT_EQ(node->uid, real.st_uid) << asked;
    EXPECT_EQ(node->gid, real.st_gid) << asked;
    EXPECT_TRUE(node->permissions_known) << asked;
  }
}

// Only paths the manifest can hold are recorded: a snapshot a capture wrote always opens again.
TEST_F(RecordingInside, RecordsNoStatEntryTheManifestWouldRefuse) {
  {
    RecordingHost recorder(live_, snapshot_.path());
    (void)recorder.stat_node("/dev");
    (void)recorder.stat_node(".");
    ASSERT_TRUE(recorder.finish("2026-11-30T18:00:00Z", "test"));
  }
  auto replay = SnapshotHost::open(snapshot_.path());
  ASSERT_TRUE(replay) << replay.error();
  EXPECT_TRUE((*replay)->manifest().stat.empty());
}

}  // namespace
}  // namespace rocm_doctor
