// docs/checks.md is the user's reference and the source of `explain`: hold
// the code to it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/explain.h"
#include "core/report_versions.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {
namespace {

TEST(Docs, EveryCheckAndFindingIdIsExplained) {
  for (const Check* check : registered_checks()) {
    EXPECT_TRUE(explain_text(check->id())) << "docs/checks.md has no '## " << check->id() << "' section";
    for (const auto id : check->finding_ids()) {
      const auto text = explain_text(id);
      ASSERT_TRUE(text) << "docs/checks.md has no '### " << id << "' section";
      EXPECT_NE(text->find("Severity:"), std::string::npos) << id << " does not state its severity";
    }
  }
}

std::set<std::string> declared_finding_ids() {
  std::set<std::string> ids;
  for (const Check* check : registered_checks()) {
    for (const auto id : check->finding_ids()) ids.emplace(id);
  }
  for (auto& id : policy::finding_ids()) ids.insert(std::move(id));  // policy.<rule>, judged outside the checks
  return ids;
}

// A section explains when it says more than its heading and severity level:
// a few words beyond "Severity: warning." (often on the same line).
bool has_explanation(std::string_view section) {
  std::size_t words = 0;
  for (const auto line : split(section, '\n')) {
    if (trim(line).starts_with("#")) continue;
    words += split_words(line).size();
  }
  return words >= 2 + 3;  // "Severity:" + its level, then at least three words
}

TEST(Docs, EveryFindingIdHasAnExplanationBeyondItsSeverity) {
  for (const auto& id : declared_finding_ids()) {
    const auto text = explain_text(id);
    ASSERT_TRUE(text) << id;
    EXPECT_TRUE(has_explanation(*text)) << "docs/checks.md: '### " << id << "' has no explanation";
  }
}

// finding_ids() is what the docs and scenario tests hold the code to, so a
// check must not emit an id it does not declare. The scenarios catch the ids
// they reach at run time; this catches the rest: every literal in checks/
// that looks like a finding id of a known family must be declared.
TEST(Docs, EveryFindingIdLiteralInTheChecksIsDeclared) {
  const auto declared = declared_finding_ids();
  std::set<std::string> families;
  for (const auto& id : declared) families.insert(id.substr(0, id.find('.')));
  const std::regex literal(R"re("([a-z0-9-]+)\.([a-z0-9-]+)")re");
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/checks")) {
    if (entry.path().extension() != ".cpp" && entry.path().extension() != ".h") continue;
    std::ifstream stream(entry.path());
    std::stringstream source;
    source << stream.rdbuf();
    const std::string text = source.str();
    for (std::sregex_iterator match(text.begin(), text.end(), literal), end; match != end; ++match) {
      const auto word = (*match)[2].str();
      if (!families.contains((*match)[1].str()) || word == "h" || word == "json") continue;  // a file name
      ++seen;
      EXPECT_TRUE(declared.contains((*match)[1].str() + "." + (*match)[2].str()))
          << entry.path().filename().string() << " names " << (*match)[0]
          << ", which no check declares: declare it in finding_ids(), or, if it is no finding id (a kernel "
          << "parameter, a file name), see \"Ids\" in docs/adding-a-check.md";
    }
  }
  EXPECT_GE(seen, declared.size()) << "the scan found fewer id literals than declared ids: is the pattern stale?";
}

// docs/architecture.md's layout names every folder under src/ (and says what it holds).
TEST(Docs, ArchitectureNamesEverySourceFolder) {
  const std::filesystem::path source(ROCM_DOCTOR_SOURCE_DIR);
  std::ifstream stream(source / "docs" / "architecture.md");
  std::stringstream page;
  page << stream.rdbuf();
  std::size_t folders = 0;
  for (const auto& entry : std::filesystem::directory_iterator(source / "src")) {
    if (!entry.is_directory()) continue;
    ++folders;
    const auto name = "\nsrc/" + entry.path().filename().string() + "/ ";
    EXPECT_NE(page.str().find(name), std::string::npos) << "docs/architecture.md's layout has no line for" << name;
  }
  EXPECT_GT(folders, 10U);
}

