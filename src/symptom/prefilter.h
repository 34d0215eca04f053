// Finds which of the catalogue's patterns a text matches, and about where each
// first does, without one DFA over every pattern at once.
//
// Why not one RE2::Set: its DFA is built lazily, and on text it has not seen
// (a user's log is always new to a fresh process) nearly every byte of an error
// line makes a new state over a program of ~500 patterns. A first scan of the
// catalogue's own samples (140 KB) took 2.9 s that way. Here:
//  - each pattern's required literals ("atoms", RE2's FilteredRE2) go into one
//    set of plain strings, whose DFA stays small and is warm after a few KB;
//  - only lines the text has not shown before (with a few lines around them, for
//    messages printed over several lines) are searched for atoms: a long log
//    repeats itself, and a line seen once cannot start a first match again;
//  - a pattern whose atoms a stretch holds is then searched alone over it;
//  - the few patterns with no atom to require stay in a small RE2::Set run over
//    the whole text;
//  - when the same patterns are candidates for stretch after stretch (an
//    AMD_LOG_LEVEL=3 trace says "hip" and "error" every few lines), they go
//    into one small set of their own, searched in one pass instead of one each.
#pragma once

#include <re2/filtered_re2.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tl/expected.hpp"

namespace rocm_doctor::symptom {

// The options every catalogue pattern is compiled with: case-insensitive like
// the data files say; Latin-1 so that any byte (invalid UTF-8, binary noise) is
// just a character and never a decoding failure; errors returned, not logged.
// One pattern alone fits in RE2's default memory.
RE2::Options pattern_options(int64_t max_mem = 8 << 20);

class Prefilter {
 public:
  // `patterns` already expanded; an error names the pattern as `names` does.
  static tl::expected<Prefilter, std::string> build(const std::vector<std::string>& patterns,
                                                    const std::vector<std::string>& names, const RE2::Options& options,
                                                    int64_t set_memory);

  // Each pattern the text matches, with an offset at or before its first match
  // (a line start) to search it from; nullopt when a set's DFA ran out of memory.
  [[nodiscard]] std::optional<std::map<int, std::size_t>> locate(std::string_view text) const;

  // Pattern `index` alone, compiled once with the options given to build.
  [[nodiscard]] const RE2& pattern(std::size_t index) const;

  // How many patterns it was built with.
  [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(filter_.NumRegexps()); }

  // How many patterns have no atom and are always searched (for the figures).
  [[nodiscard]] std::size_t unfiltered() const { return always_.size(); }

  // How many sets of recurring candidates the searches so far have made.
  [[nodiscard]] std::size_t candidate_sets() const;

 private:
  // `options` are each pattern's; the atoms' and always-searched sets get `set_memory`.
  Prefilter(const RE2::Options& options, int64_t set_memory);

  // The patterns with no atom that the text matches, into `starts`; false when the set's DFA ran out of memory.
  bool search_always(std::string_view text, std::map<int, std::size_t>& starts) const;

  // Adds to `starts` the patterns not yet in it whose atoms text[begin, end) holds and that match it.
  bool search_stretch(std::string_view text, std::size_t begin, std::size_t end,
                      std::map<int, std::size_t>& starts) const;

  // The candidates among `indices` (ascending) that match `stretch`: searched in
  // one set of their own once the same candidates recur, else each alone.
  [[nodiscard]] std::vector<int> match_candidates(std::string_view stretch, const std::vector<int>& indices) const;

  // The set for candidates `indices`, made on their second appearance; null
  // before that, past the bound, or when it could not be compiled or ran out
  // of memory once (`give_up`).
  [[nodiscard]] std::shared_ptr<const RE2::Set> set_for(const std::vector<int>& indices) const;
  void give_up(const std::vector<int>& indices) const;

  // The sets of candidates that recur, each with its patterns' memory.
  struct CandidateSet {
    bool tried = false;
    std::shared_ptr<const RE2::Set> set;
  };
  struct CandidateSets {
    std::mutex lock;
    std::map<std::vector<int>, CandidateSet> sets;
    std::size_t built = 0;
  };

  re2::FilteredRE2 filter_;
  RE2::Options options_;  // each pattern's
  std::unique_ptr<CandidateSets> candidate_sets_ = std::make_unique<CandidateSets>();
  RE2::Set atoms_;           // every atom, quoted
  bool any_atom_ = false;    // whether atoms_ holds any (and was compiled)
  RE2::Set always_set_;      // the patterns with no atom
  std::vector<int> always_;  // set index -> pattern index, ascending
};

}  // namespace rocm_doctor::symptom
