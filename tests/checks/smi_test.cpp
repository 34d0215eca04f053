// The smi check, judged from recorded smi probe outcomes.
#include <gtest/gtest.h>

#include <optional>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

using nlohmann::json;

// A copy of a finding: the report it came from is often a temporary.
std::optional<Finding> finding_in(const Report& report, const std::string& id) {
  const auto* finding = find_finding(report, id);
  return finding != nullptr ? std::optional<Finding>(*finding) : std::nullopt;
}

json outcome(json result, std::string stderr_tail = "") {
  return {{"status", "ok"},
          {"elapsed_ms", 40},
          {"exit_code", 0},
          {"stderr_tail", std::move(stderr_tail)},
          {"result", std::move(result)}};
}

json library() {
  return {{"status", "loaded"}, {"path", "/opt/rocm/lib/librocm_smi64.so.1"}};
}

json healthy_gpu() {
  return {{"index", 0},
          {"name", "Navi 31 [Radeon RX 7900 XT/7900 XTX]"},
          {"pci_bus_id", "0000:03:00.0"},
          {"temperature",
           {{"edge", {{"current_mc", 41000}, {"critical_mc", 100000}}},
            {"junction", {{"current_mc", 48000}, {"critical_mc", 110000}}}}},
          {"ecc", {{"umc", {{"correctable", 0}, {"uncorrectable", 0}}}}},
          {"throttle_status", 0}};
}

json with_devices(std::vector<json> devices) {
  return {{"library", library()}, {"driver_version", "6.8.5"}, {"device_count", devices.size()}, {"devices", devices}};
}

Report run(const json& probe, RunOptions options = {}, bool amdgpu = true) {
  SnapshotBuilder builder;
  if (amdgpu) builder.file("/sys/module/amdgpu/version", "6.8.5\n");
  builder.probe("smi", probe);
  return run_on(*builder.open(), {"smi"}, options);
}

TEST(SmiCheck, HealthyGpuIsOk) {
  const auto report = run(outcome(with_devices({healthy_gpu()})));
  const auto findings = all_findings(report);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].id, "smi.ok");
  EXPECT_NE(findings[0].summary.find("driver 6.8.5"), std::string::npos);
}

TEST(SmiCheck, UncorrectableEccIsAnErrorCorrectableOnlyInfo) {
  auto gpu = healthy_gpu();
  gpu["ecc"]["umc"] = {{"correctable", 12}, {"uncorrectable", 2}};
  const auto finding = finding_in(run(outcome(with_devices({gpu}))), "smi.ecc-errors");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_NE(finding->summary.find("2 uncorrectable and 12 correctable"), std::string::npos);
  gpu["ecc"]["umc"] = {{"correctable", 3}, {"uncorrectable", 0}};
  EXPECT_EQ(finding_in(run(outcome(with_devices({gpu}))), "smi.ecc-errors").value().severity, Severity::info);
}

TEST(SmiCheck, HotJunctionIsOverheating) {
  auto gpu = healthy_gpu();
  gpu["temperature"]["junction"]["current_mc"] = 107000;
  const auto finding = finding_in(run(outcome(with_devices({gpu}))), "smi.overheating");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::warning);
  EXPECT_NE(finding->summary.find("junction 107 °C (limit 110 °C)"), std::string::npos) << finding->summary;
}

TEST(SmiCheck, WithoutACriticalLimitTheFallbackApplies) {
  auto gpu = healthy_gpu();
  gpu["temperature"] = {{"edge", {{"current_mc", 96000}}}};
  EXPECT_TRUE(finding_in(run(outcome(with_devices({gpu}))), "smi.overheating"));
  gpu["temperature"] = {{"edge", {{"current_mc", 80000}}}};
  EXPECT_FALSE(finding_in(run(outcome(with_devices({gpu}))), "smi.overheating"));
}

TEST(SmiCheck, NonZeroThrottleStatusIsThrottled) {
  auto gpu = healthy_gpu();
  gpu["throttle_status"] = 0x4;
  const auto finding = finding_in(run(outcome(with_devices({gpu}))), "smi.throttled");
  ASSERT_TRUE(finding);
  EXPECT_NE(finding->summary.find("0x4"), std::string::npos);
}

TEST(SmiCheck, InitFailureKeepsTheLibrarysStderrAsEvidence) {
  const json result = {
      {"library", library()},
      {"init_error", {{"call", "rsmi_init"}, {"code", 8}, {"text", "An error occurred during initialization"}}}};
  const std::string noise =
      "rocm-doctor-probe: step rsmi_init\nFailed to open drm root directory /sys/class/drm.: No such file or "
      "directory\n"
      "Exception caught: rsmi_init.\n";
  const auto report = run(outcome(result, noise));
  const auto* finding = find_finding(report, "smi.init-failed");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::warning);
  bool kept = false;
  for (const auto& evidence : finding->evidence) kept = kept || evidence.value == "Exception caught: rsmi_init.";
  EXPECT_TRUE(kept);
  // Without the driver it is only a consequence; in an image build it is skipped.
  EXPECT_EQ(finding_in(run(outcome(result, noise), {}, false), "smi.init-failed").value().severity, Severity::info);
  RunOptions image;
  image.image_mode = true;
  EXPECT_EQ(run(outcome(result, noise), image).checks.at(0).status, CheckStatus::skipped);
}

TEST(SmiCheck, MissingLibraryIsInfo) {
  const json result = {{"library", {{"status", "not-found"}, {"attempts", json::array()}}}};
  const auto finding = finding_in(run(outcome(result)), "smi.not-found");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::info);
}

}  // namespace
}  // namespace rocm_doctor::testing
