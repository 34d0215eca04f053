// `rocm-doctor fleet --baseline` over a generated 2,000-node fleet in which 5 nodes
// drifted: every one is found, named under what differs, and no other node is.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::run_doctor;

// 2,000 nodes, as a large fleet sends. Under the sanitizers, which look for memory and
// undefined-behaviour errors on the same code paths rather than at scale, 200: each of the
// suite's six fleet runs parses every report, and 2,000 instrumented parses made this the
// slowest suite of CI's sanitizer stage (207 s of it).
#ifdef ROCM_DOCTOR_SANITIZED
constexpr int kNodes = 200;
#else
constexpr int kNodes = 2000;
#endif

// The base node: the replay of real-mi210-xgmi-x8 (8x MI210, KFD topology captured on a real
// node, tests/scenarios/README.md), on the amdgpu-dkms of ROCm 6.3 (6.10.5), with the firmware
// rocm-smi listed for a CDNA2 Instinct GPU (card5 in wandb/wandb#5449), transcribed.
nlohmann::json base_report() {
  const auto run = run_doctor(
      {"--replay", std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/real-mi210-xgmi-x8", "--level", "quick", "--json"});
  auto report = nlohmann::json::parse(run.out);
  report["versions"]["amdgpu"] = "6.10.5";
  const nlohmann::json firmware = {{"mec", "63"},
                                   {"mec2", "63"},
                                   {"rlc", "17"},
                                   {"sdma", "8"},
                                   {"sdma2", "8"},
                                   {"smc", "00.68.54.00"},
                                   {"sos", "0x00270080"},
                                   {"ta_ras", "27.00.01.60"},
                                   {"ta_xgmi", "32.00.00.13"},
                                   {"vcn", "0x0110101b"}};
  for (auto& gpu : report["node_config"]["gpus"]) {
    gpu["vbios_version"] = "113-D65201-046";
    gpu["firmware"] = firmware;
  }
  return report;
}

enum Drift { kDriver, kFirmware, kLinkWidth, kCmdline, kGpuLost, kDrifts };

// What a drifted node's report changes, as an operator would meet it.
void drift(nlohmann::json& report, int kind) {
  auto& gpus = report["node_config"]["gpus"];
  switch (kind) {
    case kDriver: report["versions"]["amdgpu"] = "6.8.5"; break;          // still on ROCm 6.2's driver
    case kFirmware: gpus[3]["firmware"]["smc"] = "00.68.56.00"; break;    // one GPU's PMFW updated
    case kLinkWidth: gpus[5]["pcie"]["current_link_width"] = "8"; break;  // trained down after a reseat
    case kCmdline:
      report["node_config"]["kernel_cmdline"] =
          report["node_config"]["kernel_cmdline"].get<std::string>() + " iommu=pt";
      break;
    case kGpuLost:  // a GPU fell off the bus: ROCm and PCI see 7
      report["gpus"].erase(report["gpus"].size() - 1);
      gpus.erase(gpus.size() - 1);
      break;
  }
}

struct Fleet {
  testing::TempDir dir;
  fs::path reports;
  fs::path golden;
  std::map<int, std::string> drifted;  // kind -> node
};

// 2,000 reports in 20 rack folders; each node has its own name, run time and root disk (which
// must not count as a difference); 5 nodes chosen by a seeded generator drift, one way each.
Fleet make_fleet() {
  Fleet made;
  const auto base = base_report();
  EXPECT_EQ(base["gpus"].size(), 8u);
  EXPECT_EQ(base["node_config"]["gpus"].size(), 8u);
  made.reports = made.dir.path() / "reports";
  std::mt19937 random(2029);
  std::uniform_int_distribution<int> pick(0, kNodes - 1);
  std::map<int, int> kind_of;
  while (kind_of.size() < kDrifts) kind_of.emplace(pick(random), static_cast<int>(kind_of.size()));
  for (int i = 0; i < kNodes; ++i) {
    auto report = base;
    const auto host = fmt::format("gpu{:04}", i);
    report["host"]["hostname"] = host;
    report["generated_at"] = fmt::format("2026-12-01T{:02}:{:02}:00Z", i / 60 % 24, i % 60);
    auto& cmdline = report["node_config"]["kernel_cmdline"];
    cmdline = fmt::format(
        "BOOT_IMAGE=/boot/vmlinuz-5.15.0-119-generic root=UUID={:08x}-7d1b-4b7e-9a43-2f0c8d1e5b21 ro "
        "quiet splash vt.handoff=7",
        random());
    if (const auto it = kind_of.find(i); it != kind_of.end()) {
      drift(report, it->second);
      made.drifted[it->second] = host;
    }
    const auto folder = made.reports / fmt::format("rack{:02}", i % 20);
    fs::create_directories(folder);
    std::ofstream(folder / (host + ".json")) << report.dump();
  }
  made.golden = made.dir.path() / "golden.json";
  auto golden = base;
  golden["host"]["hostname"] = "golden";
  std::ofstream(made.golden) << golden.dump();
  return made;
}

const Fleet& fleet() {
  static const Fleet made = make_fleet();  // removed at exit
  return made;
}

// The difference entries that name `host`, by attribute.
std::map<std::string, nlohmann::json> differences_of(const nlohmann::json& baseline, const std::string& host) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& difference : baseline["differences"]) {
    const auto& hosts = difference["hosts"];
    if (std::find(hosts.begin(), hosts.end(), host) != hosts.end()) out[difference["attribute"]] = difference;
  }
  return out;
}

