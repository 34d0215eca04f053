// The words layer (issue 31): a failing line no signature or family pattern
// explains is given the family whose samples share its rarest words; a line
// that says nothing failed, or speaks at an informational level, never is.
#include "symptom/words.h"

#include <gtest/gtest.h>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {
namespace {

Family family_of(std::string id, std::string pattern, bool general = false) {
  Family family;
  family.id = std::move(id);
  family.name = family.id;
  family.pattern = std::move(pattern);
  family.general = general;
  return family;
}

Signature signature_of(std::string id, std::string family, std::string pattern, std::vector<std::string> samples) {
  Signature signature;
  signature.id = std::move(id);
  signature.family = std::move(family);
  signature.pattern = std::move(pattern);
  signature.samples = std::move(samples);
  return signature;
}

// Two families each taught by real-looking samples; their patterns know only the exact words.
std::vector<Signature> taught() {
  return {
      signature_of("smu-timeout", "firmware", "smu message timed out exactly",
                   {"amdgpu: SMU: response 0x0 for index 13 param 0x0 message GetEnabledSmuFeatures timed out",
                    "amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command",
                    "amdgpu: smu driver if version mismatch, smu firmware fails to load"}),
      signature_of("rccl-unhandled", "collective", "rccl unhandled system error exactly",
                   {"NCCL WARN rccl transport p2p setup failed on rank 3",
                    "torch.distributed.DistBackendError: NCCL error in ProcessGroupNCCL.cpp, unhandled cuda error",
                    "RCCL WARN bootstrap connection to peer rank refused"}),
  };
}

std::vector<Family> families_taught() {
  return {family_of("firmware", "smu message timed out exactly"),
          family_of("collective", "rccl unhandled system error exactly"), family_of("catch-all", "\\*error\\*", true)};
}

WordSettings settings() {
  WordSettings words;
  words.cue = "error|fail|timed out|refused|mismatch";
  words.quiet = "\\binfo\\b";
  words.stop_words = {"the", "on", "error", "failed"};
  words.min_score = 3;
  words.min_margin = 1;
  return words;
}

const WordSettings& matcher_settings() {
  static const WordSettings words = settings();
  return words;
}

Matcher build_matcher(const WordSettings& words) {
  auto built = Matcher::build(taught(), families_taught(), &words);
  EXPECT_TRUE(built) << built.error();
  return std::move(*built);
}

// Matches point into their matcher: it must outlive them.
const Matcher& matcher() {
  static const Matcher built = build_matcher(settings());
  return built;
}

TEST(Words, LineWordsDropNumbersHexAndStopWordsAndCutTrailingDigits) {
  const auto words = line_words("The SMU on gfx1100 sdma0: 0xdeadbeef cafe1234abcd failed 42 times SMU", {"the", "on"});
  EXPECT_EQ(words, (std::vector<std::string>{"smu", "gfx", "sdma", "failed", "times"}));
}

TEST(Words, AVariantNoPatternKnowsGetsTheFamilyItsRareWordsShare) {
  const auto matches = matcher().scan("kernel: amdgpu: SMU firmware message SetWorkloadMask timed out");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches[0].signature, nullptr);
  EXPECT_EQ(matches[0].family->id, "firmware");
  EXPECT_TRUE(matches[0].by_words());
  // The strongest three: words only one sample has are rarer than "smu", which all three have.
  EXPECT_EQ(matches[0].words, (std::vector<std::string>{"firmware", "message", "timed"}));
  EXPECT_EQ(matches[0].line, 1U);
}

TEST(Words, APatternMatchIsNotVotedOnAgain) {
  const auto matches = matcher().scan("smu message timed out exactly");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_FALSE(matches[0].by_words());
}

TEST(Words, ALineThatSaysNothingFailedOrSpeaksAtInfoLevelIsNeverVotedOn) {
  EXPECT_TRUE(matcher().scan("amdgpu: SMU firmware version 85.69 loaded, rccl transport p2p ready").empty());
  EXPECT_TRUE(matcher().scan("info: amdgpu: SMU firmware message timed out, retrying").empty());
  // The level was a prefix normalise() took off: its line is still informational.
  EXPECT_TRUE(matcher().scan("INFO 01-02 03:04:05 [smu.py:12] SMU firmware message timed out").empty());
  EXPECT_TRUE(matcher().scan("I0102 03:04:05.123456 12345 smu.cc:12] SMU firmware message timed out").empty());
}

TEST(Words, AnUnclearVoteOrTooFewKnownWordsGivesNothing) {
  EXPECT_TRUE(matcher().scan("the frobnicator failed on the widget").empty());
  auto strict = settings();
  strict.min_margin = 1000;
  EXPECT_TRUE(build_matcher(strict).scan("amdgpu: SMU firmware message SetWorkloadMask timed out").empty());
}

TEST(Words, AVoteNeedsAWordThatIsMostlyTheFamilysOwn) {
  // "bootstrap" and "peer" are in one collective sample each: enough score, no anchor.
  EXPECT_TRUE(matcher().scan("bootstrap peer failed").empty());
  // "rccl" is in two of its samples and in no other family's: an anchor.
  const auto matches = matcher().scan("rccl bootstrap peer failed");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches[0].family->id, "collective");
}

