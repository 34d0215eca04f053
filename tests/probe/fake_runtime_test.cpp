// End to end: the built doctor, with a fake HIP runtime first on
// LD_LIBRARY_PATH, must finish with the right findings however the runtime
// misbehaves, and within the probe timeout plus one second.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "host/live_host.h"
#include "probe/doctor_process.h"
#include "probe/probe_runner.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

using namespace std::chrono_literals;

// Under ASan the probe's 64 MiB smoke copy alone takes about a second per GPU.
#ifdef ROCM_DOCTOR_SANITIZED
constexpr auto kProbeTimeout = 12s;
#else
constexpr auto kProbeTimeout = 3s;
#endif

// At --level full by default: the fake runtime stands in for a GPU this machine lacks,
// and at standard the doctor loads no runtime where no GPU driver is (docs/performance.md).
DoctorRun run_fake(const std::string& behaviour, std::vector<std::string> extra = {}) {
  std::vector<std::string> arguments = {"--json", "--only", "probe,hip", "--probe-timeout",
                                        std::to_string(kProbeTimeout.count())};
  if (std::find(extra.begin(), extra.end(), "--level") == extra.end()) extra.insert(extra.begin(), {"--level", "full"});
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  auto run = run_doctor(
      arguments, {std::string("LD_LIBRARY_PATH=") + ROCM_DOCTOR_FAKE_RUNTIME_DIR, "ROCM_DOCTOR_FAKE_HIP=" + behaviour});
  // A correctness bound, not a benchmark: no probe may hold the run past its timeout.
  EXPECT_LT(run.wall, kProbeTimeout + 1s) << behaviour;
  EXPECT_TRUE(run.report.is_object()) << run.process.out << run.process.err_tail;
  return run;
}

std::string summary(const DoctorRun& run, const std::string& id) {
  const auto* finding = find_json_finding(run.report, id);
  return finding != nullptr ? finding->value("summary", "") : "<no " + id + ">";
}

bool has(const DoctorRun& run, const std::string& id, const std::string& severity) {
  for (const auto& [found, level] : finding_ids(run.report)) {
    if (found == id && level == severity) return true;
  }
  return false;
}

