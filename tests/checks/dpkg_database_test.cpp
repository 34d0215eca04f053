#include "rocm_doctor/facts/dpkg_database.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

TEST(DpkgStatus, StanzasFieldsAndLines) {
  const auto list = parse_dpkg_status(
      "Package: rocm-hip-runtime\nStatus: install ok half-configured\nPriority: optional\nVersion: "
      "6.2.4.60204-139~22.04\n"
      "Description: ROCm HIP runtime\n multi-line description\n\n"
      "Package: amdgpu-dkms\nStatus: install reinstreq half-installed\nVersion: 1:6.8.5.60204-2041575.22.04\n");
  ASSERT_EQ(list.size(), 2U);
  EXPECT_EQ(list[0].name, "rocm-hip-runtime");
  EXPECT_EQ(list[0].want, "install");
  EXPECT_EQ(list[0].state, "half-configured");
  EXPECT_EQ(list[0].version, "6.2.4.60204-139~22.04");
  EXPECT_EQ(list[0].line, 1);
  EXPECT_EQ(list[1].flag, "reinstreq");
  EXPECT_EQ(list[1].line, 8);
}

TEST(DpkgStatus, MalformedLinesAreSkippedNotFatal) {
  const auto list = parse_dpkg_status("no colon here\n\n\nPackage: a\nStatus: install ok\nVersion:\n\n\n");
  ASSERT_EQ(list.size(), 1U);
  EXPECT_EQ(list[0].name, "a");
  EXPECT_EQ(list[0].state, "");  // a two-word Status is not understood
  EXPECT_TRUE(parse_dpkg_status("").empty());
}

TEST(DpkgDatabase, InstalledVersionIgnoresRemovedAndHalfInstalledStanzas) {
  DpkgDatabase database;
  database.packages = parse_dpkg_status(
      "Package: libamdhip64-5\nStatus: deinstall ok config-files\nVersion: 5.2.3-3\n\n"
      "Package: libamdhip64-5\nStatus: install ok installed\nArchitecture: amd64\nVersion: 5.2.3-8\n"
      "Description: Heterogeneous Interface for Portability\n This package is central\n\n"
      "Package: libhsakmt1\nStatus: install ok installed\nVersion: 5.2.3+dfsg-1\n\n"
      "Package: amdgpu-dkms\nStatus: install reinstreq half-installed\nVersion: 1:6.8.5\n");
  EXPECT_EQ(database.installed_version("libamdhip64-5"), "5.2.3-8");
  EXPECT_EQ(database.installed_version("libhsakmt1"), "5.2.3+dfsg-1");
  EXPECT_EQ(database.installed_version("amdgpu-dkms"), std::nullopt);
  EXPECT_EQ(database.installed_version("rocminfo"), std::nullopt);
}

TEST(DpkgDatabase, CollectedOnceFromTheHost) {
  testing::SnapshotBuilder builder;
  builder.file("/var/lib/dpkg/status", "Package: rocminfo\nStatus: install ok installed\nVersion: 5.2.3-3\n");
  auto host = builder.open();
  const RunOptions options;
  const CheckContext ctx(*host, options);
  const auto& database = ctx.fact<DpkgDatabase>();
  EXPECT_EQ(database.installed_version("rocminfo"), "5.2.3-3");
  EXPECT_EQ(&ctx.fact<DpkgDatabase>(), &database);
}

TEST(DpkgDatabase, NoDpkgMeansNoPackages) {
  testing::SnapshotBuilder builder;
  auto host = builder.open();
  const RunOptions options;
  const CheckContext ctx(*host, options);
  EXPECT_TRUE(ctx.fact<DpkgDatabase>().packages.empty());
}

}  // namespace
}  // namespace rocm_doctor
