// The symptom engine on texts as users bring them: whole logs with benign
// lines, messages split over lines, specific beside general signatures,
// harmless messages, causes nothing on the machine backs, and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {
namespace {

std::vector<std::string> ids(const std::vector<Match>& matches) {
  std::vector<std::string> result;
  for (const auto& match : matches) result.push_back(match.id());
  return result;
}

bool has(const std::vector<Match>& matches, const std::string& id) {
  const auto all = ids(matches);
  return std::find(all.begin(), all.end(), id) != all.end();
}

Report report_with(const std::string& finding_id, Severity severity = Severity::error) {
  Report report;
  CheckResult check;
  check.id = "test";
  check.findings.push_back(make_finding(finding_id, severity, "shown by the test"));
  report.checks.push_back(std::move(check));
  return report;
}

TEST(SymptomEngine, EveryCataloguePatternCompiles) {
  const auto built = Matcher::build(signatures());
  ASSERT_TRUE(built) << built.error();
  EXPECT_GE(built->signatures().size(), 120U);
}

TEST(SymptomEngine, ABadPatternIsAnErrorNamingItsSignature) {
  Signature broken;
  broken.id = "broken";
  broken.pattern = "(unclosed";
  const auto built = Matcher::build({broken});
  ASSERT_FALSE(built);
  EXPECT_NE(built.error().find("broken"), std::string::npos) << built.error();
}

TEST(SymptomEngine, AMessageInsideALogReportsTheLineItStartsOn) {
  const std::string log =
      "NCCL version 2.19.3+cuda12.3\n"
      "Loading model...\n"
      "RuntimeError: HIP error: hipErrorNoBinaryForGpu\n";
  const auto matches = default_matcher().scan(log);
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches.front().id(), "hip-no-binary-for-gpu");
  EXPECT_EQ(matches.front().line, 3U);
}

TEST(SymptomEngine, ALongLogNamesTheFirstLineOfEachMessageWhateverTheBlock) {
  // Longer than the matcher's 64 KiB blocks, with a two-line message
  // and the same error twice.
  std::string log;
  std::size_t lines = 0;
  const auto add = [&](const std::string& line) {
    log += line + "\n";
    ++lines;
  };
  while (log.size() < (3U << 20)) add("node1:101707:101889 [0] NCCL INFO Channel 00/32 :    0");
  add("RuntimeError: HIP error: hipErrorNoBinaryForGpu");
  const auto first_error = lines;
  while (log.size() < (4U << 20) - 40) add("epoch 3 step 1200/5000 loss 2.3145");
  add("Memory access fault by GPU node-1 (Agent handle: 0x1) on address 0x7f00.");
  const auto fault = lines;
  add("Reason: Page not present or supervisor privilege.");
  add("RuntimeError: HIP error: hipErrorNoBinaryForGpu");
  const auto matches = default_matcher().scan(log);
  std::map<std::string, std::size_t> line_of;
  for (const auto& match : matches) line_of[match.id()] = match.line;
  EXPECT_EQ(line_of["hip-no-binary-for-gpu"], first_error);
  EXPECT_EQ(line_of["memory-access-fault-page-not-present"], fault);
}

// The matcher searches the text in pieces cut at line ends (4 KiB stretches,
// 64 KiB blocks for patterns with no literal): a message that only matches
// whole, whose first line ends the first 64 KiB and whose second line starts
// the next, still matches, at its first line (tests/symptom/prefilter_test.cpp
// tries every position around a stretch's cut).
TEST(SymptomEngine, AMessageSplitAcrossTheMatchersBlockBoundaryStillMatches) {
  Signature two_lines;
  two_lines.id = "two-lines";
  two_lines.pattern = "queue reset begins[^\\n]*\\n[^\\n]*queue reset ends badly";
  const auto matcher = Matcher::build({two_lines});
  ASSERT_TRUE(matcher) << matcher.error();
  std::string log;
  std::size_t lines = 0;
  while (log.size() < (64U << 10) - 20) {
    log += "epoch 3 step 1200/5000 loss 2.3145\n";
    ++lines;
  }
  log += "amdgpu: queue reset begins on ring comp_1.0.0\n";
  ASSERT_GT(log.size(), 64U << 10) << "the first line must end the first block";
  log += "amdgpu: queue reset ends badly\n";
  const auto matches = matcher->scan(log);
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches.front().id(), "two-lines");
  EXPECT_EQ(matches.front().line, lines + 1);
}

