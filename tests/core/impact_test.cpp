// Impact (issue 26): every finding id has a class in checks/data/finding_impact.json,
// root causes rank by it, and tidying never becomes a root cause.
#include "rocm_doctor/impact.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "embedded_data.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/policy.h"

namespace rocm_doctor {
namespace {

std::set<std::string> declared_finding_ids() {
  std::set<std::string> ids;
  for (const Check* check : registered_checks()) {
    for (const auto id : check->finding_ids()) ids.emplace(id);
  }
  for (auto& id : policy::finding_ids()) ids.insert(std::move(id));
  return ids;
}

Finding alarm(std::string id, Severity severity) {
  return make_finding(std::move(id), severity, "summary");
}

Report report_of(std::vector<Finding> findings) {
  Report report;
  for (auto& finding : findings) {
    CheckResult check;
    check.id = finding.id;
    check.findings.push_back(std::move(finding));
    report.checks.push_back(std::move(check));
  }
  return report;
}

TEST(Impact, TheCompiledInTableParses) {
  const auto table = parse_impact_table(embedded::data_finding_impact());
  ASSERT_TRUE(table) << table.error();
  EXPECT_FALSE(table->entries.empty());
  EXPECT_EQ(table->severity_default.at(Severity::error), Impact::breaks);
}

TEST(Impact, EveryDeclaredFindingIdHasAClass) {
  const auto& table = impact_table();
  for (const auto& id : declared_finding_ids()) {
    EXPECT_TRUE(table.entries.contains(id)) << id << " has no impact in checks/data/finding_impact.json";
  }
}

TEST(Impact, EveryEntryNamesADeclaredFindingId) {
  const auto declared = declared_finding_ids();
  for (const auto& [id, entry] : impact_table().entries) {
    EXPECT_TRUE(declared.contains(id)) << "finding_impact.json names " << id << ", which no check declares";
  }
}

// docs/checks.md's "Impact:" lines are written from the data (docs/impact_lines.py): a stale one fails.
TEST(Impact, EveryFindingSectionStatesTheClassOfTheData) {
  std::ifstream stream(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/docs/checks.md");
  std::stringstream text;
  text << stream.rdbuf();
  const std::string doc = text.str();
  const auto& table = impact_table();
  for (const auto& [id, entry] : table.entries) {
    const auto heading = doc.find("\n### " + id + "\n");
    ASSERT_NE(heading, std::string::npos) << id;
    const auto line_start = heading + 5 + id.size() + 1;
    const auto line = doc.substr(line_start, doc.find('\n', line_start) - line_start);
    ASSERT_TRUE(line.starts_with("Impact: ")) << id << ": no Impact line (run python3 docs/impact_lines.py)";
    if (entry.any) {
      EXPECT_NE(line.find("`" + std::string(to_string(*entry.any)) + "`"), std::string::npos) << id << ": " << line;
    }
    for (const auto& [severity, impact] : entry.by_severity) {
      const auto phrase = "`" + std::string(to_string(impact)) + "` at " + std::string(to_string(severity));
      EXPECT_NE(line.find(phrase), std::string::npos) << id << ": " << line << " lacks " << phrase;
    }
  }
}

TEST(Impact, MalformedTablesAreErrorsNamingTheId) {
  const auto unknown = parse_impact_table(R"({"impact": {"a.b": "catastrophic"}})");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("a.b"), std::string::npos) << unknown.error();
  const auto bad_severity = parse_impact_table(R"({"impact": {"a.b": {"fatal": "blocks"}}})");
  ASSERT_FALSE(bad_severity);
  EXPECT_NE(bad_severity.error().find("fatal"), std::string::npos) << bad_severity.error();
  EXPECT_FALSE(parse_impact_table(R"({"nothing": 1})"));
  EXPECT_FALSE(parse_impact_table("not json"));
}

TEST(Impact, APerSeverityEntryAnswersForTheNearestSeverityBelow) {
  const auto table = parse_impact_table(
      R"({"impact": {"a.b": {"error": "blocks", "warning": "degrades"}}, "severity_default": {"info": "advice"}})");
  ASSERT_TRUE(table) << table.error();
  EXPECT_EQ(table->of("a.b", Severity::error), Impact::blocks);
  EXPECT_EQ(table->of("a.b", Severity::warning), Impact::degrades);
  EXPECT_EQ(table->of("a.b", Severity::info), Impact::degrades);  // a tolerated warning
  EXPECT_EQ(table->of("site.own", Severity::info), Impact::advice);
  EXPECT_EQ(table->of("site.own", Severity::error), Impact::degrades);  // no default given: still a fault
}

TEST(Diagnose, WhatBlocksTheGpuOutranksAnEarlierWarningAndTidyingIsNeverARootCause) {
  auto report =
      report_of({alarm("rocm.bin-not-on-path", Severity::warning), alarm("os.kernel-unsupported", Severity::warning),
                 alarm("gpu.igpu-present", Severity::warning), alarm("rccl.missing", Severity::warning)});
  diagnose(report, {});
  EXPECT_EQ(report.root_causes, std::vector<std::string>{"gpu.igpu-present"});
  EXPECT_EQ(report.also, (std::vector<std::string>{"rocm.bin-not-on-path", "rccl.missing", "os.kernel-unsupported"}));
}

TEST(Diagnose, ImpactRanksBeforeSeverity) {
  auto report =
      report_of({alarm("env.launch-blocking", Severity::warning), alarm("gpu.override-multi-gpu", Severity::warning),
                 alarm("access.group-missing", Severity::error)});
  diagnose(report, {});
  EXPECT_EQ(report.root_causes,
            (std::vector<std::string>{"access.group-missing", "gpu.override-multi-gpu", "env.launch-blocking"}));
  EXPECT_TRUE(report.also.empty());
}

TEST(Diagnose, ACauseMattersAsMuchAsTheWorstOfWhatItExplains) {
  const auto rules = parse_causal_rules(R"({"rules": [{"cause": "rocm.multiple-installs",
      "explains": ["env.mixed-releases"], "reason": "r", "source": "s"}]})");
  ASSERT_TRUE(rules) << rules.error();
  auto report =
      report_of({alarm("rocm.multiple-installs", Severity::warning), alarm("env.mixed-releases", Severity::warning),
                 alarm("env.launch-blocking", Severity::warning)});
  diagnose(report, *rules);
  EXPECT_EQ(report.root_causes, (std::vector<std::string>{"rocm.multiple-installs", "env.launch-blocking"}));
  EXPECT_TRUE(report.also.empty());
}

