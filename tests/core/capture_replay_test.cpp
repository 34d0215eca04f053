// Capture this (GPU-less) machine, replay the snapshot: the findings must be
// the same, because capture records exactly what the checks read.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "host/recording_host.h"
#include "host/snapshot_host.h"
#include "render/run_tool.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::run_doctor;

std::set<std::pair<std::string, std::string>> findings_of(const std::string& json_text) {
  std::set<std::pair<std::string, std::string>> findings;
  const auto report = nlohmann::json::parse(json_text);
  for (const auto& check : report["checks"]) {
    for (const auto& finding : check["findings"]) findings.emplace(finding["id"], finding["severity"]);
  }
  return findings;
}

TEST(CaptureReplay, ReplayOfAFreshCaptureGivesTheLiveFindings) {
  testing::TempDir folder;
  const auto snapshot = folder.path() / "snap";
  const auto capture = run_doctor({"capture", snapshot.string()});
  ASSERT_EQ(capture.exit_code, 0) << capture.err;
  ASSERT_TRUE(fs::exists(snapshot / "snapshot.json"));

  const auto live = run_doctor({"--json"});
  const auto replay = run_doctor({"--json", "--replay", snapshot.string()});
  ASSERT_EQ(replay.exit_code, live.exit_code) << replay.err;
  EXPECT_EQ(findings_of(replay.out), findings_of(live.out));
  EXPECT_EQ(nlohmann::json::parse(replay.out)["source"], "snapshot");
  // The versions come from what the checks read, which the capture recorded.
  EXPECT_EQ(nlohmann::json::parse(replay.out)["versions"], nlohmann::json::parse(live.out)["versions"]);
}

TEST(CaptureReplay, SnapshotHoldsOnlyWhatTheChecksRead) {
  testing::TempDir folder;
  const auto snapshot = folder.path() / "snap";
  ASSERT_EQ(run_doctor({"capture", snapshot.string()}, {{"ROCM_DOCTOR_TEST_SECRET", "hunter2"}}).exit_code, 0);
  auto host = SnapshotHost::open(snapshot);
  ASSERT_TRUE(host) << host.error();
  EXPECT_FALSE((*host)->env("ROCM_DOCTOR_TEST_SECRET")) << "unrelated variables must not be captured";
  EXPECT_TRUE(fs::exists(snapshot / "root/etc/os-release") || fs::exists(snapshot / "root/usr/lib/os-release"));
  EXPECT_FALSE(fs::exists(snapshot / "root/etc/shadow"));
  // Every link in the snapshot resolves inside it.
  for (const auto& entry : fs::recursive_directory_iterator(snapshot / "root")) {
    if (!entry.is_symlink()) continue;
    const auto target = fs::read_symlink(entry.path());
    if (target.is_absolute()) continue;  // taken as a path inside root/ by the snapshot host
    const auto resolved = fs::weakly_canonical(entry.path().parent_path() / target);
    EXPECT_EQ(resolved.string().rfind((snapshot / "root").string(), 0), 0U) << entry.path() << " -> " << target;
  }
}

// A confined job's EPERM answers survive capture and replay: a render node the
// device cgroup closes keeps its errno, KFD properties of another job's GPU stay
// refused, so a replay judges the job as it ran. (The recorder mirrors links and
// listings from the real filesystem, so only these answers are asked of the
// scenario host here; the whole run is the scenario's own.)
TEST(CaptureReplay, AConfinedJobsRefusalsReplayAsTheyWere) {
  auto machine = SnapshotHost::open(fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / "slurm-confined-2-of-8");
  ASSERT_TRUE(machine) << machine.error();
  testing::TempDir folder;
  const auto snapshot = folder.path() / "snap";
  const std::string closed_properties = "/sys/class/kfd/kfd/topology/nodes/2/properties";
  {
    RecordingHost recorder(**machine, snapshot);
    ASSERT_EQ(recorder.stat_node("/dev/dri/renderD128")->access_error, "EPERM");
    ASSERT_EQ(recorder.stat_node("/dev/dri/renderD132")->access, "rw");
    ASSERT_EQ(recorder.read_file(closed_properties, kDefaultReadLimit).error().kind, HostErrorKind::permission_denied);
    ASSERT_TRUE(recorder.finish("2026-12-01T10:00:00Z", "test"));
  }
  const auto manifest = nlohmann::json::parse(testing::read_text(snapshot / "snapshot.json"));
  EXPECT_EQ(manifest["nodes"]["/dev/dri/renderD128"]["access"], "none");
  EXPECT_EQ(manifest["nodes"]["/dev/dri/renderD128"]["access_error"], "EPERM");
  EXPECT_FALSE(manifest["nodes"]["/dev/dri/renderD132"].contains("access_error"));
  const auto& unreadable = manifest["unreadable"];
  EXPECT_NE(std::find(unreadable.begin(), unreadable.end(), closed_properties), unreadable.end());
  auto replay = SnapshotHost::open(snapshot);
  ASSERT_TRUE(replay) << replay.error();
  EXPECT_EQ((*replay)->stat_node("/dev/dri/renderD128")->access_error, "EPERM");
  EXPECT_EQ((*replay)->read_file(closed_properties, kDefaultReadLimit).error().kind, HostErrorKind::permission_denied);
}

}  // namespace
}  // namespace rocm_doctor
