// The `tools` check: which ROCm command-line tools exist, on PATH or only in a
// release's bin folder, found from folder listings (no tool is read).
#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

std::string evidence_of(const Finding& finding, const std::string& source) {
  for (const auto& e : finding.evidence) {
    if (e.source == source) return e.value;
  }
  return "";
}

TEST(ToolsCheck, ToolsOnPathAreListedWithTheirPlace) {
  SnapshotBuilder b;
  b.env("PATH", "/usr/bin:/opt/rocm/bin").file("/opt/rocm/bin/rocminfo", "").file("/usr/bin/clinfo", "");
  const auto report = run_on(*b.open(), {"tools"});
  const auto* finding = find_finding(report, "tools.installed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_EQ(evidence_of(*finding, "rocminfo"), "/opt/rocm/bin/rocminfo");
  EXPECT_EQ(evidence_of(*finding, "clinfo"), "/usr/bin/clinfo");
  EXPECT_NE(finding->detail.find("Not installed:"), std::string::npos) << finding->detail;
  EXPECT_EQ(finding->detail.find("rocminfo,"), std::string::npos) << "rocminfo is installed: " << finding->detail;
}

TEST(ToolsCheck, AToolOnlyInOptRocmIsMarkedNotOnPath) {
  SnapshotBuilder b;
  b.env("PATH", "/usr/bin:/bin").file("/opt/rocm/bin/amd-smi", "");
  const auto report = run_on(*b.open(), {"tools"});
  const auto* finding = find_finding(report, "tools.installed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(evidence_of(*finding, "amd-smi"), "/opt/rocm/bin/amd-smi (not on PATH)");
}

TEST(ToolsCheck, RelativePathEntriesAreNotSearched) {
  SnapshotBuilder b;
  b.env("PATH", "bin:.").file("/bin/rocminfo", "");
  const auto report = run_on(*b.open(), {"tools"});
  EXPECT_NE(find_finding(report, "tools.none"), nullptr);
}

TEST(ToolsCheck, AFolderNamedLikeAToolIsNotATool) {
  SnapshotBuilder b;
  b.env("PATH", "/usr/bin").dir("/usr/bin/rocminfo");
  const auto report = run_on(*b.open(), {"tools"});
  EXPECT_NE(find_finding(report, "tools.none"), nullptr);
}

TEST(ToolsCheck, NoToolIsAnInfoNamingWhereItLooked) {
  SnapshotBuilder b;
  b.env("PATH", "/usr/bin:/bin");
  const auto report = run_on(*b.open(), {"tools"});
  const auto* finding = find_finding(report, "tools.none");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_EQ(evidence_of(*finding, "searched"), "/usr/bin:/bin and /opt/rocm/bin");
}

}  // namespace
}  // namespace rocm_doctor::testing
