// Prometheus series of the node-health counters (the `ras` and `pcie-aer` checks' evidence) on
// replayed scenarios: what a node_exporter textfile collector would scrape.
#include <gtest/gtest.h>

#include <fstream>

#include "render/run_tool.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_tool;
using testing::run_doctor;
using testing::run_tool;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;

std::string metrics_of(const std::string& scenario) {
  const auto result =
      run_doctor({"--replay", kScenarios + "/" + scenario, "--level", "quick", "--format", "prometheus"});
  EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
  return result.out;
}

TEST(HealthMetrics, RasCountersRetiredPagesAndVram) {
  const auto text = metrics_of("ras-uncorrectable-umc");
  EXPECT_NE(text.find("# TYPE rocm_doctor_gpu_ras_errors gauge"), std::string::npos) << text;
  EXPECT_NE(text.find("rocm_doctor_gpu_ras_errors{pci_address=\"0000:1c:00.0\",block=\"umc\",type=\"ue\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rocm_doctor_gpu_ras_errors{pci_address=\"0000:1c:00.0\",block=\"umc\",type=\"ce\"} 14\n"),
            std::string::npos);
  EXPECT_NE(text.find("rocm_doctor_gpu_retired_pages{pci_address=\"0000:1c:00.0\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("rocm_doctor_gpu_vram_bytes{pci_address=\"0000:1c:00.0\",kind=\"total\"}"), std::string::npos);
  EXPECT_NE(text.find("rocm_doctor_finding{check=\"ras\",id=\"ras.uncorrectable\",severity=\"error\"} 1"),
            std::string::npos);
}

TEST(HealthMetrics, AerCountersOfGpuAndPort) {
  const auto text = metrics_of("pcie-aer-uncorrectable");
  EXPECT_NE(text.find("rocm_doctor_pcie_aer_errors{pci_address=\"0000:55:00.0\",severity=\"fatal\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rocm_doctor_pcie_aer_errors{pci_address=\"0000:00:03.1\",severity=\"nonfatal\"} 2\n"),
            std::string::npos)
      << text;
}

TEST(HealthMetrics, NoSeriesWithoutCountersAndPromtoolAccepts) {
  const auto healthy = metrics_of("ubuntu2204-rx7900xtx-healthy");
  EXPECT_EQ(healthy.find("rocm_doctor_gpu_ras_errors"), std::string::npos);
  const auto promtool = find_tool("promtool");
  if (promtool.empty()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  testing::TempDir folder;
  for (const auto* scenario : {"ras-uncorrectable-umc", "pcie-aer-uncorrectable", "real-mi300x-ras-incident"}) {
    const auto path = folder.path() / (std::string(scenario) + ".prom");
    std::ofstream(path, std::ios::binary) << metrics_of(scenario);
    const auto check = run_tool({promtool, "check", "metrics"}, path.string());
    EXPECT_EQ(check.exit_code, 0) << scenario << ": " << check.out;
  }
}

}  // namespace
}  // namespace rocm_doctor
