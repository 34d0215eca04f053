// The python-site check: dist-info names and the pip commands for each kind of site.
#include "../../checks/python_site.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

TEST(PythonSiteParse, DistInfoNames) {
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(parse_dist_info_name("amdsmi-7.0.2.dist-info"), (P{"amdsmi", "7.0.2"}));
  EXPECT_EQ(parse_dist_info_name("amdsmi-24.6.2+9f8f.egg-info"), (P{"amdsmi", "24.6.2+9f8f"}));
  EXPECT_FALSE(parse_dist_info_name("amdsmi"));
  EXPECT_FALSE(parse_dist_info_name("amdsmi.dist-info"));
  EXPECT_FALSE(parse_dist_info_name("-1.0.dist-info"));
  EXPECT_FALSE(parse_dist_info_name("amdsmi-.dist-info"));
  EXPECT_FALSE(parse_dist_info_name("amdsmi-7.0.2.pth"));
}

SnapshotBuilder rocm_640() {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "24.04", "Ubuntu 24.04.1 LTS").kernel("6.8.0-49-generic");
  builder.file("/opt/rocm-6.4.0/.info/version", "6.4.0-47\n").symlink("/opt/rocm", "/opt/rocm-6.4.0");
  builder.identity("bob", 1001, 1001, {1001});
  builder.file("/etc/passwd", "bob:x:1001:1001::/home/bob o'neil:/bin/bash\n");
  return builder;
}

TEST(PythonSiteCheck, SystemSiteNeedsSudoAndNoUserFlag) {
  auto builder = rocm_640();
  builder.dir("/usr/local/lib/python3.11/dist-packages/amdsmi-6.2.0.dist-info");
  auto host = builder.open();
  const auto report = run_on(*host, {"python-site"});
  const auto* finding = find_finding(report, "python.rocm-package-mismatch");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo python3.11 -m pip uninstall -y amdsmi");
  EXPECT_EQ(finding->fixes.at(0).commands.at(1), "sudo python3.11 -m pip install amdsmi==6.4.0");
  EXPECT_TRUE(finding->fixes.at(0).needs_root);
}

TEST(PythonSiteCheck, OddVersionsAreNotJudged) {
  auto builder = rocm_640();
  builder.dir("/usr/local/lib/python3.11/dist-packages/amdsmi-garbage.dist-info");
  builder.dir("/usr/local/lib/python3.11/dist-packages/amdsmi-25.1.0.dist-info");
  builder.dir("/usr/local/lib/python3.11/dist-packages/amdsmi-6.4.2.dist-info");
  auto host = builder.open();
  const auto report = run_on(*host, {"python-site"});
  EXPECT_EQ(find_finding(report, "python.rocm-package-mismatch"), nullptr);
}

TEST(PythonSiteCheck, HomeWithAQuoteIsQuotedForTheVenv) {
  auto builder = rocm_640();
  builder.env("VIRTUAL_ENV", "/home/bob o'neil/venv");
  builder.dir("/home/bob o'neil/venv/lib/python3.12/site-packages/amdsmi-7.0.2.dist-info");
  auto host = builder.open();
  const auto report = run_on(*host, {"python-site"});
  const auto* finding = find_finding(report, "python.rocm-package-mismatch");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "'/home/bob o'\\''neil/venv/bin/python' -m pip uninstall -y amdsmi");
}

}  // namespace
}  // namespace rocm_doctor
