// The packages check: apt/deb822/yum parsers, dpkg status, the driver support window.
#include "../../checks/packages.h"

#include <gtest/gtest.h>

#include "rocm_doctor/facts/amdgpu_driver.h"
#include "rocm_doctor/kb.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

TEST(PackagesParse, AptOneLineEntries) {
  const auto entries = packages::parse_apt_list(
      "# ROCm\n"
      "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n"
      "deb https://repo.radeon.com/amdgpu/6.1/ubuntu jammy main # apt-key era\n"
      "#deb https://repo.radeon.com/rocm/apt/5.7 jammy main\n"
      "deb-src http://archive.ubuntu.com/ubuntu jammy main restricted\n");
  ASSERT_EQ(entries.size(), 3U);
  EXPECT_TRUE(entries[0].signed_by);
  EXPECT_EQ(entries[0].uris.at(0), "https://repo.radeon.com/rocm/apt/6.2.4");
  EXPECT_EQ(entries[0].suite, "jammy");
  EXPECT_EQ(entries[0].components, "main");
  EXPECT_EQ(entries[0].line, 2);
  EXPECT_FALSE(entries[1].signed_by);
  EXPECT_EQ(entries[1].line, 3);
}

TEST(PackagesParse, Deb822Stanzas) {
  const auto entries = packages::parse_deb822(
      "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.2.4\nSuites: noble\nComponents: main\n"
      "Signed-By: /etc/apt/keyrings/rocm.gpg\n\n"
      "Types: deb\nURIs: https://repo.radeon.com/amdgpu/6.2.4/ubuntu\nSuites: noble\nComponents: main\n\n"
      "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.1\nSuites: noble\nComponents: main\nEnabled: no\n");
  ASSERT_EQ(entries.size(), 3U);
  EXPECT_TRUE(entries[0].signed_by);
  EXPECT_FALSE(entries[1].signed_by);
  EXPECT_EQ(entries[1].line, 7);
  EXPECT_FALSE(entries[2].enabled);
}

TEST(PackagesParse, RepoIniSections) {
  const auto entries = packages::parse_repo_ini(
      "[ROCm-6.2.4]\nname=ROCm6.2.4\nbaseurl=https://repo.radeon.com/rocm/rhel9/6.2.4/main\nenabled=1\n"
      "priority=50\ngpgcheck=1\ngpgkey=https://repo.radeon.com/rocm/rocm.gpg.key\n\n"
      "[amdgpu]\nname=amdgpu\nbaseurl=https://repo.radeon.com/amdgpu/6.1/rhel/9.4/main/x86_64/\nenabled=0\n");
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries[0].uris.at(0), "https://repo.radeon.com/rocm/rhel9/6.2.4/main");
  EXPECT_EQ(entries[0].line, 1);
  EXPECT_FALSE(entries[1].enabled);
}

TEST(PackagesParse, RadeonUrls) {
  struct Case {
    std::string url;
    std::string kind;
    std::string release;  // "" = none
  };
  const std::vector<Case> cases = {
      {"https://repo.radeon.com/rocm/apt/6.2.4", "rocm", "6.2.4"},
      {"https://repo.radeon.com/rocm/apt/latest", "rocm", ""},
      {"https://repo.radeon.com/rocm/rhel9/6.2.4/main", "rocm", "6.2.4"},
      {"https://repo.radeon.com/amdgpu/6.2.4/rhel/9.4/main/x86_64/", "amdgpu", "6.2.4"},
      {"https://repo.radeon.com/amdgpu/30.10/ubuntu", "amdgpu", "30.10"},
      {"https://repo.radeon.com/rocm/zyp/6.2.4/main", "rocm", "6.2.4"},
  };
  for (const auto& test : cases) {
    const auto repo = packages::parse_radeon_url(test.url);
    ASSERT_TRUE(repo) << test.url;
    EXPECT_EQ(repo->kind, test.kind);
    EXPECT_EQ(repo->release.value_or(""), test.release) << test.url;
  }
  EXPECT_FALSE(packages::parse_radeon_url("http://archive.ubuntu.com/ubuntu"));
}

