// The hip and probe checks, judged from recorded probe outcomes.
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

json loaded_library() {
  return {{"status", "loaded"},
          {"path", "/opt/rocm-6.2.0/lib/libamdhip64.so.6"},
          {"real_path", "/opt/rocm-6.2.0/lib/libamdhip64.so.6.2.41133"},
          {"soname", "libamdhip64.so.6"},
          {"attempts",
           json::array({{{"name", "libamdhip64.so.7"},
                         {"error", "libamdhip64.so.7: cannot open shared object file: No such file or directory"}},
                        {{"name", "libamdhip64.so.6"}, {"loaded", true}}})}};
}

json ok_outcome(json result) {
  return {{"status", "ok"}, {"elapsed_ms", 120}, {"exit_code", 0}, {"stderr_tail", ""}, {"result", std::move(result)}};
}

json two_gpus(bool smoke_ok = true) {
  json devices = json::array();
  devices.push_back(
      {{"index", 0}, {"name", "AMD Radeon RX 7900 XTX"}, {"gfx", "gfx1100"}, {"pci_bus_id", "0000:03:00.0"}});
  devices.push_back(
      {{"index", 1}, {"name", "AMD Radeon RX 7900 XTX"}, {"gfx", "gfx1100"}, {"pci_bus_id", "0000:43:00.0"}});
  if (!smoke_ok)
    devices[1]["smoke"] = {{"bytes", 67108864}, {"ok", false}, {"mismatched_bytes", 1}, {"first_mismatch", 4096}};
  return {{"library", loaded_library()},
          {"runtime_version", 60241133},
          {"runtime_version_text", "6.2.41133"},
          {"device_count", devices.size()},
          {"devices", devices}};
}

// A ROCm 6.2.0 install in /opt, as AMD's packages lay it out.
SnapshotBuilder rocm62() {
  SnapshotBuilder builder;
  builder.file("/opt/rocm-6.2.0/.info/version", "6.2.0-66\n")
      .file("/opt/rocm-6.2.0/lib/libamdhip64.so.6.2.41133", "")
      .symlink("/opt/rocm", "/opt/rocm-6.2.0")
      .identity("alice", 1000, 1000, {1000, 44, 109});
  return builder;
}

// KFD topology: a CPU node and `gpus` GPU nodes.
void kfd_nodes(SnapshotBuilder& builder, int gpus) {
  builder.file("/sys/class/kfd/kfd/topology/nodes/0/properties",
               "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n");
  for (int i = 1; i <= gpus; ++i) {
    builder.file("/sys/class/kfd/kfd/topology/nodes/" + std::to_string(i) + "/properties",
                 "cpu_cores_count 0\nsimd_count 192\ngfx_target_version 110000\n");
  }
}

TEST(HipCheck, HealthyMachineIsOk) {
  auto builder = rocm62();
  kfd_nodes(builder, 2);
  builder.probe("hip", ok_outcome(two_gpus()));
  const auto host = builder.open();
  const auto report = run_on(*host, {"hip", "probe"});
  for (const auto& finding : all_findings(report)) EXPECT_EQ(finding.severity, Severity::ok) << finding.id;
  const auto* ok = find_finding(report, "hip.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_NE(ok->summary.find("HIP 6.2.41133 sees 2 GPU(s)"), std::string::npos) << ok->summary;
  EXPECT_NE(ok->summary.find("(gfx1100)"), std::string::npos);
  EXPECT_NE(find_finding(report, "probe.ok"), nullptr);
}

TEST(HipCheck, MissingProbeResultIsUnknownNotFailure) {
  const auto host = rocm62().open();
  const auto report = run_on(*host, {"hip", "probe", "smi"});
  for (const auto& check : report.checks) EXPECT_EQ(check.status, CheckStatus::skipped) << check.id;
}

TEST(HipCheck, NotFoundListsWhatWasTried) {
  SnapshotBuilder builder;
  json library = {{"status", "not-found"},
                  {"attempts", json::array({{{"name", "libamdhip64.so.7"}, {"error", "x"}},
                                            {{"name", "libamdhip64.so.6"}, {"error", "y"}}})}};
  builder.probe("hip", ok_outcome({{"library", library}}));
  const auto host = builder.open();
  const auto report = run_on(*host, {"hip"});
  const auto* finding = find_finding(report, "hip.not-found");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_NE(finding->evidence.at(0).value.find("libamdhip64.so.6"), std::string::npos);
  // Still worth an error in an image build: the image needs the runtime.
  RunOptions image;
  image.image_mode = true;
  EXPECT_EQ(finding_in(run_on(*host, {"hip"}, image), "hip.not-found").value().severity, Severity::error);
}

TEST(HipCheck, LoadFailureCarriesTheDlerrorText) {
  SnapshotBuilder builder;
  const std::string error = "libamd_comgr.so.2: cannot open shared object file: No such file or directory";
  json library = {{"status", "load-failed"},
                  {"error", error},
                  {"attempts", json::array({{{"name", "/opt/rocm/lib/libamdhip64.so.6"}, {"error", error}}})}};
  builder.probe("hip", ok_outcome({{"library", library}}));
  const auto host = builder.open();
  const auto report = run_on(*host, {"hip"});
  const auto* finding = find_finding(report, "hip.load-failed");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->evidence.at(0).value, error);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands.at(0), "ldd /opt/rocm/lib/libamdhip64.so.6 | grep 'not found'");
}

