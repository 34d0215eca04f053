// The render-nodes check on the two snapshots of a container given one of
// the host's two GPUs (ollama/ollama#5766): an index chosen on the host that
// selects nothing inside is an error naming the index ROCm gives the GPU there.
#include <gtest/gtest.h>

#include "host/snapshot_host.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

Report replay(const std::string& scenario) {
  auto host = SnapshotHost::open(std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/" + scenario);
  EXPECT_TRUE(host) << (host ? "" : host.error());
  return run_on(**host, {"render-nodes"});
}

TEST(RenderNodesCheck, AHostIndexPastTheContainersGpusIsAnError) {
  const auto report = replay("container-one-of-two-gpus-visible-index");
  const auto* subset = find_finding(report, "container.gpus-subset");
  ASSERT_NE(subset, nullptr);
  EXPECT_EQ(subset->severity, Severity::info);
  const auto* index = find_finding(report, "container.visible-index-out-of-range");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->severity, Severity::error);
  EXPECT_NE(index->summary.find("HIP_VISIBLE_DEVICES"), std::string::npos) << index->summary;
}

TEST(RenderNodesCheck, TheSameContainerWithIndexZeroIsOnlyToldWhatItHas) {
  const auto report = replay("container-one-of-two-gpus-healthy");
  EXPECT_EQ(find_finding(report, "container.visible-index-out-of-range"), nullptr);
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) EXPECT_LT(finding.severity, Severity::warning) << finding.id;
  }
}

}  // namespace
}  // namespace rocm_doctor::testing
