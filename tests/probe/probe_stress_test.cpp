// Probe isolation under stress: fifty doctor runs in a row whose fake HIP
// runtime crashes, hangs, floods stderr or leaves helper processes behind, in
// a random order. Every run must end within the probe timeout plus one
// second with the finding that names what happened, and leave no process and
// no zombie behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <thread>

#include "probe/doctor_process.h"

namespace rocm_doctor::testing {
namespace {

using namespace std::chrono_literals;

#ifdef ROCM_DOCTOR_SANITIZED
// The instrumented doctor starts and probes several times slower: a longer
// timeout, and fewer runs so the test stays within its ctest time limit.
constexpr auto kProbeTimeout = 4s;
constexpr int kRuns = 20;
#else
constexpr auto kProbeTimeout = 1s;
constexpr int kRuns = 50;
#endif

struct Behaviour {
  std::string name;
  std::string finding;
  std::string severity;
};

const std::vector<Behaviour> kBehaviours = {
    {"segv", "probe.crashed", "error"},
    {"segv-with-child", "probe.crashed", "error"},
    {"hang", "probe.timeout", "error"},
    {"hang-with-child", "probe.timeout", "error"},
    {"noisy", "hip.ok", "ok"},
    {"two-gpus", "hip.ok", "ok"},
    {"not-initialized", "hip.init-failed", "info"},  // info: the runs check an image (--image)
};

// Processes still alive whose environment carries `marker`.
std::vector<int> processes_with(const std::string& marker) {
  std::vector<int> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream environ(entry.path() / "environ", std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(environ), std::istreambuf_iterator<char>()};
    if (text.find(marker) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

// Killed helpers of a killed probe are reparented, dead, to the nearest
// subreaper: this test, so that they do not pile up as zombies under a PID 1
// that never reaps (a CI container's). Only living ones are leftovers.
void reap_orphans() {
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// A process killed a moment ago may still be on its way out: look a few times.
std::vector<int> survivors_of(const std::string& marker) {
  auto found = processes_with(marker);
  for (int attempt = 0; attempt < 20 && !found.empty(); ++attempt) {
    std::this_thread::sleep_for(10ms);
    reap_orphans();
    found = processes_with(marker);
  }
  return found;
}

constexpr unsigned long kDefaultSeed = 20261202;

class ProbeStress : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }
  void TearDown() override {
    for (const int pid : processes_with(marker_)) ::kill(pid, SIGKILL);
    reap_orphans();
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
  const std::string marker_ = "ROCM_DOCTOR_STRESS=" + std::to_string(::getpid());
};

TEST_F(ProbeStress, FiftyRunsOfARuntimeThatCrashesOrHangsAtRandom) {
  // Seeded, so every run (CI or a developer's) tries the same order and a failure
  // replays; ROCM_DOCTOR_STRESS_SEED tries another order.
  const char* seed_text = std::getenv("ROCM_DOCTOR_STRESS_SEED");
  const auto seed = seed_text != nullptr ? std::stoul(seed_text) : kDefaultSeed;
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::size_t> pick(0, kBehaviours.size() - 1);
  SCOPED_TRACE("ROCM_DOCTOR_STRESS_SEED=" + std::to_string(seed) + " replays this order");

  std::map<std::string, int> tally;
  for (int run_number = 0; run_number < kRuns; ++run_number) {
    const auto& behaviour = kBehaviours[pick(random)];
    ++tally[behaviour.name];
    // --image: at --level standard the doctor loads a GPU runtime on a machine without a GPU
    // driver only for an image check (--level full would add the slow copy test).
    const auto run = run_doctor(
        {"--json", "--only", "probe,hip", "--probe-timeout", std::to_string(kProbeTimeout.count()), "--image"},
        {std::string("LD_LIBRARY_PATH=") + ROCM_DOCTOR_FAKE_RUNTIME_DIR, "ROCM_DOCTOR_FAKE_HIP=" + behaviour.name,
         marker_},
        30s);
    const std::string where = "run " + std::to_string(run_number) + " (" + behaviour.name + ")";
    // A hang guard, not a benchmark: the timeout is the contract under test.
    EXPECT_LT(run.wall, kProbeTimeout + 1s) << where;
    EXPECT_FALSE(run.process.timed_out) << where << ": the doctor itself hung";
    ASSERT_TRUE(run.report.is_object()) << where << ": " << run.process.err_tail;
    const auto* finding = find_json_finding(run.report, behaviour.finding);
    ASSERT_NE(finding, nullptr) << where << ": no " << behaviour.finding << " in " << run.process.out;
    EXPECT_EQ(finding->value("severity", ""), behaviour.severity) << where;

    const auto survivors = survivors_of(marker_);
    EXPECT_TRUE(survivors.empty()) << where << ": " << survivors.size() << " process(es) outlived the doctor";
    reap_orphans();
  }
  if (seed == kDefaultSeed) {
    EXPECT_EQ(tally.size(), kBehaviours.size()) << "the default order tries every behaviour";
  }
  std::string mix;
  for (const auto& [name, count] : tally) mix += name + " x" + std::to_string(count) + " ";
  RecordProperty("behaviours", mix);
  std::cout << "[ stress ] seed " << seed << ": " << mix << "\n";
}

}  // namespace
}  // namespace rocm_doctor::testing
