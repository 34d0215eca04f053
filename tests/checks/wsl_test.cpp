// The `wsl` check: WSL1 vs WSL2 kernels, the support list, and runs on WSL snapshots
// (healthy with librocdxg, no /dev/dxg, runtime missing, unsupported card).
#include "../../checks/wsl.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "host/recording_host.h"
#include "host/snapshot_host.h"
#include "probe/wsl_interop_probe.h"
#include "rocm_doctor/facts/wsl_adapters.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

TEST(WslParsers, Wsl1Kernel) {
  struct Case {
    const char* release;
    bool wsl1;
  } cases[] = {
      {"4.4.0-19041-Microsoft", true},
      {"4.4.0-22621-Microsoft", true},
      {"5.15.153.1-microsoft-standard-WSL2", false},
      {"6.6.87.2-microsoft-standard-WSL2", false},
      {"4.19.128-microsoft-standard", false},
      {"6.5.0-41-generic", false},
  };
  for (const auto& c : cases) EXPECT_EQ(wsl::is_wsl1_kernel(c.release), c.wsl1) << c.release;
}

TEST(WslParsers, SupportList) {
  const std::vector<wsl::SupportRow> rows = {{"gfx1100", {"Radeon RX 7900 XTX"}, "6.1.3", ""},
                                             {"gfx1201", {"Radeon RX 9070 XT"}, "6.4.1", ""}};
  EXPECT_EQ(wsl::supported_entry(rows, "gfx1100"), "gfx1100");
  EXPECT_EQ(wsl::supported_entry(rows, "gfx1030"), std::nullopt);
  EXPECT_EQ(wsl::supported_entry(rows, ""), std::nullopt);
}

SnapshotBuilder wsl2() {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("5.15.153.1-microsoft-standard-WSL2");
  b.env("WSL_DISTRO_NAME", "Ubuntu-22.04");
  b.env("HOME", "/home/alice");
  b.node("/dev/dxg", testing::Node::chr("0666", 0, 0));
  b.file("/usr/lib/wsl/lib/libdxcore.so", "");
  return b;
}

TEST(WslCheck, SkippedOutsideWsl) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-41-generic");
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  ASSERT_EQ(report.checks.size(), 1U);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
}

TEST(WslCheck, HealthyWithLibrocdxg) {
  auto b = wsl2();
  b.file("/opt/rocm-7.2.0/.info/version", "7.2.0-43\n");
  b.symlink("/opt/rocm", "rocm-7.2.0");
  b.file("/opt/rocm-7.2.0/lib/librocdxg.so", "");
  b.env("HSA_ENABLE_DXG_DETECTION", "1");
  b.probe("hip",
          {{"status", "ok"}, {"devices", {{{"index", 0}, {"name", "AMD Radeon RX 7900 XTX"}, {"gfx", "gfx1100"}}}}});
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  EXPECT_NE(find_finding(report, "wsl.ok"), nullptr);
  ASSERT_NE(find_finding(report, "wsl.driver"), nullptr);
  EXPECT_EQ(find_finding(report, "wsl.driver")->severity, Severity::info);
  EXPECT_EQ(find_finding(report, "wsl.runtime-missing"), nullptr);
}

TEST(WslCheck, Wsl1HasNoDxg) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "20.04", "Ubuntu 20.04.6 LTS").kernel("4.4.0-19041-Microsoft");
  b.env("WSL_DISTRO_NAME", "Ubuntu-20.04");
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.no-dxg");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "wsl --set-version Ubuntu-20.04 2");
}

// The fix for librocdxg installed without its variable, with HOME set to `home`.
std::string enable_variable_command(const std::string& home) {
  auto b = wsl2();
  b.env("HOME", home);
  b.file("/opt/rocm-7.2.0/.info/version", "7.2.0-43\n");
  b.symlink("/opt/rocm", "rocm-7.2.0");
  b.file("/opt/rocm-7.2.0/lib/librocdxg.so", "");
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.runtime-missing");
  if (finding == nullptr || finding->fixes.empty() || finding->fixes[0].commands.empty()) return "(no fix)";
  return finding->fixes[0].commands[0];
}

