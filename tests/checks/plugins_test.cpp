// The plugins check on recorded plugin stages (probes.plugins of a snapshot):
// what the report says for each way a plugin stage can go.
#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using Json = nlohmann::json;
using testing::find_finding;

Json folder(const std::string& path, const std::string& state, Json extra = Json::object()) {
  Json entry = {{"path", path}, {"origin", "--plugin-dir"}, {"state", state}};
  entry.update(extra);
  return entry;
}

Json record(Json folders, Json plugins) {
  return {{"protocol", 1}, {"timeout_ms", 10000}, {"folders", std::move(folders)}, {"plugins", std::move(plugins)}};
}

Json ok_plugin(const std::string& name, Json findings) {
  return {{"name", name},
          {"path", "/srv/checks/" + name + ".sh"},
          {"folder", "/srv/checks"},
          {"status", "ok"},
          {"elapsed_ms", 7},
          {"exit_code", 0},
          {"output", {{"protocol", 1}, {"findings", std::move(findings)}}}};
}

Report run_with(const Json& plugins_record) {
  testing::SnapshotBuilder builder;
  builder.probe("plugins", plugins_record);
  auto host = builder.open();
  return testing::run_on(*host, {"plugins"});
}

TEST(PluginsCheck, SkippedOnASnapshotWithoutPluginResults) {
  testing::SnapshotBuilder builder;
  auto host = builder.open();
  const auto report = testing::run_on(*host, {"plugins"});
  ASSERT_EQ(report.checks.size(), 1U);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
  EXPECT_EQ(report.checks[0].skipped_reason, "this snapshot holds no plugin results (plugins run on live runs only)");
}

TEST(PluginsCheck, SkippedWhenNoPluginIsInstalled) {
  const auto report = run_with(record({folder("/etc/rocm-doctor/checks.d", "missing")}, Json::array()));
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
  EXPECT_EQ(report.checks[0].skipped_reason, "no site plugins installed (looked in /etc/rocm-doctor/checks.d)");
}

TEST(PluginsCheck, APluginsFindingsComeThroughWithTheirFix) {
  const Json finding = {{"id", "site.scratch.full"},
                        {"severity", "warning"},
                        {"summary", "/scratch is 97% full"},
                        {"fix", {{{"description", "Clean"}, {"commands", {"rm -rf /scratch/old"}}}}}};
  const auto report = run_with(record({folder("/srv/checks", "ok")}, {ok_plugin("scratch", {finding})}));
  const auto* site = find_finding(report, "site.scratch.full");
  ASSERT_NE(site, nullptr);
  EXPECT_EQ(site->severity, Severity::warning);
  ASSERT_EQ(site->fixes.size(), 1U);
  EXPECT_EQ(site->fixes[0].commands[0], "rm -rf /scratch/old");
  ASSERT_EQ(site->evidence.size(), 1U) << "a finding without evidence names its plugin";
  EXPECT_EQ(site->evidence[0].value, "/srv/checks/scratch.sh");
  const auto* ran = find_finding(report, "plugin.ran");
  ASSERT_NE(ran, nullptr);
  EXPECT_EQ(ran->summary, "1 site plugin ran: scratch");
  ASSERT_EQ(ran->evidence.size(), 1U);
  EXPECT_EQ(ran->evidence[0].source, "/srv/checks/scratch.sh");
  EXPECT_EQ(ran->evidence[0].value, "1 finding in 7 ms");
  EXPECT_EQ(report.checks[0].status, CheckStatus::warning);
}

TEST(PluginsCheck, ManyPluginsAreSummedUpWithTheirNamesInTheEvidence) {
  Json plugins = Json::array();
  for (int i = 1; i <= 10; ++i) plugins.push_back(ok_plugin("p" + std::to_string(i), Json::array()));
  const auto report = run_with(record({folder("/srv/checks", "ok")}, plugins));
  const auto* ran = find_finding(report, "plugin.ran");
  ASSERT_NE(ran, nullptr);
  EXPECT_EQ(ran->summary, "10 site plugins ran: p1, p2, p3, p4, p5, p6, p7, p8, and 2 more");
  EXPECT_EQ(ran->evidence.size(), 10U);
  EXPECT_EQ(ran->evidence[9].value, "0 findings in 7 ms");
}

TEST(PluginsCheck, ALyingPluginFailsAndNoneOfItsFindingsAreShown) {
  const Json good = {{"id", "site.liar.fine"}, {"severity", "ok"}, {"summary", "fine"}};
  const Json lie = {{"id", "driver.no-amd-gpu"}, {"severity", "error"}, {"summary", "no GPU"}};
  const auto report = run_with(record({folder("/srv/checks", "ok")}, {ok_plugin("liar", {good, lie})}));
  EXPECT_EQ(find_finding(report, "site.liar.fine"), nullptr);
  EXPECT_EQ(find_finding(report, "driver.no-amd-gpu"), nullptr);
  const auto* failed = find_finding(report, "plugin.failed");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->severity, Severity::warning);
  EXPECT_EQ(failed->summary,
            "Site plugin 'liar' gave an invalid answer: findings[1].id 'driver.no-amd-gpu' is a built-in id; a "
            "plugin's ids start with 'site.liar.'");
}