TEST(FakeRuntime, TwoGpusAreReportedWithTheirGfxNames) {
  const auto run = run_fake("two-gpus");
  EXPECT_TRUE(has(run, "probe.ok", "ok"));
  EXPECT_TRUE(has(run, "hip.ok", "ok")) << run.process.out;
  EXPECT_FALSE(has(run, "hip.smoke-failed", "error"));
  const auto text = summary(run, "hip.ok");
  EXPECT_NE(text.find("6.2.41133"), std::string::npos) << text;
  EXPECT_NE(text.find("2 GPU(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("AMD Radeon RX 7900 XTX (gfx1100)"), std::string::npos) << text;
  EXPECT_NE(text.find("(gfx90a)"), std::string::npos) << text;
}

TEST(FakeRuntime, AFailingCopyIsASmokeFailureAtLevelFull) {
  const auto run = run_fake("smoke-fail");
  EXPECT_TRUE(has(run, "hip.smoke-failed", "error")) << run.process.out;
  EXPECT_FALSE(has(run, "hip.ok", "ok"));
  EXPECT_EQ(run.process.exit_code, 1);
}

TEST(FakeRuntime, LevelStandardLoadsNoRuntimeWithoutAGpuDriver) {
  if (probe::has_gpu_driver_interface(LiveHost(ProbeLookup{}))) GTEST_SKIP() << "this machine has a GPU driver";
  const auto run = run_fake("segv", {"--level", "standard"});
  EXPECT_EQ(check_status(run.report, "hip"), "skipped");
  EXPECT_EQ(check_status(run.report, "probe"), "skipped");
  EXPECT_EQ(run.process.exit_code, 0);
}

TEST(FakeRuntime, LevelStandardLoadsTheRuntimeForAnImage) {
  const auto run = run_fake("smoke-fail", {"--level", "standard", "--image"});
  EXPECT_TRUE(has(run, "hip.ok", "ok")) << run.process.out;
  EXPECT_FALSE(has(run, "hip.smoke-failed", "error"));  // the copy test is for --level full
}

TEST(FakeRuntime, ASegfaultInHipGetDeviceCountIsAProbeCrash) {
  const auto run = run_fake("segv");
  EXPECT_TRUE(has(run, "probe.crashed", "error")) << run.process.out;
  const auto text = summary(run, "probe.crashed");
  EXPECT_NE(text.find("SIGSEGV"), std::string::npos) << text;
  EXPECT_NE(text.find("hipGetDeviceCount"), std::string::npos) << text;
  EXPECT_EQ(check_status(run.report, "hip"), "skipped");
  EXPECT_EQ(run.process.exit_code, 1);
}

TEST(FakeRuntime, AHangIsKilledAtTheTimeout) {
  const auto run = run_fake("hang");
  EXPECT_TRUE(has(run, "probe.timeout", "error")) << run.process.out;
  EXPECT_NE(summary(run, "probe.timeout").find("hipGetDeviceCount"), std::string::npos);
  EXPECT_GE(run.wall, kProbeTimeout);
  EXPECT_EQ(check_status(run.report, "hip"), "skipped");
}

TEST(FakeRuntime, AMegabyteOfStderrNeitherBlocksNorReachesTheTerminal) {
  const auto run = run_fake("noisy");
  EXPECT_TRUE(has(run, "hip.ok", "ok")) << run.process.out;
  // The doctor's own stderr stays clean: the noise is evidence in the report only.
  EXPECT_LT(run.process.err_bytes, 4096U) << run.process.err_tail.substr(0, 200);
}

TEST(FakeRuntime, OtherErrorCodesAreNamed) {
  const auto run = run_fake("not-initialized");
  EXPECT_TRUE(has(run, "hip.init-failed", "error")) << run.process.out;
  EXPECT_NE(summary(run, "hip.init-failed").find("hipErrorNotInitialized"), std::string::npos);
}

TEST(FakeRuntime, NoDeviceInAnImageBuildIsOnlyInfo) {
  const auto run = run_fake("no-device", {"--image"});
  EXPECT_TRUE(has(run, "hip.no-device", "info")) << run.process.out;
}

TEST(FakeRuntime, LevelQuickLoadsNoLibrary) {
  const auto run = run_fake("segv", {"--level", "quick"});
  EXPECT_EQ(check_status(run.report, "hip"), "skipped");
  EXPECT_EQ(check_status(run.report, "probe"), "skipped");
  EXPECT_EQ(run.process.exit_code, 0);
}

TEST(FakeRuntime, ACrashIsCapturedAndReplayedWithTheSameFindings) {
  TempDir dir;
  const auto snapshot = (dir.path() / "snap").string();
  const std::vector<std::string> env = {std::string("LD_LIBRARY_PATH=") + ROCM_DOCTOR_FAKE_RUNTIME_DIR,
                                        "ROCM_DOCTOR_FAKE_HIP=segv"};
  const auto live = run_doctor({"--json", "--only", "probe,hip,smi", "--level", "full"}, env);
  const auto capture = run_doctor({"capture", snapshot, "--only", "probe,hip,smi", "--level", "full"}, env);
  ASSERT_EQ(capture.process.exit_code, 0) << capture.process.err_tail;
  const auto replay = run_doctor({"--json", "--only", "probe,hip,smi", "--replay", snapshot});
  ASSERT_TRUE(replay.report.is_object()) << replay.process.err_tail;
  EXPECT_EQ(finding_ids(replay.report), finding_ids(live.report));
  EXPECT_TRUE(has(replay, "probe.crashed", "error"));
}

}  // namespace
}  // namespace rocm_doctor::testing
