// Which fixes `rocm-doctor fix` takes, in which order, and which it may run.
#include "fix/fix_plan.h"

#include <gtest/gtest.h>

#include "rocm_doctor/check.h"

namespace rocm_doctor {
namespace {

Finding finding(std::string id, Severity severity, std::vector<std::string> commands, FixNeeds needs = {}) {
  auto result = make_finding(std::move(id), severity, "summary of " + std::string(to_string(severity)));
  const auto check = result.id.substr(0, result.id.find('.'));
  result.with_fix(make_fix(check, "do it", std::move(commands), needs));
  return result;
}

Report report_of(std::vector<std::pair<std::string, std::vector<Finding>>> checks) {
  Report report;
  for (auto& [id, findings] : checks) {
    CheckResult result;
    result.id = id;
    result.findings = std::move(findings);
    report.checks.push_back(std::move(result));
  }
  return report;
}

std::vector<std::string> planned_ids(const FixPlan& plan) {
  std::vector<std::string> ids;
  for (const auto& step : plan.steps) ids.push_back(step.finding->id);
  return ids;
}

TEST(FixPlan, TakesErrorsBeforeWarningsAndLeavesInfoAndOkAlone) {
  const auto report = report_of({
      {"access", {finding("access.relogin-required", Severity::warning, {"newgrp render"})}},
      {"rocm-install",
       {finding("rocm.lib-not-found", Severity::error, {"echo /opt/rocm/lib | sudo tee /etc/ld.so.conf.d/rocm.conf"}),
        finding("rocm.version", Severity::info, {"cat /opt/rocm/.info/version"})}},
      {"driver", {finding("driver.ok", Severity::ok, {})}},
  });
  const auto plan = plan_fixes(report, {});
  ASSERT_TRUE(plan);
  EXPECT_EQ(planned_ids(*plan), (std::vector<std::string>{"rocm.lib-not-found", "access.relogin-required"}));
  EXPECT_EQ(plan->steps[0].mode, StepMode::apply);
  EXPECT_EQ(plan->steps[0].check_id, "rocm-install");
  EXPECT_EQ(plan->steps[1].mode, StepMode::investigate) << "newgrp only works in the user's own shell";
}

TEST(FixPlan, NamedIdsTakeOnlyThoseAndNameTheOnesNotRaised) {
  const auto report = report_of({{"access",
                                  {finding("access.group-missing", Severity::error, {"sudo usermod -a -G render a"}),
                                   finding("access.kfd-denied", Severity::error, {"sudo usermod -a -G render a"})}}});
  const auto plan = plan_fixes(report, {"access.kfd-denied", "access.relogin-required"});
  ASSERT_TRUE(plan);
  EXPECT_EQ(planned_ids(*plan), (std::vector<std::string>{"access.kfd-denied"}));
  EXPECT_EQ(plan->not_found, (std::vector<std::string>{"access.relogin-required"}));
}

TEST(FixPlan, AnIdNoCheckDeclaresIsAnErrorWithASuggestion) {
  const auto plan = plan_fixes(report_of({}), {"access.group-mising"});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().find("unknown finding id 'access.group-mising'"), std::string::npos);
  EXPECT_NE(plan.error().find("did you mean access.group-missing?"), std::string::npos);
}

TEST(FixPlan, SitePluginAndPolicyFixesAreShownButNeverRun) {
  const auto report =
      report_of({{"plugins",
                  {finding("site.scratch-full", Severity::error, {"rm -rf /scratch/tmp"}),
                   finding("plugin.unsafe-folder", Severity::warning, {"sudo chmod go-w /etc/rocm-doctor/checks.d"})}},
                 {"policy", {finding("policy.rocm-version", Severity::error, {"sudo apt install rocm"})}}});
  const auto plan = plan_fixes(report, {});
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->steps.size(), 3U);
  for (const auto& step : plan->steps) {
    if (step.finding->id == "plugin.unsafe-folder") {
      EXPECT_EQ(step.mode, StepMode::apply) << "the plugins check's own findings are the doctor's";
      continue;
    }
    EXPECT_EQ(step.mode, StepMode::site) << step.finding->id;
    EXPECT_NE(step.reason.find("site"), std::string::npos);
  }
}

