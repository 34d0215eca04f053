// The kernel-log pattern table (checks/data/kernel_log.json) against real lines: every sample
// matches its own pattern, the real normal start-up lines match none, every sampled pattern is
// in a scenario; and the check's GPU naming, repeat collapsing and --since window.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "../../checks/kernel_log.h"
#include "rocm_doctor/log_window.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The messages of the real boot corpus, without the dmesg "[seconds]" or "[date]" prefix.
std::vector<std::string> boot_messages() {
  std::vector<std::string> messages;
  std::istringstream in(
      read_text(std::filesystem::path(ROCM_DOCTOR_SOURCE_DIR) / "tests/checks/data/amdgpu_boot_lines.txt"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[') line = line.substr(line.find(']') + 2);
    messages.push_back(line);
  }
  return messages;
}

TEST(KernelLogPatterns, FiftyOrMorePatternsWithARealSampleEachMatchingItself) {
  const std::set<std::string> categories = {"ras", "reset", "pcie", "firmware", "memory", "thermal", "init", "kfd"};
  std::size_t sampled = 0;
  for (const auto& pattern : kernel_log::patterns()) {
    EXPECT_TRUE(categories.contains(pattern.category)) << pattern.id << ": " << pattern.category;
    EXPECT_FALSE(pattern.meaning.empty()) << pattern.id;
    if (!pattern.sample) continue;
    ++sampled;
    const auto* matched = kernel_log::match(*pattern.sample, kernel_log::patterns());
    ASSERT_NE(matched, nullptr) << pattern.id << " does not match its sample";
    EXPECT_EQ(matched->id, pattern.id) << "an earlier pattern takes " << pattern.id << "'s sample";
  }
  EXPECT_GE(sampled, 50U);
}

TEST(KernelLogPatterns, HundredRealStartUpLinesMatchNothing) {
  const auto messages = boot_messages();
  EXPECT_GE(messages.size(), 100U);
  for (const auto& message : messages) {
    const auto* pattern = kernel_log::match(message, kernel_log::patterns());
    EXPECT_EQ(pattern, nullptr) << (pattern ? pattern->id : "") << " matches a healthy line: " << message;
  }
}

TEST(KernelLogPatterns, EverySampleIsInAScenarioOfItsFinding) {
  for (const auto& pattern : kernel_log::patterns()) {
    if (!pattern.sample || pattern.finding == "driver.firmware-missing") continue;
    const auto folder = std::filesystem::path(ROCM_DOCTOR_SCENARIOS_DIR) /
                        ("kernel-log-" + pattern.finding.substr(pattern.finding.find('.') + 1));
    const auto log = read_text(folder / "root/dev/kmsg");
    EXPECT_NE(log.find(";" + *pattern.sample + "\n"), std::string::npos)
        << pattern.id << ": its sample is not in " << folder.filename().string();
    EXPECT_NE(read_text(folder / "expected.json").find("\"" + pattern.finding + "\""), std::string::npos);
  }
}

TEST(KernelLogPatterns, ABadTableIsAnErrorNotASilentPass) {
  const std::string fix =
      R"("fixes": {"rma": "x"}, "findings": {"driver.kernel-log": {"summary": "s", "impact": "breaks"}})";
  EXPECT_THROW(kernel_log::parse_table("{" + fix + R"(, "patterns": [{"id": "a", "category": "ras", "priority": "high",
      "finding": "driver.kernel-log", "fix": "reseat", "all": ["x"]}]})"),
               std::invalid_argument);
  EXPECT_THROW(
      kernel_log::parse_table("{" + fix + R"(, "patterns": [{"id": "a", "category": "ras", "priority": "urgent",
      "finding": "driver.kernel-log", "fix": "rma", "all": ["x"]}]})"),
      std::invalid_argument);
  EXPECT_THROW(kernel_log::parse_table("{" + fix + R"(, "patterns": [{"id": "a", "category": "ras", "priority": "high",
      "finding": "driver.nothing", "fix": "rma", "all": ["x"]}]})"),
               std::invalid_argument);
  EXPECT_THROW(kernel_log::parse_table("{" + fix + R"(, "patterns": [{"id": "a", "category": "ras", "priority": "high",
      "finding": "driver.kernel-log", "fix": "rma", "all": []}]})"),
               std::invalid_argument);
  EXPECT_THROW(kernel_log::parse_table("not json"), std::exception);
}

