// End to end: a default run reads torch from its files and starts no
// interpreter; --level full (and only it, or files that cannot decide)
// imports torch. The fake torch below leaves a marker file when imported and
// would take seconds to import, as a real ROCm wheel does.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "probe/doctor_process.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

namespace fs = std::filesystem;

// Debian 12's /usr/bin/python3 -> python3.11: the venv's lib/python3.N must match it.
std::string python_version_name() {
  std::error_code error;
  const auto target = fs::read_symlink("/usr/bin/python3", error);
  if (error || !target.filename().string().starts_with("python3.")) return {};
  return target.filename().string();
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A venv on PATH whose torch is a ROCm build: version.py as the wheels ship it,
// and an __init__.py that marks the import and sleeps.
class SlowTorchVenv : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = python_version_name();
    if (python_.empty()) GTEST_SKIP() << "no Debian-style /usr/bin/python3 -> python3.N link";
    venv_ = dir_.path() / "venv";
    fs::create_directories(venv_ / "bin");
    fs::create_symlink("/usr/bin/python3", venv_ / "bin/python3");
    write(venv_ / "pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
    const auto torch = venv_ / "lib" / python_ / "site-packages/torch";
    write(torch / "version.py",
          "from typing import Optional\n__version__ = '2.5.1+rocm6.2'\ndebug = False\n"
          "cuda: Optional[str] = None\ngit_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
          "hip: Optional[str] = '6.2.41133-dd7f95766'\n");
    write(torch / "__init__.py", "import os, time, types\nopen(" + quoted(marker()) +
                                     ", 'w').close()\ntime.sleep(float(os.environ.get('FAKE_TORCH_SLEEP', '0')))\n"
                                     "__version__ = '2.5.1+rocm6.2'\n"
                                     "version = types.SimpleNamespace(hip='6.2.41133-dd7f95766', cuda=None)\n"
                                     "class _Cuda:\n"
                                     "    def is_available(self): return False\n"
                                     "    def device_count(self): return 0\n"
                                     "    def get_arch_list(self): return []\n"
                                     "cuda = _Cuda()\n");
    write(venv_ / "lib" / python_ / "site-packages/torch-2.5.1+rocm6.2.dist-info/METADATA",
          "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+rocm6.2\n");
  }

  static std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }
  [[nodiscard]] fs::path marker() const { return dir_.path() / "imported"; }

  DoctorRun run(std::vector<std::string> extra, const std::string& sleep = "0") {
    std::vector<std::string> arguments = {"--json", "--only", "torch,miopen"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return run_doctor(arguments,
                      {"PATH=" + (venv_ / "bin").string() + ":/usr/bin:/bin", "VIRTUAL_ENV=" + venv_.string(),
                       "PYTHONPATH=", "FAKE_TORCH_SLEEP=" + sleep, "HOME=" + dir_.path().string()});
  }

  TempDir dir_;
  fs::path venv_;
  std::string python_;
};

std::string evidence_of(const nlohmann::json* finding, const std::string& source) {
  if (finding == nullptr) return "<no finding>";
  for (const auto& item : finding->value("evidence", nlohmann::json::array())) {
    if (item.value("source", "") == source) return item.value("value", "");
  }
  return "<no " + source + " evidence>";
}

TEST_F(SlowTorchVenv, TheDefaultRunReadsTheFilesAndImportsNothing) {
  // The import would sleep 60 s: a run that imported would time out the probe and say so.
  const auto result = run({}, "60");
  ASSERT_TRUE(result.report.is_object()) << result.process.out << result.process.err_tail;
  EXPECT_FALSE(fs::exists(marker())) << "the default run imported torch";
  // This machine has no AMD GPU: a ROCm build that cannot see one, from the files alone.
  const auto* finding = find_json_finding(result.report, "torch.no-gpu");
  ASSERT_NE(finding, nullptr) << result.process.out;
  EXPECT_NE(finding->value("summary", "").find("2.5.1+rocm6.2"), std::string::npos);
  EXPECT_NE(evidence_of(finding, "source").find("version.py (nothing imported)"), std::string::npos) << finding->dump();
  EXPECT_NE(evidence_of(finding, "python").find("(venv)"), std::string::npos) << finding->dump();
  // The miopen check learns of the wheel's MIOpen from the same files.
  EXPECT_EQ(result.report["versions"].value("torch", ""), "2.5.1+rocm6.2") << result.report["versions"].dump();
}

