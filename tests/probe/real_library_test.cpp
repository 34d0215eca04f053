// The probes against Debian's real libamdhip64-5 and librocm-smi64-1 on this
// GPU-less machine (the test set-up installs them), and capture-then-replay.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "probe/doctor_process.h"
#include "probe/probe_runner.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

using namespace std::chrono_literals;

bool installed(const char* soname) {
  for (const char* folder : {"/usr/lib/x86_64-linux-gnu/", "/lib/x86_64-linux-gnu/", "/usr/lib/", "/lib/"}) {
    if (std::filesystem::exists(std::string(folder) + soname)) return true;
  }
  return false;
}

bool gpu_present() {
  return std::filesystem::exists("/dev/kfd");
}

nlohmann::json run_probe(const std::string& name) {
  const auto child = probe::run_child(probe::probe_command(ROCM_DOCTOR_BINARY, name, probe::ProbeLevel::standard),
                                      probe::ChildOptions{});
  return probe::probe_outcome(child, 10s);
}

TEST(RealLibrary, HipProbeLoadsDebiansRuntimeAndSeesNoDevice) {
  if (!installed("libamdhip64.so.5")) GTEST_SKIP() << "libamdhip64-5 is not installed";
  if (gpu_present()) GTEST_SKIP() << "this machine has /dev/kfd";
  const auto outcome = run_probe("hip");
  ASSERT_EQ(outcome.value("status", ""), "ok") << outcome.dump(2);
  const auto& result = outcome["result"];
  EXPECT_EQ(result["library"].value("status", ""), "loaded");
  EXPECT_EQ(result["library"].value("soname", ""), "libamdhip64.so.5");
  EXPECT_EQ(result.value("runtime_version_text", "").rfind("5.2.", 0), 0U) << result.dump(2);
  EXPECT_EQ(result["device_count_error"].value("name", ""), "hipErrorNoDevice");
  EXPECT_EQ(result["device_count_error"].value("code", 0), 100);
}

TEST(RealLibrary, SmiProbeReportsItsInitFailureWithStderr) {
  if (!installed("librocm_smi64.so.1")) GTEST_SKIP() << "librocm-smi64-1 is not installed";
  if (gpu_present()) GTEST_SKIP() << "this machine has /dev/kfd";
  const auto outcome = run_probe("smi");
  ASSERT_EQ(outcome.value("status", ""), "ok") << outcome.dump(2);
  EXPECT_EQ(outcome["result"]["init_error"].value("call", ""), "rsmi_init");
  EXPECT_NE(outcome.value("stderr_tail", "").find("rsmi_init"), std::string::npos) << outcome.dump(2);
}

TEST(RealLibrary, LiveRunReportsTheMissingDeviceAndExitsOne) {
  if (!installed("libamdhip64.so.5") || gpu_present()) GTEST_SKIP() << "needs libamdhip64-5 and no GPU";
  // --level full: at standard the doctor loads no runtime where no GPU driver is.
  const auto run = run_doctor({"--json", "--only", "probe,hip,smi", "--level", "full"});
  ASSERT_TRUE(run.report.is_object()) << run.process.err_tail;
  const auto ids = finding_ids(run.report);
  EXPECT_NE(std::find(ids.begin(), ids.end(), std::pair<std::string, std::string>{"hip.no-device", "error"}),
            ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), std::pair<std::string, std::string>{"probe.ok", "ok"}), ids.end());
  EXPECT_EQ(run.process.exit_code, 1);
  // The library's "Exception caught: rsmi_init." never reaches the user's terminal.
  EXPECT_EQ(run.process.err_tail.find("Exception caught"), std::string::npos) << run.process.err_tail;
}

TEST(RealLibrary, CaptureThenReplayGivesTheSameFindings) {
  TempDir dir;
  const auto snapshot = (dir.path() / "snap").string();
  const auto live = run_doctor({"--json", "--level", "full"});
  const auto capture = run_doctor({"capture", snapshot, "--level", "full"});
  ASSERT_EQ(capture.process.exit_code, 0) << capture.process.err_tail;
  const auto replay = run_doctor({"--json", "--replay", snapshot});
  ASSERT_TRUE(replay.report.is_object()) << replay.process.err_tail;
  EXPECT_EQ(finding_ids(replay.report), finding_ids(live.report));
  // Every probe is stored, and replay loads no library.
  const auto manifest = nlohmann::json::parse(std::ifstream(dir.path() / "snap" / "snapshot.json"));
  EXPECT_TRUE(manifest["probes"].contains("hip"));
  EXPECT_TRUE(manifest["probes"].contains("smi"));
}

}  // namespace
}  // namespace rocm_doctor::testing
