// End to end: the built doctor runs a Python whose `torch` is a fake package
// on PYTHONPATH (tests/fake_torch/<variant>) and must name each variant.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "probe/doctor_process.h"
#include "probe/python_probe.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

using namespace std::chrono_literals;

std::string python3() {
  for (const char* candidate : {"/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return {};
}

DoctorRun run_variant(const std::string& variant, std::vector<std::string> extra = {}) {
  std::vector<std::string> arguments = {"--json", "--only", "torch", "--python", python3(), "--probe-timeout", "10"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  std::vector<std::string> env = {"ROCM_DOCTOR_UNUSED=1"};
  if (!variant.empty()) env.push_back(std::string("PYTHONPATH=") + ROCM_DOCTOR_SOURCE_DIR + "/tests/fake_torch/" + variant);
  auto run = run_doctor(arguments, env);
  EXPECT_TRUE(run.report.is_object()) << run.process.out << run.process.err_tail;
  return run;
}


bool has(const DoctorRun& run, const std::string& id, const std::string& severity) {
  for (const auto& [found, level] : finding_ids(run.report)) {
    if (found == id && level == severity) return true;
  }
  return false;
}

std::string summary(const DoctorRun& run, const std::string& id) {
  const auto* finding = find_json_finding(run.report, id);
  return finding != nullptr ? finding->value("summary", "") : "<no " + id + ">";
}

class FakeTorch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (python3().empty()) GTEST_SKIP() << "no python3 on this machine";
  }
};

// This machine has no AMD GPU: a CPU or CUDA build is named, at a lower severity.
TEST_F(FakeTorch, CudaBuild) {
  const auto run = run_variant("cuda");
  EXPECT_TRUE(has(run, "torch.cuda-build", "info") || has(run, "torch.cuda-build", "error")) << run.process.out;
  EXPECT_NE(summary(run, "torch.cuda-build").find("2.3.1+cu121"), std::string::npos);
  const auto* finding = find_json_finding(run.report, "torch.cuda-build");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->dump().find("--index-url https://download.pytorch.org/whl/rocm"), std::string::npos);
}

TEST_F(FakeTorch, CpuBuild) {
  const auto run = run_variant("cpu");
  EXPECT_NE(find_json_finding(run.report, "torch.cpu-build"), nullptr) << run.process.out;
}

TEST_F(FakeTorch, ImportErrorKeepsTheLastLine) {
  const auto run = run_variant("import-error");
  EXPECT_TRUE(has(run, "torch.import-failed", "error")) << run.process.out;
  EXPECT_NE(summary(run, "torch.import-failed").find("ImportError: libamdhip64.so.6"), std::string::npos)
      << summary(run, "torch.import-failed");
}

TEST_F(FakeTorch, RocmBuildWithoutAGpuHere) {
  // The healthy ROCm fake reports a GPU; on this GPU-less machine nothing is missing from its arch list.
  // A machine with a distribution ROCm other than 5.6 also gets torch.rocm-mismatch (a warning).
  const auto run = run_variant("rocm", {"--fail-on", "error"});
  EXPECT_TRUE(has(run, "torch.ok", "ok") || has(run, "torch.rocm-mismatch", "warning")) << run.process.out;
  EXPECT_EQ(run.process.exit_code, 0) << run.process.out;
  EXPECT_EQ(find_json_finding(run.report, "torch.no-gpu"), nullptr);
  EXPECT_EQ(find_json_finding(run.report, "torch.arch-missing"), nullptr);
}

TEST_F(FakeTorch, NoGpu) {
  const auto run = run_variant("no-gpu");
  EXPECT_TRUE(has(run, "torch.no-gpu", "error")) << run.process.out;
}

TEST_F(FakeTorch, ArchMissingForAnImageTarget) {
  const auto run = run_variant("arch-missing", {"--image", "--target-gfx", "gfx1100"});
  EXPECT_TRUE(has(run, "torch.arch-missing", "error")) << run.process.out;
  EXPECT_NE(summary(run, "torch.arch-missing").find("gfx1100"), std::string::npos);
}

TEST_F(FakeTorch, NotInstalled) {
  const auto run = run_variant("");
  // Debian's python3-torch may be installed system-wide: then it is the real CPU build.
  EXPECT_TRUE(has(run, "torch.not-installed", "info") || find_json_finding(run.report, "torch.cpu-build") != nullptr)
      << run.process.out;
}

TEST_F(FakeTorch, NoPythonIsInfo) {
  const auto run = run_doctor({"--json", "--only", "torch", "--python", "/nonexistent/python3"});
  EXPECT_TRUE(has(run, "torch.no-python", "info")) << run.process.out;
  EXPECT_EQ(run.process.exit_code, 0);
}

TEST_F(FakeTorch, TheProbeRunsInParallelAndIsCaptured) {
  TempDir dir;
  const std::string base = dir.path().string();
  const auto start = std::chrono::steady_clock::now();
  auto capture = run_doctor({"capture", base + "/snap", "--only", "torch", "--python", python3()},
                            {std::string("PYTHONPATH=") + ROCM_DOCTOR_SOURCE_DIR + "/tests/fake_torch/rocm"});
  const auto wall = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(capture.process.exit_code, 0) << capture.process.err_tail;
  EXPECT_LT(wall, 10s);
  std::ifstream in(base + "/snap/snapshot.json");
  const auto snapshot = nlohmann::json::parse(in);
  const auto& python = snapshot["probes"]["python"];
  ASSERT_EQ(python.value("status", ""), "ok") << python.dump();
  EXPECT_EQ(python["result"]["torch"]["version"], "2.1.0+rocm5.6");
  EXPECT_EQ(python["result"]["torch"]["arch_list"].size(), 6U);
  EXPECT_TRUE(python["result"]["torch"]["error"].is_null());
  const auto replay = run_doctor({"--json", "--only", "torch", "--replay", base + "/snap"});
  EXPECT_TRUE(has(replay, "torch.ok", "ok") || has(replay, "torch.rocm-mismatch", "warning")) << replay.process.out;
}

// Debian's python3-torch (1.13, a CPU build) when it is installed.
TEST(RealTorch, DebianPython3TorchIsACpuBuild) {
  if (python3().empty() || !std::filesystem::exists("/usr/lib/python3/dist-packages/torch/__init__.py")) {
    GTEST_SKIP() << "Debian's python3-torch is not installed (apt-get install python3-torch to run this test)";
  }
  auto run = run_doctor({"--json", "--only", "torch", "--python", python3(), "--probe-timeout", "20"});
  const auto* finding = find_json_finding(run.report, "torch.cpu-build");
  ASSERT_NE(finding, nullptr) << run.process.out << run.process.err_tail;
  EXPECT_NE(finding->value("summary", "").find("1.13"), std::string::npos) << finding->dump();
}

}  // namespace
}  // namespace rocm_doctor::testing