TEST(WslCheck, RuntimeMissingAndEnableVariable) {
  auto b = wsl2();
  b.file("/opt/rocm-6.1.3/.info/version", "6.1.3-122\n");
  b.symlink("/opt/rocm", "rocm-6.1.3");
  auto host = b.open();
  auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.runtime-missing");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms");

  EXPECT_EQ(enable_variable_command("/home/alice"), "echo 'export HSA_ENABLE_DXG_DETECTION=1' >> /home/alice/.bashrc");
  // Without HOME the shell that runs the fix expands it: a quoted '~' would not be.
  EXPECT_EQ(enable_variable_command(""), "echo 'export HSA_ENABLE_DXG_DETECTION=1' >> \"$HOME\"/.bashrc");
}

TEST(WslCheck, UnsupportedGpuFromTheProbe) {
  auto b = wsl2();
  b.file("/var/lib/dpkg/status",
         "Package: hsa-runtime-rocr4wsl-amdgpu\nStatus: install ok installed\n"
         "Version: 1.13.0.60103-122~22.04\n\n");
  b.probe("hip",
          {{"status", "ok"}, {"devices", {{{"index", 0}, {"name", "AMD Radeon RX 6800 XT"}, {"gfx", "gfx1030"}}}}});
  auto host = b.open();
  const auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.unsupported-gpu");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_EQ(find_finding(report, "wsl.runtime-missing"), nullptr);
}

TEST(WslParsers, WindowsBuildInAnyLanguage) {
  // cmd.exe /c ver as users paste it (microsoft/WSL#40464 in Chinese, ROCm/legacy-rocm-build#6323's build).
  EXPECT_EQ(wsl::windows_build_in("\r\nMicrosoft Windows [Version 10.0.26100.6899]\r\n"), "10.0.26100.6899");
  EXPECT_EQ(wsl::windows_build_in("Microsoft Windows [\xe7\x89\x88\xe6\x9c\xac 10.0.26200.8037]"), "10.0.26200.8037");
  EXPECT_EQ(wsl::windows_build_in("Microsoft Windows [Version 10.0.19045.6456]"), "10.0.19045.6456");
  EXPECT_EQ(wsl::windows_build_in("WSL version: 2.6.1.0"), std::nullopt);
  EXPECT_EQ(wsl::windows_build_in("kernel 510.0.1"), std::nullopt);
  EXPECT_EQ(wsl::windows_build_in(""), std::nullopt);
  EXPECT_EQ(wsl::windows_build_number("10.0.19045.6456"), 19045U);
  EXPECT_EQ(wsl::windows_build_number("10.0"), std::nullopt);
  EXPECT_EQ(wsl::windows_build_number("6.1.7601"), std::nullopt);
}

TEST(WslParsers, WslVersionByPosition) {
  // ROCm/legacy-rocm-build#5535 (English) and microsoft/WSL#40464 (Chinese labels, full-width colons too).
  const auto english = wsl::parse_wsl_version(
      "WSL version: 2.6.1.0\nKernel version: 6.6.87.2-1\nWSLg version: 1.0.66\nMSRDC version: 1.2.6353\n"
      "Direct3D version: 1.611.1-81528511\nDXCore version: 10.0.26100.1-240331-1435.ge-release\n"
      "Windows version: 10.0.26100.6899\n");
  EXPECT_EQ(english.wsl, "2.6.1.0");
  EXPECT_EQ(english.kernel, "6.6.87.2-1");
  EXPECT_EQ(english.windows, "10.0.26100.6899");
  const auto chinese = wsl::parse_wsl_version(
      "WSL \xe7\x89\x88\xe6\x9c\xac: 2.6.3.0\r\n"
      "\xe5\x86\x85\xe6\xa0\xb8\xe7\x89\x88\xe6\x9c\xac\xef\xbc\x9a 6.6.87.2-1\r\n");
  EXPECT_EQ(chinese.wsl, "2.6.3.0");
  EXPECT_EQ(chinese.kernel, "6.6.87.2-1");
  const auto garbage = wsl::parse_wsl_version("Invalid command line option: --version\nUsage: wsl.exe [Argument]\n");
  EXPECT_EQ(garbage.wsl, "");
  EXPECT_EQ(garbage.windows, "");
}