TEST(FixPlan, FixesThatNeedAPersonOrOnlyLookAreNotApplied) {
  std::string reason;
  EXPECT_EQ(fix_mode(make_fix("driver", "edit", {"sudoedit /etc/default/grub", "sudo update-grub"}), "driver",
                     "driver.x", reason),
            StepMode::manual);
  EXPECT_NE(reason.find("sudoedit"), std::string::npos);
  EXPECT_EQ(fix_mode(make_fix("driver", "read the description"), "driver", "driver.x", reason), StepMode::manual);
  EXPECT_EQ(fix_mode(make_fix("smi", "look", {"sudo dmesg | grep -i ecc"}), "smi", "smi.x", reason),
            StepMode::investigate);
  EXPECT_EQ(fix_mode(make_fix("access", "bad", {"echo '\x1b]0;x\x07' >> ~/.profile"}), "access", "access.x", reason),
            StepMode::manual);
  EXPECT_EQ(fix_mode(make_fix("driver", "blacklist", {"sudo sed -i 1s/^/#/ /etc/modprobe.d/x.conf", "sudo reboot"},
                              FixNeeds{.root = true, .reboot = true}),
                     "driver", "driver.x", reason),
            StepMode::apply);
}

}  // namespace
}  // namespace rocm_doctor

namespace rocm_doctor {
namespace {

TEST(FixPlan, RootCausesComeFirstAndWhatTheyExplainIsLeftToThem) {
  auto group = finding("access.group-missing", Severity::error, {"sudo usermod -aG render dev"});
  auto denied = finding("access.kfd-denied", Severity::error, {"sudo chmod 0666 /dev/kfd"});
  denied.caused_by = {"access.group-missing"};
  auto missing = finding("rocm.not-installed", Severity::warning, {});  // manual: no command
  auto no_device = finding("hip.not-found", Severity::error, {"sudo apt install hip-runtime-amd"});
  no_device.caused_by = {"rocm.not-installed"};
  auto report = report_of({{"access", {denied, group}}, {"rocm-install", {missing}}, {"hip", {no_device}}});
  report.root_causes = {"rocm.not-installed", "access.group-missing"};
  const auto plan = plan_fixes(report, {});
  ASSERT_TRUE(plan);
  EXPECT_EQ(planned_ids(*plan),
            (std::vector<std::string>{"rocm.not-installed", "access.group-missing", "hip.not-found"}))
      << "the diagnosis's rank first; hip.not-found's cause has nothing fix can run, so its own fix is taken";
  EXPECT_TRUE(plan->steps[0].root_cause);
  EXPECT_FALSE(plan->steps[2].root_cause);
  EXPECT_EQ(plan->folded, (std::vector<std::string>{"access.kfd-denied"}));
}

TEST(FixPlan, AnExplainedFindingAskedForByIdIsTaken) {
  auto group = finding("access.group-missing", Severity::error, {"sudo usermod -aG render dev"});
  auto denied = finding("access.kfd-denied", Severity::error, {"sudo chmod 0666 /dev/kfd"});
  denied.caused_by = {"access.group-missing"};
  auto report = report_of({{"access", {group, denied}}});
  report.root_causes = {"access.group-missing"};
  const auto plan = plan_fixes(report, {"access.kfd-denied"});
  ASSERT_TRUE(plan);
  EXPECT_EQ(planned_ids(*plan), (std::vector<std::string>{"access.kfd-denied"}));
  EXPECT_TRUE(plan->folded.empty());
}

}  // namespace
}  // namespace rocm_doctor
