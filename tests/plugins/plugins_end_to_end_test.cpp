// The real binary with real plugins (tests/plugins/scripts, shell and Python)
// in temporary plugin folders: what the JSON report says, the exit code, and
// proof of what ran (marker files) and what was killed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;

// A plugin folder, a home without plugins and a marker folder the test
// plugins write to when they run.
class PluginRun : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = dir_.path() / "checks.d";
    home_ = dir_.path() / "home";
    markers_ = dir_.path() / "markers";
    for (const auto& path : {folder_, home_, markers_}) fs::create_directory(path);
    ::chmod(folder_.c_str(), 0755);
  }

  void add(const std::string& script) {
    const auto target = folder_ / script;
    fs::copy_file(fs::path(ROCM_DOCTOR_SOURCE_DIR) / "tests/plugins/scripts" / script, target);
    ::chmod(target.c_str(), 0755);
  }

  testing::CommandResult doctor(std::vector<std::string> args) const {
    std::vector<std::string> full = {"--only", "plugins", "--json", "--plugin-dir", folder_.string()};
    full.insert(full.end(), args.begin(), args.end());
    return testing::run_doctor(full, {{"HOME", home_.string()}, {"PLUGIN_TEST_MARKERS", markers_.string()}});
  }

  bool ran(const std::string& script) const { return fs::exists(markers_ / (script + ".ran")); }

  testing::TempDir dir_;
  fs::path folder_;
  fs::path home_;
  fs::path markers_;
};

std::vector<Json> findings_of(const std::string& report_text) {
  std::vector<Json> findings;
  const auto report = Json::parse(report_text);
  for (const auto& check : report.at("checks")) {
    for (const auto& finding : check.at("findings")) findings.push_back(finding);
  }
  return findings;
}

const Json* with_id(const std::vector<Json>& findings, const std::string& id, const std::string& text = "") {
  for (const auto& finding : findings) {
    if (finding.at("id") == id && finding.at("summary").get<std::string>().find(text) != std::string::npos) {
      return &finding;
    }
  }
  return nullptr;
}

TEST_F(PluginRun, ShellAndPythonPluginsAnswerWithTheirFindings) {
  add("scratch.sh");
  add("facts.py");
  const auto result = doctor({});
  EXPECT_EQ(result.exit_code, 0) << result.err;  // a warning is below --fail-on error
  const auto findings = findings_of(result.out);
  const auto* scratch = with_id(findings, "site.scratch.scratch-full");
  ASSERT_NE(scratch, nullptr) << result.out;
  EXPECT_EQ(scratch->at("severity"), "warning");
  EXPECT_EQ(scratch->at("fix")[0]["commands"][0], "sudo find /scratch -maxdepth 1 -mtime +30 -exec rm -rf {} +");
  EXPECT_EQ(scratch->at("fix")[0]["needs_root"], true);
  // facts.py read the facts document and said what was in it.
  const auto* facts = with_id(findings, "site.facts.facts-seen");
  ASSERT_NE(facts, nullptr) << result.out;
  EXPECT_NE(facts->at("summary").get<std::string>().find("protocol 1, doctor "), std::string::npos);
  EXPECT_NE(facts->at("summary").get<std::string>().find("prefix site.facts."), std::string::npos);
  EXPECT_EQ(facts->at("evidence")[0]["value"],
            "doctor,driver,environment,gpus,host,options,plugin,protocol,rocm,source");
  EXPECT_NE(with_id(findings, "plugin.ran", "2 site plugins ran"), nullptr);
  EXPECT_EQ(doctor({"--fail-on", "warning"}).exit_code, 1);
}

// The environment summary holds the ROCm variables that are set, never others.
TEST_F(PluginRun, PluginsSeeOnlyTheRocmVariables) {
  add("facts.py");
  const auto result = testing::run_doctor(
      {"--only", "plugins", "--json", "--plugin-dir", folder_.string()},
      {{"HOME", home_.string()}, {"HIP_VISIBLE_DEVICES", "0"}, {"ROCM_DOCTOR_TEST_SECRET", "hunter2"}});
  const auto findings = findings_of(result.out);
  const auto* facts = with_id(findings, "site.facts.facts-seen");
  ASSERT_NE(facts, nullptr) << result.out;
  const auto names = facts->at("evidence")[1]["value"].get<std::string>();
  EXPECT_NE(names.find("HIP_VISIBLE_DEVICES"), std::string::npos) << names;
  EXPECT_EQ(names.find("ROCM_DOCTOR_TEST_SECRET"), std::string::npos) << names;
  EXPECT_EQ(names.find("PATH"), std::string::npos) << names;
}

