// Finding plugins: names, ignored files, and which folders and files are
// trusted (tables), then real folders on this machine through the LiveHost.
#include "plugins/plugin_scan.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "host/live_host.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::plugins {
namespace {

namespace fs = std::filesystem;

NodeInfo node(std::uint32_t mode, std::uint32_t uid, std::uint32_t gid) {
  NodeInfo info;
  info.type = EntryType::directory;
  info.mode = mode;
  info.uid = uid;
  info.gid = gid;
  return info;
}

TEST(PluginName, IsTheFileNameSanitised) {
  const std::vector<std::pair<std::string, std::string>> cases = {{"gpu-firmware.sh", "gpu-firmware"},
                                                                  {"gpu_Firmware.py", "gpu-firmware"},
                                                                  {"check", "check"},
                                                                  {"10-scratch.sh", "10-scratch"},
                                                                  {"a..b c!.sh", "a-b-c"},
                                                                  {"check.v2.py", "check-v2"},
                                                                  {"__.sh", ""},
                                                                  {"-x-.sh", "x"},
                                                                  {"Überprüfung", "berpr-fung"}};
  for (const auto& [file, name] : cases) EXPECT_EQ(plugin_name(file), name) << file;
}

TEST(IgnoredFileName, DotfilesBackupsAndPackageLeftovers) {
  for (const auto* name :
       {".hidden", "check.sh~", "check.sh.dpkg-old", "check.sh.dpkg-dist", "check.sh.dpkg-new", "check.sh.rpmnew",
        "check.sh.rpmsave", "check.sh.bak", "check.sh.orig", "check.sh.ucf-dist", "check.sh.disabled"}) {
    EXPECT_TRUE(ignored_file_name(name)) << name;
  }
  for (const auto* name : {"check.sh", "check", "10-check.py", "dpkg-check"})
    EXPECT_FALSE(ignored_file_name(name)) << name;
}

TEST(UnsafeReason, TrustsRootAndTheRunningUserOnly) {
  const Trust user{1000, 1000};
  const Trust root{0, 0};
  EXPECT_FALSE(unsafe_reason(node(0755, 0, 0), user));
  EXPECT_FALSE(unsafe_reason(node(0755, 1000, 1000), user));
  EXPECT_FALSE(unsafe_reason(node(0775, 1000, 1000), user)) << "the user's own private group";
  EXPECT_FALSE(unsafe_reason(node(0775, 0, 0), root));
  EXPECT_EQ(unsafe_reason(node(0755, 1001, 1001), user).value_or(""),
            "owned by uid 1001, neither root nor the user the doctor runs as (uid 1000)");
  EXPECT_EQ(unsafe_reason(node(0755, 1000, 1000), root).value_or(""), "owned by uid 1000, not root")
      << "a root-run doctor trusts no user's folder";
  EXPECT_EQ(unsafe_reason(node(0777, 0, 0), root).value_or(""), "writable by every user (mode 0777)");
  EXPECT_EQ(unsafe_reason(node(0775, 0, 50), root).value_or(""), "writable by group gid 50 (mode 0775)");
  EXPECT_EQ(unsafe_reason(node(0777, 1001, 0), user).value_or(""),
            "owned by uid 1001, neither root nor the user the doctor runs as (uid 1000) and writable by every user "
            "(mode 0777)");
}

TEST(UnsafeReason, AnUnknownOwnerIsNeverTrusted) {
  auto unknown = node(0755, 0, 0);
  unknown.permissions_known = false;
  EXPECT_EQ(unsafe_reason(unknown, Trust{0, 0}).value_or(""), "of unknown owner and mode");
  EXPECT_TRUE(unsafe_reason(unknown, Trust{0, 0}, true));
}

TEST(UnsafeReason, AStickyFolderAboveIsFineButNotAsThePluginFolder) {
  const Trust root{0, 0};
  EXPECT_FALSE(unsafe_reason(node(01777, 0, 0), root, true)) << "/tmp above a plugin folder";
  EXPECT_TRUE(unsafe_reason(node(01777, 0, 0), root, false));
  EXPECT_TRUE(unsafe_reason(node(0777, 0, 0), root, true)) << "world-writable without the sticky bit";
}

TEST(PluginFolders, SystemThenHomeThenExtraWithoutRepeats) {
  testing::SnapshotBuilder builder;
  builder.env("HOME", "/home/alice/");
  auto host = builder.open();
  const auto folders = plugin_folders(*host, {"/srv/checks", "/etc/rocm-doctor/checks.d", "/srv/checks/"});
  ASSERT_EQ(folders.size(), 3U);
  EXPECT_EQ(folders[0].path, "/etc/rocm-doctor/checks.d");
  EXPECT_EQ(folders[0].origin, "system");
  EXPECT_EQ(folders[1].path, "/home/alice/.config/rocm-doctor/checks.d");
  EXPECT_EQ(folders[1].origin, "user");
  EXPECT_EQ(folders[2].path, "/srv/checks");
  EXPECT_EQ(folders[2].origin, "--plugin-dir");
}

TEST(PluginFolders, HomeFromThePasswdEntryWhenHomeIsUnset) {
  testing::SnapshotBuilder builder;
  builder.file("/etc/passwd", "alice:x:1000:1000::/srv/home/alice:/bin/bash\n");
  auto host = builder.open();
  const auto folders = plugin_folders(*host, {});
  ASSERT_EQ(folders.size(), 2U);
  EXPECT_EQ(folders[1].path, "/srv/home/alice/.config/rocm-doctor/checks.d");
}

// Real folders of this machine, read through the live host.
class ScanFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = dir_.path() / "checks.d";
    fs::create_directory(folder_);
    fs::permissions(folder_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
  }
  void add(const std::string& name, mode_t mode, const std::string& content = "#!/bin/sh\n") {
    std::ofstream(folder_ / name) << content;
    ASSERT_EQ(::chmod((folder_ / name).c_str(), mode), 0);
  }
  PluginScan scan() const { return scan_plugins(LiveHost{}, {folder_.string()}); }
  const ScannedFolder& ours(const PluginScan& scan) const { return scan.folders.back(); }

  testing::TempDir dir_;
  fs::path folder_;
};

TEST_F(ScanFolder, FindsExecutableFilesByNameAndIgnoresTheRest) {
  add("20-second.sh", 0755);
  add("10-first.py", 0700);
  add("README", 0644);
  add(".hidden", 0755);
  add("old.sh~", 0755);
  add("check.sh.dpkg-old", 0755);
  fs::create_directory(folder_ / "subfolder");
  fs::create_symlink(folder_ / "20-second.sh", folder_ / "30-link");
  fs::create_symlink(folder_ / "missing", folder_ / "40-dangling");
  const auto result = scan();
  EXPECT_EQ(ours(result).state, FolderState::ok);
  std::vector<std::string> names;
  for (const auto& plugin : result.plugins) {
    if (plugin.folder == folder_.string()) names.push_back(plugin.name + ":" + std::string(to_string(plugin.state)));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"10-first:runnable", "20-second:runnable", "30-link:runnable",
                                             "40-dangling:broken"}));
}

TEST_F(ScanFolder, ASecondPluginOfTheSameNameIsNotRun) {
  add("check.py", 0755);
  add("check.sh", 0755);
  const auto result = scan();
  ASSERT_EQ(result.plugins.size(), 2U);
  EXPECT_EQ(result.plugins[0].state, PluginState::runnable);
  EXPECT_EQ(result.plugins[1].state, PluginState::duplicate);
  EXPECT_EQ(result.plugins[1].problem, "the name 'check' is already taken by " + (folder_ / "check.py").string());
}

TEST_F(ScanFolder, AWorldWritableFolderIsRefusedAndNotListed) {
  add("check.sh", 0755);
  ASSERT_EQ(::chmod(folder_.c_str(), 0777), 0);
  const auto result = scan();
  EXPECT_EQ(ours(result).state, FolderState::unsafe);
  EXPECT_EQ(ours(result).problem, "writable by every user (mode 0777)");
  EXPECT_TRUE(result.runnable().empty());
}

TEST_F(ScanFolder, AFolderInsideAWorldWritableFolderIsRefused) {
  const auto open_parent = dir_.path() / "open";
  fs::create_directory(open_parent);
  ASSERT_EQ(::chmod(open_parent.c_str(), 0777), 0);
  fs::create_directory(open_parent / "checks.d");
  const auto result = scan_plugins(LiveHost{}, {(open_parent / "checks.d").string()});
  EXPECT_EQ(result.folders.back().state, FolderState::unsafe);
  EXPECT_EQ(result.folders.back().unsafe_path, open_parent.string());
}

TEST_F(ScanFolder, AWorldWritablePluginIsRefused) {
  add("check.sh", 0757);
  add("fine.sh", 0755);
  const auto result = scan();
  ASSERT_EQ(result.plugins.size(), 2U);
  EXPECT_EQ(result.plugins[0].state, PluginState::refused);
  EXPECT_EQ(result.plugins[0].problem, "writable by every user (mode 0757)");
  EXPECT_EQ(result.plugins[1].state, PluginState::runnable);
}

TEST_F(ScanFolder, AFolderOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the folder away";
  ASSERT_EQ(::chown(folder_.c_str(), 65534, 65534), 0);
  const auto result = scan();
  EXPECT_EQ(ours(result).state, FolderState::unsafe);
  EXPECT_EQ(ours(result).problem, "owned by uid 65534, not root");
}

TEST_F(ScanFolder, AFolderWritableByAnotherGroupIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to hand the folder to another group";
  ASSERT_EQ(::chown(folder_.c_str(), 0, 65534), 0);
  ASSERT_EQ(::chmod(folder_.c_str(), 0775), 0);
  const auto result = scan();
  EXPECT_EQ(ours(result).state, FolderState::unsafe);
  EXPECT_EQ(ours(result).problem, "writable by group gid 65534 (mode 0775)");
}

TEST_F(ScanFolder, AMissingFolderIsNoProblem) {
  const auto result = scan_plugins(LiveHost{}, {(dir_.path() / "absent").string()});
  EXPECT_EQ(result.folders.back().state, FolderState::missing);
  EXPECT_TRUE(result.runnable().empty());
}

}  // namespace
}  // namespace rocm_doctor::plugins