TEST(WslParsers, DxgVariableByRelease) {
  struct Case {
    std::optional<std::string> value;
    const char* release;
    bool blocks;
    bool certain;
  } cases[] = {
      {std::nullopt, "7.2.1", true, true},  // before 7.13 it must be 1
      {"1", "7.2.1", false, true},
      {"true", "7.2.0", true, true},
      {std::nullopt, "7.13.0", false, true},  // on by default (rocm-systems PR #3863)
      {std::nullopt, "7.14.0", false, true},
      {"0", "7.14.0", true, true},  // 0 turns it off on every release
      {"0", "7.2.0", true, true},
      {std::nullopt, "", true, false},  // unknown release: a warning, not an error
      {"1", "", false, true},
  };
  for (const auto& c : cases) {
    const auto verdict = wsl::judge_dxg_variable(c.value, c.release, "7.13", "0");
    EXPECT_EQ(verdict.blocks, c.blocks) << c.value.value_or("unset") << " on " << c.release;
    EXPECT_EQ(verdict.certain, c.certain) << c.value.value_or("unset") << " on " << c.release;
  }
}

TEST(WslParsers, WindowsOutputDecoding) {
  const std::string utf16(
      "W\0S\0L\0 \0\x48\x72:\0 \0"
      "2\0.\0"
      "6\0\n\0",
      22);
  EXPECT_EQ(probe::decode_windows_output(utf16), "WSL \xe7\x89\x88: 2.6\n");
  EXPECT_EQ(probe::decode_windows_output(std::string("\xff\xfeO\0K\0", 6)), "OK");
  EXPECT_EQ(probe::decode_windows_output("plain UTF-8"), "plain UTF-8");
  EXPECT_EQ(probe::decode_windows_output(""), "");
}

TEST(WslParsers, AdaptersFromOddProbeAnswers) {
  EXPECT_EQ(parse_wsl_adapters(std::nullopt).unavailable, "the dxcore probe did not run");
  EXPECT_NE(parse_wsl_adapters(nlohmann::json{{"status", "timeout"}}).unavailable.find("timeout"), std::string::npos);
  EXPECT_NE(parse_wsl_adapters(nlohmann::json("text")).unavailable, "");
  // Malformed fields are dropped, never guessed; the entry itself stays.
  auto adapters = nlohmann::json::array();
  adapters.push_back({{"vendor_id", "0x1002"}, {"device_id", "zzz"}, {"dedicated_adapter_memory", -5}});
  adapters.push_back("not an object");
  nlohmann::json outcome = {{"status", "ok"}, {"result", nlohmann::json::object()}};
  outcome["result"]["adapters"] = adapters;
  const auto parsed = parse_wsl_adapters(outcome);
  ASSERT_EQ(parsed.adapters.size(), 1U);
  EXPECT_TRUE(parsed.adapters[0].amd());
  EXPECT_EQ(parsed.adapters[0].device_id, std::nullopt);
  EXPECT_EQ(parsed.adapters[0].dedicated_memory, std::nullopt);
  EXPECT_EQ(parsed.adapters[0].usable_memory(), std::nullopt);
  EXPECT_EQ(parsed.adapters[0].gfx, "");
}

nlohmann::json dxcore_answer(const char* device, const char* revision, const char* description) {
  return {{"status", "ok"},
          {"result",
           {{"adapters",
             {{{"index", 0},
               {"vendor_id", "0x1002"},
               {"device_id", device},
               {"revision_id", revision},
               {"description", description},
               {"driver_version", "32.0.21013.1000"},
               {"dedicated_adapter_memory", 17095983104ULL},
               {"shared_system_memory", 17179869184ULL},
               {"is_hardware", true}}}}}}};
}

TEST(WslCheck, TheGpuComesFromTheWindowsAdapterWhenHipSeesNone) {
  auto b = wsl2();
  b.file("/opt/rocm-6.3.4/.info/version", "6.3.4-1\n");
  b.symlink("/opt/rocm", "rocm-6.3.4");
  b.file("/var/lib/dpkg/status",
         "Package: hsa-runtime-rocr4wsl-amdgpu\nStatus: install ok installed\nVersion: 1.14.0.60304-1~24.04\n\n");
  b.probe("dxcore", dxcore_answer("0x7550", "0xc0", "AMD Radeon RX 9070 XT"));
  b.probe("hip", {{"status", "ok"}, {"result", {{"device_count_error", {{"code", 100}}}}}});
  auto host = b.open();
  auto report = run_on(*host, {"wsl"});
  const auto* finding = find_finding(report, "wsl.unsupported-gpu");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->summary.find("needs ROCm 6.4.1 or newer"), std::string::npos) << finding->summary;
  EXPECT_NE(finding->summary.find("AMD Radeon RX 9070 XT (gfx1201)"), std::string::npos) << finding->summary;
  const auto* memory = find_finding(report, "wsl.gpu-memory");
  ASSERT_NE(memory, nullptr);
  EXPECT_NE(memory->summary.find("31.9 GiB"), std::string::npos) << memory->summary;
  // The report lists the Windows adapter among its GPUs.
  const auto& gpus = report.sections.at("gpus");
  ASSERT_EQ(gpus.size(), 1U);
  EXPECT_EQ(gpus[0]["wsl"], true);
  EXPECT_EQ(gpus[0]["gfx"], "gfx1201");
  EXPECT_TRUE(gpus[0]["pci_address"].is_null());
  EXPECT_EQ(gpus[0]["windows_driver_version"], "32.0.21013.1000");
}