TEST(Words, AVoteForASpecificFamilyReplacesACatchAllOnItsLine) {
  const auto matches = matcher().scan("[drm:smu_cmn_send] *ERROR* SMU firmware message GetMetrics timed out");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches[0].family->id, "firmware");
  EXPECT_TRUE(matches[0].by_words());
}

TEST(Words, EachFamilyOnceAndOnlyTheLastFailingLinesOfALongLog) {
  std::string log;
  for (int i = 0; i < 5; ++i) log += "amdgpu: SMU firmware message timed out\n";
  log += "RCCL WARN rccl transport connection to peer refused\n";
  const auto all = matcher().scan(log);
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[0].family->id, "firmware");
  EXPECT_EQ(all[0].line, 1U);  // the family at its first voted line
  auto last_only = settings();
  last_only.max_lines = 1;
  const auto last_matcher = build_matcher(last_only);
  const auto last = last_matcher.scan(log);
  ASSERT_EQ(last.size(), 1U);
  EXPECT_EQ(last[0].family->id, "collective");
  EXPECT_EQ(last[0].line, 6U);
}

TEST(Words, UsuallyHarmlessSamplesTeachNoFamily) {
  auto signatures = taught();
  signatures[0].harmless = Harmless{"a warning", {}};
  const auto words = settings();
  auto built = Matcher::build(signatures, families_taught(), &words);
  ASSERT_TRUE(built) << built.error();
  EXPECT_TRUE(built->scan("amdgpu: SMU firmware message SetWorkloadMask timed out").empty());
}

TEST(Words, WithoutSettingsThereIsNoWordsLayer) {
  auto built = Matcher::build(taught(), families_taught());
  ASSERT_TRUE(built) << built.error();
  EXPECT_TRUE(built->scan("amdgpu: SMU firmware message SetWorkloadMask timed out").empty());
}

TEST(Words, ABrokenSettingIsAnErrorNamingTheFileAndKey) {
  auto words = settings();
  words.cue = "(unclosed";
  const auto built = Matcher::build(taught(), families_taught(), &words);
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().rfind("error_words.json: cue: ", 0), 0U) << built.error();
  const auto parsed = parse_word_settings(R"({"cue": "x", "quiet": "y", "stop_words": [], "smoothing": 0,
      "min_score": 1, "min_margin": 1, "max_lines": 2, "evidence_words": 3, "min_words": 2})");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error(), "error_words.json: smoothing: must be more than 0");
  const auto missing = parse_word_settings(R"({"quiet": "y"})");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().rfind("error_words.json: cue", 0), 0U) << missing.error();
}

TEST(Words, TheBuiltInTableLoadsAndVotesByTermsButNotByWordsAlone) {
  ASSERT_NE(word_settings(), nullptr);
  EXPECT_GE(word_settings()->max_lines, 1U);
  // Blind rounds 16-20 found a vote by words alone right 4 times in 16, so the table turns it off.
  EXPECT_FALSE(word_settings()->vote_by_words);
  // A wording no signature or family pattern was written for, whose words alone once voted hipBLASLt.
  EXPECT_TRUE(default_matcher().scan("heuristic fetch refused").empty());
  // A failing line that names a family's term still gets that family.
  const auto matches = default_matcher().scan("rocblas_gemm_ex came back with something odd: failed");
  ASSERT_FALSE(matches.empty());
  EXPECT_TRUE(matches[0].by_term());
  EXPECT_EQ(matches[0].family->id, "rocblas-tensile");
}

TEST(Words, WithTheWordsVoteOffALineOnlyItsWordsNameGetsNoFamily) {
  auto words = settings();
  words.vote_by_words = false;
  const auto built = build_matcher(words);
  EXPECT_TRUE(built.scan("kernel: amdgpu: SMU firmware message SetWorkloadMask timed out").empty());
}

TEST(Words, TheWordsVoteSettingMustBeTrueOrFalse) {
  const auto parsed = parse_word_settings(R"({"cue": "x", "quiet": "y", "stop_words": [], "smoothing": 1,
      "anchor_share": 0.5, "anchor_texts": 2, "min_score": 1, "min_margin": 1, "max_lines": 2,
      "evidence_words": 3, "min_words": 2, "vote_by_words": "no"})");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error(), "error_words.json: vote_by_words: must be true or false");
}

// Terms: a failing line no pattern explains that names a family's own term is
// that family's, before the words are counted.
Matcher build_with_terms() {
  auto families = families_taught();
  families[0].terms = "\\bsmu\\w*|\\bpmfw\\b";
  families[0].form_terms = R"(\.cpp:\d+:\d+: error:)";  // see FormTerms below
  families[1].terms = "\\b[rn]ccl\\w*";
  families[2].terms = "\\bamdgpu\\b";
  auto built = Matcher::build(taught(), std::move(families), &matcher_settings());
  EXPECT_TRUE(built) << built.error();
  return std::move(*built);
}