json no_device_result() {
  auto result = two_gpus();
  result.erase("devices");
  result.erase("device_count");
  result["device_count_error"] = {{"call", "hipGetDeviceCount"}, {"code", 100}, {"name", "hipErrorNoDevice"}};
  return result;
}

TEST(HipCheck, NoDeviceSaysWhyFromTheMachinesFiles) {
  auto builder = rocm62();
  builder.file("/sys/module/amdgpu/version", "6.8.5\n");
  builder.node("/dev/kfd", Node{"char", "0660", 0, 109, false, ""});
  builder.env("HIP_VISIBLE_DEVICES", "-1");
  builder.identity("alice", 1000, 1000, {1000});  // not in render (109)
  builder.probe("hip", ok_outcome(no_device_result()));
  const auto host = builder.open();
  const auto finding = finding_in(run_on(*host, {"hip"}), "hip.no-device");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_NE(finding->detail.find("may not open /dev/kfd read-write"), std::string::npos) << finding->detail;
  EXPECT_NE(finding->detail.find("HIP_VISIBLE_DEVICES=-1"), std::string::npos) << finding->detail;
  EXPECT_EQ(finding->detail.find("amdgpu kernel module is not loaded"), std::string::npos);
}

TEST(HipCheck, NoDeviceWithoutDriverNamesTheMissingKfd) {
  auto builder = rocm62();
  builder.probe("hip", ok_outcome(no_device_result()));
  const auto host = builder.open();
  const auto finding = finding_in(run_on(*host, {"hip"}), "hip.no-device");
  ASSERT_TRUE(finding);
  EXPECT_NE(finding->detail.find("amdgpu kernel module is not loaded"), std::string::npos);
  EXPECT_NE(finding->detail.find("/dev/kfd does not exist"), std::string::npos);
  RunOptions image;
  image.image_mode = true;
  EXPECT_EQ(finding_in(run_on(*host, {"hip"}, image), "hip.no-device").value().severity, Severity::info);
}

TEST(HipCheck, OtherErrorsAreInitFailuresByName) {
  auto builder = rocm62();
  auto result = no_device_result();
  result["device_count_error"] = {{"call", "hipGetDeviceCount"}, {"code", 35}, {"name", "hipErrorInsufficientDriver"}};
  builder.probe("hip", ok_outcome(result));
  const auto host = builder.open();
  const auto finding = finding_in(run_on(*host, {"hip"}), "hip.init-failed");
  ASSERT_TRUE(finding);
  EXPECT_NE(finding->summary.find("hipErrorInsufficientDriver"), std::string::npos);
}

TEST(HipCheck, ADistroRuntimeShadowingRocmIsAVersionMismatch) {
  auto builder = rocm62();
  kfd_nodes(builder, 2);
  auto result = two_gpus();
  result["runtime_version_text"] = "5.7.31921";
  result["library"]["path"] = "/lib/x86_64-linux-gnu/libamdhip64.so.5";
  result["library"]["real_path"] = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.7.31921";
  builder.probe("hip", ok_outcome(result));
  const auto host = builder.open();
  const auto report = run_on(*host, {"hip"});
  const auto* finding = find_finding(report, "hip.version-mismatch");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::warning);
  EXPECT_NE(finding->summary.find("5.7.31921"), std::string::npos);
  EXPECT_NE(finding->summary.find("6.2.0"), std::string::npos);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands.at(0), "echo /opt/rocm-6.2.0/lib | sudo tee /etc/ld.so.conf.d/rocm.conf");
}