TEST(SymptomEngine, AMessageSplitOverTwoLinesStillMatches) {
  // HSA prints the fault and its reason on separate lines.
  const std::string log =
      "step 12\n"
      "Memory access fault by GPU node-1 (Agent handle: 0x55c2d5a5a040) on address 0x7f2a4c200000.\n"
      "Reason: Page not present or supervisor privilege.\n";
  const auto matches = default_matcher().scan(log);
  ASSERT_FALSE(matches.empty()) << "no match";
  EXPECT_EQ(matches.front().line, 2U);
}

TEST(SymptomEngine, TheSpecificSignatureWinsOverTheGeneralOne) {
  const auto matches = default_matcher().scan("RuntimeError: HIP error: invalid device function");
  EXPECT_TRUE(has(matches, "hip-invalid-device-function")) << ::testing::PrintToString(ids(matches));
  EXPECT_FALSE(has(matches, "torch-hip-error-generic")) << ::testing::PrintToString(ids(matches));
}

TEST(SymptomEngine, AHarmlessMessageIsListedApartUnlessTheMachineSaysOtherwise) {
  const std::string text =
      "MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx1030_36.kdb Performance may degrade.";
  const auto matches = default_matcher().scan(text);
  ASSERT_TRUE(has(matches, "miopen-missing-system-db"));
  const auto healthy = symptom_section(matches, Report{}, "argument");
  EXPECT_TRUE(healthy["matches"].empty());
  ASSERT_EQ(healthy["harmless"].size(), 1U);
  EXPECT_FALSE(healthy["harmless"][0]["why"].get<std::string>().empty());
  const auto broken = symptom_section(matches, report_with("lib.miopen-arch-missing"), "argument");
  EXPECT_TRUE(broken["harmless"].empty());
  ASSERT_FALSE(broken["causes"].empty());
  EXPECT_EQ(broken["causes"][0]["finding"], "lib.miopen-arch-missing");
}

TEST(SymptomEngine, WithoutABackedCauseItSaysSoAndGivesTheNextStep) {
  const auto matches =
      default_matcher().scan("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!");
  const auto section = symptom_section(matches, Report{}, "argument");
  EXPECT_TRUE(section["causes"].empty()) << "nothing backs a cause: no guess";
  ASSERT_TRUE(section.contains("next_step"));
  EXPECT_NE(section["next_step"]["logging"].dump().find("AMD_LOG_LEVEL=3"), std::string::npos);
  EXPECT_FALSE(section["next_step"]["command"].get<std::string>().empty());
  EXPECT_FALSE(section["note"].get<std::string>().empty());
}

TEST(SymptomEngine, AnInfoFindingDoesNotBackACause) {
  const auto matches = default_matcher().scan("RuntimeError: HIP error: hipErrorNoBinaryForGpu");
  const auto section = symptom_section(matches, report_with("gpu.override-needed", Severity::info), "argument");
  EXPECT_TRUE(section["causes"].empty());
}

TEST(SymptomEngine, BinaryAndInvalidUtf8AroundAnErrorStillMatch) {
  std::string text("\xff\xfe\x00\x01garbage\xc3\x28\n", 14);
  text += "hipErrorNoBinaryForGpu\n";
  text += std::string("\x80\x81\x00", 3);
  const auto matches = default_matcher().scan(text);
  ASSERT_FALSE(matches.empty());
  EXPECT_EQ(matches.front().line, 2U);
}

TEST(SymptomEngine, EmptyTextMatchesNothing) {
  EXPECT_TRUE(default_matcher().scan("").empty());
  const auto section = symptom_section({}, Report{}, "argument");
  EXPECT_TRUE(section["matches"].empty());
  EXPECT_FALSE(section["note"].get<std::string>().empty());
}

TEST(SymptomEngine, SignaturesAreFoundByIdAndByLiteralName) {
  ASSERT_NE(find_signature("hipErrorNoBinaryForGpu"), nullptr);
  EXPECT_EQ(find_signature("HIPERRORNOBINARYFORGPU")->id, "hip-no-binary-for-gpu");
  EXPECT_EQ(find_signature("hip-no-binary-for-gpu")->id, "hip-no-binary-for-gpu");
  EXPECT_EQ(find_signature("no-such-message"), nullptr);
}

TEST(SymptomEngine, RealBenignLogLinesMatchNothing) {
  std::ifstream stream(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/tests/symptom/benign_lines.txt");
  std::string line;
  int count = 0;
  while (std::getline(stream, line)) {
    if (line.empty() || line.starts_with('#')) continue;
    ++count;
    EXPECT_TRUE(default_matcher().scan(line).empty())
        << line << " matched " << ::testing::PrintToString(ids(default_matcher().scan(line)));
  }
  EXPECT_GE(count, 300);
}

}  // namespace
}  // namespace rocm_doctor::symptom