TEST(Diagnose, AMachineWithOnlyTidyingHasNoRootCause) {
  auto report = report_of({alarm("rocm.bin-not-on-path", Severity::warning), alarm("access.ok", Severity::ok)});
  diagnose(report, {});
  EXPECT_TRUE(report.root_causes.empty());
  EXPECT_EQ(report.also, std::vector<std::string>{"rocm.bin-not-on-path"});
}

TEST(Diagnose, PutFirstMovesTheCausesOfTheUsersTextToTheFront) {
  auto report = report_of({alarm("access.group-missing", Severity::error), alarm("env.serialize", Severity::warning),
                           alarm("hip.no-device", Severity::error)});
  report.checks[2].findings[0].caused_by = {"access.group-missing"};
  report.root_causes = {"access.group-missing", "env.serialize"};
  put_first(report, {"env.serialize"});
  EXPECT_EQ(report.root_causes, (std::vector<std::string>{"env.serialize", "access.group-missing"}));
  // A consequence the text names puts its root cause first.
  put_first(report, {"hip.no-device"});
  EXPECT_EQ(report.root_causes, (std::vector<std::string>{"access.group-missing", "env.serialize"}));
  put_first(report, {"not.in-the-report"});
  EXPECT_EQ(report.root_causes, (std::vector<std::string>{"access.group-missing", "env.serialize"}));
}

}  // namespace
}  // namespace rocm_doctor