TEST_F(SlowTorchVenv, SkippingTorchStartsNoInterpreterForMiopen) {
  const auto result =
      run_doctor({"--json", "--skip", "torch"}, {"PATH=" + (venv_ / "bin").string() + ":/usr/bin:/bin",
                                                 "PYTHONPATH=", "FAKE_TORCH_SLEEP=60", "HOME=" + dir_.path().string()});
  ASSERT_TRUE(result.report.is_object()) << result.process.out << result.process.err_tail;
  EXPECT_FALSE(fs::exists(marker()));
}

TEST_F(SlowTorchVenv, LevelFullImportsAndSaysSo) {
  const auto result = run({"--level", "full"});
  ASSERT_TRUE(result.report.is_object()) << result.process.out << result.process.err_tail;
  EXPECT_TRUE(fs::exists(marker())) << "--level full did not import torch";
  const auto* finding = find_json_finding(result.report, "torch.no-gpu");
  ASSERT_NE(finding, nullptr) << result.process.out;
  EXPECT_NE(finding->value("detail", "").find("torch.cuda.is_available() is False"), std::string::npos)
      << finding->dump();
  EXPECT_NE(evidence_of(finding, "source").find("import torch in"), std::string::npos) << finding->dump();
}

TEST_F(SlowTorchVenv, TheDefaultRunImportsWhenTheFilesCannotDecide) {
  fs::remove(venv_ / "lib" / python_ / "site-packages/torch/version.py");
  const auto result = run({});
  ASSERT_TRUE(result.report.is_object()) << result.process.out << result.process.err_tail;
  EXPECT_TRUE(fs::exists(marker())) << "without version.py only the import can tell";
  EXPECT_NE(find_json_finding(result.report, "torch.no-gpu"), nullptr) << result.process.out;
}

TEST_F(SlowTorchVenv, LevelQuickImportsNothingEvenThen) {
  fs::remove(venv_ / "lib" / python_ / "site-packages/torch/version.py");
  const auto result = run({"--level", "quick"});
  ASSERT_TRUE(result.report.is_object()) << result.process.out << result.process.err_tail;
  EXPECT_FALSE(fs::exists(marker()));
}

TEST_F(SlowTorchVenv, ACaptureRecordsTheFilesAndReplaysTheSameVerdict) {
  const auto snapshot = dir_.path() / "snap";
  const auto capture = run_doctor(
      {"capture", snapshot.string(), "--only", "torch"},
      {"PATH=" + (venv_ / "bin").string() + ":/usr/bin:/bin", "PYTHONPATH=", "HOME=" + dir_.path().string()});
  ASSERT_EQ(capture.process.exit_code, 0) << capture.process.err_tail;
  EXPECT_FALSE(fs::exists(marker()));
  std::ifstream in(snapshot / "snapshot.json");
  const auto manifest = nlohmann::json::parse(in);
  EXPECT_FALSE(manifest.value("probes", nlohmann::json::object()).contains("python")) << "nothing was imported";
  const auto replay = run_doctor({"--json", "--only", "torch", "--replay", snapshot.string()});
  const auto* finding = find_json_finding(replay.report, "torch.no-gpu");
  ASSERT_NE(finding, nullptr) << replay.process.out;
  EXPECT_NE(finding->value("summary", "").find("2.5.1+rocm6.2"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor::testing
