// The `probe` check: what the isolated runtime probes' own outcomes say (crash,
// hang, unreadable output, could not start), from recorded probe results.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

using nlohmann::json;

Report run_with(const std::string& probe, const json& outcome) {
  SnapshotBuilder b;
  b.probe(probe, outcome);
  return run_on(*b.open(), {"probe"});
}

bool has_evidence(const Finding& finding, const std::string& source, const std::string& value) {
  for (const auto& e : finding.evidence) {
    if (e.source == source && e.value == value) return true;
  }
  return false;
}

TEST(ProbeCheck, ACrashNamesTheSignalAndTheStep) {
  const auto report = run_with(
      "hip", {{"status", "crashed"}, {"signal_name", "SIGSEGV"}, {"last_step", "hipInit"}, {"elapsed_ms", 12}});
  const auto* finding = find_finding(report, "probe.crashed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_EQ(finding->summary, "The hip probe crashed with SIGSEGV in hipInit");
  EXPECT_TRUE(has_evidence(*finding, "probe hip signal", "SIGSEGV"));
  ASSERT_EQ(finding->fixes.size(), 1U);
  EXPECT_EQ(finding->fixes[0].commands.at(0), "rocminfo");
  EXPECT_EQ(finding->fixes[0].verify, "rocm-doctor --only probe");
}

TEST(ProbeCheck, AnExitWithoutResultIsACrashWithItsCode) {
  const auto report = run_with("smi", {{"status", "crashed"}, {"exit_code", 3}});
  const auto* finding = find_finding(report, "probe.crashed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->summary, "The smi probe exited with code 3 without a result");
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "rocm-smi");
}

TEST(ProbeCheck, AHangSaysTheTimeLimit) {
  const auto report = run_with("hip", {{"status", "timeout"}, {"timeout_ms", 5000}, {"elapsed_ms", 5003}});
  const auto* finding = find_finding(report, "probe.timeout");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_EQ(finding->summary, "The hip probe hung and was killed after 5000 ms");
}

TEST(ProbeCheck, UnreadableOutputIsAWarningWithTheOutput) {
  const auto report = run_with("hip", {{"status", "invalid-output"}, {"stdout_head", "hello"}});
  const auto* finding = find_finding(report, "probe.invalid-output");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  EXPECT_TRUE(has_evidence(*finding, "probe hip stdout", "hello"));
}

TEST(ProbeCheck, AProbeThatCouldNotStartIsAWarning) {
  const auto report = run_with("smi", {{"status", "exec-failed"}, {"error", "execve: Permission denied"}});
  const auto* finding = find_finding(report, "probe.exec-failed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  EXPECT_TRUE(has_evidence(*finding, "probe smi", "execve: Permission denied"));
}

TEST(ProbeCheck, FinishedProbesAreOkWithTheirTimes) {
  const auto report = run_with("hip", {{"status", "ok"}, {"elapsed_ms", 81}, {"result", json::object()}});
  const auto* finding = find_finding(report, "probe.ok");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->summary, "Runtime probes finished: hip 81 ms");
}

TEST(ProbeCheck, NoProbeResultSkipsTheCheck) {
  SnapshotBuilder b;
  const auto report = run_on(*b.open(), {"probe"});
  const auto check =
      std::find_if(report.checks.begin(), report.checks.end(), [](const CheckResult& c) { return c.id == "probe"; });
  ASSERT_NE(check, report.checks.end());
  EXPECT_EQ(check->status, CheckStatus::skipped);
  EXPECT_NE(check->skipped_reason.find("no runtime probe ran"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor::testing
