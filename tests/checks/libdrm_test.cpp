// The libdrm check: AMD's libdrm without its amdgpu.ids, and the fix with or without the
// distribution's copy.
#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

SnapshotBuilder amd_libdrm() {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "24.04", "Ubuntu 24.04.1 LTS").kernel("6.8.0-49-generic");
  builder.file("/opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1", "");
  return builder;
}

TEST(LibdrmCheck, MissingTableWithoutADistributionCopyNamesThePackage) {
  auto builder = amd_libdrm();
  auto host = builder.open();
  const auto report = run_on(*host, {"libdrm"});
  const auto* finding = find_finding(report, "libdrm.ids-missing");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "dpkg -S /opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1");
}

TEST(LibdrmCheck, DanglingLinkIsNamedAndRelinked) {
  auto builder = amd_libdrm();
  builder.symlink("/opt/amdgpu/share/libdrm/amdgpu.ids", "/nonexistent/amdgpu.ids");
  builder.file("/usr/share/libdrm/amdgpu.ids", "1.0.0\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"libdrm"});
  const auto* finding = find_finding(report, "libdrm.ids-missing");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->summary.find("/nonexistent/amdgpu.ids"), std::string::npos);
  EXPECT_EQ(finding->fixes.at(0).commands.at(1),
            "sudo ln -sfn /usr/share/libdrm/amdgpu.ids /opt/amdgpu/share/libdrm/amdgpu.ids");
}

TEST(LibdrmCheck, NoAmdLibdrmNoJudgement) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "24.04", "Ubuntu 24.04.1 LTS");
  auto host = builder.open();
  const auto report = run_on(*host, {"libdrm"});
  EXPECT_EQ(find_finding(report, "libdrm.ids-missing"), nullptr);
}

}  // namespace
}  // namespace rocm_doctor
