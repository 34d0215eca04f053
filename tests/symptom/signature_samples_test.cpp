// Every sample of checks/data/error_signatures.json, through the engine itself
// (the matcher the CLI uses): it matches its own signature (or one that refines
// it), and on a machine that shows the signature's first backed cause, that
// cause comes first. One case per sample, named after the signature.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {
namespace {

struct SampleCase {
  const Signature* signature = nullptr;
  std::size_t index = 0;
  [[nodiscard]] const std::string& text() const { return signature->samples[index]; }
};

void PrintTo(const SampleCase& sample, std::ostream* out) {
  *out << sample.signature->id << " sample " << sample.index;
}

// Every sample, or those whose signature has a cause naming a finding. The lists are built
// without scanning: GoogleTest builds them in every process the suite's ctest runs start,
// and scanning them there cost each of those ~200 processes a second.
std::vector<SampleCase> all_samples(bool backed_only = false);

std::string case_name(const ::testing::TestParamInfo<SampleCase>& info) {
  std::string name = info.param.signature->id + "_" + std::to_string(info.param.index);
  for (auto& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name;
}

// The signature matched, or was dropped for a more specific one that did.
bool matched_or_refined(const std::vector<Match>& matches, const Signature& signature) {
  for (const auto& match : matches) {
    if (match.signature == nullptr) continue;  // a family alone
    if (match.signature->id == signature.id) return true;
    for (const auto& general : match.signature->refines) {
      if (general == signature.id) return true;
    }
  }
  return signature.general && !matches.empty();
}

// The first of the signature's causes that names a finding, and that finding.
const std::string* first_backing_finding(const Signature& signature) {
  for (const auto& cause : signature.causes) {
    if (!cause.findings.empty()) return &cause.findings.front();
  }
  return nullptr;
}

Report report_with(const std::string& finding_id) {
  Report report;
  CheckResult check;
  check.id = "test";
  check.findings.push_back(make_finding(finding_id, Severity::warning, "the test shows " + finding_id));
  report.checks.push_back(std::move(check));
  return report;
}

// The signature that speaks for the sample: its own when it matches, else the more specific
// one that won it (MatchesItsOwnSignature holds that one of the two matched).
const Signature* speaking_signature(const std::vector<Match>& matches, const Signature& own) {
  for (const auto& match : matches) {
    if (match.signature != nullptr && match.signature->id == own.id) return match.signature;
  }
  for (const auto& match : matches) {
    if (match.signature != nullptr) return match.signature;
  }
  return nullptr;
}

std::vector<SampleCase> all_samples(bool backed_only) {
  std::vector<SampleCase> cases;
  for (const auto& signature : signatures()) {
    if (backed_only && first_backing_finding(signature) == nullptr) continue;
    for (std::size_t i = 0; i < signature.samples.size(); ++i) cases.push_back(SampleCase{&signature, i});
  }
  return cases;
}

class SignatureSamples : public ::testing::TestWithParam<SampleCase> {};
class OwnSamples : public ::testing::TestWithParam<SampleCase> {};
class BackedSamples : public ::testing::TestWithParam<SampleCase> {};

TEST_P(SignatureSamples, MatchesItsOwnSignature) {
  const auto matches = default_matcher().scan(GetParam().text());
  EXPECT_TRUE(matched_or_refined(matches, *GetParam().signature)) << GetParam().text();
}

// On a machine whose checks found nothing, no cause is guessed: a harmless message stays
// harmless, any other names its next step (the logging to turn on, the command to paste).
TEST_P(OwnSamples, OnAMachineShowingNothingNoCauseIsGuessed) {
  const auto matches = default_matcher().scan(GetParam().text());
  const auto* speaking = speaking_signature(matches, *GetParam().signature);
  ASSERT_NE(speaking, nullptr) << GetParam().text();
  const auto& signature = *speaking;
  const auto section = symptom_section(matches, Report{}, "argument");
  EXPECT_TRUE(section["causes"].empty()) << section.dump(1);
  if (signature.harmless) {
    EXPECT_FALSE(section["harmless"].empty()) << section.dump(1);
    return;
  }
  ASSERT_TRUE(section.contains("next_step")) << section.dump(1);
  const auto& step = section["next_step"];
  EXPECT_FALSE(step["command"].get<std::string>().empty() && step["logging"].empty()) << step.dump();
}

TEST_P(BackedSamples, NamesTheFirstCauseTheMachineShows) {
  const auto matches = default_matcher().scan(GetParam().text());
  const auto* speaking = speaking_signature(matches, *GetParam().signature);
  ASSERT_NE(speaking, nullptr) << GetParam().text();
  const auto* backing = first_backing_finding(*speaking);
  if (backing == nullptr) backing = first_backing_finding(*GetParam().signature);
  const auto& finding = *backing;
  const auto section = symptom_section(matches, report_with(finding), "argument");
  ASSERT_FALSE(section["causes"].empty()) << section.dump(1);
  EXPECT_EQ(section["causes"][0]["finding"], finding);
  EXPECT_TRUE(section["harmless"].empty()) << "a harmless signature becomes a cause when the machine says so";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, SignatureSamples, ::testing::ValuesIn(all_samples()), case_name);
INSTANTIATE_TEST_SUITE_P(Catalogue, OwnSamples, ::testing::ValuesIn(all_samples()), case_name);
INSTANTIATE_TEST_SUITE_P(Catalogue, BackedSamples, ::testing::ValuesIn(all_samples(true)), case_name);

}  // namespace
}  // namespace rocm_doctor::symptom
