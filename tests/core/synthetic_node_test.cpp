// Correctness at scale: a healthy synthetic node with 64 GPUs (and a large
// group file) replays with every GPU found and no false warning.
#include "support/synthetic_node.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

void expect_healthy_with_gpus(int gpus, int groups) {
  TempDir dir;
  const auto folder = dir.path() / "node";
  const auto written = write_synthetic_node(folder, gpus, groups);
  ASSERT_TRUE(written) << written.error();
  auto host = SnapshotHost::open(folder);
  ASSERT_TRUE(host) << host.error();
  const auto report = run_on(**host);
  ASSERT_TRUE(report.sections.contains("gpus"));
  EXPECT_EQ(report.sections.at("gpus").size(), static_cast<std::size_t>(gpus));
  for (const auto& check : report.checks) {
    EXPECT_NE(check.status, CheckStatus::internal_error) << check.id << ": " << check.internal_error;
  }
  for (const auto& finding : all_findings(report)) {
    EXPECT_LT(finding.severity, Severity::warning) << finding.id << ": " << finding.summary;
  }
  // Every GPU reaches the checks that count them.
  const auto* hip = find_finding(report, "hip.ok");
  ASSERT_NE(hip, nullptr);
  EXPECT_NE(hip->summary.find(std::to_string(gpus) + " GPU(s)"), std::string::npos) << hip->summary;
  const auto* smi = find_finding(report, "smi.ok");
  ASSERT_NE(smi, nullptr);
  EXPECT_NE(smi->summary.find(std::to_string(gpus) + " GPU(s)"), std::string::npos) << smi->summary;
  if (gpus > 1) {
    EXPECT_NE(find_finding(report, "topology.xgmi"), nullptr);
  }
}

TEST(SyntheticNode, OneGpuIsHealthy) {
  expect_healthy_with_gpus(1, 0);
}

TEST(SyntheticNode, SixtyFourGpusAndTwoThousandGroupsAreHealthy) {
  expect_healthy_with_gpus(64, 2000);
}

}  // namespace
}  // namespace rocm_doctor::testing
