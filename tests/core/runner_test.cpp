#include "core/runner.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <stdexcept>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

class ThrowingCheck final : public Check {
 public:
  std::string_view id() const override { return "throws"; }
  std::string_view title() const override { return "Throws"; }
  std::vector<std::string_view> finding_ids() const override { return {}; }
  CheckOutcome run(const CheckContext&) const override { throw std::runtime_error("boom"); }
};

class WarningCheck final : public Check {
 public:
  std::string_view id() const override { return "warns"; }
  std::string_view title() const override { return "Warns"; }
  std::vector<std::string_view> finding_ids() const override { return {"warns.x"}; }
  CheckOutcome run(const CheckContext&) const override {
    return {{make_finding("warns.x", Severity::warning, "x"), make_finding("warns.y", Severity::info, "y")}};
  }
};

TEST(Runner, AThrowingCheckBecomesAnInternalErrorForThatCheckOnly) {
  testing::SnapshotBuilder builder;
  auto host = builder.open();
  const RunOptions options;
  const CheckContext ctx(*host, options);
  const auto broken = run_check(ThrowingCheck{}, ctx);
  EXPECT_EQ(broken.status, CheckStatus::internal_error);
  EXPECT_EQ(broken.internal_error, "boom");
  const auto fine = run_check(WarningCheck{}, ctx);
  EXPECT_EQ(fine.status, CheckStatus::warning);
  EXPECT_EQ(fine.findings.size(), 2U);
}

TEST(Runner, ExitCodeFollowsFailOn) {
  Report report;
  report.checks.push_back(
      {"warns", "Warns", CheckStatus::warning, 0, {make_finding("warns.x", Severity::warning, "x")}, "", ""});
  EXPECT_EQ(exit_code_for(report, Severity::error), ExitCode::ok);
  EXPECT_EQ(exit_code_for(report, Severity::warning), ExitCode::findings);
  report.checks.push_back({"throws", "Throws", CheckStatus::internal_error, 0, {}, "", "boom"});
  EXPECT_EQ(exit_code_for(report, Severity::error), ExitCode::internal);
  EXPECT_EQ(exit_code_for(report, Severity::warning), ExitCode::findings);
}

TEST(Runner, SelectionRejectsUnknownIdsWithASuggestion) {
  const auto selected = select_checks({{"os"}, {}});
  ASSERT_TRUE(selected);
  ASSERT_EQ(selected->size(), 1U);
  EXPECT_EQ((*selected)[0]->id(), "os");
  const auto typo = select_checks({{"oss"}, {}});
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().find("did you mean 'os'"), std::string::npos) << typo.error();
  const auto skipped = select_checks({{}, {"os"}});
  ASSERT_TRUE(skipped);
  for (const Check* check : *skipped) EXPECT_NE(check->id(), "os");
}

TEST(Registry, ChecksAreSortedAndUniquelyNamed) {
  const auto& checks = registered_checks();
  ASSERT_FALSE(checks.empty());
  std::set<std::string_view> ids;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    EXPECT_TRUE(ids.insert(checks[i]->id()).second) << "duplicate check id " << checks[i]->id();
    if (i > 0) {
      EXPECT_LE(checks[i - 1]->order(), checks[i]->order());
    }
    for (const auto finding : checks[i]->finding_ids()) {
      EXPECT_TRUE(std::regex_match(std::string(finding), std::regex("[a-z0-9-]+(\\.[a-z0-9-]+)+"))) << finding;
    }
  }
}

}  // namespace
}  // namespace rocm_doctor
