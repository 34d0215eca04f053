// Applying a plan with real shell commands in a temporary folder, then
// judging each fix from a second report.
#include "fix/fix_apply.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "rocm_doctor/check.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;

class FixApply : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/rocm-doctor-fix-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    folder_ = pattern;
  }
  void TearDown() override { fs::remove_all(folder_); }

  // A report of one check whose findings each carry one fix.
  Report report(std::vector<Finding> findings) {
    Report result;
    CheckResult check;
    check.id = "env";
    check.findings = std::move(findings);
    result.checks.push_back(std::move(check));
    return result;
  }

  Finding with_commands(std::string id, std::vector<std::string> commands, FixNeeds needs = {}) {
    auto finding = make_finding(std::move(id), Severity::error, "broken");
    finding.with_fix(make_fix("env", "mend it", std::move(commands), needs));
    return finding;
  }

  // Runs commands for real, as fix does, and remembers what it ran.
  ApplyContext context(bool root = false, bool can_sudo = false) {
    return {root, can_sudo,
            [this](const std::string& command) {
              ran_.push_back(command);
              CommandRun run;
              run.command = command;
              run.ran = true;
              run.exit_code = WEXITSTATUS(std::system(command.c_str()));
              return run;
            },
            [](const std::string&) {}};
  }

  std::string path(const std::string& name) const { return (folder_ / name).string(); }

  fs::path folder_;
  std::vector<std::string> ran_;
};

TEST_F(FixApply, RunsEachCommandOnceInOrderAndLeavesRebootAndShellLinesToTheUser) {
  const auto before = report({
      with_commands("env.a", {"echo one >> " + path("log"), "sudo reboot"}, FixNeeds{.reboot = true}),
      with_commands("env.b", {"echo one >> " + path("log"), "echo two >> " + path("log"), "export X=1"}),
  });
  const auto plan = plan_fixes(before, {"env.a", "env.b"});
  ASSERT_TRUE(plan) << plan.error();
  const auto log = apply_plan(*plan, context());
  EXPECT_EQ(ran_, (std::vector<std::string>{"echo one >> " + path("log"), "echo two >> " + path("log")}));
  std::ifstream file(path("log"));
  std::string content((std::istreambuf_iterator<char>(file)), {});
  EXPECT_EQ(content, "one\ntwo\n");
  ASSERT_EQ(log.size(), 2U);
  EXPECT_EQ(log[0].status, StepStatus::applied);
  EXPECT_NE(log[0].commands[1].note.find("reboot yourself"), std::string::npos);
  EXPECT_EQ(log[1].commands[0].note, "already run above");
  EXPECT_NE(log[1].commands[2].note.find("your own shell"), std::string::npos);
}

TEST_F(FixApply, StopsAtTheFirstFailureAndRunsNothingAfterIt) {
  const auto before = report({with_commands("env.a", {"false", "touch " + path("after-false")}),
                              with_commands("env.b", {"touch " + path("second-fix")})});
  const auto plan = plan_fixes(before, {"env.a", "env.b"});
  ASSERT_TRUE(plan);
  const auto log = apply_plan(*plan, context());
  EXPECT_EQ(log[0].status, StepStatus::failed);
  EXPECT_EQ(log[1].status, StepStatus::not_reached);
  EXPECT_FALSE(fs::exists(path("after-false")));
  EXPECT_FALSE(fs::exists(path("second-fix")));
  EXPECT_EQ(fix_exit_code(log), 4);
}

TEST_F(FixApply, ARootFixIsSkippedWhenRootCannotBeHad) {
  const auto before = report({with_commands("env.a", {"sudo touch " + path("x")}, FixNeeds{.root = true})});
  const auto plan = plan_fixes(before, {"env.a"});
  ASSERT_TRUE(plan);
  const auto log = apply_plan(*plan, context(false, false));
  EXPECT_EQ(log[0].status, StepStatus::needs_root);
  EXPECT_TRUE(ran_.empty());
  EXPECT_EQ(fix_exit_code(log), 4);
}

