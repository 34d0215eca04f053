// The opencl check: ICD files, how they resolve, and the findings.
#include "../../checks/opencl.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

TEST(OpenclParse, IcdFiles) {
  EXPECT_EQ(opencl::parse_icd("libamdocl64.so\n"), "libamdocl64.so");
  EXPECT_EQ(opencl::parse_icd("\n  /opt/rocm-6.2.4/lib/libamdocl64.so  \n"), "/opt/rocm-6.2.4/lib/libamdocl64.so");
  EXPECT_FALSE(opencl::parse_icd(""));
  EXPECT_FALSE(opencl::parse_icd("\n\n"));
  EXPECT_FALSE(opencl::parse_icd("lib one.so\n"));
  EXPECT_FALSE(
      opencl::parse_icd(std::string("\x7f"
                                    "ELF\x02\x01",
                                    6)));
}

TEST(OpenclParse, Implementations) {
  ASSERT_NE(opencl::classify("/opt/rocm-6.2.4/lib/libamdocl64.so"), nullptr);
  EXPECT_TRUE(opencl::classify("libamdocl64.so")->rocm);
  EXPECT_EQ(opencl::classify("libRusticlOpenCL.so.1")->name, "Mesa rusticl");
  EXPECT_EQ(opencl::classify("libMesaOpenCL.so.1")->drives_amd, "always");
  EXPECT_NE(opencl::classify("libamdocl64.so.bak-old"), nullptr);  // a versioned name: "<library>." prefix
  EXPECT_EQ(opencl::classify("libamdocl64x.so"), nullptr);
  EXPECT_TRUE(opencl::rusticl_enables_radeonsi("iris, radeonsi"));
  EXPECT_TRUE(opencl::rusticl_enables_radeonsi("radeonsi:0"));
  EXPECT_FALSE(opencl::rusticl_enables_radeonsi("iris,llvmpipe"));
  EXPECT_FALSE(opencl::rusticl_enables_radeonsi(""));
}

SnapshotBuilder rocm_with_opencl() {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "24.04", "Ubuntu 24.04.1 LTS").kernel("6.8.0-49-generic");
  builder.file("/opt/rocm-6.2.4/.info/version", "6.2.4-120\n").symlink("/opt/rocm", "/opt/rocm-6.2.4");
  builder.file("/opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204", "");
  builder.file("/opt/rocm-6.2.4/lib/libamdocl64.so", "");
  builder.file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  builder.file("/etc/ld.so.conf.d/10-rocm-opencl.conf", "/opt/rocm-6.2.4/lib\n");
  return builder;
}

TEST(OpenclCheck, BareNameResolvesThroughLdSoConf) {
  auto builder = rocm_with_opencl();
  builder.file("/etc/OpenCL/vendors/amdocl64.icd", "libamdocl64.so\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"opencl"});
  EXPECT_NE(find_finding(report, "opencl.icds"), nullptr);
  EXPECT_EQ(find_finding(report, "opencl.icd-unresolved"), nullptr);
  EXPECT_EQ(find_finding(report, "opencl.no-amd-icd"), nullptr);
}

TEST(OpenclCheck, JunkIcdIsUnresolvedAndTheRuntimeUnregistered) {
  auto builder = rocm_with_opencl();
  builder.file("/etc/OpenCL/vendors/broken.icd", std::string("\x00\x01\x02", 3));
  auto host = builder.open();
  const auto report = run_on(*host, {"opencl"});
  const auto* unresolved = find_finding(report, "opencl.icd-unresolved");
  ASSERT_NE(unresolved, nullptr);
  EXPECT_EQ(unresolved->fixes.at(0).commands.at(0), "dpkg -S /etc/OpenCL/vendors/broken.icd");
  const auto* missing = find_finding(report, "opencl.no-amd-icd");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->fixes.at(0).commands.at(0),
            "echo /opt/rocm-6.2.4/lib/libamdocl64.so | sudo tee /etc/OpenCL/vendors/amdocl64.icd");
}

TEST(OpenclCheck, VendorFolderFromTheEnvironmentIsQuoted) {
  auto builder = rocm_with_opencl();
  builder.env("OCL_ICD_VENDORS", "/home/alice/my icds");
  builder.file("/home/alice/my icds/amdocl64.icd", "/opt/rocm-5.7.1/lib/libamdocl64.so\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"opencl"});
  const auto* unresolved = find_finding(report, "opencl.icd-unresolved");
  ASSERT_NE(unresolved, nullptr);
  EXPECT_EQ(unresolved->fixes.at(0).commands.at(0),
            "echo /opt/rocm-6.2.4/lib/libamdocl64.so | sudo tee '/home/alice/my icds/amdocl64.icd'");
}

TEST(OpenclCheck, SkippedWithoutOpenclAtAll) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "24.04", "Ubuntu 24.04.1 LTS").kernel("6.8.0-49-generic");
  auto host = builder.open();
  const auto report = run_on(*host, {"opencl"});
  EXPECT_EQ(find_finding(report, "opencl.icds"), nullptr);
}

}  // namespace
}  // namespace rocm_doctor
