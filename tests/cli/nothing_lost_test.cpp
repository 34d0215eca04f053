// Nothing lost: reports and snapshots are written through a temporary file
// (or folder) and renamed, so a write that fails half-way (a full disk, a
// read-only folder) leaves the old file as it was and no debris beside it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "probe/child_process.h"
#include "render/run_tool.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;

const std::string kScenario = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/ubuntu2204-rx7900xtx-healthy";

// Runs the doctor with a file-size limit of `kilobytes`: a write past it
// fails with EFBIG, which is what a full disk looks like to the writer.
// SIGXFSZ is ignored (an ignored signal stays ignored across exec) so the
// write returns the error instead of killing the process.
probe::ChildResult run_on_a_full_disk(int kilobytes, const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {"/bin/bash", "-c",
                                   "trap '' XFSZ; ulimit -f " + std::to_string(kilobytes) + "; exec \"$0\" \"$@\"",
                                   ROCM_DOCTOR_BINARY};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  probe::ChildOptions options;
  options.timeout = std::chrono::seconds(60);
  return probe::run_child(argv, options);
}

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class NothingLost : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fs::exists(kScenario)) << kScenario; }
  TempDir folder_;
};

TEST_F(NothingLost, AReportThatDoesNotFitLeavesTheOldOneIntact) {
  const auto target = folder_.path() / "report.json";
  std::ofstream(target) << "the previous report\n";
  const auto run = run_on_a_full_disk(1, {"--replay", kScenario, "--json", "-o", target.string()});
  EXPECT_EQ(run.exit_code, std::optional<int>(3)) << run.err_tail;
  EXPECT_NE(run.err_tail.find(target.string()), std::string::npos) << run.err_tail;
  EXPECT_NE(run.err_tail.find("File too large"), std::string::npos) << run.err_tail;
  EXPECT_EQ(read_text(target), "the previous report\n");
  EXPECT_EQ(names_in(folder_.path()), std::vector<std::string>{"report.json"}) << "a temporary file was left behind";
}

TEST_F(NothingLost, TheSameReportWithRoomReplacesTheOldOne) {
  // The control for the test above: the limit, not the command, made it fail.
  const auto target = folder_.path() / "report.json";
  std::ofstream(target) << "the previous report\n";
  const auto run = run_on_a_full_disk(4096, {"--replay", kScenario, "--json", "-o", target.string()});
  EXPECT_EQ(run.exit_code, std::optional<int>(0)) << run.err_tail;
  EXPECT_EQ(nlohmann::json::parse(read_text(target)).value("schema_version", 0), 1);
  EXPECT_EQ(names_in(folder_.path()), std::vector<std::string>{"report.json"});
}

TEST_F(NothingLost, AFixScriptThatDoesNotFitLeavesTheOldOneIntact) {
  const auto script = folder_.path() / "fix.sh";
  std::ofstream(script) << "#!/bin/sh\necho old\n";
  const std::string access_scenario = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/access-group-missing";
  const auto run = run_on_a_full_disk(0, {"--replay", access_scenario, "--fix-script", script.string()});
  EXPECT_EQ(run.exit_code, std::optional<int>(3)) << run.err_tail;
  EXPECT_EQ(read_text(script), "#!/bin/sh\necho old\n");
  EXPECT_EQ(names_in(folder_.path()), std::vector<std::string>{"fix.sh"});
}

TEST_F(NothingLost, ACaptureThatDoesNotFitLeavesNoHalfSnapshot) {
  const auto target = folder_.path() / "snap";
  const auto run = run_on_a_full_disk(1, {"capture", target.string(), "--level", "quick"});
  EXPECT_EQ(run.exit_code, std::optional<int>(3)) << run.err_tail;
  EXPECT_NE(run.err_tail.find("capture failed"), std::string::npos) << run.err_tail;
  EXPECT_FALSE(fs::exists(target));
  EXPECT_TRUE(names_in(folder_.path()).empty()) << "the temporary snapshot folder was left behind";
}

TEST_F(NothingLost, AnArchiveThatDoesNotFitLeavesTheOldOneIntact) {
  const auto archive = folder_.path() / "ticket.tar.gz";
  std::ofstream(archive) << "old archive";
  const auto run = run_on_a_full_disk(1, {"capture", "--archive", archive.string(), "--level", "quick"});
  EXPECT_EQ(run.exit_code, std::optional<int>(3)) << run.err_tail;
  EXPECT_EQ(read_text(archive), "old archive");
  EXPECT_EQ(names_in(folder_.path()), std::vector<std::string>{"ticket.tar.gz"});
}

// Mode bits do not stop root, so as root (CI) the folder is made read-only
// the way a container's read-only root is: a read-only bind mount, inside a
// mount namespace of the doctor's own (unshare), which fails with EROFS.
probe::ChildResult run_with_a_read_only_folder(const fs::path& folder, const std::vector<std::string>& arguments) {
  std::vector<std::string> argv = {"/usr/bin/unshare",
                                   "--mount",
                                   "--propagation",
                                   "private",
                                   "--",
                                   "/bin/sh",
                                   "-c",
                                   "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" && shift && "
                                   "exec \"$@\"",
                                   folder.string(),
                                   "--",
                                   ROCM_DOCTOR_BINARY};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  probe::ChildOptions options;
  options.timeout = std::chrono::seconds(60);
  return probe::run_child(argv, options);
}

TEST_F(NothingLost, AReadOnlyFolderLeavesTheOldReportIntact) {
  const auto target = folder_.path() / "report.json";
  std::ofstream(target) << "the previous report\n";
  const std::vector<std::string> arguments = {"--replay", kScenario, "--json", "-o", target.string()};
  if (::geteuid() == 0) {
    const auto run = run_with_a_read_only_folder(folder_.path(), arguments);
    EXPECT_EQ(run.exit_code, 3) << run.err_tail;
    EXPECT_NE(run.err_tail.find("Read-only file system"), std::string::npos) << run.err_tail;
  } else {
    fs::permissions(folder_.path(), fs::perms::owner_read | fs::perms::owner_exec);
    const auto run = testing::run_doctor(arguments);
    fs::permissions(folder_.path(), fs::perms::owner_all);
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_NE(run.err.find("Permission denied"), std::string::npos) << run.err;
  }
  EXPECT_EQ(read_text(target), "the previous report\n");
  EXPECT_EQ(names_in(folder_.path()), std::vector<std::string>{"report.json"}) << "no debris beside it";
}

}  // namespace
}  // namespace rocm_doctor