TEST(PackagesParse, DriverReleaseAndWindow) {
  EXPECT_EQ(packages::rocm_release_from_package_version("1:6.8.5.60204-2041575.22.04"), "6.2.4");
  EXPECT_EQ(packages::rocm_release_from_package_version("1:6.3.6.60000-1697589.22.04"), "6.0.0");
  EXPECT_EQ(packages::rocm_release_from_package_version("6.1.0-1"), std::nullopt);
  const auto& rules = amdgpu_driver::driver_rules();
  EXPECT_EQ(amdgpu_driver::rocm_release_of_driver(rules, "6.8.5"), "6.2");
  EXPECT_EQ(amdgpu_driver::rocm_release_of_driver(rules, "6.8.5-2009582.22.04"), "6.2");
  EXPECT_EQ(amdgpu_driver::rocm_release_of_driver(rules, "6.8.50"), std::nullopt);
  EXPECT_EQ(amdgpu_driver::rocm_release_of_driver(rules, "9.9.9"), std::nullopt);
  EXPECT_EQ(amdgpu_driver::rocm_release_of_driver(rules, "garbage"), std::nullopt);
  EXPECT_EQ(rules.year_window_since, "6.4");
  const std::vector<std::string> releases = {"5.6", "5.7", "6.0", "6.1", "6.2", "6.3", "6.4", "7.0", "7.1", "7.2"};
  using amdgpu_driver::Compatibility;
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "6.2", "6.2.4", releases), Compatibility::supported);
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "6.0", "6.3.1", releases), Compatibility::unsupported);
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "6.1", "6.4.0", releases), Compatibility::supported);
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "6.0", "6.4.0", releases), Compatibility::unsupported);
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "6.2", "7.0.1", releases), Compatibility::supported);
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "5.7", "6.2.4", releases), Compatibility::unsupported);
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "4.5", "4.3", releases), Compatibility::unknown);
}

// Issue 26: every driver the table knows, with its own release's user space (x.y.0 and a
// point release), is never skew; the 7.x drivers are compared as AMD GPU Driver lines.
TEST(PackagesParse, ADriverIsNeverSkewedAgainstItsOwnRelease) {
  const auto& rules = amdgpu_driver::driver_rules();
  std::vector<std::string> releases;
  for (const auto& row : kb::knowledge_base().releases()) releases.push_back(row.release);
  ASSERT_FALSE(rules.driver_versions.empty());
  using amdgpu_driver::Compatibility;
  for (const auto& row : rules.driver_versions) {
    const auto release = amdgpu_driver::rocm_release_of_driver(rules, row.key);
    ASSERT_TRUE(release) << row.key;
    for (const auto* point : {".0", ".1", ".4"}) {
      EXPECT_EQ(amdgpu_driver::judge_skew(rules, *release, *release + point, releases), Compatibility::supported)
          << "amdgpu " << row.key << " (ROCm " << *release << ") with ROCm " << *release << point;
    }
  }
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "7.1", "7.2.1", releases),
            Compatibility::supported);  // 30.20 in 7.2's row
  EXPECT_EQ(amdgpu_driver::judge_skew(rules, "7.2", "7.1.1", releases),
            Compatibility::unsupported);  // 30.30 not in 7.1's
}

SnapshotBuilder rocm_machine() {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.file("/opt/rocm-6.2.4/.info/version", "6.2.4-139\n").symlink("/opt/rocm", "/opt/rocm-6.2.4");
  return builder;
}

TEST(PackagesCheck, HealthyRepositoriesGiveNothing) {
  auto builder = rocm_machine();
  builder.file(
      "/etc/apt/sources.list.d/rocm.list",
      "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"packages"});
  EXPECT_EQ(find_finding(report, "rocm.repo-stale"), nullptr);
}

TEST(PackagesCheck, UnsignedEntryGetsTheKeyringForm) {
  auto builder = rocm_machine();
  builder.file("/etc/apt/sources.list.d/rocm.list",
               "deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"packages"});
  const auto* finding = find_finding(report, "rocm.repo-stale");
  ASSERT_NE(finding, nullptr);
  const auto& commands = finding->fixes.at(0).commands;
  EXPECT_EQ(commands.at(2),
            "echo 'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 jammy "
            "main' | sudo tee /etc/apt/sources.list.d/rocm.list");
}

TEST(PackagesCheck, ImageModeStillJudgesRepositories) {
  auto builder = rocm_machine();
  builder.file("/etc/apt/sources.list.d/rocm.list",
               "deb [signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.1 jammy main\n");
  builder.file("/sys/module/amdgpu/version", "6.3.6\n");
  auto host = builder.open();
  RunOptions options;
  options.image_mode = true;
  const auto report = run_on(*host, {"packages"}, options);
  EXPECT_NE(find_finding(report, "rocm.repo-stale"), nullptr);
  EXPECT_EQ(find_finding(report, "rocm.driver-skew"), nullptr);
}

}  // namespace
}  // namespace rocm_doctor