// The id rules of docs/adding-a-check.md ("Ids"): check ids are lowercase words joined
// by hyphens; finding ids are such a prefix, one dot and such a name.
TEST(Docs, EveryFindingIdIsAPrefixDotAName) {
  const std::regex word("[a-z0-9]+(-[a-z0-9]+)*");
  const std::regex finding_id("[a-z0-9]+(-[a-z0-9]+)*\\.[a-z0-9]+(-[a-z0-9]+)*");
  std::size_t ids = 0;
  for (const Check* check : registered_checks()) {
    EXPECT_TRUE(std::regex_match(std::string(check->id()), word)) << "check id '" << check->id() << "'";
    for (const auto id : check->finding_ids()) {
      ++ids;
      EXPECT_TRUE(std::regex_match(std::string(id), finding_id)) << check->id() << " declares '" << id << "'";
    }
  }
  EXPECT_GT(ids, 100U);
}

// docs/checks.md's table "check -> finding-id prefixes": check ids and finding-id
// prefixes differ (rocm-install emits rocm.*), so the table must say exactly
// which prefixes each check's finding_ids() use, no more and no fewer.
std::map<std::string, std::set<std::string>> documented_prefixes() {
  const std::string page(checks_document());
  std::map<std::string, std::set<std::string>> table;
  const std::regex row(R"(\n\| `([a-z0-9-]+)` \| ([^\n]*) \|)");
  const std::regex prefix(R"(`([a-z0-9-]+)\.`)");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string cells = (*it)[2];
    for (auto p = std::sregex_iterator(cells.begin(), cells.end(), prefix); p != std::sregex_iterator(); ++p) {
      table[(*it)[1]].insert((*p)[1]);
    }
  }
  return table;
}

TEST(Docs, ThePrefixTableNamesEachChecksFindingIdPrefixes) {
  const auto table = documented_prefixes();
  for (const Check* check : registered_checks()) {
    std::set<std::string> prefixes;
    for (const auto id : check->finding_ids()) prefixes.emplace(id.substr(0, id.find('.')));
    const auto row = table.find(std::string(check->id()));
    ASSERT_NE(row, table.end()) << "docs/checks.md's prefix table has no row for " << check->id();
    EXPECT_EQ(row->second, prefixes) << "docs/checks.md's prefix table is wrong for " << check->id();
  }
}

// Policy findings are policy.<rule name>: one section per rule kind, and the family's own.
TEST(Docs, EveryPolicyRuleIsExplained) {
  EXPECT_TRUE(explain_text("policy")) << "docs/checks.md has no '## policy' section";
  for (const auto& id : policy::finding_ids()) {
    const auto text = explain_text(id);
    ASSERT_TRUE(text) << "docs/checks.md has no '### " << id << "' section";
    EXPECT_NE(text->find("Severity:"), std::string::npos) << id << " does not state its severity";
  }
}

// The rows of docs/report-format.md's `## versions` table, by key.
std::set<std::string> documented_version_keys() {
  std::ifstream stream(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/docs/report-format.md");
  std::stringstream text;
  text << stream.rdbuf();
  const auto page = text.str();
  const auto start = page.find("\n## versions\n");
  const auto end = page.find("\n## ", start + 1);
  const auto section = page.substr(start, end - start);
  std::set<std::string> keys;
  const std::regex row(R"(\n\| `([a-z_]+)` \|)");
  for (auto it = std::sregex_iterator(section.begin(), section.end(), row); it != std::sregex_iterator(); ++it) {
    keys.insert((*it)[1]);
  }
  return keys;
}

TEST(Docs, EveryVersionKeyIsDocumentedAndNoOther) {
  std::set<std::string> keys;
  for (const auto key : version_keys()) keys.emplace(key);
  EXPECT_EQ(documented_version_keys(), keys);
}

TEST(Docs, FindSectionStopsAtTheNextHeadingOfTheSameLevel) {
  constexpr std::string_view kDocument =
      "# Title\n## access\nintro\n### access.ok\nSeverity: ok.\nfine\n### access.kfd-denied\nSeverity: error.\n## "
      "driver\n";
  EXPECT_EQ(find_section(kDocument, "access.ok"), "### access.ok\nSeverity: ok.\nfine\n");
  const auto check = find_section(kDocument, "access");
  ASSERT_TRUE(check);
  EXPECT_NE(check->find("access.kfd-denied"), std::string::npos);
  EXPECT_EQ(check->find("driver"), std::string::npos);
  EXPECT_FALSE(find_section(kDocument, "access.nope"));
}

}  // namespace
}  // namespace rocm_doctor
