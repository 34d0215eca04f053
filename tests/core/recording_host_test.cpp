// The recording host writes only inside its snapshot folder, whatever the
// machine it records does meanwhile.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "host/live_host.h"
#include "host/recording_host.h"
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

}  // namespace
}  // namespace rocm_doctor
