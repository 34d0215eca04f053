// The words layer of the symptom matcher (issue 31): a failing line that no
// signature or family pattern explains is given the family whose own term it
// names (a family's `terms`), else the family whose real samples share its
// rarest words. Internal to src/symptom.
#pragma once

#include <re2/re2.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {

class WordModel {
 public:
  // Learns each word's weight per family from the samples and messages of
  // `signatures` (not the usually-harmless ones) whose family is in `families`,
  // and compiles each family's terms. `excepts` (per family, nullptr for none) are
  // the matcher's compiled excepts, which must outlive the model. An error names
  // the pattern RE2 refused.
  static tl::expected<WordModel, std::string> build(const std::vector<Signature>& signatures,
                                                    const std::vector<Family>& families, const WordSettings& settings,
                                                    std::vector<const RE2*> excepts);

  struct Vote {
    std::size_t family = 0;  // index into the families it was built with
    double score = 0;
    std::vector<std::string> words;  // the strongest, first (a vote by words)
    std::string term;                // the family's term the line names (a vote by term)
  };
  // The family `line` votes for, if the vote is clear; nullopt for a line that
  // says nothing failed, speaks at an informational level, or is unclear. A
  // family's term on the line decides before the words are counted. A vote for a
  // family whose `except` names the line is no vote.
  [[nodiscard]] std::optional<Vote> vote(std::string_view line) const;

  // The byte offsets (in `text`) of the starts of the lines that say something
  // failed, the last `max_lines` that are not quiet and not in `skip`, in text order.
  [[nodiscard]] std::vector<std::size_t> candidate_lines(std::string_view text,
                                                         const std::unordered_set<std::size_t>& skip) const;

 private:
  [[nodiscard]] std::optional<Vote> term_vote(std::string_view line) const;
  [[nodiscard]] std::optional<Vote> word_vote(std::string_view line) const;

  struct Weight {
    std::size_t family;
    double weight;
    bool anchor;  // mostly this family's word, in enough of its texts
  };
  WordSettings settings_;
  std::unique_ptr<RE2> cue_;
  std::unique_ptr<RE2> quiet_;
  std::unordered_set<std::string> stop_;
  std::unordered_map<std::string, std::vector<Weight>> weights_;
  std::size_t family_count_ = 0;
  std::vector<std::unique_ptr<RE2>> terms_;       // per family: its terms, or nullptr
  std::vector<std::unique_ptr<RE2>> form_terms_;  // per family: its form terms, or nullptr
  std::vector<const RE2*> except_;                // per family: the lines that are not its, or nullptr
  std::vector<bool> general_;                     // per family: a catch-all (its terms yield)
};

// The words of a line as the layer counts them: lower case, split at anything
// but letters and digits; numbers, hex runs and stop words dropped; trailing
// digits cut ("gfx1100" -> "gfx", "sdma0" -> "sdma"); each once.
std::vector<std::string> line_words(std::string_view line, const std::unordered_set<std::string>& stop);

}  // namespace rocm_doctor::symptom
