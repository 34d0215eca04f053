// The causal stage: rules from data, caused_by, root_causes and their ranking.
#include "rocm_doctor/diagnosis.h"

#include <gtest/gtest.h>

#include <set>

#include "core/explain.h"
#include "embedded_data.h"

namespace rocm_doctor {

namespace {

Finding alarm(std::string id, Severity severity = Severity::error) {
  auto finding = make_finding(std::move(id), severity, "summary");
  Fix fix;
  fix.description = "do something";
  fix.commands = {"true"};
  finding.with_fix(std::move(fix));
  return finding;
}

Report report_of(std::vector<std::vector<Finding>> checks) {
  Report report;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    CheckResult check;
    check.id = "check" + std::to_string(i);
    check.findings = std::move(checks[i]);
    report.checks.push_back(std::move(check));
  }
  return report;
}

std::vector<CausalRule> rules_of(std::string_view json) {
  auto rules = parse_causal_rules(json);
  EXPECT_TRUE(rules) << rules.error();
  return rules ? *rules : std::vector<CausalRule>{};
}

const Finding& finding(const Report& report, std::string_view id) {
  for (const auto& check : report.checks) {
    for (const auto& item : check.findings) {
      if (item.id == id) return item;
    }
  }
  throw std::runtime_error("no finding " + std::string(id));
}

TEST(CausalRules, CompiledInFileParsesAndNamesOnlyDocumentedIds) {
  const auto parsed = parse_causal_rules(embedded::data_causal_rules());
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->size(), causal_rules().size());
  const auto documented = documented_ids(checks_document());
  const std::set<std::string> known(documented.begin(), documented.end());
  for (const auto& rule : *parsed) {
    EXPECT_TRUE(known.contains(rule.cause)) << "undocumented cause " << rule.cause;
    EXPECT_FALSE(rule.source.empty()) << rule.cause;
    for (const auto& id : rule.explains) {
      if (id.ends_with("*")) continue;
      EXPECT_TRUE(known.contains(id)) << rule.cause << " explains undocumented " << id;
    }
  }
}

TEST(CausalRules, MalformedRulesAreErrorsNamingTheRule) {
  EXPECT_FALSE(parse_causal_rules("not json"));
  EXPECT_FALSE(parse_causal_rules(R"({"rules": {}})"));
  const auto no_source = parse_causal_rules(R"({"rules": [{"cause": "a.b", "explains": ["c.d"], "reason": "r"}]})");
  ASSERT_FALSE(no_source);
  EXPECT_NE(no_source.error().find("rule 1"), std::string::npos) << no_source.error();
  EXPECT_NE(no_source.error().find("source"), std::string::npos) << no_source.error();
  const auto bad_regex = parse_causal_rules(
      R"({"rules": [{"cause": "a.b", "explains": ["c.d"], "reason": "r", "source": "s",
                     "only_when": [{"finding": "effect", "field": "evidence", "matches": "(unclosed"}]}]})");
  ASSERT_FALSE(bad_regex);
  EXPECT_NE(bad_regex.error().find("regular expression"), std::string::npos) << bad_regex.error();
  EXPECT_FALSE(parse_causal_rules(
      R"({"rules": [{"cause": "a.b", "explains": ["c.d"], "reason": "r", "source": "s",
                     "only_when": [{"finding": "neighbour", "matches": "x"}]}]})"));
}

TEST(Diagnose, NoAmdGpuIsTheOnlyRootCauseAndDropsAmdOnlyFixes) {
  auto report =
      report_of({{alarm("driver.no-amd-gpu")},
                 {alarm("rocm.not-installed")},
                 {alarm("container.kfd-not-passed"), make_finding("container.seccomp", Severity::info, "x")}});
  diagnose(report);
  EXPECT_EQ(report.root_causes, std::vector<std::string>{"driver.no-amd-gpu"});
  EXPECT_EQ(finding(report, "rocm.not-installed").caused_by, std::vector<std::string>{"driver.no-amd-gpu"});
  EXPECT_TRUE(finding(report, "container.kfd-not-passed").fixes.empty()) << "--device=/dev/kfd needs an AMD GPU";
  EXPECT_TRUE(finding(report, "rocm.not-installed").fixes.empty());
  EXPECT_FALSE(finding(report, "driver.no-amd-gpu").fixes.empty());
  EXPECT_TRUE(finding(report, "container.seccomp").caused_by.empty()) << "info findings are not explained";
  const auto roots = root_causes(report);
  ASSERT_EQ(roots.size(), 1U);
  EXPECT_EQ(roots[0].finding->id, "driver.no-amd-gpu");
  EXPECT_EQ(roots[0].explained.size(), 2U);
}