TEST_F(FixApply, OutcomesComeFromTheSecondReport) {
  const auto before = report({with_commands("env.gone", {"true"}), with_commands("env.stays", {"true"}),
                              with_commands("env.login", {"true"}, FixNeeds{.relogin = true}),
                              with_commands("env.reboot", {"true"}, FixNeeds{.reboot = true})});
  const auto plan = plan_fixes(before, {});
  ASSERT_TRUE(plan);
  auto log = apply_plan(*plan, context());
  const auto after = report({with_commands("env.stays", {"true"}), with_commands("env.login", {"true"}),
                             with_commands("env.reboot", {"true"})});
  judge_outcomes(log, after);
  ASSERT_EQ(log.size(), 4U);
  EXPECT_EQ(log[0].outcome, Outcome::verified);
  EXPECT_EQ(log[0].after, "absent");
  EXPECT_EQ(log[1].outcome, Outcome::unchanged) << "ran, and the finding is exactly as before";
  EXPECT_EQ(log[1].after, "error");
  EXPECT_EQ(log[2].outcome, Outcome::pending_login) << "never verified before a new login";
  EXPECT_EQ(log[3].outcome, Outcome::pending_reboot);
  EXPECT_EQ(fix_exit_code(log), 4) << "env.stays did not go away";
  const auto json = fix_log_json(log, false, 4);
  EXPECT_EQ(json["steps"][0]["outcome"], "verified");
  EXPECT_EQ(json["steps"][1]["outcome"], "unchanged");
  EXPECT_EQ(json["steps"][2]["outcome"], "takes-effect-after-login");
  EXPECT_EQ(json["steps"][0]["commands"][0]["exit_code"], 0);
  EXPECT_EQ(json["steps"][0]["postcondition"]["finding"], "env.gone");
  EXPECT_EQ(json["steps"][0]["postcondition"]["at_most"], "info");
}

// Issue 26: a fix that exits 0 but leaves its finding as it was is a failure
// ("did not change anything"), never a success; one that lowers the finding to
// what its postcondition allows is verified; a changed but remaining one is still there.
TEST_F(FixApply, AFixThatChangesNothingIsAFailureAndAPostconditionDecidesSuccess) {
  auto lowered = with_commands("env.lowered", {"true"});
  lowered.fixes[0].postcondition = Postcondition{"", Severity::warning};
  const auto before = report({with_commands("env.same", {"true"}), lowered, with_commands("env.changed", {"true"})});
  const auto plan = plan_fixes(before, {});
  ASSERT_TRUE(plan);
  auto log = apply_plan(*plan, context());
  auto now_lowered = make_finding("env.lowered", Severity::warning, "broken");
  auto now_changed = make_finding("env.changed", Severity::error, "broken, differently");
  const auto after = report({with_commands("env.same", {"true"}), now_lowered, now_changed});
  judge_outcomes(log, after);
  ASSERT_EQ(log.size(), 3U);
  EXPECT_EQ(log[0].outcome, Outcome::unchanged);
  EXPECT_EQ(log[1].outcome, Outcome::verified) << "warning is what its postcondition allows";
  EXPECT_EQ(log[2].outcome, Outcome::still_present);
  EXPECT_EQ(fix_exit_code(log), 4);
}

// Issue 26: alternatives of one finding (a per-user or a system-wide setting) are one step.
TEST_F(FixApply, AFindingWithAlternativesIsOneStepWithTheOthersListed) {
  auto finding = with_commands("env.override", {"echo a >> " + path("profile")});
  finding.with_fix(make_fix("env", "or system-wide", {"echo b >> " + path("environment")}, {}));
  const auto before = report({finding});
  const auto plan = plan_fixes(before, {});
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->steps.size(), 1U);
  ASSERT_EQ(plan->steps[0].alternatives.size(), 1U);
  EXPECT_EQ(plan->steps[0].alternatives[0]->description, "or system-wide");
  const auto log = apply_plan(*plan, context());
  EXPECT_EQ(ran_, std::vector<std::string>{"echo a >> " + path("profile")});
  EXPECT_FALSE(fs::exists(path("environment")));
}

}  // namespace
}  // namespace rocm_doctor
