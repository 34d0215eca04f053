// End to end: the built doctor runs a Python whose `torch` is a fake package
// on PYTHONPATH (tests/fake_torch/<variant>) and must name each variant.
#include "probe/python_probe.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "probe/doctor_process.h"
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
  if (!variant.empty())
    env.push_back(std::string("PYTHONPATH=") + ROCM_DOCTOR_SOURCE_DIR + "/tests/fake_torch/" + variant);
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
// Only what choose_python asks: PATH, who runs, and stat(2) of any path.
class PathHost final : public Host {
 public:
  PathHost(std::uint32_t uid, std::string path) : uid_(uid), path_(std::move(path)) {}
  PathHost& node(const std::string& path, EntryType type, std::uint32_t mode, std::uint32_t uid) {
    nodes_[path] = NodeInfo{type, mode, uid, uid, false, std::nullopt};
    return *this;
  }
  PathHost& folder(const std::string& path, std::uint32_t mode, std::uint32_t uid) {
    return node(path, EntryType::directory, mode, uid);
  }
  PathHost& program(const std::string& path, std::uint32_t uid) { return node(path, EntryType::file, 0755, uid); }
  // As a replayed file without a recorded owner answers.
  PathHost& unknown_owner(const std::string& path) {
    nodes_.at(path).permissions_known = false;
    return *this;
  }

  std::string_view source() const override { return "test"; }
  HostResult<std::string> read_file(std::string_view path, std::size_t) const override { return missing(path); }
  HostResult<std::vector<DirEntry>> list_dir(std::string_view path) const override { return missing(path); }
  HostResult<std::string> read_link(std::string_view path) const override { return missing(path); }
  HostResult<NodeInfo> stat_node(std::string_view path) const override {
    const auto it = nodes_.find(std::string(path));
    if (it == nodes_.end()) return missing(path);
    return it->second;
  }
  std::optional<std::string> env(std::string_view name) const override {
    return name == "PATH" ? std::optional(path_) : std::nullopt;
  }
  std::vector<std::string> env_names() const override { return {"PATH"}; }
  Identity identity() const override { return {uid_ == 0 ? "root" : "alice", uid_, uid_, {uid_}}; }
  std::optional<GroupEntry> group_by_gid(std::uint32_t) const override { return std::nullopt; }
  std::optional<GroupEntry> group_by_name(std::string_view) const override { return std::nullopt; }
  std::optional<UserEntry> user_by_name(std::string_view) const override { return std::nullopt; }
  std::optional<nlohmann::json> probe(std::string_view) const override { return std::nullopt; }

 private:
  static tl::unexpected<HostError> missing(std::string_view path) {
    return tl::unexpected(HostError{HostErrorKind::not_found, std::string(path)});
  }
  std::uint32_t uid_;
  std::string path_;
  std::map<std::string, NodeInfo> nodes_;
};

// PATH with alice's own ~/bin before /usr/bin, both holding a python3.
PathHost two_pythons(std::uint32_t uid) {
  PathHost host(uid, "/home/alice/bin:/usr/bin");
  host.folder("/home/alice/bin", 0755, 1000).program("/home/alice/bin/python3", 1000);
  host.folder("/usr/bin", 0755, 0).program("/usr/bin/python3", 0);
  return host;
}

TEST(ChoosePython, AUserRunTakesTheFirstOnPath) {
  EXPECT_EQ(probe::choose_python(two_pythons(1000), "").interpreter, "/home/alice/bin/python3");
}

TEST(ChoosePython, ARootRunSkipsAFolderAnotherUserOwns) {
  EXPECT_EQ(probe::choose_python(two_pythons(0), "").interpreter, "/usr/bin/python3");
}

TEST(ChoosePython, ARootRunSkipsAWorldWritableFolderEvenIfRootOwnsIt) {
  PathHost host(0, "/tmp:/usr/bin");
  host.folder("/tmp", 01777, 0).program("/tmp/python3", 0);
  host.folder("/usr/bin", 0755, 0).program("/usr/bin/python3", 0);
  EXPECT_EQ(probe::choose_python(host, "").interpreter, "/usr/bin/python3");
}

TEST(ChoosePython, ARootRunSkipsAProgramAnotherUserOwnsInARootFolder) {
  PathHost host(0, "/usr/local/bin:/usr/bin");
  host.folder("/usr/local/bin", 0755, 0).node("/usr/local/bin/python3", EntryType::file, 0777, 0);
  host.folder("/usr/bin", 0755, 0).program("/usr/bin/python3", 0);
  EXPECT_EQ(probe::choose_python(host, "").interpreter, "/usr/bin/python3");
}

TEST(ChoosePython, ARootRunTrustsNoPythonWhoseOwnerIsUnknown) {
  PathHost host(0, "/usr/local/bin:/usr/bin");
  host.folder("/usr/local/bin", 0755, 0).program("/usr/local/bin/python3", 0).unknown_owner("/usr/local/bin/python3");
  host.folder("/usr/bin", 0755, 0).program("/usr/bin/python3", 0);
  EXPECT_EQ(probe::choose_python(host, "").interpreter, "/usr/bin/python3");
}

TEST(ChoosePython, ARootRunWithOnlyAnUntrustedPythonSaysWhyNothingRan) {
  PathHost host(0, "/home/alice/bin");
  host.folder("/home/alice/bin", 0755, 1000).program("/home/alice/bin/python3", 1000);
  const auto choice = probe::choose_python(host, "");
  EXPECT_TRUE(choice.interpreter.empty());
  EXPECT_NE(choice.error.find("/home/alice/bin/python3"), std::string::npos) << choice.error;
  EXPECT_NE(choice.error.find("--python"), std::string::npos) << choice.error;
}

TEST(ChoosePython, AnExplicitPythonIsTheOperatorsChoiceEvenForRoot) {
  EXPECT_EQ(probe::choose_python(two_pythons(0), "/home/alice/bin/python3").interpreter, "/home/alice/bin/python3");
}

TEST(ChoosePython, RelativeAndEmptyPathEntriesAreNeverSearched) {
  PathHost host(1000, ":.:bin");
  host.program("python3", 1000).program("./python3", 1000).program("bin/python3", 1000).program("/python3", 1000);
  const auto choice = probe::choose_python(host, "");
  EXPECT_TRUE(choice.interpreter.empty()) << choice.interpreter;
}

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