TEST(Diagnose, HealthyReportHasNoRootCause) {
  auto report = report_of(
      {{make_finding("driver.ok", Severity::ok, "fine")}, {make_finding("rocm.version", Severity::info, "6.2.4")}});
  diagnose(report);
  EXPECT_TRUE(report.root_causes.empty());
  EXPECT_TRUE(root_causes(report).empty());
}

TEST(Diagnose, ChainsFoldUnderTheFirstCauseTransitively) {
  auto report = report_of({{alarm("driver.headers-missing"), alarm("driver.dkms-not-built")},
                           {alarm("driver.amdgpu-not-loaded"), alarm("driver.kfd-missing")},
                           {alarm("torch.no-gpu")}});
  diagnose(report);
  EXPECT_EQ(report.root_causes, std::vector<std::string>{"driver.headers-missing"});
  EXPECT_EQ(finding(report, "driver.dkms-not-built").caused_by, std::vector<std::string>{"driver.headers-missing"});
  const auto roots = root_causes(report);
  ASSERT_EQ(roots.size(), 1U);
  EXPECT_EQ(roots[0].explained.size(), 4U);
  // Not a drop_fixes rule: the consequences keep their own fixes.
  EXPECT_FALSE(finding(report, "driver.kfd-missing").fixes.empty());
}

TEST(Diagnose, OnlyWhenConditionDecidesOnEvidence) {
  const auto rules = rules_of(R"({"rules": [{"cause": "driver.firmware-missing", "explains": ["driver.kernel-log"],
      "only_when": [{"finding": "effect", "field": "evidence", "matches": "Fatal error during GPU init"}],
      "reason": "r", "source": "s"}]})");
  auto init_failed = report_of(
      {{alarm("driver.firmware-missing"),
        alarm("driver.kernel-log").with_evidence("/var/log/kern.log", "amdgpu: Fatal error during GPU init")}});
  diagnose(init_failed, rules);
  EXPECT_EQ(init_failed.root_causes, std::vector<std::string>{"driver.firmware-missing"});
  auto hang = report_of({{alarm("driver.firmware-missing"),
                          alarm("driver.kernel-log").with_evidence("/var/log/kern.log", "ring gfx timeout")}});
  diagnose(hang, rules);
  EXPECT_EQ(hang.root_causes, (std::vector<std::string>{"driver.firmware-missing", "driver.kernel-log"}));
}

TEST(Diagnose, RanksBySeverityThenExplainedCountThenReportOrder) {
  const auto rules = rules_of(R"({"rules": [
      {"cause": "b.many", "explains": ["c.*"], "reason": "r", "source": "s"}]})");
  auto report = report_of({{alarm("a.warning", Severity::warning), alarm("a.lonely")},
                           {alarm("b.many"), alarm("c.one"), alarm("c.two")},
                           {alarm("d.lonely")}});
  diagnose(report, rules);
  EXPECT_EQ(report.root_causes, (std::vector<std::string>{"b.many", "a.lonely", "d.lonely", "a.warning"}));
}

TEST(Diagnose, EarlierRuleWinsACycleAndADuplicateIdIsListedOnce) {
  const auto rules = rules_of(R"({"rules": [
      {"cause": "x.first", "explains": ["y.second"], "reason": "r", "source": "s"},
      {"cause": "y.second", "explains": ["x.first"], "reason": "r", "source": "s"}]})");
  auto report = report_of({{alarm("y.second"), alarm("x.first"), alarm("x.first")}});
  diagnose(report, rules);
  EXPECT_EQ(report.root_causes, std::vector<std::string>{"x.first"});
  EXPECT_EQ(finding(report, "y.second").caused_by, std::vector<std::string>{"x.first"});
}

TEST(Diagnose, AnInfoCauseExplainsNothing) {
  auto report =
      report_of({{make_finding("driver.no-amd-gpu", Severity::info, "tolerated")}, {alarm("rocm.not-installed")}});
  diagnose(report);
  EXPECT_EQ(report.root_causes, std::vector<std::string>{"rocm.not-installed"});
}

TEST(Diagnose, CausalReasonComesFromTheRule) {
  EXPECT_NE(causal_reason("driver.no-amd-gpu", "container.kfd-not-passed").find("AMD GPU"), std::string::npos);
  EXPECT_TRUE(causal_reason("driver.no-amd-gpu", "site.scratch.nearly-full").empty());
}

}  // namespace
}  // namespace rocm_doctor
