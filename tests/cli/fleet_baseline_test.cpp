// `fleet --baseline`: what a node's report says about its configuration, how two
// configurations differ in words, and that folding per worker and merging gives the
// same grouping whatever the order.
#include "report/fleet_baseline.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/node_config.h"

namespace rocm_doctor {
namespace {

// A report as `rocm-doctor --json` writes it, cut to what the digest reads. The
// firmware is transcribed from rocm-smi's listing of an MI250 (card5) in wandb/wandb#5449.
std::string report_text(const std::string& host, const std::string& amdgpu, const std::string& cmdline,
                        const std::string& smc, const std::string& width) {
  const nlohmann::json gpu = {{"pci_address", "0000:03:00.0"},
                              {"name", "AMD Instinct MI250"},
                              {"vbios_version", "113-D65201-046"},
                              {"firmware", {{"mec", "63"}, {"sdma", "8"}, {"smc", smc}, {"sos", "0x00270080"}}},
                              {"pcie",
                               {{"current_link_speed", "16.0 GT/s PCIe"},
                                {"current_link_width", width},
                                {"max_link_speed", "16.0 GT/s PCIe"},
                                {"max_link_width", "16"}}}};
  const nlohmann::json report = {
      {"schema", "rocm-doctor/report"},
      {"host", {{"hostname", host}, {"kernel", "5.15.0-119-generic"}}},
      {"versions", {{"rocm", "6.2.4"}, {"amdgpu", amdgpu}}},
      {"gpus", {{{"pci_address", "0000:03:00.0"}, {"name", "AMD Instinct MI250"}, {"gfx", "gfx90a"}}}},
      {"node_config", {{"kernel_cmdline", cmdline}, {"environment", {{"HSA_XNACK", "1"}}}, {"gpus", {gpu, gpu}}}}};
  return report.dump();
}

NodeProfile profile_of(const std::string& text) {
  auto digest = parse_report_digest(text);
  EXPECT_TRUE(digest.has_value()) << (digest ? "" : digest.error());
  return digest ? node_profile(*digest) : NodeProfile{};
}

const std::string kCmdline = "BOOT_IMAGE=/boot/vmlinuz-5.15.0-119-generic root=UUID=6f1c2a9e ro quiet";

std::optional<std::string>& at(NodeProfile& profile, Attribute attribute) {
  return profile[static_cast<std::size_t>(attribute)];
}

TEST(FleetBaseline, CmdlineLeavesOutTheNodesOwnParameters) {
  EXPECT_EQ(comparable_cmdline(kCmdline), (std::vector<std::string>{"quiet", "ro"}));
  EXPECT_EQ(comparable_cmdline("ro  iommu=pt\tro initrd=/x rd.luks.uuid=abc"),
            (std::vector<std::string>{"iommu=pt", "ro"}));
  // The kernel keeps a double-quoted value with spaces as one parameter.
  EXPECT_EQ(comparable_cmdline(R"(dyndbg="file amdgpu_dm.c +p" quiet)"),
            (std::vector<std::string>{R"(dyndbg="file amdgpu_dm.c +p")", "quiet"}));
  EXPECT_TRUE(comparable_cmdline("").empty());
}

TEST(FleetBaseline, KeyEnvironmentVariablesAreNamed) {
  const auto& names = key_environment_variables();
  EXPECT_NE(std::find(names.begin(), names.end(), "HSA_XNACK"), names.end());
  // Per-job variables are the scheduler's, not the node's configuration.
  EXPECT_EQ(std::find(names.begin(), names.end(), "ROCR_VISIBLE_DEVICES"), names.end());
}

TEST(FleetBaseline, ProfileOfAReport) {
  auto profile = profile_of(report_text("node01", "6.10.5", kCmdline, "00.68.54.00", "16"));
  EXPECT_EQ(at(profile, Attribute::amdgpu), "6.10.5");
  EXPECT_EQ(at(profile, Attribute::rocm), "6.2.4");
  EXPECT_EQ(at(profile, Attribute::kernel), "5.15.0-119-generic");
  EXPECT_EQ(at(profile, Attribute::gpu_count), "1");
  EXPECT_EQ(at(profile, Attribute::partition_mode), "none");
  EXPECT_EQ(at(profile, Attribute::pcie_width), "x16 (2 GPUs)");
  EXPECT_EQ(at(profile, Attribute::pcie_speed), "16.0 GT/s (2 GPUs)");
  EXPECT_EQ(at(profile, Attribute::kernel_cmdline), "quiet\nro");
  EXPECT_EQ(at(profile, Attribute::environment), "HSA_XNACK=1");
  EXPECT_EQ(at(profile, Attribute::firmware), "mec=63\nsdma=8\nsmc=00.68.54.00\nsos=0x00270080\nvbios=113-D65201-046");
  // Another node's root disk does not make it differ.
  EXPECT_EQ(
      profile_of(report_text("node02", "6.10.5", "BOOT_IMAGE=/vmlinuz root=/dev/sda2 ro quiet", "00.68.54.00", "16")),
      profile);
}

TEST(FleetBaseline, AnOlderReportSaysNothingOfItsConfiguration) {
  auto json = nlohmann::json::parse(report_text("node01", "6.10.5", kCmdline, "00.68.54.00", "16"));
  json.erase("node_config");
  auto profile = profile_of(json.dump());
  EXPECT_EQ(at(profile, Attribute::amdgpu), "6.10.5");
  for (const auto attribute :
       {Attribute::firmware, Attribute::pcie_width, Attribute::kernel_cmdline, Attribute::environment})
    EXPECT_FALSE(at(profile, attribute).has_value()) << attribute_key(attribute);
  // A node_config of the wrong shape is no configuration either, and no crash.
  json["node_config"] = {{"gpus", "eight"}, {"kernel_cmdline", 7}, {"environment", {1, 2}}};
  profile = profile_of(json.dump());
  EXPECT_EQ(at(profile, Attribute::pcie_width), "none");
  EXPECT_FALSE(at(profile, Attribute::kernel_cmdline).has_value());
  EXPECT_EQ(at(profile, Attribute::environment), "");
}

TEST(FleetBaseline, DifferencesInWords) {
  EXPECT_EQ(describe_difference(Attribute::amdgpu, "6.8.5", "6.10.5"), "amdgpu 6.8.5 instead of 6.10.5");
  EXPECT_EQ(describe_difference(Attribute::kernel_cmdline, "iommu=pt\nquiet\nro", "quiet\nro\nsplash"),
            "kernel command line: adds iommu=pt; lacks splash");
  EXPECT_EQ(describe_difference(Attribute::firmware, "mec=63\nsmc=00.68.56.00", "mec=63\nsmc=00.68.54.00"),
            "firmware: smc=00.68.56.00 instead of 00.68.54.00");
  EXPECT_EQ(describe_difference(Attribute::environment, "", "HSA_XNACK=1"), "environment: lacks HSA_XNACK=1");
  EXPECT_EQ(describe_difference(Attribute::kernel_cmdline, std::nullopt, "quiet"),
            "kernel command line not in the report instead of quiet");
  EXPECT_EQ(describe_difference(Attribute::pcie_width, "x16 (7 GPUs), x8 (1 GPU)", "x16 (8 GPUs)"),
            "PCIe width x16 (7 GPUs), x8 (1 GPU) instead of x16 (8 GPUs)");
}

// 64 nodes, 3 on an older driver and 1 with a link trained down, folded by 1 or 4
// workers in any order: the same baseline and the same groups.
TEST(FleetBaseline, MajorityAndGroupsDoNotDependOnOrder) {
  std::vector<std::pair<std::string, NodeProfile>> nodes;
  for (int i = 0; i < 64; ++i) {
    const bool old_driver = i == 7 || i == 12 || i == 40;
    const auto host = fmt::format("node{:02}", i);
    nodes.emplace_back(host, profile_of(report_text(host, old_driver ? "6.8.5" : "6.10.5", kCmdline, "00.68.54.00",
                                                    i == 33 ? "8" : "16")));
  }
  std::vector<std::string> seen;
  for (const unsigned workers : {1u, 4u}) {
    std::mt19937 shuffle(workers);
    std::shuffle(nodes.begin(), nodes.end(), shuffle);
    std::vector<BaselineTally> tallies(workers);
    for (std::size_t i = 0; i < nodes.size(); ++i) tallies[i % workers].add(nodes[i].second, nodes[i].first);
    for (unsigned w = 1; w < workers; ++w) tallies[0].merge(std::move(tallies[w]));
    ASSERT_FALSE(tallies[0].overflowed());
    FleetDrift drift(tallies[0].majority());
    for (const auto& [profile, hosts] : tallies[0].profiles()) drift.add(profile, hosts);
    EXPECT_EQ(drift.baseline()[static_cast<std::size_t>(Attribute::amdgpu)], "6.10.5");
    EXPECT_EQ(drift.differing().count(), 4u);
    EXPECT_EQ(drift.matching(), 60u);
    std::string shown;
    for (const auto& difference : drift.differences()) {
      shown += fmt::format("{}: {}\n",
                           describe_difference(difference.attribute, difference.value,
                                               drift.baseline()[static_cast<std::size_t>(difference.attribute)]),
                           host_list(difference.nodes));
    }
    EXPECT_EQ(shown,
              "amdgpu 6.8.5 instead of 6.10.5: node07, node12, node40\n"
              "PCIe width x8 (2 GPUs) instead of x16 (2 GPUs): node33\n");
    seen.push_back(shown);
  }
  EXPECT_EQ(seen[0], seen[1]);
}

// More distinct configurations than kept: the tally says so (the command then makes a
// second pass) instead of growing.
TEST(FleetBaseline, TooManyDistinctConfigurationsOverflow) {
  BaselineTally tally;
  for (std::size_t i = 0; i <= kBaselineMaxProfiles; ++i) {
    NodeProfile profile;
    profile[0] = std::to_string(i);
    tally.add(profile, fmt::format("node{}", i));
  }
  EXPECT_TRUE(tally.overflowed());
  EXPECT_EQ(tally.profiles().size(), kBaselineMaxProfiles);
}

}  // namespace
}  // namespace rocm_doctor
