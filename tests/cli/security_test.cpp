// Promises of docs/security.md that hold for the binary as a whole.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "probe/child_process.h"
#include "rocm_doctor/text.h"

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

// Run as root (CI), the doctor is re-run as nobody: it must do its whole job
// without privileges, on a replay and on this machine.
TEST(Security, RunsAsNobody) {
  if (::geteuid() != 0) GTEST_SKIP() << "already unprivileged: every other test shows it";
  if (!std::filesystem::exists("/usr/bin/setpriv")) GTEST_SKIP() << "setpriv (util-linux) is not installed";
  const std::vector<std::string> as_nobody = {
      "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", ROCM_DOCTOR_BINARY};
  auto replay = as_nobody;
  replay.insert(replay.end(), {"--replay", kScenario, "--json"});
  const auto replayed = run(replay);
  if (replayed.exit_code == 126 || replayed.exec_error.size() > 0)
    GTEST_SKIP() << "the build folder is not readable by nobody";
  EXPECT_EQ(replayed.exit_code, std::optional<int>(0)) << replayed.err_tail;
  EXPECT_TRUE(nlohmann::json::parse(replayed.out, nullptr, false).is_object());

  auto live = as_nobody;
  live.insert(live.end(), {"--json", "--level", "quick"});
  const auto lived = run(live);
  EXPECT_TRUE(lived.exit_code == 0 || lived.exit_code == 1) << lived.exit_code.value_or(-1) << ": " << lived.err_tail;
  const auto report = nlohmann::json::parse(lived.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << lived.out.substr(0, 200) << lived.err_tail;
  for (const auto& check : report["checks"]) EXPECT_NE(check.value("status", ""), "internal-error") << check.dump();
}

}  // namespace
}  // namespace rocm_doctor
