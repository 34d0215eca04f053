// FleetSummary folds reports one at a time, per worker, and merges the workers'
// summaries: the result must not depend on how reports were split or ordered.
#include "report/fleet_summary.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace rocm_doctor {
namespace {

ReportDigest node(int index) {
  ReportDigest report;
  report.hostname = fmt::format("node{:03}", index);
  report.versions["rocm"] = index % 3 == 0 ? "6.2.4" : "6.1.3";
  report.gpus = {"0000:05:00.0 AMD Instinct MI300X (gfx942)"};
  if (index % 4 == 0) {
    report.worst = "error";
    report.findings = {{"driver.not-loaded", "driver", "error", "s"}, {"access.kfd-denied", "access", "error", "t"}};
    if (index % 8 == 0) report.findings.push_back({"access.kfd-denied", "access", "error", "u"});
    report.has_root_causes = true;
    report.root_causes = {"driver.not-loaded"};
  } else if (index % 4 == 1) {
    report.worst = "warning";
    report.findings = {{"env.typo", "env", "warning", "w"}};
  } else {
    report.worst = "ok";
  }
  return report;
}

nlohmann::json shape(const FleetSummary& fleet) {
  nlohmann::json out;
  out["nodes"] = fleet.nodes();
  for (const auto& [id, tally] : fleet.findings())
    out["findings"][id] = {tally.severity, tally.nodes.count(), tally.nodes.hosts()};
  for (const auto& [id, tally] : fleet.root_causes())
    out["causes"][id] = {tally.severity, tally.nodes.count(), tally.repairs, tally.nodes.hosts()};
  for (const auto& [problems, nodes] : fleet.groups())
    out["groups"].push_back({problems, nodes.count(), nodes.hosts()});
  for (const auto& candidate : fleet.drain_first()) out["drain"].push_back({candidate.host, candidate.errors});
  out["drain_total"] = fleet.drain_total();
  out["versions"] = fleet.versions();
  for (const auto& [model, tally] : fleet.gpu_models()) out["gpus"][model] = {tally.gpus, tally.nodes};
  for (const auto& [file, why] : fleet.unreadable()) out["unreadable"].push_back(file);
  out["unreadable_total"] = fleet.unreadable_total();
  return out;
}

TEST(FleetSummary, MergingWorkersGivesTheSameSummaryAsOneWorker) {
  FleetSummary one;
  for (int i = 0; i < 200; ++i) one.add(node(i));
  for (int i = 0; i < 30; ++i) one.add_unreadable(fmt::format("bad{:02}.json", i), "not valid JSON");
  std::vector<int> order(200);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  std::vector<FleetSummary> workers(3);
  for (std::size_t i = 0; i < order.size(); ++i) workers[i % 3].add(node(order[i]));
  for (int i = 29; i >= 0; --i)
    workers[static_cast<std::size_t>(i) % 3].add_unreadable(fmt::format("bad{:02}.json", i), "x");
  for (std::size_t w = 1; w < workers.size(); ++w) workers[0].merge(std::move(workers[w]));
  EXPECT_EQ(shape(workers[0]), shape(one));
}

TEST(FleetSummary, CountsAreExactAndHostListsBounded) {
  FleetSummary fleet;
  for (int i = 0; i < 200; ++i) fleet.add(node(i));
  const auto& cause = fleet.root_causes().at("driver.not-loaded");
  EXPECT_EQ(cause.nodes.count(), 50U);
  EXPECT_EQ(cause.repairs, 50U) << "its one root cause, the rest are its consequences";
  EXPECT_EQ(cause.nodes.hosts().size(), kFleetHostSample);
  EXPECT_EQ(cause.nodes.hosts().front(), "node000");
  EXPECT_TRUE(std::is_sorted(cause.nodes.hosts().begin(), cause.nodes.hosts().end()));
  EXPECT_FALSE(fleet.root_causes().contains("access.kfd-denied")) << "a consequence is no root cause";
  EXPECT_EQ(fleet.findings().at("access.kfd-denied").nodes.count(), 50U) << "a node counts once per id";
  EXPECT_EQ(fleet.drain_total(), 50U);
  ASSERT_EQ(fleet.drain_first().size(), kFleetDrainList);
  EXPECT_EQ(fleet.drain_first().front().host, "node000") << "3 errors (a repeated finding) drain first";
  EXPECT_EQ(fleet.drain_first().front().errors, 3U);
  EXPECT_EQ(fleet.drain_first()[kFleetDrainList - 1].host, "node152") << "the 25 nodes with 3 errors, by name";
  EXPECT_EQ(fleet.gpu_models().at("AMD Instinct MI300X (gfx942)").nodes, 200U);
  EXPECT_EQ(fleet.worst_count("warning"), 50U);
}

TEST(FleetSummary, WithoutRootCausesTheWorstFindingsStandIn) {
  ReportDigest report;
  report.hostname = "n";
  report.findings = {{"a.warn", "a", "warning", ""},
                     {"b.err", "b", "error", ""},
                     {"c.err", "c", "error", ""},
                     {"b.err", "b", "error", ""},
                     {"d.info", "d", "info", ""}};
  const auto causes = fleet_root_causes(report);
  ASSERT_EQ(causes.size(), 2U);
  EXPECT_EQ(causes[0]->id, "b.err");
  EXPECT_EQ(causes[1]->id, "c.err");
  report.has_root_causes = true;
  report.root_causes = {"a.warn", "d.info", "missing"};
  const auto named = fleet_root_causes(report);
  ASSERT_EQ(named.size(), 1U) << "info and unknown ids are no root causes at warning or worse";
  EXPECT_EQ(named[0]->id, "a.warn");
}

}  // namespace
}  // namespace rocm_doctor
