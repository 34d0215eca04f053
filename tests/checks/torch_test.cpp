// The `torch` check on recorded python-probe outcomes: no interpreter, no torch,
// a crash or hang while importing it. (Wheel flavours, arch lists and versions are
// covered by the torch-* scenarios; Debian's real torch by RealTorch.*.)
#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

using nlohmann::json;

Report run_probe(const json& outcome) {
  SnapshotBuilder b;
  b.probe("python", outcome);
  return run_on(*b.open(), {"torch"});
}

// Without a recorded import the check reads torch from the files (issue 18):
// a snapshot with no interpreter and no torch says so, at info.
TEST(TorchCheck, NoProbeAndNoFilesIsAnInfo) {
  SnapshotBuilder b;
  const auto report = run_on(*b.open(), {"torch"});
  ASSERT_FALSE(report.checks.empty());
  EXPECT_NE(report.checks[0].status, CheckStatus::internal_error);
  for (const auto& finding : report.checks[0].findings) EXPECT_LT(finding.severity, Severity::warning) << finding.id;
}

TEST(TorchCheck, NoInterpreterIsAnInfo) {
  const auto report = run_probe({{"status", "ok"}, {"result", {{"executable", ""}, {"error", "no python3 on PATH"}}}});
  const auto* finding = find_finding(report, "torch.no-python");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
}

TEST(TorchCheck, NoTorchIsAnInfoNamingTheInterpreter) {
  const auto report = run_probe({{"status", "ok"}, {"result", {{"executable", "/usr/bin/python3"}}}});
  const auto* finding = find_finding(report, "torch.not-installed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_EQ(finding->summary, "PyTorch is not installed for /usr/bin/python3");
}

TEST(TorchCheck, ACrashWhileImportingIsAnErrorWithACleanImportToTry) {
  const auto report = run_probe({{"status", "crashed"}, {"signal_name", "SIGSEGV"}});
  const auto* finding = find_finding(report, "torch.import-failed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_EQ(finding->summary, "Python crashed (SIGSEGV) while importing torch");
  EXPECT_EQ(finding->fixes.at(0).commands.at(0),
            "env -u LD_LIBRARY_PATH -u LD_PRELOAD python3 -c 'import torch; print(torch.__version__)'");
}

TEST(TorchCheck, AHangIsAWarningWithMoreTime) {
  const auto report = run_probe({{"status", "timeout"}, {"timeout_ms", 20000}});
  const auto* finding = find_finding(report, "torch.probe-failed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  EXPECT_EQ(finding->summary, "Importing torch took longer than 20 s");
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "rocm-doctor --only torch --probe-timeout 30");
}

TEST(TorchCheck, AnImportErrorIsAnError) {
  const auto report = run_probe(
      {{"status", "ok"},
       {"result",
        {{"executable", "/usr/bin/python3"}, {"torch", {{"error", "ImportError: libamdhip64.so.6: cannot open"}}}}}});
  const auto* finding = find_finding(report, "torch.import-failed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->summary, "import torch fails: ImportError: libamdhip64.so.6: cannot open");
}

// The advice follows what the error is (its error family; Python's exception class), not its words.
TEST(TorchCheck, TheImportFixIsChosenByTheErrorsFamilyOrClass) {
  const auto hint_for = [](const std::string& error) {
    const auto report =
        run_probe({{"status", "ok"}, {"result", {{"executable", "/usr/bin/python3"}, {"torch", {{"error", error}}}}}});
    const auto* finding = find_finding(report, "torch.import-failed");
    return finding == nullptr || finding->fixes.empty() ? std::string() : finding->fixes[0].description;
  };
  const std::string library = "A shared library is missing or from another release";
  EXPECT_TRUE(hint_for("OSError: libamdhip64.so.6: cannot open shared object file: No such file or directory")
                  .starts_with(library));
  EXPECT_TRUE(
      hint_for("ImportError: /opt/rocm/lib/libhipblas.so.2: undefined symbol: rocblas_gemm_ex3").starts_with(library));
  EXPECT_TRUE(hint_for("ModuleNotFoundError: No module named 'numpy'").starts_with("A dependency is missing"));
  // A message that merely contains ".so" is no library problem.
  EXPECT_TRUE(hint_for("RuntimeError: torch.so: something else went wrong").starts_with("Reinstall PyTorch"));
}

}  // namespace
}  // namespace rocm_doctor::testing
