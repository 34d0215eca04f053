// The `pcie-aer` check: AER counters of a GPU and the port above it (layout of the real amdgpu
// card in prometheus/procfs testdata/fixtures.ttar).
#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

std::string aer(const std::string& total, int count, const std::string& bit) {
  return "Undefined 0\nDLP 0\n" + bit + " " + std::to_string(count) + "\n" + total + " " + std::to_string(count) + "\n";
}

SnapshotBuilder machine(int gpu_fatal, int port_nonfatal, int gpu_correctable) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.pci_device("0000:03:00.0", "0x1002", "0x74a1", "0x120000", "amdgpu");
  const std::string port = "/sys/devices/pci0000:00/0000:00:01.1";
  const std::string gpu = port + "/0000:03:00.0";
  builder.file(gpu + "/aer_dev_fatal", aer("TOTAL_ERR_FATAL", gpu_fatal, "MalfTLP"));
  builder.file(gpu + "/aer_dev_nonfatal", aer("TOTAL_ERR_NONFATAL", 0, "CmpltTO"));
  builder.file(gpu + "/aer_dev_correctable", "RxErr 0\nBadTLP " + std::to_string(gpu_correctable) + "\nTOTAL_ERR_COR " +
                                                 std::to_string(gpu_correctable) + "\n");
  builder.file(gpu + "/current_link_width", "16\n");
  builder.file(gpu + "/max_link_width", "16\n");
  builder.file(port + "/aer_dev_nonfatal", aer("TOTAL_ERR_NONFATAL", port_nonfatal, "CmpltTO"));
  return builder;
}

TEST(PcieAerCheck, ZeroCountersAreOk) {
  auto builder = machine(0, 0, 0);
  auto host = builder.open();
  const auto report = run_on(*host, {"pcie-aer"});
  ASSERT_EQ(report.checks.at(0).findings.size(), 1U);
  EXPECT_EQ(report.checks[0].findings[0].id, "pcie.aer-counters");
  EXPECT_EQ(report.checks[0].findings[0].severity, Severity::ok);
}

TEST(PcieAerCheck, FatalOnTheGpuAndNonFatalOnThePort) {
  auto builder = machine(1, 2, 0);
  auto host = builder.open();
  const auto report = run_on(*host, {"pcie-aer"});
  const auto* finding = find_finding(report, "pcie.aer-uncorrectable");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_NE(finding->summary.find("0000:03:00.0: 1 fatal"), std::string::npos) << finding->summary;
  EXPECT_NE(finding->summary.find("PCIe port 0000:00:01.1 above 0000:03:00.0: 2 non-fatal"), std::string::npos)
      << finding->summary;
  EXPECT_EQ(find_finding(report, "pcie.aer-correctable"), nullptr);
}

TEST(PcieAerCheck, CorrectedErrorsAreAWarning) {
  auto builder = machine(0, 0, 7);
  auto host = builder.open();
  const auto report = run_on(*host, {"pcie-aer"});
  const auto* finding = find_finding(report, "pcie.aer-correctable");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::warning);
  bool named = false;
  for (const auto& evidence : finding->evidence) named |= evidence.value == "TOTAL_ERR_COR 7 (BadTLP 7)";
  EXPECT_TRUE(named);
}

TEST(PcieAerCheck, MalformedCountersAreSaidNotJudged) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.pci_device("0000:03:00.0", "0x1002", "0x74a1", "0x120000", "amdgpu");
  builder.file("/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0/aer_dev_fatal", "\x01\x02 garbage\n");
  auto host = builder.open();
  const auto report = run_on(*host, {"pcie-aer"});
  const auto* counters = find_finding(report, "pcie.aer-counters");
  ASSERT_NE(counters, nullptr);
  EXPECT_EQ(counters->severity, Severity::info);
  EXPECT_EQ(counters->evidence.at(0).value, "unparsable: no TOTAL_ERR_FATAL line");
}

}  // namespace
}  // namespace rocm_doctor