TEST(PluginsCheck, EachWayOfFailingIsSaidPlainly) {
  const auto failing = [](const std::string& name, Json outcome) {
    Json plugin = {{"name", name}, {"path", "/srv/checks/" + name}, {"folder", "/srv/checks"}};
    plugin.update(outcome);
    return plugin;
  };
  const Json plugins = {
      failing("hang", {{"status", "timeout"}, {"timeout_ms", 2000}, {"signal", 9}, {"signal_name", "SIGKILL"}}),
      failing("crash",
              {{"status", "crashed"}, {"signal", 11}, {"signal_name", "SIGSEGV"}, {"stderr_tail", "about to crash\n"}}),
      failing("exit", {{"status", "exit-code"}, {"exit_code", 3}}),
      failing("garbage", {{"status", "invalid-output"},
                          {"problem", "its stdout is not UTF-8 text"},
                          {"stdout_head", "hello \xef\xbf\xbd"}}),
      failing("twin", {{"status", "duplicate"}, {"problem", "the name 'twin' is already taken by /etc/x/twin.sh"}}),
  };
  const auto report = run_with(record({folder("/srv/checks", "ok")}, plugins));
  std::vector<std::string> summaries;
  for (const auto& finding : report.checks[0].findings) summaries.push_back(finding.summary);
  EXPECT_EQ(summaries, (std::vector<std::string>{
                           "Site plugin 'hang' did not finish within 2 s and was killed",
                           "Site plugin 'crash' was killed by SIGSEGV",
                           "Site plugin 'exit' exited with status 3",
                           "Site plugin 'garbage' gave no valid answer: its stdout is not UTF-8 text",
                           "Site plugin 'twin' was not run: the name 'twin' is already taken by /etc/x/twin.sh",
                       }));
  const auto& crash = report.checks[0].findings[1];
  ASSERT_EQ(crash.evidence.size(), 2U);
  EXPECT_EQ(crash.evidence[1].value, "about to crash");
}

TEST(PluginsCheck, AnUnsafeFolderNamesOwnerModeAndTheFix) {
  const auto report =
      run_with(record({folder("/srv/site checks", "unsafe",
                              {{"problem", "owned by uid 1001, not root and writable by every user (mode 0777)"},
                               {"unsafe_path", "/srv/site checks"},
                               {"uid", 1001},
                               {"gid", 1001},
                               {"mode", "0777"}})},
                      Json::array()));
  const auto* unsafe = find_finding(report, "plugin.unsafe-folder");
  ASSERT_NE(unsafe, nullptr);
  EXPECT_EQ(unsafe->severity, Severity::warning);
  EXPECT_EQ(
      unsafe->summary,
      "Plugin folder /srv/site checks refused: owned by uid 1001, not root and writable by every user (mode 0777)");
  EXPECT_EQ(unsafe->evidence[0].value, "mode 0777, owner uid 1001, group gid 1001");
  ASSERT_EQ(unsafe->fixes.size(), 1U);
  EXPECT_EQ(unsafe->fixes[0].commands,
            (std::vector<std::string>{"sudo chown root: '/srv/site checks'", "sudo chmod go-w '/srv/site checks'"}));
  EXPECT_TRUE(unsafe->fixes[0].needs_root);
}

// The commands follow the facts the scan recorded (owner, mode), whatever its problem text says.
TEST(PluginsCheck, TheFixFollowsTheRecordedOwnerAndModeNotTheProblemText) {
  const auto report = run_with(record(
      {folder("/srv/site", "unsafe",
              {{"problem", "not safe"}, {"unsafe_path", "/srv/site"}, {"uid", 1001}, {"gid", 1001}, {"mode", "0755"}})},
      Json::array()));
  const auto* unsafe = find_finding(report, "plugin.unsafe-folder");
  ASSERT_NE(unsafe, nullptr);
  ASSERT_EQ(unsafe->fixes.size(), 1U);
  EXPECT_EQ(unsafe->fixes[0].commands, (std::vector<std::string>{"sudo chown root: /srv/site"}));
}

// alice's own world-writable folder: she can chmod it herself.
TEST(PluginsCheck, TheUsersOwnFolderNeedsNoRootToFix) {
  Json own =
      folder("/home/alice/.config/rocm-doctor/checks.d", "unsafe",
             {{"problem", "writable by every user (mode 0777)"}, {"uid", 1000}, {"gid", 1000}, {"mode", "0777"}});
  own["origin"] = "user";
  const auto report = run_with(record({own}, Json::array()));
  const auto* unsafe = find_finding(report, "plugin.unsafe-folder");
  ASSERT_NE(unsafe, nullptr);
  EXPECT_EQ(unsafe->fixes[0].commands,
            (std::vector<std::string>{"chmod go-w /home/alice/.config/rocm-doctor/checks.d"}));
  EXPECT_FALSE(unsafe->fixes[0].needs_root);
}

TEST(PluginsCheck, AnUnsafeFileAndAnUnreadableFolder) {
  const Json refused = {{"name", "open"},
                        {"path", "/srv/checks/open.sh"},
                        {"folder", "/srv/checks"},
                        {"status", "refused"},
                        {"problem", "writable by every user (mode 0757)"},
                        {"uid", 0},
                        {"gid", 0},
                        {"mode", "0757"}};
  const auto report = run_with(record({folder("/srv/checks", "ok"), folder("/etc/rocm-doctor/checks.d", "unreadable",
                                                                           {{"problem", "Permission denied"}})},
                                      {refused}));
  const auto* file = find_finding(report, "plugin.unsafe-file");
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->fixes[0].commands, (std::vector<std::string>{"sudo chmod go-w /srv/checks/open.sh"}));
  EXPECT_TRUE(file->fixes[0].needs_root);
  const auto* unreadable = find_finding(report, "plugin.folder-unreadable");
  ASSERT_NE(unreadable, nullptr);
  EXPECT_EQ(unreadable->severity, Severity::info);
}

}  // namespace
}  // namespace rocm_doctor
