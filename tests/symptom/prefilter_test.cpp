// The prefilter (src/symptom/prefilter.cpp) must find exactly the patterns that
// each pattern alone finds, with a start at or before the first match, however
// the text repeats itself: it searches only new lines, and cuts them into short
// stretches.
#include "symptom/prefilter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {
namespace {

Prefilter built(const std::vector<std::string>& patterns) {
  const std::vector<std::string> names(patterns.size(), "test pattern");
  auto prefilter = Prefilter::build(patterns, names, pattern_options(), 64 << 20);
  EXPECT_TRUE(prefilter) << prefilter.error();
  return std::move(*prefilter);
}

// Line numbers (1-based) where the first match of each located pattern starts.
std::size_t line_at(std::string_view text, std::size_t offset) {
  return 1 +
         static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

std::size_t first_match_line(const Prefilter& prefilter, std::string_view text, int index) {
  const auto located = prefilter.locate(text);
  EXPECT_TRUE(located.has_value());
  if (!located || !located->contains(index)) return 0;
  re2::StringPiece found;
  const auto& pattern = prefilter.pattern(static_cast<std::size_t>(index));
  if (!pattern.Match(text, located->at(index), text.size(), RE2::UNANCHORED, &found, 1)) return 0;
  return line_at(text, static_cast<std::size_t>(found.data() - text.data()));
}

// A line of its own every time: the stretch of new lines stays open and is cut.
std::string numbered(std::size_t n) {
  return "epoch 3 step " + std::to_string(n) + "/90000 loss 2.3145 tokens/s 51234\n";
}

// Real rocminfo output on WSL (real-cases: rocminfo on a WSL install without
// WSL support): each line also appears earlier in the log, apart, and the
// three only match together.
TEST(Prefilter, AMessageMadeOfLinesSeenBeforeApartIsFoundWhereTheyFirstMeet) {
  const std::string wsl = "WSL environment detected.\n";
  const std::string failure = "hsa api call failure at: /src/rocminfo/rocminfo.cc:1306\n";
  const std::string resources = "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed\n";
  const auto prefilter =
      built({"wsl environment detected\\.?\\s+hsa api call failure at:[^\\n]*\\s+call returned "
             "hsa_status_error_out_of_resources"});
  const std::string log = wsl + numbered(1) + failure + numbered(2) + resources + numbered(3) + wsl + failure +
                          resources + numbered(4) + wsl + failure + resources;
  EXPECT_EQ(first_match_line(prefilter, log, 0), 7U);
}

// `message` (its lines ending in '\n') after each count of numbered lines in
// [from, to) and before sixty more: the prefilter must locate `pattern` at its first line.
void expect_found_at_every_position(const std::string& pattern, const std::string& message, std::size_t from,
                                    std::size_t to) {
  const auto prefilter = built({pattern});
  for (std::size_t at = from; at < to; ++at) {
    std::string log;
    for (std::size_t n = 0; n < at; ++n) log += numbered(n);
    log += message;
    for (std::size_t n = at; n < at + 60; ++n) log += numbered(n);
    EXPECT_EQ(first_match_line(prefilter, log, 0), at + 1) << "message after line " << at;
  }
}

// Every position of a two-line message around the first stretch's cut (about
// 80 of these lines).
TEST(Prefilter, AMessageAcrossAStretchCutIsFoundAtItsFirstLine) {
  expect_found_at_every_position("queue reset begins[^\\n]*\\n[^\\n]*queue reset ends badly",
                                 "amdgpu: queue reset begins on ring comp_1.0.0\namdgpu: queue reset ends badly\n", 40,
                                 90);
}

// Three lines, the most a stretch cut keeps whole (two lines of context).
TEST(Prefilter, AThreeLineMessageAcrossAStretchCutIsFoundAtItsFirstLine) {
  expect_found_at_every_position(
      "hsa api call failure at:[^\\n]*\\n[^\\n]*call returned[^\\n]*\\n[^\\n]*runtime failed",
      "hsa api call failure at: /src/rocminfo/rocminfo.cc:1306\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES:\n"
      "The runtime failed to allocate the necessary resources.\n",
      60, 100);
}

TEST(Prefilter, AMessageAfterALongRepetitionIsFound) {
  const auto prefilter = built({"hipErrorNoBinaryForGpu"});
  std::string log;
  for (int i = 0; i < 20'000; ++i) log += "node1:101707:101889 [0] NCCL INFO Channel 00/32 :    0\n";
  log += "RuntimeError: HIP error: hipErrorNoBinaryForGpu\n";
  EXPECT_EQ(first_match_line(prefilter, log, 0), 20'001U);
}

// An AMD_LOG_LEVEL=3 trace (the loop of legacy-rocm-build#2804): every
// stretch holds "hip" and "error", so the same patterns are candidates stretch
// after stretch and are searched together in a set of their own. Each must
// still be found at its own first line, and only there.
TEST(Prefilter, CandidatesThatRecurAreFoundTogetherAtTheirFirstLine) {
  // The trace's lines hold every pattern's atoms and match none of them.
  const auto prefilter = built({"\\bhip\\w*.{0,40}\\berror\\b", "\\bhipgetlasterror: returned hip(?:[^s]|s[^u])",
                                "\\bhip\\w*\\s*:.{0,60}\\berror:"});
  std::string log;
  for (std::size_t clock = 0; clock < 3000; ++clock) {
    log += ":3:hip_error.cpp            :36  : " + std::to_string(893897958 + 3 * clock) +
           " us: [pid:110   tid:0x7f5fe9669740]  hipGetLastError: Returned hipSuccess : \n";
    if (clock == 1500) log += ":1:hip_memory.cpp : hipMalloc failed with error 1\n";
    if (clock == 2500) log += ":1:hip_error.cpp : hipGetLastError: Returned hipErrorOutOfMemory\n";
  }
  EXPECT_EQ(first_match_line(prefilter, log, 0), 1502U);
  EXPECT_EQ(first_match_line(prefilter, log, 1), 2503U);
  EXPECT_EQ(first_match_line(prefilter, log, 2), 0U);
  EXPECT_GE(prefilter.candidate_sets(), 1U) << "the recurring candidates were searched one by one";
}

TEST(Prefilter, APatternWithNoAtomToRequireIsStillSearched) {
  // No literal of three characters: nothing for the prefilter to require.
  const auto prefilter = built({"\\bx[0-9]+y\\b", "page fault"});
  EXPECT_EQ(prefilter.unfiltered(), 1U);
  const std::string log = numbered(1) + "dropped x12y frames\n" + numbered(2);
  EXPECT_EQ(first_match_line(prefilter, log, 0), 2U);
  EXPECT_EQ(first_match_line(prefilter, log, 1), 0U);
}

TEST(Prefilter, NoPatternsLocateNothingAndSayNothing) {
  testing::internal::CaptureStderr();
  const auto prefilter = built({});
  const auto located = prefilter.locate("Memory access fault by GPU node-1\n");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "RE2 logs to stderr when a FilteredRE2 is compiled empty";
  ASSERT_TRUE(located.has_value());
  EXPECT_TRUE(located->empty());
}

TEST(Prefilter, ABadPatternIsAnErrorNamingIt) {
  const auto prefilter = Prefilter::build({"(unclosed"}, {"error signature broken"}, pattern_options(), 64 << 20);
  ASSERT_FALSE(prefilter);
  EXPECT_NE(prefilter.error().find("error signature broken: pattern:"), std::string::npos) << prefilter.error();
}

std::vector<std::string> benign_lines() {
  std::ifstream stream(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/tests/symptom/benign_lines.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(stream, line);) {
    if (!line.empty() && line.front() != '#') lines.push_back(line);
  }
  return lines;
}

// The catalogue's real samples and benign lines, shuffled with repeats, so
// lines recur apart and together: whatever the prefilter skips, each pattern
// alone must agree with it, and its start must not pass the first match.
TEST(Prefilter, OverTheCatalogueItFindsWhatEachPatternAloneFinds) {
  std::vector<std::string> patterns;
  for (const auto& signature : signatures()) patterns.push_back(expand_pattern(signature.pattern));
  for (const auto& family : families()) patterns.push_back(expand_pattern(family.pattern));
  const auto prefilter = built(patterns);
  std::vector<std::string> pieces = benign_lines();
  ASSERT_GT(pieces.size(), 300U);
  for (const auto& signature : signatures())
    pieces.insert(pieces.end(), signature.samples.begin(), signature.samples.end());
  std::mt19937 random(31);  // fixed: the same logs every run
  for (int log_number = 0; log_number < 3; ++log_number) {
    std::string log;
    for (int i = 0; i < 4000; ++i) log += pieces[random() % pieces.size()] + "\n";
    const auto located = prefilter.locate(log);
    ASSERT_TRUE(located.has_value());
    for (std::size_t index = 0; index < patterns.size(); ++index) {
      re2::StringPiece found;
      const bool matches = prefilter.pattern(index).Match(log, 0, log.size(), RE2::UNANCHORED, &found, 1);
      const auto hit = located->find(static_cast<int>(index));
      ASSERT_EQ(matches, hit != located->end()) << "log " << log_number << ", pattern " << patterns[index];
      if (matches) {
        EXPECT_LE(hit->second, static_cast<std::size_t>(found.data() - log.data())) << patterns[index];
      }
    }
  }
}

}  // namespace
}  // namespace rocm_doctor::symptom