// Matches point into their matcher, which must outlive them.
const Matcher& term_matcher() {
  static const Matcher built = build_with_terms();
  return built;
}

TEST(Terms, AFailingLineNamingAFamilysTermIsThatFamilysWithTheTermSaid) {
  const auto matches = term_matcher().scan("PMFW refused the request");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches[0].signature, nullptr);
  EXPECT_EQ(matches[0].family->id, "firmware");
  EXPECT_TRUE(matches[0].by_term());
  EXPECT_FALSE(matches[0].by_words());
  EXPECT_EQ(matches[0].term, "PMFW");
  EXPECT_EQ(symptom_section(matches, Report{}, "argument")["matches"][0]["matched_by"], "term");
  EXPECT_EQ(symptom_section(matches, Report{}, "argument")["matches"][0]["term"], "PMFW");
}

TEST(Terms, TheTermThatComesFirstOnTheLineWins) {
  const auto rccl_first = term_matcher().scan("rccl: smu refused the request");
  ASSERT_EQ(rccl_first.size(), 1U);
  EXPECT_EQ(rccl_first[0].family->id, "collective");
  const auto smu_first = term_matcher().scan("smu: rccl refused the request");
  ASSERT_EQ(smu_first.size(), 1U);
  EXPECT_EQ(smu_first[0].family->id, "firmware");
}

TEST(Terms, ASpecificFamilysTermWinsOverACatchAllsEvenWhenLater) {
  const auto matches = term_matcher().scan("amdgpu: 0000:03:00.0: smu refused the request");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches[0].family->id, "firmware");
}

TEST(Terms, ALineThatSaysNothingFailedOrSpeaksAtInfoLevelNamesNoFamily) {
  EXPECT_TRUE(term_matcher().scan("smu firmware version 0x00554b00 loaded").empty());
  EXPECT_TRUE(term_matcher().scan("rccl INFO bootstrap refused once, retrying").empty());
}

TEST(Terms, TermsThatRE2RefusesAreAnErrorNamingTheFamily) {
  auto families = families_taught();
  families[1].terms = "rccl(";
  const auto built = Matcher::build(taught(), std::move(families), &matcher_settings());
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().rfind("error family collective: terms: ", 0), 0U) << built.error();
}

// Form terms: a message's form that one family's component prints (a
// compiler's `file:line:col: error:`) names that family only when no family's
// own term names the line (term_matcher's firmware family has one).
TEST(FormTerms, ALineOnlyAFormNamesIsTheFormsFamilys) {
  const auto matches = term_matcher().scan("src/queue.cpp:60:7: error: no member named 'size'");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches[0].family->id, "firmware");
  EXPECT_TRUE(matches[0].by_term());
  EXPECT_EQ(matches[0].term, ".cpp:60:7: error:");
}

TEST(FormTerms, AFamilysTermOnTheLineWinsOverTheFormEvenWhenLater) {
  const auto matches = term_matcher().scan("src/queue.cpp:60:7: fatal error: 'rccl.h' file not found");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches[0].family->id, "collective");
}

TEST(FormTerms, TheFormWinsOverACatchAllsTerm) {
  const auto matches = term_matcher().scan("amdgpu/queue.cpp:60:7: error: no member named 'size'");
  ASSERT_EQ(matches.size(), 1U);
  EXPECT_EQ(matches[0].family->id, "firmware");
}

TEST(FormTerms, FormTermsThatRE2RefusesAreAnErrorNamingTheFamilyAndField) {
  auto families = families_taught();
  families[0].form_terms = "cpp(";
  const auto built = Matcher::build(taught(), std::move(families), &matcher_settings());
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().rfind("error family firmware: form_terms: ", 0), 0U) << built.error();
}

// A family's except names lines that are not its: neither its pattern nor a vote
// gives it such a line, by term or by words.
TEST(Terms, AVoteForAFamilyWhoseExceptNamesTheLineIsNoVote) {
  auto families = families_taught();
  families[0].terms = "\\bsmu\\w*";
  families[0].except = "\\bprobe\\b";
  families[1].except = "\\bprobe\\b";
  const auto built = Matcher::build(taught(), std::move(families), &matcher_settings());
  ASSERT_TRUE(built) << built.error();
  EXPECT_TRUE(built->scan("smu probe refused the request").empty());
  EXPECT_TRUE(built->scan("rccl transport p2p bootstrap probe refused").empty());
  ASSERT_EQ(built->scan("smu refused the request").size(), 1U);
  ASSERT_EQ(built->scan("rccl transport p2p bootstrap refused").size(), 1U);
}

TEST(Terms, AnExceptThatRE2RefusesIsAnErrorNamingTheFamily) {
  auto families = families_taught();
  families[1].except = "probe(";
  const auto built = Matcher::build(taught(), std::move(families), &matcher_settings());
  ASSERT_FALSE(built);
  EXPECT_EQ(built.error().rfind("error family collective: except: ", 0), 0U) << built.error();
}

}  // namespace
}  // namespace rocm_doctor::symptom
