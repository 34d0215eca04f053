// The isolation layer: bounded output, timeouts that kill the whole group,
// crashes and exec failures reported, and never a zombie.
#include "probe/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "probe/probe_runner.h"

namespace rocm_doctor::probe {
namespace {

using namespace std::chrono_literals;

ChildResult sh(const std::string& script, ChildOptions options = {}) {
  return run_child({"/bin/sh", "-c", script}, options);
}

std::string trim_copy(const std::string& text) {
  const auto begin = text.find_first_not_of(" \n");
  const auto end = text.find_last_not_of(" \n");
  return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

// No child of this process is left unreaped.
void expect_no_zombies() {
  int status = 0;
  EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(ChildProcess, CapturesStdoutStderrAndExitCode) {
  const auto result = sh("echo '{\"a\":1}'; echo noise >&2; exit 3");
  EXPECT_TRUE(result.started);
  EXPECT_EQ(result.out, "{\"a\":1}\n");
  EXPECT_EQ(result.err_tail, "noise\n");
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_FALSE(result.signal);
  expect_no_zombies();
}

TEST(ChildProcess, DrainsAMegabyteOfStderrAndKeepsTheTail) {
  ChildOptions options;
  options.stderr_tail = 1024;
  const auto result = sh("head -c 1048576 /dev/zero | tr '\\0' x >&2; echo end >&2; echo ok", options);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "ok\n");
  EXPECT_EQ(result.err_bytes, 1048576U + 4U);
  ASSERT_EQ(result.err_tail.size(), 1024U);
  EXPECT_EQ(result.err_tail.substr(1020), "end\n");
}

TEST(ChildProcess, BoundsStdout) {
  ChildOptions options;
  options.stdout_limit = 100;
  const auto result = sh("head -c 100000 /dev/zero", options);
  EXPECT_EQ(result.out.size(), 100U);
  EXPECT_TRUE(result.out_truncated);
  EXPECT_EQ(result.exit_code, 0);
}

TEST(ChildProcess, KillsTheProcessGroupAtTheTimeout) {
  ChildOptions options;
  options.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  // A grandchild that would keep the pipes open forever.
  const auto result = sh("sleep 100 & sleep 100", options);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.signal, SIGKILL);
  EXPECT_LT(elapsed, 1300ms);
  expect_no_zombies();
}

TEST(ChildProcess, ReturnsWhenTheChildEndsEvenIfAGrandchildHoldsThePipes) {
  ChildOptions options;
  options.timeout = 5s;
  const auto start = std::chrono::steady_clock::now();
  const auto result = sh("sleep 100 & echo done", options);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "done\n");
}

TEST(ChildProcess, ReportsTheSignalOfACrash) {
  const auto result = sh("kill -SEGV $$");
  EXPECT_EQ(result.signal, SIGSEGV);
  EXPECT_FALSE(result.exit_code);
}

TEST(ChildProcess, ReportsAnExecFailure) {
  const auto result = run_child({"/nonexistent/rocm-doctor"}, {});
  EXPECT_FALSE(result.started);
  EXPECT_NE(result.exec_error.find("No such file"), std::string::npos) << result.exec_error;
  expect_no_zombies();
}

TEST(ChildProcess, PassesExtraEnvironment) {
  ChildOptions options;
  options.extra_env = {"ROCM_DOCTOR_TEST_VALUE=42", "PATH=/usr/bin:/bin"};
  const auto result = sh("echo $ROCM_DOCTOR_TEST_VALUE", options);
  EXPECT_EQ(result.out, "42\n");
}

TEST(ChildProcess, StopsWhenCancelled) {
  std::atomic<bool> cancel{true};
  ChildOptions options;
  options.cancel = &cancel;
  const auto start = std::chrono::steady_clock::now();
  const auto result = sh("sleep 100", options);
  EXPECT_TRUE(result.cancelled);
  EXPECT_FALSE(result.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST(ChildProcess, StdinIsDevNullWithoutInput) {
  const auto result = sh("wc -c");
  EXPECT_EQ(trim_copy(result.out), "0");
  EXPECT_EQ(result.in_written, 0U);
}

TEST(ChildProcess, FeedsInputOnStdin) {
  ChildOptions options;
  options.input = std::string("{\"protocol\": 1}\n");
  const auto result = sh("cat", options);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "{\"protocol\": 1}\n");
  EXPECT_EQ(result.in_written, options.input->size());
}

// Input and output both far larger than a pipe buffer: written while the
// output is drained, so neither side waits for the other.
TEST(ChildProcess, BigInputAndBigOutputDoNotDeadlock) {
  ChildOptions options;
  options.timeout = 20s;
  options.input = std::string(3 * 1024 * 1024, 'x');
  const auto result = sh("cat; cat /dev/null >&2", options);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out.size(), 3U * 1024 * 1024);
  EXPECT_EQ(result.in_written, 3U * 1024 * 1024);
}

// A child that exits without reading must not take the doctor down with SIGPIPE.
TEST(ChildProcess, AChildThatIgnoresItsInputIsNoProblem) {
  ChildOptions options;
  options.input = std::string(8 * 1024 * 1024, 'y');
  const auto result = sh("echo early", options);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out, "early\n");
  EXPECT_LT(result.in_written, options.input->size());
  expect_no_zombies();
  // SIGPIPE was blocked only while feeding, and the one the write raised is gone.
  sigset_t mask;
  sigset_t pending;
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &mask), 0);
  ASSERT_EQ(::sigpending(&pending), 0);
  EXPECT_EQ(::sigismember(&mask, SIGPIPE), 0);
  EXPECT_EQ(::sigismember(&pending, SIGPIPE), 0);
}
// probe_outcome: how a finished child is judged.
TEST(ProbeOutcome, JudgesEveryWayAChildCanEnd) {
  struct Case {
    const char* what;
    ChildResult child;
    const char* status;
  };
  ChildResult ok;
  ok.started = true;
  ok.exit_code = 0;
  ok.out = "{\"x\": 1}";
  ChildResult crashed = ok;
  crashed.exit_code.reset();
  crashed.signal = SIGSEGV;
  crashed.out.clear();
  ChildResult exited = ok;
  exited.exit_code = 1;
  exited.out = "";
  ChildResult garbage = ok;
  garbage.out = "Exception caught: rsmi_init.\n";
  ChildResult array = ok;
  array.out = "[1,2]";
  ChildResult truncated = ok;
  truncated.out_truncated = true;
  ChildResult timeout = ok;
  timeout.timed_out = true;
  timeout.signal = SIGKILL;
  timeout.exit_code.reset();
  ChildResult failed;
  failed.exec_error = "cannot run /proc/self/exe: No such file or directory";
  const Case cases[] = {{"ok", ok, "ok"},
                        {"signal", crashed, "crashed"},
                        {"exit 1 without output", exited, "crashed"},
                        {"garbage", garbage, "invalid-output"},
                        {"not an object", array, "invalid-output"},
                        {"truncated", truncated, "invalid-output"},
                        {"timeout", timeout, "timeout"},
                        {"exec failed", failed, "exec-failed"}};
  for (const auto& c : cases) {
    const auto outcome = probe_outcome(c.child, 10s);
    EXPECT_EQ(outcome.value("status", ""), c.status) << c.what;
  }
  const auto crash = probe_outcome(crashed, 10s);
  EXPECT_EQ(crash.value("signal_name", ""), "SIGSEGV");
  EXPECT_EQ(probe_outcome(ok, 10s)["result"]["x"], 1);
}

TEST(ProbeOutcome, FindsTheLastStepInStderr) {
  ChildResult child;
  child.started = true;
  child.signal = SIGSEGV;
  child.err_tail = "rocm-doctor-probe: step dlopen libamdhip64\nnoise\nrocm-doctor-probe: step hipGetDeviceCount\n";
  EXPECT_EQ(probe_outcome(child, 10s).value("last_step", ""), "hipGetDeviceCount");
}

TEST(ProbeLevels, QuickLoadsNothingAndFullAddsTheSmokeTest) {
  EXPECT_TRUE(probe_names(ProbeLevel::quick).empty());
  EXPECT_EQ(probe_names(ProbeLevel::standard),
            (std::vector<std::string>{"hip", "smi", "python", "dxcore", "wsl-interop"}));
  EXPECT_EQ(probe_command("/x", "hip", ProbeLevel::standard), (std::vector<std::string>{"/x", "__probe", "hip"}));
  EXPECT_EQ(probe_command("/x", "hip", ProbeLevel::full),
            (std::vector<std::string>{"/x", "__probe", "hip", "--smoke"}));
  EXPECT_FALSE(parse_probe_level("deep"));
}

}  // namespace
}  // namespace rocm_doctor::probe
