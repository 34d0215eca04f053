// write_file_atomically: replace regular files by rename; write straight
// into a FIFO or a character device such as /dev/null instead of renaming
// over it; refuse what no report should be written into.
#include "util/atomic_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>

#include "render/run_tool.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::TempDir;

TEST(AtomicFile, ReplacesARegularFileAndSetsItsMode) {
  TempDir folder;
  const auto target = folder.path() / "fix.sh";
  std::ofstream(target) << "old";
  ASSERT_TRUE(write_file_atomically(target, "#!/bin/sh\n", 0755));
  EXPECT_EQ(read_text(target), "#!/bin/sh\n");
  EXPECT_EQ(fs::status(target).permissions(), fs::perms(0755));
}

TEST(AtomicFile, ReplacesALinkRatherThanWritingThroughItToAFile) {
  TempDir folder;
  const auto victim = folder.path() / "victim";
  std::ofstream(victim) << "untouched";
  fs::create_symlink(victim, folder.path() / "report.json");
  ASSERT_TRUE(write_file_atomically(folder.path() / "report.json", "{}"));
  EXPECT_EQ(read_text(victim), "untouched");
  EXPECT_FALSE(fs::is_symlink(folder.path() / "report.json"));
}

// -o /dev/stdout with stdout a pipe: a link to a FIFO, written into.
TEST(AtomicFile, WritesIntoAFifoWithoutReplacingIt) {
  TempDir folder;
  const auto fifo = folder.path() / "collector";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&fifo] { return read_text(fifo); });
  fs::create_symlink(fifo, folder.path() / "stdout");
  const auto written = write_file_atomically(folder.path() / "stdout", "report\n");
  // Had the write gone elsewhere, the reader would wait forever for a writer.
  if (const int unblock = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK); unblock >= 0) ::close(unblock);
  ASSERT_TRUE(written) << written.error();
  EXPECT_EQ(reader.get(), "report\n");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(fs::is_symlink(folder.path() / "stdout"));
}

// Through a link of our own, so a regression replaces the link, not /dev/null.
TEST(AtomicFile, WritesIntoDevNullWithoutReplacingIt) {
  TempDir folder;
  const auto link = folder.path() / "null";
  fs::create_symlink("/dev/null", link);
  ASSERT_TRUE(write_file_atomically(link, "report\n"));
  EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced by a file";
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_EQ(std::distance(fs::directory_iterator(folder.path()), fs::directory_iterator()), 1) << "temporary debris";
}

TEST(AtomicFile, RefusesASocket) {
  TempDir folder;
  const auto path = folder.path() / "socket";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const auto written = write_file_atomically(path, "report\n");
  ::close(fd);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().find("not a regular file"), std::string::npos) << written.error();
  EXPECT_TRUE(fs::is_socket(path));
}

// A root-run doctor told to write to /tmp/report.json, where another user
// put a link to a device, must not write into the device.
TEST(AtomicFile, RefusesAnotherUsersLinkToADevice) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a link owned by another user needs root";
  TempDir folder;
  const auto link = folder.path() / "report.json";
  fs::create_symlink("/dev/null", link);
  ASSERT_EQ(::lchown(link.c_str(), 65534, 65534), 0);
  const auto written = write_file_atomically(link, "report\n");
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().find("another user's link"), std::string::npos) << written.error();
  EXPECT_TRUE(fs::is_symlink(link));
}

}  // namespace
}  // namespace rocm_doctor