TEST(WslCheck, InteropAnswersAndTheirAbsence) {
  auto b = wsl2();
  b.file("/opt/rocm-7.14.0/.info/version", "7.14.0-1\n");
  b.symlink("/opt/rocm", "rocm-7.14.0");
  b.file("/opt/rocm-7.14.0/lib/librocdxg.so", "");
  b.probe("wsl-interop", {{"status", "ok"},
                          {"result",
                           {{"cmd_ver", {{"status", "ok"}, {"stdout", "Microsoft Windows [Version 10.0.19045.6456]"}}},
                            {"wsl_version", {{"status", "timeout"}}}}}});
  auto host = b.open();
  auto report = run_on(*host, {"wsl"});
  const auto* old = find_finding(report, "wsl.windows-too-old");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->severity, Severity::error);
  EXPECT_NE(old->summary.find("build 19045"), std::string::npos);
  // 7.14 without HSA_ENABLE_DXG_DETECTION: no runtime finding.
  EXPECT_EQ(find_finding(report, "wsl.runtime-missing"), nullptr);

  // Interop answered nothing usable: only the kernel is judged (5.15 here: fine).
  auto quiet = wsl2();
  quiet.probe("wsl-interop", {{"status", "ok"}, {"result", {{"cmd_ver", {{"status", "not-found"}}}}}});
  quiet.file("/var/lib/dpkg/status",
             "Package: hsa-runtime-rocr4wsl-amdgpu\nStatus: install ok installed\nVersion: 1.13.0.60103-122~22.04\n\n");
  auto quiet_host = quiet.open();
  auto quiet_report = run_on(*quiet_host, {"wsl"});
  EXPECT_EQ(find_finding(quiet_report, "wsl.windows-too-old"), nullptr);
  EXPECT_NE(find_finding(quiet_report, "wsl.ok"), nullptr);
}

TEST(WslCheck, OldKernelsWithoutInterop) {
  auto b = wsl2();
  b.kernel("5.10.102.1-microsoft-standard-WSL2");
  b.file("/var/lib/dpkg/status",
         "Package: hsa-runtime-rocr4wsl-amdgpu\nStatus: install ok installed\nVersion: 1.13.0.60103-122~22.04\n\n");
  auto host = b.open();
  auto report = run_on(*host, {"wsl"});
  const auto* old = find_finding(report, "wsl.windows-too-old");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->severity, Severity::warning);  // older than any seen working, but not Windows 10's own
}

TEST(WslCheck, ProbeAnswersSurviveCaptureAndReplay) {
  auto machine = SnapshotHost::open(std::filesystem::path(ROCM_DOCTOR_SCENARIOS_DIR) / "wsl-windows10-kernel");
  ASSERT_TRUE(machine) << machine.error();
  testing::TempDir folder;
  const auto snapshot = folder.path() / "snap";
  std::optional<nlohmann::json> dxcore;
  std::optional<nlohmann::json> interop;
  {
    RecordingHost recorder(**machine, snapshot);
    dxcore = recorder.probe("dxcore");
    interop = recorder.probe("wsl-interop");
    ASSERT_TRUE(recorder.finish("2026-12-08T10:00:00Z", "test"));
  }
  ASSERT_TRUE(dxcore && interop);
  auto replay = SnapshotHost::open(snapshot);
  ASSERT_TRUE(replay) << replay.error();
  EXPECT_EQ((*replay)->probe("dxcore"), dxcore);
  EXPECT_EQ((*replay)->probe("wsl-interop"), interop);
}

TEST(WslCheck, DriverAndAccessStayQuietUnderWsl) {
  auto b = wsl2();
  auto host = b.open();
  const auto report = run_on(*host, {"driver", "access", "topology", "container"});
  for (const auto& check : report.checks) EXPECT_EQ(check.status, CheckStatus::skipped) << check.id;
}

}  // namespace
}  // namespace rocm_doctor
