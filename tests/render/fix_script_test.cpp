// --fix-script: one reviewable sh script; shellcheck-clean, parses with sh -n,
// keeps a hostile user name inert, orders fixes by dependency.
#include <gtest/gtest.h>

#include <filesystem>

#include "render/formats.h"
#include "render/run_tool.h"
#include "rocm_doctor/shell.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::find_tool;
using testing::read_text;
using testing::run_doctor;
using testing::run_tool;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;
const std::string kHostileName = "o'neil \"$(touch pwned)\" `id` <b>&";

fs::path write_script(const testing::TempDir& folder, const std::string& scenario,
                      std::vector<std::string> extra = {}) {
  const auto script = folder.path() / "fix.sh";
  std::vector<std::string> args = {"--replay",     kScenarios + "/" + scenario, "--level", "quick", "--fix-script",
                                   script.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto result = run_doctor(args);
  EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
  EXPECT_FALSE(result.out.empty()) << "the report still goes to stdout";
  return script;
}

TEST(FixScript, HostileUserNameIsQuotedOnceAndNeverRun) {
  testing::TempDir folder;
  const auto script = write_script(folder, "access-hostile-user-name", {"--only", "access"});
  const auto text = read_text(script);
  EXPECT_TRUE(text.starts_with("#!/bin/sh\n")) << text;
  EXPECT_NE(text.find("\nset -eu\n"), std::string::npos);
  EXPECT_NE(text.find("sudo usermod -aG render " + shell_quote(kHostileName) + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# [error] access.group-missing: "), std::string::npos) << "the finding id precedes its fix";
  EXPECT_EQ(fs::status(script).permissions() & fs::perms::owner_exec, fs::perms::owner_exec);

  const auto sh = run_tool({"/bin/sh", "-n", script.string()});
  EXPECT_EQ(sh.exit_code, 0) << sh.out;
  if (const auto bash = find_tool("bash"); !bash.empty()) {
    EXPECT_EQ(run_tool({bash, "-n", script.string()}).exit_code, 0);
  }
  const auto shellcheck = find_tool("shellcheck");
  if (shellcheck.empty()) GTEST_SKIP() << "shellcheck is not installed";
  const auto lint = run_tool({shellcheck, "--shell=sh", script.string()});
  EXPECT_EQ(lint.exit_code, 0) << lint.out;
}

TEST(FixScript, RunningItInASandboxNeverEvaluatesTheName) {
  // sudo and the other commands are stubs on PATH that only log their words;
  // if the name's $(touch pwned) or `id` ran, a file named pwned would appear.
  testing::TempDir folder;
  const auto script = write_script(folder, "access-hostile-user-name", {"--only", "access"});
  const auto bin = folder.path() / "bin";
  fs::create_directories(bin);
  for (const auto* stub : {"sudo", "newgrp", "udevadm", "journalctl", "touch", "id"}) {
    std::ofstream(bin / stub) << "#!/bin/sh\nprintf '%s|' \"$0\" \"$@\" >> \"$LOG\"\nprintf '\\n' >> \"$LOG\"\n";
    fs::permissions(bin / stub, fs::perms::owner_all);
  }
  const auto log = folder.path() / "log";
  const auto env_tool = find_tool("env");
  ASSERT_FALSE(env_tool.empty());
  const auto run = run_tool(
      {env_tool, "PATH=" + bin.string() + ":/usr/bin:/bin", "LOG=" + log.string(), "/bin/sh", script.string()});
  EXPECT_EQ(run.exit_code, 0) << run.out;
  const auto calls = read_text(log);
  EXPECT_NE(calls.find("/sudo|usermod|-aG|render|" + kHostileName + "|"), std::string::npos) << calls;
  EXPECT_EQ(calls.find("/touch|"), std::string::npos) << "the name was evaluated:\n" << calls;
  EXPECT_EQ(calls.find("/id|"), std::string::npos) << calls;
  EXPECT_FALSE(fs::exists(folder.path() / "pwned"));
}

TEST(FixScript, OrdersDriverBeforeAccessAndDefersRebootAndRelogin) {
  Report report;
  report.tool_version = "0.1.0";
  report.source = "snapshot";
  CheckResult access{"access", "Device access", CheckStatus::error, 0, {}, "", ""};
  Fix usermod{"Add the user to the groups", {"sudo usermod -aG render alice"}, true, false, true, "", std::nullopt};
  Fix newgrp{"Start a shell with the group", {"newgrp render"}, false, false, true, "", std::nullopt};
  access.findings.push_back(
      make_finding("access.group-missing", Severity::error, "alice is in no GPU group").with_fix(usermod));
  access.findings.push_back(make_finding("access.relogin-required", Severity::error, "not yet").with_fix(newgrp));
  CheckResult driver{"driver", "Driver", CheckStatus::error, 0, {}, "", ""};
  Fix modprobe{"Load the driver", {"sudo modprobe amdgpu", "sudo reboot", "sudo dmesg"}, true, true, false, "",
               std::nullopt};
  driver.findings.push_back(
      make_finding("driver.not-loaded", Severity::error, "amdgpu\nis not loaded").with_fix(modprobe));
  CheckResult gpu{"gpu-arch", "GPU", CheckStatus::warning, 0, {}, "", ""};
  Fix profile{"Persist it", {"echo 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' >> /home/alice/.profile", "export X=1"},
              false,        false,
              true,         "",
              std::nullopt};
  gpu.findings.push_back(make_finding("gpu.override-missing", Severity::warning, "needs override").with_fix(profile));
  CheckResult info{"os", "OS", CheckStatus::info, 0, {}, "", ""};
  info.findings.push_back(make_finding("os.info", Severity::info, "fine")
                              .with_fix({"noop", {"true"}, false, false, false, "", std::nullopt}));
  report.checks = {access, gpu, driver, info};

  const auto script = render_fix_script(report);
  const auto driver_at = script.find("sudo modprobe amdgpu");
  const auto usermod_at = script.find("sudo usermod");
  const auto append_at = script.find(">> /home/alice/.profile");
  ASSERT_NE(driver_at, std::string::npos) << script;
  EXPECT_LT(driver_at, append_at);
  EXPECT_LT(append_at, usermod_at) << script;
  EXPECT_NE(script.find("grep -qxF -- 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' /home/alice/.profile 2>/dev/null || "
                        "echo 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' >> /home/alice/.profile\n"),
            std::string::npos)
      << "appends are idempotent\n"
      << script;
  EXPECT_EQ(script.find("\nsudo reboot"), std::string::npos) << "the script never reboots by itself";
  EXPECT_EQ(script.find("\nnewgrp"), std::string::npos);
  EXPECT_NE(script.find("# After the reboot: sudo dmesg"), std::string::npos) << script;
  EXPECT_NE(script.find("# In your own shell: newgrp render"), std::string::npos);
  EXPECT_NE(script.find("# [error] driver.not-loaded: amdgpu is not loaded\n"), std::string::npos)
      << "free text stays on its comment line";
  EXPECT_EQ(script.find("true\n"), std::string::npos) << "info findings are not fixed";
}

TEST(FixScript, ScenariosWithDriverFixesAreShellcheckClean) {
  const auto shellcheck = find_tool("shellcheck");
  if (shellcheck.empty()) GTEST_SKIP() << "shellcheck is not installed";
  for (const auto* scenario : {"driver-secure-boot-unsigned", "driver-blacklisted-modprobe", "nomodeset",
                               "gpu-rx6700xt-no-override", "access-render-not-relogged", "gpu-mi300x-x8"}) {
    if (!fs::exists(kScenarios + "/" + scenario)) continue;
    testing::TempDir folder;
    const auto script = write_script(folder, scenario);
    EXPECT_EQ(run_tool({"/bin/sh", "-n", script.string()}).exit_code, 0) << scenario;
    const auto lint = run_tool({shellcheck, "--shell=sh", script.string()});
    EXPECT_EQ(lint.exit_code, 0) << scenario << "\n" << lint.out << "\n" << read_text(script);
  }
}

}  // namespace
}  // namespace rocm_doctor
