// Promises of docs/security.md that hold for the binary as a whole.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>

#include "probe/child_process.h"
#include "rocm_doctor/text.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

const std::string kScenario = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/ubuntu2204-rx7900xtx-healthy";

probe::ChildResult run(const std::vector<std::string>& argv) {
  probe::ChildOptions options;
  options.timeout = std::chrono::seconds(60);
  options.stdout_limit = 64 * 1024 * 1024;
  return probe::run_child(argv, options);
}

std::set<std::string> imported_symbols() {
  const auto listing = run({"/usr/bin/nm", "-D", "--undefined-only", ROCM_DOCTOR_BINARY});
  std::set<std::string> symbols;
  for (const auto line : split(listing.out, '\n')) {
    const auto words = split_words(line);
    if (words.empty()) continue;
    const auto name = words.back();
    symbols.emplace(name.substr(0, name.find('@')));
  }
  return symbols;
}

// No socket code means no network; no system/popen/exec*p means no shell and
// no PATH search for what it runs (children get execve of an absolute path).
TEST(Security, TheBinaryImportsNoNetworkOrShellCalls) {
  if (!std::filesystem::exists("/usr/bin/nm")) GTEST_SKIP() << "nm (binutils) is not installed";
  const auto symbols = imported_symbols();
  if (!symbols.contains("fork")) GTEST_SKIP() << "a static build: no dynamic imports to inspect";
  EXPECT_TRUE(symbols.contains("execve")) << "the listing is not what this test expects";
  for (const char* forbidden : {"socket", "connect", "getaddrinfo", "gethostbyname", "bind", "sendto", "system",
                                "popen", "execvp", "execlp", "execvpe", "posix_spawnp", "setuid", "seteuid"}) {
    EXPECT_FALSE(symbols.contains(forbidden)) << "rocm-doctor imports " << forbidden;
  }
}

// What a test that drops privileges runs: the binary and a scenario copied to a
// fresh folder of mode 0755 under the temporary directory. The source and build
// trees may sit where nobody cannot enter (a checkout in root's mode 0700 home).
struct ReadableCopy {
  testing::TempDir dir;
  std::string binary;
  std::string scenario;
};

std::unique_ptr<ReadableCopy> copy_for_nobody(const std::string& scenario) {
  auto copy = std::make_unique<ReadableCopy>();
  const auto& top = copy->dir.path();
  std::filesystem::permissions(top, std::filesystem::perms(0755));
  copy->binary = (top / "rocm-doctor").string();
  copy->scenario = (top / std::filesystem::path(scenario).filename()).string();
  std::filesystem::copy_file(ROCM_DOCTOR_BINARY, copy->binary);
  std::filesystem::permissions(copy->binary, std::filesystem::perms(0755));
  std::filesystem::copy(scenario, copy->scenario,
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  // Files keep the modes they had in the checkout; folders and files must be readable by all.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(copy->scenario)) {
    if (entry.is_symlink()) continue;
    std::filesystem::permissions(entry.path(),
                                 entry.is_directory() ? std::filesystem::perms(0755) : std::filesystem::perms(0644));
  }
  std::filesystem::permissions(copy->scenario, std::filesystem::perms(0755));
  return copy;
}

std::vector<std::string> as_nobody(const std::string& binary) {
  return {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", binary};
}

// Run as root (CI), the doctor is re-run as nobody: it must do its whole job
// without privileges, on a replay and on this machine.
TEST(Security, RunsAsNobody) {
  if (::geteuid() != 0) GTEST_SKIP() << "already unprivileged: every other test shows it";
  if (!std::filesystem::exists("/usr/bin/setpriv")) GTEST_SKIP() << "setpriv (util-linux) is not installed";
  const auto copy = copy_for_nobody(kScenario);
  auto replay = as_nobody(copy->binary);
  replay.insert(replay.end(), {"--replay", copy->scenario, "--json"});
  const auto replayed = run(replay);
  ASSERT_TRUE(replayed.exec_error.empty()) << replayed.exec_error;
  EXPECT_EQ(replayed.exit_code, std::optional<int>(0)) << replayed.err_tail;
  EXPECT_TRUE(nlohmann::json::parse(replayed.out, nullptr, false).is_object());

  auto live = as_nobody(copy->binary);
  live.insert(live.end(), {"--json", "--level", "quick"});
  const auto lived = run(live);
  EXPECT_TRUE(lived.exit_code == 0 || lived.exit_code == 1) << lived.exit_code.value_or(-1) << ": " << lived.err_tail;
  const auto report = nlohmann::json::parse(lived.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << lived.out.substr(0, 200) << lived.err_tail;
  for (const auto& check : report["checks"]) EXPECT_NE(check.value("status", ""), "internal-error") << check.dump();
}

// A snapshot below a folder nobody may enter (root's mode 0700 home) is refused
// with "permission denied" naming that folder, not "no such directory".
TEST(Security, ASnapshotBehindAClosedFolderIsPermissionDenied) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop to nobody";
  if (!std::filesystem::exists("/usr/bin/setpriv")) GTEST_SKIP() << "setpriv (util-linux) is not installed";
  const auto copy = copy_for_nobody(kScenario);
  const auto home = copy->dir.path() / "home0700";
  std::filesystem::create_directories(home / "checkout");
  std::filesystem::copy(copy->scenario, home / "checkout" / "snap",
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  std::filesystem::permissions(home, std::filesystem::perms(0700));
  auto replay = as_nobody(copy->binary);
  replay.insert(replay.end(), {"--replay", (home / "checkout" / "snap").string()});
  const auto replayed = run(replay);
  ASSERT_TRUE(replayed.exec_error.empty()) << replayed.exec_error;
  EXPECT_EQ(replayed.exit_code, std::optional<int>(2)) << replayed.err_tail;
  EXPECT_NE(replayed.err_tail.find("permission denied: this process cannot enter " + home.string() + " (mode 0700"),
            std::string::npos)
      << replayed.err_tail;
  EXPECT_EQ(replayed.err_tail.find("no such directory"), std::string::npos) << replayed.err_tail;
}

}  // namespace
}  // namespace rocm_doctor
