// checks/data/error_signatures.json (issue 17): the catalogue of error messages
// users bring (`why`, --symptom, --log, run --). This holds the data itself to
// its contract: every signature sourced, its samples matching its own pattern,
// its causes naming documented finding ids, its refinements existing.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/explain.h"
#include "rocm_doctor/symptom.h"

namespace rocm_doctor {
namespace {

nlohmann::json catalogue() {
  std::ifstream stream(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/checks/data/error_signatures.json");
  return nlohmann::json::parse(stream);
}

TEST(ErrorSignatures, AtLeast120EachWithSourcesMeaningAndCauses) {
  const auto signatures = catalogue().at("signatures");
  EXPECT_GE(signatures.size(), 120U);
  std::set<std::string> ids;
  for (const auto& signature : signatures) {
    const auto id = signature.at("id").get<std::string>();
    EXPECT_TRUE(ids.insert(id).second) << "duplicate " << id;
    EXPECT_FALSE(signature.at("sources").empty()) << id;
    EXPECT_FALSE(signature.at("meaning").get<std::string>().empty()) << id;
    EXPECT_FALSE(signature.at("component").get<std::string>().empty()) << id;
    EXPECT_FALSE(signature.at("causes").empty()) << id;
    EXPECT_FALSE(signature.at("samples").empty()) << id;
  }
  for (const auto& signature : signatures) {
    for (const auto& general : signature.value("refines", std::vector<std::string>{})) {
      EXPECT_TRUE(ids.contains(general)) << signature.at("id") << " refines unknown " << general;
    }
  }
}

TEST(ErrorSignatures, EverySampleMatchesItsOwnPatternInTheEngine) {
  // RE2 as the CLI uses it (src/symptom/matcher.cpp), one signature alone so
  // that no refinement hides it.
  for (const auto& signature : symptom::signatures()) {
    auto alone = symptom::Matcher::build({signature});
    ASSERT_TRUE(alone) << alone.error();
    for (const auto& sample : signature.samples) {
      EXPECT_FALSE(alone->scan(sample).empty()) << signature.id << ": " << sample;
    }
  }
}

TEST(ErrorSignatures, CausesNameOnlyDocumentedFindings) {
  const auto documented = documented_ids(checks_document());
  const std::set<std::string> known(documented.begin(), documented.end());
  const auto signatures = catalogue().at("signatures");
  for (const auto& signature : signatures) {
    for (const auto& cause : signature.at("causes")) {
      for (const auto& finding : cause.at("findings")) {
        EXPECT_TRUE(known.contains(finding.get<std::string>())) << signature.at("id") << " names " << finding;
      }
    }
    if (signature.contains("harmless")) {
      EXPECT_FALSE(signature.at("harmless").at("why").get<std::string>().empty()) << signature.at("id");
    }
  }
}

}  // namespace
}  // namespace rocm_doctor
