// The apt suite AMD publishes for a release (distro_suite) and the repo-suite check.
#include <gtest/gtest.h>

#include <ostream>

#include "../../checks/distro_suite.h"
#include "rocm_doctor/text.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

struct SuiteCase {
  const char* name;
  const char* os_release;
  const char* suite;  // "" = no judgement
  bool interim;
};

// Names the case in test listings (gtest would print a hex dump of the struct).
void PrintTo(const SuiteCase& c, std::ostream* os) {
  *os << c.name;
}

class SuiteOf : public ::testing::TestWithParam<SuiteCase> {};

TEST_P(SuiteOf, NamesTheSuite) {
  const auto& param = GetParam();
  const auto release = distro_suite::judge(parse_env_file(param.os_release));
  if (std::string(param.suite).empty()) {
    EXPECT_FALSE(release && !release->suite.empty());
    return;
  }
  ASSERT_TRUE(release);
  EXPECT_EQ(release->suite, param.suite);
  EXPECT_EQ(release->interim, param.interim);
}

INSTANTIATE_TEST_SUITE_P(
    Releases, SuiteOf,
    ::testing::Values(
        SuiteCase{"ubuntu_noble", "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n", "noble", false},
        SuiteCase{"ubuntu_plucky_interim", "ID=ubuntu\nVERSION_ID=\"25.04\"\nVERSION_CODENAME=plucky\n", "noble", true},
        SuiteCase{"ubuntu_mantic_interim", "ID=ubuntu\nVERSION_ID=\"23.10\"\nVERSION_CODENAME=mantic\n", "jammy", true},
        SuiteCase{"debian_trixie", "ID=debian\nVERSION_ID=\"13\"\nVERSION_CODENAME=trixie\n", "noble", false},
        SuiteCase{"debian_bookworm_no_codename", "ID=debian\nVERSION_ID=\"12\"\n", "jammy", false},
        SuiteCase{"debian_sid", "ID=debian\nVERSION_CODENAME=forky\n", "", false},
        SuiteCase{"mint_22", "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\nVERSION_ID=\"22\"\nUBUNTU_CODENAME=noble\n",
                  "noble", false},
        SuiteCase{"pop_without_like", "ID=pop\nUBUNTU_CODENAME=jammy\n", "", false},
        SuiteCase{"fedora", "ID=fedora\nVERSION_ID=42\n", "", false}, SuiteCase{"empty", "", "", false},
        SuiteCase{"garbage", "\x01\x02=\n===\n", "", false},
        SuiteCase{"ubuntu_unknown_codename", "ID=ubuntu\nVERSION_CODENAME=zesty-zebra\n", "", false}),
    [](const ::testing::TestParamInfo<SuiteCase>& info) { return std::string(info.param.name); });

TEST(DistroSuite, Describes) {
  const auto release = distro_suite::judge(parse_env_file("ID=ubuntu\nVERSION_ID=25.04\nVERSION_CODENAME=plucky\n"));
  ASSERT_TRUE(release);
  EXPECT_EQ(distro_suite::describe(*release), "Ubuntu 25.04 'plucky' (interim release)");
}

SnapshotBuilder noble_with(const std::string& list) {
  SnapshotBuilder builder;
  builder.file("/etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\nVERSION_CODENAME=noble\n");
  builder.file("/etc/apt/sources.list.d/rocm.list", list);
  return builder;
}

TEST(RepoSuiteCheck, MixedFileIsEditedByHand) {
  auto builder = noble_with(
      "deb http://archive.ubuntu.com/ubuntu noble main\n"
      "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.4.1 jammy main\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"repo-suite"});
  const auto* finding = find_finding(report, "rocm.repo-suite-mismatch");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudoedit /etc/apt/sources.list.d/rocm.list");
}

TEST(RepoSuiteCheck, CommentedAndForeignEntriesAreIgnored) {
  auto builder = noble_with(
      "# deb https://repo.radeon.com/rocm/apt/6.4.1 jammy main\n"
      "deb http://archive.ubuntu.com/ubuntu jammy main\n\x01\x02 garbage line\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"repo-suite"});
  EXPECT_EQ(find_finding(report, "rocm.repo-suite-mismatch"), nullptr);
}

}  // namespace
}  // namespace rocm_doctor
