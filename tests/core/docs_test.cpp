// docs/checks.md is the user's reference and the source of `explain`: hold
// the code to it.
#include <gtest/gtest.h>

#include "core/explain.h"
#include "rocm_doctor/check.h"

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

TEST(Docs, FindSectionStopsAtTheNextHeadingOfTheSameLevel) {
  constexpr std::string_view kDocument =
      "# Title\n## access\nintro\n### access.ok\nSeverity: ok.\nfine\n### access.kfd-denied\nSeverity: error.\n## driver\n";
  EXPECT_EQ(find_section(kDocument, "access.ok"), "### access.ok\nSeverity: ok.\nfine\n");
  const auto check = find_section(kDocument, "access");
  ASSERT_TRUE(check);
  EXPECT_NE(check->find("access.kfd-denied"), std::string::npos);
  EXPECT_EQ(check->find("driver"), std::string::npos);
  EXPECT_FALSE(find_section(kDocument, "access.nope"));
}

}  // namespace
}  // namespace rocm_doctor
