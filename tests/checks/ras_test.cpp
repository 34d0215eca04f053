// The `ras` check: amdgpu's RAS sysfs files (formats from amdgpu_ras.c and ROCm/amdsmi's fixtures)
// and the bad-page threshold.
#include "../../checks/ras.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

TEST(RasParse, ErrorCounts) {
  const auto old_kernel = ras::parse_error_count("ue: 5\nce: 3\n");
  ASSERT_TRUE(old_kernel);
  EXPECT_EQ(old_kernel->ue, 5U);
  EXPECT_EQ(old_kernel->ce, 3U);
  EXPECT_FALSE(old_kernel->de);
  const auto new_kernel = ras::parse_error_count("ue: 0\nce: 12\nde: 1\n");
  ASSERT_TRUE(new_kernel);
  EXPECT_EQ(new_kernel->de, 1U);
  EXPECT_FALSE(ras::parse_error_count("ue: 0\n"));
  EXPECT_FALSE(ras::parse_error_count("ue: x\nce: 1\n"));
  EXPECT_FALSE(ras::parse_error_count(""));
}

TEST(RasParse, FeatureMaskBadPagesAndAer) {
  EXPECT_EQ(ras::parse_feature_mask("feature mask: 0x1abf877\n"), 0x1abf877U);
  EXPECT_EQ(ras::parse_feature_mask("feature mask: 0x0\n"), 0U);
  EXPECT_FALSE(ras::parse_feature_mask("feature mask:\n"));
  EXPECT_FALSE(ras::parse_feature_mask("feature mask: garbage\n"));
  const auto pages = ras::parse_bad_pages(
      "0x027f5d43 : 0x00001000 : R\n0x027f5d4b : 0x00001000 : P\n0x027f5d53 : 0x00001000 : F\nnonsense\n\n");
  EXPECT_EQ(pages.total(), 3U);
  EXPECT_EQ(pages.reserved, 1U);
  EXPECT_EQ(pages.malformed, 1U);
  const auto aer = ras::parse_aer_counters("RxErr 0\nBadTLP 4\nTOTAL_ERR_COR 4\n");
  ASSERT_TRUE(aer);
  EXPECT_EQ(aer->at("TOTAL_ERR_COR"), 4U);
  EXPECT_FALSE(ras::parse_aer_counters("not counters\n"));
}

TEST(RasParse, PageThreshold) {
  EXPECT_EQ(ras::page_threshold("200", 128).pages, 200U);
  EXPECT_EQ(ras::page_threshold("-1", 128).pages, 128U);
  EXPECT_EQ(ras::page_threshold("-2", 128).pages, 128U);
  EXPECT_FALSE(ras::page_threshold("0", 128).pages);
  EXPECT_EQ(ras::page_threshold(std::nullopt, 128).pages, 128U);
  EXPECT_EQ(ras::page_threshold("many", 128).pages, 128U);
  EXPECT_NE(ras::page_threshold("many", 128).because.find("not a number"), std::string::npos);
}

SnapshotBuilder mi300x(const std::string& umc, const std::string& bad_pages = "") {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.pci_device("0000:c1:00.0", "0x1002", "0x74a1", "0x120000", "amdgpu");
  const std::string ras = "/sys/devices/pci0000:00/0000:00:01.1/0000:c1:00.0/ras/";
  builder.file(ras + "features", "feature mask: 0x1abf877\n");
  builder.file(ras + "umc_err_count", umc);
  builder.file(ras + "gfx_err_count", "ue: 0\nce: 0\nde: 0\n");
  builder.file(ras + "gpu_vram_bad_pages", bad_pages);
  return builder;
}

TEST(RasCheck, CleanCountersAreOneOkFinding) {
  auto builder = mi300x("ue: 0\nce: 0\nde: 0\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"ras"});
  ASSERT_EQ(report.checks.at(0).findings.size(), 1U);
  const auto& counters = report.checks[0].findings[0];
  EXPECT_EQ(counters.id, "ras.counters");
  EXPECT_EQ(counters.severity, Severity::ok);
  EXPECT_EQ(counters.evidence.at(1).source, "/sys/bus/pci/devices/0000:c1:00.0/ras/gfx_err_count");
  EXPECT_EQ(counters.evidence.at(1).value, "ue 0, ce 0, de 0");
}

TEST(RasCheck, UncorrectableIsAnErrorNamingGpuAndBlock) {
  auto builder = mi300x("ue: 2\nce: 14\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"ras"});
  const auto* ue = find_finding(report, "ras.uncorrectable");
  ASSERT_NE(ue, nullptr);
  EXPECT_EQ(ue->severity, Severity::error);
  EXPECT_EQ(ue->summary, "Uncorrectable RAS errors on 0000:c1:00.0: umc 2");
  ASSERT_EQ(ue->fixes.size(), 1U);
  EXPECT_NE(ue->fixes[0].description.find("RMA"), std::string::npos);
  const auto* ce = find_finding(report, "ras.correctable");
  ASSERT_NE(ce, nullptr);
  EXPECT_EQ(ce->severity, Severity::warning);
}

TEST(RasCheck, RetiredPagesAgainstTheThreshold) {
  std::string pages;
  for (int page = 0; page < 120; ++page) pages += "0x027f5d43 : 0x00001000 : R\n";
  auto builder = mi300x("ue: 0\nce: 0\n", pages);
  builder.file("/sys/module/amdgpu/parameters/bad_page_threshold", "-1\n");
  {
    auto host = builder.open();
    const auto report = run_on(*host, {"ras"});
    const auto* near = find_finding(report, "ras.bad-pages");  // 120 of the fallback 128: over 90%
    ASSERT_NE(near, nullptr);
    EXPECT_EQ(near->severity, Severity::warning);
    EXPECT_EQ(find_finding(report, "ras.bad-page-threshold"), nullptr);
  }
  builder.file("/sys/module/amdgpu/parameters/bad_page_threshold", "100\n");
  {
    auto host = builder.open();
    const auto report = run_on(*host, {"ras"});
    const auto* reached = find_finding(report, "ras.bad-page-threshold");
    ASSERT_NE(reached, nullptr);
    EXPECT_EQ(reached->severity, Severity::error);
    EXPECT_EQ(reached->evidence.at(1).value, "amdgpu.bad_page_threshold=100");
  }
  builder.file("/sys/module/amdgpu/parameters/bad_page_threshold", "0\n");
  {
    auto host = builder.open();
    const auto report = run_on(*host, {"ras"});  // retirement off: nothing to judge against
    EXPECT_EQ(find_finding(report, "ras.bad-page-threshold"), nullptr);
    EXPECT_EQ(find_finding(report, "ras.bad-pages"), nullptr);
  }
}

TEST(RasCheck, MalformedFilesAreInfoNotACrash) {
  auto builder = mi300x("garbage\n", "not a page line\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"ras"});
  const auto* counters = find_finding(report, "ras.counters");
  ASSERT_NE(counters, nullptr);
  EXPECT_EQ(counters->severity, Severity::info);
  EXPECT_EQ(find_finding(report, "ras.uncorrectable"), nullptr);
}

TEST(RasCheck, SkipsWithoutRasFolders) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.pci_device("0000:03:00.0", "0x1002", "0x744c", "0x030000", "amdgpu");
  auto host = builder.open();
  const auto report = run_on(*host, {"ras"});
  EXPECT_EQ(report.checks.at(0).status, CheckStatus::skipped);
}

}  // namespace
}  // namespace rocm_doctor
