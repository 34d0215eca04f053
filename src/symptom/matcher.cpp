// The symptom matcher: every signature's pattern in one RE2::Set, so a log is
// scanned once in linear time; only the signatures the set reports are then
// searched alone, for where their first match starts.
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <map>
#include <set>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {

namespace {

// Case-insensitive like the data file says; Latin-1 so that any byte (invalid
// UTF-8, binary noise) is just a character and never a decoding failure.
RE2::Options pattern_options(int64_t max_mem) {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  options.set_max_mem(max_mem);
  return options;
}

// The set's DFA over every pattern needs more than RE2's 8 MiB default to stay
// on the fast path over a long log; one pattern alone fits in the default.
constexpr int64_t kSetMemory = 64 << 20;
constexpr int64_t kPatternMemory = 8 << 20;

// Sets every match's line in one pass over the text (in offset order), not one per match.
void number_lines(std::string_view text, std::vector<Match>& matches) {
  std::sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) { return a.offset < b.offset; });
  std::size_t line = 1;
  std::size_t counted = 0;
  for (auto& match : matches) {
    line += static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted),
                                                text.begin() + static_cast<std::ptrdiff_t>(match.offset), '\n'));
    counted = match.offset;
    match.line = line;
  }
}

// Drops what a more specific match wins over: a refined signature, and a
// general catch-all when anything else matched.
std::vector<Match> prune(std::vector<Match> matches) {
  std::set<std::string> refined;
  bool specific = false;
  for (const auto& match : matches) {
    refined.insert(match.signature->refines.begin(), match.signature->refines.end());
    if (!match.signature->general && !match.signature->harmless) specific = true;
  }
  std::erase_if(matches, [&](const Match& match) {
    return refined.contains(match.signature->id) || (specific && match.signature->general);
  });
  std::stable_sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) {
    if (a.signature->general != b.signature->general) return !a.signature->general;
    return a.offset < b.offset;
  });
  return matches;
}

}  // namespace

struct Matcher::Compiled {
  std::vector<Signature> signatures;
  std::vector<std::unique_ptr<RE2>> each;  // one per signature, same index
  RE2::Set set{pattern_options(kSetMemory), RE2::UNANCHORED};
};

Matcher::Matcher(std::unique_ptr<Compiled> compiled) : compiled_(std::move(compiled)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

tl::expected<Matcher, std::string> Matcher::build(std::vector<Signature> signatures) {
  auto compiled = std::make_unique<Compiled>();
  for (const auto& signature : signatures) {
    auto regex = std::make_unique<RE2>(signature.pattern, pattern_options(kPatternMemory));
    if (!regex->ok()) return tl::unexpected("error signature " + signature.id + ": pattern: " + regex->error());
    std::string error;
    if (compiled->set.Add(signature.pattern, &error) < 0) {
      return tl::unexpected("error signature " + signature.id + ": pattern: " + error);
    }
    compiled->each.push_back(std::move(regex));
  }
  if (!compiled->set.Compile()) return tl::unexpected(std::string("error signatures: RE2 set out of memory"));
  compiled->signatures = std::move(signatures);
  return Matcher(std::move(compiled));
}

const std::vector<Signature>& Matcher::signatures() const {
  return compiled_->signatures;
}

namespace {

// Where to start looking for each hit's first match: the block before the
// first ~1 MiB block (cut at a line end) in which the set sees it. One more
// pass of the set in all, so a log with many different errors near its end
// stays linear; starting one block early finds a match that crosses into it.
std::map<int, std::size_t> search_starts(const RE2::Set& set, std::string_view text, const std::vector<int>& hits) {
  constexpr std::size_t kBlock = 1U << 20;
  std::map<int, std::size_t> starts;
  std::set<int> missing(hits.begin(), hits.end());
  std::size_t previous = 0;
  for (std::size_t begin = 0; begin < text.size() && !missing.empty();) {
    auto end = text.find('\n', std::min(text.size(), begin + kBlock));
    end = end == std::string_view::npos ? text.size() : end + 1;
    std::vector<int> seen;
    if (set.Match(text.substr(begin, end - begin), &seen)) {
      for (const int index : seen) {
        if (missing.erase(index) > 0) starts[index] = previous;
      }
    }
    previous = begin;
    begin = end;
  }
  return starts;  // a hit missing here matched only across blocks: searched from 0
}

}  // namespace

std::vector<Match> Matcher::scan(std::string_view text) const {
  std::vector<int> hits;
  RE2::Set::ErrorInfo info{};
  if (!compiled_->set.Match(text, &hits, &info) && info.kind != RE2::Set::kNoError) {
    // The set's DFA ran out of memory: search each pattern alone (still linear each).
    hits.clear();
    for (std::size_t i = 0; i < compiled_->each.size(); ++i) hits.push_back(static_cast<int>(i));
  }
  std::sort(hits.begin(), hits.end());
  const auto starts = hits.empty() ? std::map<int, std::size_t>{} : search_starts(compiled_->set, text, hits);
  std::vector<Match> matches;
  for (const int index : hits) {
    const auto position = static_cast<std::size_t>(index);
    const auto start = starts.contains(index) ? starts.at(index) : 0;
    re2::StringPiece found;
    if (!compiled_->each[position]->Match(text, start, text.size(), RE2::UNANCHORED, &found, 1)) continue;
    const auto offset = static_cast<std::size_t>(found.data() - text.data());
    matches.push_back({&compiled_->signatures[position], 0, offset});
  }
  number_lines(text, matches);
  return prune(std::move(matches));
}

const Matcher& default_matcher() {
  static const Matcher matcher = [] {
    auto built = Matcher::build(symptom::signatures());
    if (built) return std::move(*built);
    return std::move(*Matcher::build({}));
  }();
  return matcher;
}

}  // namespace rocm_doctor::symptom