void expect_every_drifted_node(const nlohmann::json& baseline) {
  const auto& drifted = fleet().drifted;
  ASSERT_EQ(drifted.size(), 5u);
  EXPECT_EQ(baseline["nodes_differing"], 5) << baseline.dump(1);
  EXPECT_EQ(baseline["nodes_matching"], kNodes - 5);
  std::set<std::string> names;
  for (const auto& [kind, host] : drifted) names.insert(host);
  EXPECT_EQ(baseline["hosts_differing"], nlohmann::json(std::vector<std::string>(names.begin(), names.end())));
  for (const auto& difference : baseline["differences"]) {  // no other node is named
    EXPECT_EQ(difference["nodes"], difference["hosts"].size()) << difference;
    for (const auto& host : difference["hosts"]) EXPECT_TRUE(names.contains(host)) << difference;
  }
  using Map = std::map<std::string, std::string>;
  const auto texts = [&](int kind) {
    Map out;
    for (const auto& [attribute, difference] : differences_of(baseline, drifted.at(kind)))
      out[attribute] = difference["text"];
    return out;
  };
  EXPECT_EQ(texts(kDriver), (Map{{"amdgpu", "amdgpu 6.8.5 instead of 6.10.5"}}));
  EXPECT_EQ(texts(kFirmware), (Map{{"firmware", "firmware: smc=00.68.54.00 smc=00.68.56.00 instead of 00.68.54.00"}}));
  EXPECT_EQ(texts(kCmdline), (Map{{"kernel_cmdline", "kernel command line: adds iommu=pt"}}));
  const auto width = texts(kLinkWidth);
  ASSERT_EQ(width.size(), 1u) << baseline.dump(1);
  EXPECT_NE(width.at("pcie_width").find(", x8 (1 GPU) instead of "), std::string::npos) << width.at("pcie_width");
  const auto lost = texts(kGpuLost);
  EXPECT_EQ(lost.at("gpu_count"), "GPU count 7 instead of 8");
  EXPECT_TRUE(lost.contains("pcie_width")) << baseline.dump(1);  // its link is gone with it
}

TEST(FleetDrift, AutoBaselineFindsEveryDriftedNode) {
  const auto run = run_doctor({"fleet", fleet().reports.string(), "--baseline", "auto", "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["nodes"], kNodes);
  EXPECT_EQ(json["baseline"]["source"], "auto");
  EXPECT_EQ(json["baseline"]["values"]["amdgpu"], "6.10.5");
  EXPECT_EQ(json["baseline"]["values"]["gpu_count"], "8");
  // The root disk of every node differs, and is no difference.
  EXPECT_EQ(json["baseline"]["values"]["kernel_cmdline"], nlohmann::json({"quiet", "ro", "splash", "vt.handoff=7"}));
  expect_every_drifted_node(json["baseline"]);
}

TEST(FleetDrift, ReportBaselineFindsEveryDriftedNode) {
  const auto run =
      run_doctor({"fleet", fleet().reports.string(), "--baseline", fleet().golden.string(), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["baseline"]["source"], "report");
  EXPECT_EQ(json["baseline"]["host"], "golden");
  expect_every_drifted_node(json["baseline"]);
}

TEST(FleetDrift, TextAndMarkdownGroupByDifference) {
  const auto& drifted = fleet().drifted;
  const auto text = run_doctor({"fleet", fleet().reports.string(), "--baseline", "auto"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(fmt::format("5 nodes differ from the other {}:\n", kNodes - 5)), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("       1  amdgpu 6.8.5 instead of 6.10.5\n          " + drifted.at(kDriver) + "\n"),
            std::string::npos)
      << text.out;
  const auto markdown = run_doctor({"fleet", fleet().reports.string(), "--baseline", "auto", "--format", "markdown"});
  ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
  EXPECT_NE(markdown.out.find("### Nodes that differ from the baseline"), std::string::npos) << markdown.out;
  EXPECT_NE(markdown.out.find("| kernel command line: adds iommu=pt | 1 | " + drifted.at(kCmdline) + " |"),
            std::string::npos)
      << markdown.out;
}

TEST(FleetDrift, WithoutBaselineTheSummaryIsUnchanged) {
  const auto run = run_doctor({"fleet", fleet().reports.string(), "--format", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(nlohmann::json::parse(run.out).contains("baseline"));
}

TEST(FleetDrift, AnUnreadableBaselineIsAUsageError) {
  const auto run = run_doctor({"fleet", fleet().reports.string(), "--baseline", "/nonexistent/golden.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--baseline /nonexistent/golden.json"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace rocm_doctor