TEST(HipCheck, SameMajorMinorIsNoMismatch) {
  auto builder = rocm62();
  builder.probe("hip", ok_outcome(two_gpus()));
  const auto host = builder.open();
  EXPECT_FALSE(finding_in(run_on(*host, {"hip"}), "hip.version-mismatch"));
}

TEST(HipCheck, FewerHipDevicesThanKfdGpusIsADeviceMismatch) {
  auto builder = rocm62();
  kfd_nodes(builder, 2);
  builder.env("ROCR_VISIBLE_DEVICES", "0");
  auto result = two_gpus();
  result["device_count"] = 1;
  result["devices"].erase(1);
  builder.probe("hip", ok_outcome(result));
  const auto host = builder.open();
  const auto finding = finding_in(run_on(*host, {"hip"}), "hip.device-mismatch");
  ASSERT_TRUE(finding);
  EXPECT_NE(finding->summary.find("HIP sees 1 GPU(s) but the driver (KFD) lists 2"), std::string::npos)
      << finding->summary;
  ASSERT_FALSE(finding->fixes.empty());
  ASSERT_FALSE(finding->fixes[0].commands.empty());
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "unset ROCR_VISIBLE_DEVICES");
}

TEST(HipCheck, AFailedCopyIsASmokeFailure) {
  auto builder = rocm62();
  builder.probe("hip", ok_outcome(two_gpus(false)));
  const auto host = builder.open();
  const auto report = run_on(*host, {"hip"});
  const auto* finding = find_finding(report, "hip.smoke-failed");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_NE(finding->summary.find("GPU 1"), std::string::npos);
  EXPECT_EQ(find_finding(report, "hip.ok"), nullptr);
}

TEST(ProbeCheck, CrashAndTimeoutAreErrorsWithTheirEvidence) {
  SnapshotBuilder builder;
  builder.probe("hip", {{"status", "crashed"},
                        {"signal", 11},
                        {"signal_name", "SIGSEGV"},
                        {"elapsed_ms", 40},
                        {"last_step", "hipGetDeviceCount"},
                        {"stderr_tail", "rocm-doctor-probe: step hipGetDeviceCount\n\x1b[31mSegfault here\x1b[0m\n"}});
  builder.probe("smi", {{"status", "timeout"},
                        {"signal", 9},
                        {"elapsed_ms", 10001},
                        {"timeout_ms", 10000},
                        {"last_step", "rsmi_init"},
                        {"stderr_tail", ""}});
  const auto host = builder.open();
  const auto report = run_on(*host, {"probe", "hip", "smi"});
  const auto* crashed = find_finding(report, "probe.crashed");
  ASSERT_NE(crashed, nullptr);
  EXPECT_EQ(crashed->severity, Severity::error);
  EXPECT_EQ(crashed->summary, "The hip probe crashed with SIGSEGV in hipGetDeviceCount");
  bool cleaned = false;
  for (const auto& evidence : crashed->evidence) {
    EXPECT_EQ(evidence.value.find('\x1b'), std::string::npos) << "control characters reach the terminal";
    cleaned = cleaned || evidence.value == "[31mSegfault here[0m";
  }
  EXPECT_TRUE(cleaned);
  const auto* timeout = find_finding(report, "probe.timeout");
  ASSERT_NE(timeout, nullptr);
  EXPECT_EQ(timeout->summary, "The smi probe hung in rsmi_init and was killed after 10000 ms");
  for (const auto& check : report.checks) {
    if (check.id != "probe") {
      EXPECT_EQ(check.status, CheckStatus::skipped) << check.id;
    }
  }
}

TEST(ProbeCheck, InvalidOutputIsAWarning) {
  SnapshotBuilder builder;
  builder.probe("hip", {{"status", "invalid-output"}, {"exit_code", 0}, {"elapsed_ms", 5}, {"stdout_head", "garbage"}});
  const auto host = builder.open();
  const auto finding = finding_in(run_on(*host, {"probe"}), "probe.invalid-output");
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->severity, Severity::warning);
}

}  // namespace
}  // namespace rocm_doctor::testing