TEST(KernelLogPatterns, PciAddresses) {
  EXPECT_EQ(kernel_log::pci_addresses("amdgpu 0000:C1:00.0: amdgpu: x 0000:c1:00.0 then 0000:00:01.1"),
            (std::vector<std::string>{"0000:c1:00.0", "0000:00:01.1"}));
  EXPECT_TRUE(kernel_log::pci_addresses("kfd kfd: skipped device 1002:67df, PCI rejects atomics").empty());
  EXPECT_TRUE(kernel_log::pci_addresses("x 10000:c1:00.0 0000:c1:00.8 0000:c1:00.01").empty());
  EXPECT_TRUE(kernel_log::pci_addresses("").empty());
}

// --since for one test: the CLI sets it once per process.
struct ScopedSince {
  explicit ScopedSince(std::string text) { set_kernel_log_since(std::move(text)); }
  ~ScopedSince() { set_kernel_log_since(""); }
  ScopedSince(const ScopedSince&) = delete;
  ScopedSince& operator=(const ScopedSince&) = delete;
};

SnapshotBuilder gpu_machine(const std::string& kmsg) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.pci_device("0000:03:00.0", "0x1002", "0x74a1", "0x120000", "amdgpu");
  builder.file("/dev/kmsg", kmsg);
  return builder;
}

TEST(KernelLogCheck, RasLinesNameTheGpuAndThePortAboveIt) {
  auto builder = gpu_machine(
      "3,10,1000000,-;amdgpu 0000:03:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!\n"
      "4,11,2000000,-;pcieport 0000:00:01.1: AER: Corrected error message received from 0000:00:01.1\n"
      "4,12,3000000,-;pcieport 0000:00:01.1: AER: Corrected error message received from 0000:00:01.1\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"kernel-log"});
  const auto* ras = find_finding(report, "driver.ras-uncorrectable");
  ASSERT_NE(ras, nullptr);
  EXPECT_EQ(ras->severity, Severity::error);
  EXPECT_NE(ras->summary.find("0000:03:00.0"), std::string::npos) << ras->summary;
  ASSERT_FALSE(ras->fixes.empty());
  EXPECT_NE(ras->fixes[0].description.find("RMA"), std::string::npos);
  const auto* pcie = find_finding(report, "driver.pcie-corrected");
  ASSERT_NE(pcie, nullptr);
  EXPECT_EQ(pcie->severity, Severity::warning);
  EXPECT_NE(pcie->summary.find("PCIe port 0000:00:01.1 above 0000:03:00.0"), std::string::npos) << pcie->summary;
  ASSERT_EQ(pcie->evidence.size(), 1U);
  EXPECT_NE(pcie->evidence[0].value.find("(x2, last [    3.000000])"), std::string::npos) << pcie->evidence[0].value;
}

TEST(KernelLogCheck, SinceKeepsOnlyTheWindow) {
  auto builder = gpu_machine(
      "3,10,1000000000,-;amdgpu 0000:03:00.0: amdgpu: Saved bad pages 176 reaches threshold value 128\n"
      "4,11,7000000000,-;amdgpu: Runlist is getting oversubscribed. Expect reduced ROCm performance.\n");
  builder.file("/proc/uptime", "7200.52 14000.10\n");
  builder.file("/proc/stat", "cpu  1 2 3 4\nbtime 1764576000\nprocesses 100\n");
  auto host = builder.open();
  auto since = std::make_unique<ScopedSince>("1h");  // from 3600 s on: the bad-page line at 1000 s is older
  auto report = run_on(*host, {"kernel-log"});
  EXPECT_EQ(find_finding(report, "driver.bad-page-threshold"), nullptr);
  const auto* recent = find_finding(report, "driver.kfd-oversubscribed");
  ASSERT_NE(recent, nullptr);
  EXPECT_NE(recent->detail.find("in the last 1h"), std::string::npos) << recent->detail;
  since.reset();  // before the next one: its destructor goes back to "since boot"
  since = std::make_unique<ScopedSince>("2025-12-01T11:00:00+02:00");  // btime + 1 h (09:00 UTC): the same window
  report = run_on(*host, {"kernel-log"});
  EXPECT_EQ(find_finding(report, "driver.bad-page-threshold"), nullptr);
  EXPECT_NE(find_finding(report, "driver.kfd-oversubscribed"), nullptr);
  since.reset();  // since boot again
  report = run_on(*host, {"kernel-log"});
  EXPECT_NE(find_finding(report, "driver.bad-page-threshold"), nullptr);
}

TEST(KernelLogCheck, SinceWithoutTheClockSaysSoAndKeepsEverything) {
  auto builder = gpu_machine("3,10,1000000,-;amdgpu 0000:03:00.0: amdgpu: Fatal error during GPU init\n");
  auto host = builder.open();
  const ScopedSince since("24h");
  const auto report = run_on(*host, {"kernel-log"});
  const auto* finding = find_finding(report, "driver.gpu-init-failed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->evidence.back().source, "--since");
  EXPECT_NE(finding->evidence.back().value.find("every line since boot counts"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor
