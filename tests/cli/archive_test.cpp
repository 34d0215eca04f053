// capture --archive / --replay FILE.tar.gz, and the archives replay refuses.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "bundle/snapshot_archive.h"
#include "render/run_tool.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::run_doctor;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;

struct TarEntry {
  std::string name;
  char type = '0';
  std::string data;
  std::string link;
};

// A hand-made ustar archive, so the test controls every header byte.
std::string tar_of(const std::vector<TarEntry>& entries) {
  std::string out;
  for (const auto& entry : entries) {
    std::string block(512, '\0');
    std::memcpy(&block[0], entry.name.data(), std::min<std::size_t>(entry.name.size(), 100));
    std::memcpy(&block[100], "0000644", 7);
    std::memcpy(&block[108], "0000000", 7);
    std::memcpy(&block[116], "0000000", 7);
    const auto size = fmt::format("{:011o}", entry.data.size());
    std::memcpy(&block[124], size.data(), 11);
    std::memcpy(&block[136], "00000000000", 11);
    block[156] = entry.type;
    std::memcpy(&block[157], entry.link.data(), std::min<std::size_t>(entry.link.size(), 100));
    std::memcpy(&block[257],
                "ustar\0"
                "00",
                8);
    std::memset(&block[148], ' ', 8);
    unsigned sum = 0;
    for (const char c : block) sum += static_cast<unsigned char>(c);
    const auto checksum = fmt::format("{:06o}", sum);
    std::memcpy(&block[148], checksum.data(), 6);
    block[154] = '\0';
    out += block + entry.data;
    out.append((512 - entry.data.size() % 512) % 512, '\0');
  }
  return out + std::string(1024, '\0');
}

fs::path write_tar_gz(const fs::path& path, const std::string& tar) {
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, tar.data(), static_cast<unsigned>(tar.size()));
  gzclose(file);
  return path;
}

const std::string kManifest =
    R"({"format": "rocm-doctor-snapshot", "version": 1, "identity": {"user": "a", "uid": 1000, "gid": 1000, "groups": [1000]}})";

void expect_refused(const std::vector<TarEntry>& entries, const std::string& why) {
  testing::TempDir folder;
  std::vector<TarEntry> all = {{"snapshot.json", '0', kManifest, ""}, {"root/", '5', "", ""}};
  all.insert(all.end(), entries.begin(), entries.end());
  const auto archive = write_tar_gz(folder.path() / "evil.tar.gz", tar_of(all));
  const auto result = run_doctor({"--replay", archive.string(), "--level", "quick"});
  EXPECT_EQ(result.exit_code, 2) << why;
  EXPECT_NE(result.err.find(why), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());
  EXPECT_FALSE(fs::exists("/tmp/rocm-doctor-escaped")) << "nothing was written outside";
}

TEST(Archive, RefusesAbsolutePaths) {
  expect_refused({{"/tmp/rocm-doctor-escaped", '0', "x", ""}}, "absolute paths and '..' are not allowed");
}

TEST(Archive, RefusesDotDot) {
  expect_refused({{"root/../../rocm-doctor-escaped", '0', "x", ""}}, "absolute paths and '..' are not allowed");
}

TEST(Archive, RefusesDeviceFiles) {
  expect_refused({{"root/dev/kfd", '3', "", ""}}, "device files are not allowed");
  expect_refused({{"root/dev/sda", '4', "", ""}}, "device files are not allowed");
}

TEST(Archive, RefusesLinksPointingOutside) {
  expect_refused({{"root/etc/passwd", '2', "", "../../../../etc/passwd"}}, "points outside the snapshot");
  expect_refused({{"escape", '2', "", "/etc"}}, "links are only allowed under root/");
  expect_refused({{"root/etc/shadow", '1', "", "/etc/shadow"}}, "hard links are not allowed");
}

TEST(Archive, RefusesWritingThroughALink) {
  expect_refused({{"root/sys", '2', "", "proc"}, {"root/sys/x", '0', "x", ""}}, "goes through a link");
}

TEST(Archive, RefusesGarbage) {
  testing::TempDir folder;
  std::ofstream(folder.path() / "junk.tar.gz") << "not an archive";
  const auto result = run_doctor({"--replay", (folder.path() / "junk.tar.gz").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("not a gzip-compressed archive"), std::string::npos) << result.err;
}

TEST(Archive, ScenarioRoundTripReplaysTheSameFindings) {
  // Long sysfs paths (pax headers) and absolute links (/opt/rocm) included.
  for (const auto* scenario : {"gpu-mi300x-x8", "two-rocm-releases", "access-hostile-user-name"}) {
    testing::TempDir folder;
    const auto archive = folder.path() / "snapshot.tar.gz";
    ASSERT_TRUE(write_snapshot_archive(kScenarios + "/" + scenario, archive));
    const auto from_folder = run_doctor({"--replay", kScenarios + "/" + scenario, "--level", "quick", "--json"});
    const auto from_archive = run_doctor({"--replay", archive.string(), "--level", "quick", "--json"});
    EXPECT_EQ(from_archive.exit_code, from_folder.exit_code) << from_archive.err;
    auto a = nlohmann::json::parse(from_folder.out);
    auto b = nlohmann::json::parse(from_archive.out);
    for (auto* report : {&a, &b}) {
      (*report).erase("generated_at");
      for (auto& check : (*report)["checks"]) check.erase("duration_ms");
    }
    EXPECT_EQ(a, b) << scenario;
  }
}

TEST(Archive, SystemTarListsTheArchive) {
  const auto tar = testing::find_tool("tar");
  if (tar.empty()) GTEST_SKIP();
  testing::TempDir folder;
  const auto archive = folder.path() / "s.tar.gz";
  ASSERT_TRUE(write_snapshot_archive(kScenarios + "/gpu-mi300x-x8", archive));
  const auto listing = testing::run_tool({tar, "-tzvf", archive.string()});
  EXPECT_EQ(listing.exit_code, 0) << listing.out;
  EXPECT_NE(listing.out.find("snapshot.json"), std::string::npos);
  EXPECT_NE(listing.out.find("root/sys/class/kfd/kfd/topology/nodes/9/properties"), std::string::npos);
}

TEST(Archive, CaptureNeedsAFolderOrAnArchive) {
  EXPECT_EQ(run_doctor({"capture"}).exit_code, 2);
  testing::TempDir folder;
  EXPECT_EQ(run_doctor({"capture", (folder.path() / "d").string(), "--archive", (folder.path() / "a.tar.gz").string()})
                .exit_code,
            2);
}

}  // namespace
}  // namespace rocm_doctor
