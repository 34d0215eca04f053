// Hostile and corrupt input: the whole doctor (the built binary, as a user runs
// it) replays a damaged copy of a healthy machine's snapshot. Each case asserts
// that the run ended (a generous hang guard, the time printed, never asserted
// tightly), did not crash, produced a valid report, and that a finding names
// the problem. Large inputs are made here at test time, never committed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <string>

#include "probe/doctor_process.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::DoctorRun;
using testing::find_json_finding;

// A run that takes this long is a hang (a healthy replay takes well under a second,
// under ASan a few); the guard is generous so a loaded CI machine never trips it.
constexpr auto kHangGuard = std::chrono::seconds(20);
constexpr const char* kHealthy = "ubuntu2204-rx7900xtx-healthy";
constexpr const char* kGpuProperties = "/sys/class/kfd/kfd/topology/nodes/1/properties";

// A copy of a scenario snapshot to damage.
class DamagedSnapshot {
 public:
  explicit DamagedSnapshot(const std::string& scenario = kHealthy) {
    fs::copy(fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / scenario, dir(),
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  [[nodiscard]] fs::path dir() const { return temp_.path() / "snapshot"; }
  [[nodiscard]] fs::path root() const { return dir() / "root"; }
  // The file behind a machine path (the scenario's sysfs links are relative).
  [[nodiscard]] fs::path real(const std::string& machine_path) const {
    return fs::weakly_canonical(root() / machine_path.substr(1));
  }
  void write(const std::string& machine_path, const std::string& content) const {
    const auto file = real(machine_path);
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
  }
  // Edits snapshot.json.
  template <typename Edit>
  void manifest(Edit edit) const {
    auto json = nlohmann::json::parse(std::ifstream(dir() / "snapshot.json"));
    edit(json);
    std::ofstream(dir() / "snapshot.json", std::ios::trunc) << json.dump(2);
  }
  [[nodiscard]] const fs::path& temp() const { return temp_.path(); }

 private:
  testing::TempDir temp_;
};

// Replays the snapshot with the full doctor and checks what every case needs.
DoctorRun replay(const DamagedSnapshot& snapshot, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--replay", snapshot.dir().string(), "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto run = testing::run_doctor(args, {}, kHangGuard);
  const auto seconds = std::chrono::duration<double>(run.wall).count();
  std::printf("[ measured ] %s: %.2f s\n", ::testing::UnitTest::GetInstance()->current_test_info()->name(), seconds);
  EXPECT_FALSE(run.process.timed_out) << "hang: no end within " << kHangGuard.count() << " s";
  EXPECT_FALSE(run.process.signal) << "killed by signal " << run.process.signal.value_or(0) << "\n"
                                   << run.process.err_tail;
  EXPECT_TRUE(run.process.exit_code == 0 || run.process.exit_code == 1)
      << "exit " << run.process.exit_code.value_or(-1) << " (3 is an internal error)\n"
      << run.process.err_tail;
  EXPECT_TRUE(run.report.is_object()) << "stdout is not a JSON report:\n" << run.process.out.substr(0, 2000);
  if (run.report.is_object()) {
    EXPECT_EQ(run.report["summary"]["internal_errors"], 0) << run.process.out.substr(0, 4000);
  }
  return run;
}

std::string finding_text(const DoctorRun& run, const std::string& id) {
  const auto* finding = find_json_finding(run.report, id);
  return finding == nullptr ? std::string() : finding->dump();
}

// Deterministic bytes of every value, NUL and invalid UTF-8 included.
std::string garbage(std::size_t size, unsigned seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(random() & 0xff);
  return bytes;
}

TEST(HostileInput, HealthyBaseHasNoKfdPropertiesFinding) {
  const DamagedSnapshot snapshot;  // undamaged: the cases below differ from it by their damage only
  const auto run = replay(snapshot);
  EXPECT_EQ(find_json_finding(run.report, "gpu.kfd-properties-invalid"), nullptr);
  EXPECT_NE(find_json_finding(run.report, "driver.ok"), nullptr);
}

TEST(HostileInput, KfdPropertiesOf50MegabytesIsNamedAndNotRead) {
  const DamagedSnapshot snapshot;
  std::string huge;
  huge.reserve(50U << 20);
  while (huge.size() < (50U << 20)) huge += "simd_count 192\n";
  snapshot.write(kGpuProperties, huge);
  const auto run = replay(snapshot);
  const auto text = finding_text(run, "gpu.kfd-properties-invalid");
  EXPECT_NE(text.find("KFD node 1 properties cannot be read (too large)"), std::string::npos) << text;
  EXPECT_NE(text.find("larger than 65536 bytes"), std::string::npos) << text;
}

TEST(HostileInput, BinaryGarbageInSysfsAndProcFiles) {
  const DamagedSnapshot snapshot;
  snapshot.write(kGpuProperties, garbage(4096, 1));
  snapshot.write("/sys/module/amdgpu/version", garbage(64, 2));
  snapshot.write("/sys/bus/pci/devices/0000:03:00.0/class", garbage(16, 3));
  snapshot.write("/proc/cmdline", garbage(512, 4));
  snapshot.write("/etc/os-release", garbage(300, 5));
  snapshot.write("/proc/sys/kernel/osrelease", garbage(40, 6));
  const auto run = replay(snapshot);  // also: the JSON report stays valid UTF-8
  const auto text = finding_text(run, "gpu.kfd-properties-invalid");
  EXPECT_NE(text.find("KFD node 1 properties"), std::string::npos) << text;
  EXPECT_NE(text.find("\\\\x"), std::string::npos) << "the quoted bytes are escaped: " << text;
}

TEST(HostileInput, TruncatedPropertiesLineIsQuoted) {
  const DamagedSnapshot snapshot;
  std::ifstream in(snapshot.real(kGpuProperties));
  std::string content{std::istreambuf_iterator<char>(in), {}};
  content = content.substr(0, content.find("gfx_target_version") + 11);  // "gfx_target_" and nothing after
  snapshot.write(kGpuProperties, content);
  const auto run = replay(snapshot);
  const auto text = finding_text(run, "gpu.kfd-properties-invalid");
  EXPECT_NE(text.find("1 line(s) are not"), std::string::npos) << text;
  EXPECT_NE(text.find("gfx_target_"), std::string::npos) << text;
}

struct BadNumber {
  std::string name;
  std::string key;
  std::string value;
  std::string expected;  // in the finding
};

// Names the case in test listings (gtest would print a hex dump of the struct).
void PrintTo(const BadNumber& c, std::ostream* os) {
  *os << c.name;
}

class HostileNumber : public ::testing::TestWithParam<BadNumber> {};

TEST_P(HostileNumber, IsAFindingNotASilentCpuNode) {
  const auto& param = GetParam();
  const DamagedSnapshot snapshot;
  std::ifstream in(snapshot.real(kGpuProperties));
  std::string content{std::istreambuf_iterator<char>(in), {}};
  const auto at = content.find("\n" + param.key + " ") + 1;
  const auto end = content.find('\n', at);
  content.replace(at, end - at, param.key + " " + param.value);
  snapshot.write(kGpuProperties, content);
  const auto run = replay(snapshot);
  const auto text = finding_text(run, "gpu.kfd-properties-invalid");
  EXPECT_NE(text.find(param.expected), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Kfd, HostileNumber,
    ::testing::Values(
        BadNumber{"NegativeSimdCount", "simd_count", "-1", "simd_count -1"},
        BadNumber{"OverflowingSimdCount", "simd_count", "99999999999999999999", "simd_count 99999999999999999999"},
        BadNumber{"ZeroGfxTargetVersion", "gfx_target_version", "0", "gfx_target_version 0"},
        BadNumber{"HugeGfxTargetVersion", "gfx_target_version", "4294967295", "gfx_target_version 4294967295"},
        BadNumber{"OverflowingDeviceId", "device_id", "184467440737095516160", "device_id 184467440737095516160"}),
    [](const auto& info) { return info.param.name; });

class KfdNotADevice : public ::testing::TestWithParam<std::string> {};

TEST_P(KfdNotADevice, IsAnErrorNamingWhatItIs) {
  const DamagedSnapshot snapshot;
  snapshot.manifest([&](nlohmann::json& json) { json["nodes"]["/dev/kfd"]["type"] = GetParam(); });
  const auto run = replay(snapshot);
  const auto text = finding_text(run, "driver.kfd-not-a-device");
  EXPECT_NE(text.find("/dev/kfd is a " + std::string(GetParam() == "dir" ? "directory" : "regular file")),
            std::string::npos)
      << run.process.out.substr(0, 3000);
  EXPECT_EQ(find_json_finding(run.report, "driver.ok"), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Dev, KfdNotADevice, ::testing::Values("file", "dir"));

TEST(HostileInput, SymlinkLoopsInSysfsEndAndAreNamed) {
  const DamagedSnapshot snapshot;
  const auto node = snapshot.real("/sys/class/kfd/kfd/topology/nodes/1");
  fs::remove_all(node);
  fs::create_symlink("1", node);  // nodes/1 -> nodes/1
  const auto pci_link = snapshot.root() / "sys/bus/pci/devices/0000:03:00.0";
  fs::remove(pci_link);
  fs::create_symlink("../../../bus/pci/devices/0000:03:00.0", pci_link);  // a link to itself
  const auto run = replay(snapshot);
  const auto text = finding_text(run, "gpu.kfd-properties-invalid");
  EXPECT_NE(text.find("KFD node 1 properties cannot be read (too many levels of symbolic links)"), std::string::npos)
      << text;
}

TEST(HostileInput, GroupFileWithOneHundredThousandGroups) {
  const DamagedSnapshot snapshot;
  std::ifstream in(snapshot.real("/etc/group"));
  std::string groups{std::istreambuf_iterator<char>(in), {}};
  for (int i = 0; i < 100'000; ++i)
    groups += "ldapgroup" + std::to_string(i) + ":x:" + std::to_string(200'000 + i) + ":alice,bob\n";
  snapshot.write("/etc/group", groups);
  const auto run = replay(snapshot);
  // The render group is still found among them: access stays granted, not a false alarm.
  EXPECT_NE(find_json_finding(run.report, "access.ok"), nullptr) << run.process.out.substr(0, 3000);
}

TEST(HostileInput, EnvironmentValuesWithNewlinesAndAMegabyte) {
  const DamagedSnapshot snapshot;
  snapshot.manifest([](nlohmann::json& json) {
    json["env"]["HIP_VISIBLE_DEVICES"] = "0\n1";
    json["env"]["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0\nrm -rf ~";
    std::string devices;
    while (devices.size() < (1U << 20)) devices += "0,";
    json["env"]["ROCR_VISIBLE_DEVICES"] = devices;
    json["env"]["PYTORCH_HIP_ALLOC_CONF"] = std::string(1U << 20, 'x');
    json["env"]["HSA_OVERRID_GFX_VERSION_LONG_" + std::string(4096, 'A')] = std::string(1U << 20, 'y');
  });
  const auto run = replay(snapshot);
  EXPECT_NE(find_json_finding(run.report, "env.visible-devices-invalid"), nullptr);
  EXPECT_NE(find_json_finding(run.report, "env.alloc-conf-invalid"), nullptr);
  EXPECT_NE(find_json_finding(run.report, "gpu.override-invalid"), nullptr);
  // A megabyte value is quoted, not copied whole into the report.
  EXPECT_LT(run.process.out.size(), 512U * 1024) << "report size " << run.process.out.size();
}

TEST(HostileInput, VariableNamesWithShellSyntaxStayOutOfFixCommands) {
  const DamagedSnapshot snapshot;
  snapshot.manifest([](nlohmann::json& json) {
    json["env"]["HSA_OVERRIDE_GFX_VERSIO;touch /tmp/pwned"] = "11.0.0";
    json["env"]["HIP_VISIBLE_DEVICE$(reboot)"] = "0";
  });
  const auto run = replay(snapshot);
  EXPECT_NE(find_json_finding(run.report, "env.unknown-variable"), nullptr) << run.process.out.substr(0, 3000);
  for (const auto& check : run.report["checks"]) {
    for (const auto& finding : check["findings"]) {
      for (const auto& fix : finding.value("fix", nlohmann::json::array())) {
        for (const auto& command : fix.value("commands", nlohmann::json::array())) {
          const auto text = command.get<std::string>();
          EXPECT_EQ(text.find("touch /tmp/pwned"), std::string::npos) << text;
          EXPECT_EQ(text.find("$(reboot)"), std::string::npos) << text;
        }
      }
    }
  }
}

TEST(HostileInput, MalformedReleaseFoldersInAptSources) {
  const DamagedSnapshot snapshot;  // amdgpu-dkms 6.8.5 loaded: the amdgpu repository entries are judged
  snapshot.write("/etc/apt/sources.list.d/amdgpu.list",
                 "deb https://repo.radeon.com/amdgpu/6..2/ubuntu jammy main\n"
                 "deb https://repo.radeon.com/amdgpu/99999999999999999999.1/ubuntu jammy main\n"
                 "deb https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n");
  const auto run = replay(snapshot);  // used to read the first number of an empty list (a crash)
  EXPECT_NE(find_json_finding(run.report, "driver.ok"), nullptr);
}

TEST(HostileInput, LinksEscapingRootReadNothingOutsideIt) {
  const DamagedSnapshot snapshot;
  std::ofstream(snapshot.temp() / "outside-secret") << "ID=host-secret-token\n";
  fs::remove(snapshot.root() / "etc/os-release");
  fs::create_symlink("../../../outside-secret", snapshot.root() / "etc/os-release");
  fs::remove(snapshot.root() / "proc/cmdline");
  fs::create_symlink((snapshot.temp() / "outside-secret").string(), snapshot.root() / "proc/cmdline");
  fs::create_symlink("../../../..", snapshot.root() / "sys/module/amdgpu/holders");
  const auto run = replay(snapshot);
  EXPECT_EQ(run.process.out.find("host-secret-token"), std::string::npos);
  EXPECT_NE(find_json_finding(run.report, "os.unknown-distribution"), nullptr) << run.process.out.substr(0, 3000);
}

TEST(HostileInput, SnapshotRootThatIsALinkIsAnInputError) {
  const DamagedSnapshot snapshot;
  fs::rename(snapshot.root(), snapshot.temp() / "elsewhere");
  fs::create_symlink(snapshot.temp() / "elsewhere", snapshot.root());
  const auto run = testing::run_doctor({"--replay", snapshot.dir().string(), "--json"}, {}, kHangGuard);
  EXPECT_EQ(run.process.exit_code, 2) << run.process.err_tail;
  EXPECT_NE(run.process.err_tail.find("root"), std::string::npos) << run.process.err_tail;
  EXPECT_NE(run.process.err_tail.find("symbolic link"), std::string::npos) << run.process.err_tail;
}

}  // namespace
}  // namespace rocm_doctor