TEST_F(PluginRun, CrashingPluginsBecomeFailedFindings) {
  add("crash.sh");
  add("abort.py");
  const auto result = doctor({});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto findings = findings_of(result.out);
  const auto* shell = with_id(findings, "plugin.failed", "'crash' was killed by SIGSEGV");
  ASSERT_NE(shell, nullptr) << result.out;
  EXPECT_EQ(shell->at("evidence")[1]["value"], "about to crash");
  EXPECT_NE(with_id(findings, "plugin.failed", "'abort' was killed by SIGABRT"), nullptr) << result.out;
  EXPECT_TRUE(ran("crash.sh"));
}

// /proc/PID/stat once the process is gone (empty) or a zombie waiting for init, or after 5 s.
// SIGKILL is delivered asynchronously: on a loaded machine a killed process can still show as
// running (R) for a moment after the doctor returned.
std::string stat_line_once_dead(pid_t pid) {
  std::string line;
  for (int attempt = 0; attempt < 500; ++attempt) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    if (!std::getline(stat, line) || line.find(") Z ") != std::string::npos) return line;
    std::this_thread::sleep_for(10ms);
  }
  return line;
}

// `sleep 60` is killed at the 1 s timeout with the background child it
// started: the run ends long before the sleep would, and nothing is left.
TEST_F(PluginRun, AHangingPluginIsKilledWithItsWholeGroup) {
  add("hang.sh");
  add("sleepy.py");
  const auto start = std::chrono::steady_clock::now();
  const auto result = doctor({"--probe-timeout", "1"});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, 30s) << "the plugins were waited for instead of killed";
  const auto findings = findings_of(result.out);
  EXPECT_NE(with_id(findings, "plugin.failed", "'hang' did not finish within 1 s and was killed"), nullptr)
      << result.out;
  EXPECT_NE(with_id(findings, "plugin.failed", "'sleepy' did not finish within 1 s and was killed"), nullptr);
  std::ifstream pids_file(markers_ / "hang.sh.pids");
  pid_t shell = 0;
  pid_t background = 0;
  ASSERT_TRUE(pids_file >> shell >> background);
  for (const pid_t pid : {shell, background}) {
    const auto line = stat_line_once_dead(pid);
    EXPECT_TRUE(line.empty() || line.find(") Z ") != std::string::npos) << "still running: " << line;
  }
}

TEST_F(PluginRun, ExitingNonZeroIsAFailureEvenWithAnAnswer) {
  add("exit-nonzero.sh");
  const auto findings = findings_of(doctor({}).out);
  const auto* failed = with_id(findings, "plugin.failed", "'exit-nonzero' exited with status 3");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->at("evidence")[1]["value"], "license server unreachable");
  EXPECT_EQ(with_id(findings, "site.exit-nonzero.x"), nullptr);
}

TEST_F(PluginRun, PluginsLyingAboutTheirIdsAreNotBelieved) {
  add("liar.py");
  add("shadow.sh");
  const auto result = doctor({});
  const auto findings = findings_of(result.out);
  EXPECT_NE(with_id(findings, "plugin.failed", "'liar' gave an invalid answer: findings[1].id 'site.other.x'"), nullptr)
      << result.out;
  EXPECT_NE(with_id(findings, "plugin.failed",
                    "'shadow' gave an invalid answer: findings[0].id 'driver.no-amd-gpu' is "
                    "a built-in id"),
            nullptr);
  EXPECT_EQ(with_id(findings, "site.liar.fine"), nullptr);
  EXPECT_EQ(with_id(findings, "site.other.x"), nullptr);
  EXPECT_EQ(with_id(findings, "driver.no-amd-gpu"), nullptr);
  EXPECT_EQ(result.exit_code, 0) << "the shadowed error must not count";
}

TEST_F(PluginRun, GarbageAndOversizedOutputAreRejected) {
  add("garbage.sh");
  add("notjson.py");
  add("big.py");
  const auto result = doctor({});
  const auto findings = findings_of(result.out);  // the report itself stays valid JSON
  EXPECT_NE(with_id(findings, "plugin.failed", "'garbage' gave no valid answer: its stdout is not UTF-8 text"), nullptr)
      << result.out;
  EXPECT_NE(with_id(findings, "plugin.failed", "'notjson' gave no valid answer: its stdout is not one JSON document"),
            nullptr);
  EXPECT_NE(with_id(findings, "plugin.failed", "'big' gave no valid answer: it wrote more than 1024 KiB on stdout"),
            nullptr);
}

TEST_F(PluginRun, AWorldWritableFolderIsRefusedAndNothingInItRuns) {
  add("scratch.sh");
  ::chmod(folder_.c_str(), 0777);
  const auto result = doctor({});
  const auto findings = findings_of(result.out);
  const auto* unsafe = with_id(findings, "plugin.unsafe-folder");
  ASSERT_NE(unsafe, nullptr) << result.out;
  EXPECT_EQ(unsafe->at("summary"),
            "Plugin folder " + folder_.string() + " refused: writable by every user (mode 0777)");
  EXPECT_EQ(unsafe->at("fix")[0]["commands"][0], "chmod go-w " + folder_.string());
  EXPECT_FALSE(ran("scratch.sh")) << "a plugin in a refused folder was executed";
  EXPECT_EQ(with_id(findings, "site.scratch.scratch-full"), nullptr);
}

