// docs/checks.md says for each finding whether `rocm-doctor fix` may apply its
// fixes: hold that table to what the fixes of every scenario really are.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "fix/fix_plan.h"
#include "host/snapshot_host.h"
#include "rocm_doctor/check.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;

// finding id -> the modes its row lists.
std::map<std::string, std::set<std::string>> documented_modes() {
  std::ifstream stream(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/docs/checks.md");
  std::stringstream text;
  text << stream.rdbuf();
  const auto page = text.str();
  const auto start = page.find("\n## Which fixes `rocm-doctor fix` applies\n");
  EXPECT_NE(start, std::string::npos) << "docs/checks.md has no table of the fixes fix applies";
  std::map<std::string, std::set<std::string>> rows;
  if (start == std::string::npos) return rows;
  const auto end = page.find("\n## ", start + 1);
  const auto section = page.substr(start, end == std::string::npos ? std::string::npos : end - start);
  const std::regex row(R"(\n\| `([a-z0-9.-]+)` \| ([a-z, ]+) \|)");
  const std::regex mode("apply|investigate|manual|site");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), row); it != std::sregex_iterator(); ++it) {
    const auto modes = (*it)[2].str();
    for (auto m = std::sregex_iterator(modes.begin(), modes.end(), mode); m != std::sregex_iterator(); ++m) {
      rows[(*it)[1]].insert(m->str());
    }
  }
  return rows;
}

// The plan `fix --dry-run --replay SCENARIO` makes, planned in-process: the same
// engine and plan_fixes(), without starting the binary 250 times (an ASan build
// took longer than the test's time limit doing that).
TEST(FixDocs, EveryScenarioFixIsInTheTableWithTheModeFixGivesIt) {
  const auto rows = documented_modes();
  ASSERT_FALSE(rows.empty());
  std::size_t steps = 0;
  std::set<std::string> missing;  // rows to add, as they would read
  for (const auto& entry : fs::directory_iterator(ROCM_DOCTOR_SCENARIOS_DIR)) {
    if (!fs::exists(entry.path() / "snapshot.json")) continue;
    auto host = SnapshotHost::open(entry.path());
    ASSERT_TRUE(host) << entry.path() << ": " << host.error();
    const auto report = testing::run_on(**host);
    const auto plan = plan_fixes(report, {});
    ASSERT_TRUE(plan) << entry.path() << ": " << plan.error();
    for (const auto& step : plan->steps) {
      const auto& id = step.finding->id;
      if (id.starts_with("site.")) continue;  // site plugins' own ids, always mode site
      ++steps;
      const auto mode = std::string(to_string(step.mode));
      const auto row = rows.find(id);
      if (row == rows.end()) {
        missing.insert("| `" + id + "` | " + mode + " | " + step.reason + " |");
        continue;
      }
      EXPECT_TRUE(row->second.contains(mode))
          << id << " is " << mode << " in " << entry.path().filename() << ", which its row does not say";
    }
  }
  std::string rows_to_add;
  for (const auto& line : missing) rows_to_add += line + "\n";
  EXPECT_TRUE(missing.empty()) << "docs/checks.md's fix table lacks these findings (add their rows, or run python3 "
                                  "tests/fix/gen_fix_table.py build/rocm-doctor):\n"
                               << rows_to_add;
  EXPECT_GT(steps, 50U) << "the scenarios should exercise most fixes";
}

TEST(FixDocs, EveryRowNamesAFindingACheckDeclares) {
  std::set<std::string> declared;
  for (const Check* check : registered_checks()) {
    for (const auto id : check->finding_ids()) declared.emplace(id);
  }
  for (const auto& [id, modes] : documented_modes()) EXPECT_TRUE(declared.contains(id)) << id;
}

}  // namespace
}  // namespace rocm_doctor