TEST_F(PluginRun, AWorldWritablePluginIsRefused) {
  add("scratch.sh");
  ::chmod((folder_ / "scratch.sh").c_str(), 0777);
  const auto findings = findings_of(doctor({}).out);
  EXPECT_NE(with_id(findings, "plugin.unsafe-file"), nullptr);
  EXPECT_FALSE(ran("scratch.sh"));
}

TEST_F(PluginRun, PluginsInTheHomeFolderRunToo) {
  const auto user_folder = home_ / ".config/rocm-doctor/checks.d";
  fs::create_directories(user_folder);
  for (auto path = user_folder; path != home_; path = path.parent_path()) ::chmod(path.c_str(), 0755);
  ::chmod(home_.c_str(), 0755);
  fs::copy_file(fs::path(ROCM_DOCTOR_SOURCE_DIR) / "tests/plugins/scripts/scratch.sh", user_folder / "scratch.sh");
  const auto result = testing::run_doctor({"--only", "plugins", "--json"},
                                          {{"HOME", home_.string()}, {"PLUGIN_TEST_MARKERS", markers_.string()}});
  EXPECT_NE(with_id(findings_of(result.out), "site.scratch.scratch-full"), nullptr) << result.out;
}

TEST_F(PluginRun, SkippingTheCheckRunsNoPlugin) {
  add("scratch.sh");
  const auto result =
      testing::run_doctor({"--skip", "plugins", "--only", "os", "--json", "--plugin-dir", folder_.string()},
                          {{"HOME", home_.string()}, {"PLUGIN_TEST_MARKERS", markers_.string()}});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(ran("scratch.sh"));
}

// Capture runs the plugins once and stores what they said; replay shows it
// with the plugins gone.
TEST_F(PluginRun, CaptureStoresPluginResultsAndReplayShowsThemWithoutRunning) {
  add("scratch.sh");
  add("crash.sh");
  const auto snapshot = dir_.path() / "snap";
  const auto capture =
      testing::run_doctor({"capture", snapshot.string(), "--only", "plugins", "--plugin-dir", folder_.string()},
                          {{"HOME", home_.string()}, {"PLUGIN_TEST_MARKERS", markers_.string()}});
  ASSERT_EQ(capture.exit_code, 0) << capture.err;
  ASSERT_TRUE(ran("scratch.sh"));
  const auto manifest = Json::parse(std::ifstream(snapshot / "snapshot.json"));
  ASSERT_TRUE(manifest["probes"].contains("plugins"));
  EXPECT_EQ(manifest["probes"]["plugins"]["protocol"], 1);
  EXPECT_FALSE(fs::exists(snapshot / "root" / folder_.relative_path() / "scratch.sh"))
      << "plugin programs are not copied into snapshots";

  fs::remove_all(folder_);
  fs::remove_all(markers_);
  fs::create_directory(markers_);
  const auto replay = testing::run_doctor({"--replay", snapshot.string(), "--only", "plugins", "--json"},
                                          {{"HOME", home_.string()}, {"PLUGIN_TEST_MARKERS", markers_.string()}});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const auto findings = findings_of(replay.out);
  EXPECT_NE(with_id(findings, "site.scratch.scratch-full"), nullptr) << replay.out;
  EXPECT_NE(with_id(findings, "plugin.failed", "'crash' was killed by SIGSEGV"), nullptr);
  EXPECT_TRUE(fs::is_empty(markers_)) << "replay ran a plugin";
}

TEST_F(PluginRun, PluginDirMustBeAFolderAndIsNotForReplays) {
  const auto missing = testing::run_doctor({"--plugin-dir", (dir_.path() / "absent").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("not a folder"), std::string::npos) << missing.err;
  const auto replay = testing::run_doctor({"--replay", dir_.path().string(), "--plugin-dir", folder_.string()});
  EXPECT_EQ(replay.exit_code, 2);
  EXPECT_NE(replay.err.find("plugins run on live runs only"), std::string::npos) << replay.err;
}

TEST_F(PluginRun, ListChecksShowsThePlugins) {
  add("scratch.sh");
  add("facts.py");
  const auto result =
      testing::run_doctor({"--list-checks", "--plugin-dir", folder_.string()}, {{"HOME", home_.string()}});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("plugins"), std::string::npos);
  EXPECT_NE(result.out.find("site.scratch"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find((folder_ / "facts.py").string()), std::string::npos) << result.out;
}

}  // namespace
}  // namespace rocm_doctor
