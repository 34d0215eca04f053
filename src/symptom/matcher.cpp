// The symptom matcher: the prefilter finds which patterns a log matches in
// linear time; only those are then searched alone, for where their first match
// starts.
#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_set>
#include <utility>

#include "rocm_doctor/symptom.h"
#include "symptom/prefilter.h"
#include "symptom/words.h"

namespace rocm_doctor::symptom {

namespace {

// The prefilter's sets need more than RE2's 8 MiB default to stay on the DFA's
// fast path over a long log; one pattern alone fits in the default.
constexpr int64_t kSetMemory = 64 << 20;

// Sets every match's line in one pass over the text (in offset order), not one
// per match: the normalised line, then the input line it came from.
void number_lines(const Normalised& normalised, std::vector<Match>& matches) {
  const std::string_view text = normalised.text;
  std::sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) { return a.offset < b.offset; });
  std::size_t line = 1;
  std::size_t counted = 0;
  for (auto& match : matches) {
    line += static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted),
                                                text.begin() + static_cast<std::ptrdiff_t>(match.offset), '\n'));
    counted = match.offset;
    match.line = line <= normalised.origin.size() ? normalised.origin[line - 1] : line;
  }
}

// Drops what a more specific match wins over: a refined signature; a general
// catch-all when a specific signature matched; a family one of whose
// signatures matched, or whose line a specific signature explains (a
// catch-all does not: its family says more than "some HIP error"); a general
// family whose line another match explains. Specific signatures come first,
// then catch-alls, then families alone, then general families, each in text order.
std::vector<Match> prune(std::vector<Match> matches) {
  std::set<std::string> refined;
  std::set<const Family*> explained;
  std::set<std::size_t> lines;     // where a specific signature matched
  std::set<std::size_t> answered;  // where anything but a general family matched
  bool specific = false;
  for (const auto& match : matches) {
    if (match.signature == nullptr) {
      if (match.family != nullptr && !match.family->general) answered.insert(match.line);
      continue;
    }
    answered.insert(match.line);
    refined.insert(match.signature->refines.begin(), match.signature->refines.end());
    explained.insert(match.family);
    if (!match.signature->general) lines.insert(match.line);
    if (!match.signature->general && !match.signature->harmless) specific = true;
  }
  std::erase_if(matches, [&](const Match& match) {
    if (match.signature == nullptr) {
      if (match.family != nullptr && match.family->general && answered.contains(match.line)) return true;
      return explained.contains(match.family) || lines.contains(match.line);
    }
    return refined.contains(match.signature->id) || (specific && match.signature->general);
  });
  const auto rank = [](const Match& match) {
    if (match.signature != nullptr) return match.signature->general ? 1 : 0;
    if (match.family != nullptr && match.family->general) return 4;
    return match.by_words() || match.by_term() ? 3 : 2;
  };
  std::stable_sort(matches.begin(), matches.end(), [&](const Match& a, const Match& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.offset < b.offset;
  });
  return matches;
}

}  // namespace

const std::string& Match::id() const {
  static const std::string none;
  if (signature != nullptr) return signature->id;
  return family != nullptr ? family->id : none;
}

struct Matcher::Compiled {
  std::vector<Signature> signatures;
  std::vector<Family> families;
  std::vector<const Family*> family_of;      // per signature: its family, or nullptr
  std::vector<std::unique_ptr<RE2>> except;  // per family: its "except" pattern, or nullptr
  std::optional<Prefilter> prefilter;        // every pattern, each also compiled alone
  std::optional<WordModel> words;            // built only with word settings

  const RE2& alone(std::size_t index) const { return prefilter->pattern(index); }
};

Matcher::Matcher(std::unique_ptr<Compiled> compiled) : compiled_(std::move(compiled)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

tl::expected<Matcher, std::string> Matcher::build(std::vector<Signature> signatures, std::vector<Family> families,
                                                  const WordSettings* words) {
  auto compiled = std::make_unique<Compiled>();
  compiled->signatures = std::move(signatures);
  compiled->families = std::move(families);
  // Every pattern, its macros expanded: one per signature, then one per family.
  std::vector<std::string> patterns;
  std::vector<std::string> names;  // each pattern's, for an error
  for (const auto& signature : compiled->signatures) {
    patterns.push_back(expand_pattern(signature.pattern));
    names.push_back("error signature " + signature.id);
    const auto family = std::find_if(compiled->families.begin(), compiled->families.end(),
                                     [&](const Family& f) { return f.id == signature.family; });
    compiled->family_of.push_back(family == compiled->families.end() ? nullptr : &*family);
  }
  for (const auto& family : compiled->families) {
    patterns.push_back(expand_pattern(family.pattern));
    names.push_back("error family " + family.id);
    std::unique_ptr<RE2> except;
    if (!family.except.empty()) {
      except = std::make_unique<RE2>(expand_pattern(family.except), pattern_options());
      if (!except->ok()) return tl::unexpected("error family " + family.id + ": except: " + except->error());
    }
    compiled->except.push_back(std::move(except));
  }
  auto prefilter = Prefilter::build(patterns, names, pattern_options(), kSetMemory);
  if (!prefilter) return tl::unexpected(prefilter.error());
  compiled->prefilter.emplace(std::move(*prefilter));
  if (words != nullptr) {
    std::vector<const RE2*> excepts;
    for (const auto& except : compiled->except) excepts.push_back(except.get());
    auto model = WordModel::build(compiled->signatures, compiled->families, *words, std::move(excepts));
    if (!model) return tl::unexpected(model.error());
    compiled->words = std::move(*model);
  }
  return Matcher(std::move(compiled));
}

const std::vector<Signature>& Matcher::signatures() const {
  return compiled_->signatures;
}

const std::vector<Family>& Matcher::families() const {
  return compiled_->families;
}

namespace {

// The line `found` starts on.
std::string_view line_of(std::string_view text, const re2::StringPiece& found) {
  const auto offset = static_cast<std::size_t>(found.data() - text.data());
  const auto begin = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;  // npos + 1 == 0
  const auto end = text.find('\n', offset);
  return text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
}

// Moves `found` past every match whose line the family's `except` also
// matches; false when none is left. Each search starts after the last line,
// so the whole walk stays one pass over the text.
bool skip_excepted(const RE2& pattern, const RE2& except, std::string_view text, re2::StringPiece& found) {
  while (RE2::PartialMatch(line_of(text, found), except)) {
    const auto offset = static_cast<std::size_t>(found.data() - text.data());
    const auto next = text.find('\n', offset);
    if (next == std::string_view::npos) return false;
    if (!pattern.Match(text, next + 1, text.size(), RE2::UNANCHORED, &found, 1)) return false;
  }
  return true;
}

std::size_t line_start(std::string_view text, std::size_t offset) {
  return offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;  // npos + 1 == 0
}

// The words' votes for the failing lines no pattern explains (a family's term
// the line names, else its words): a line only a catch-all family matched is
// voted on too, and its vote for a specific family replaces the catch-all. A
// family already matched, or voted on an earlier line, is not added again.
void add_word_votes(const WordModel& words, const std::vector<Family>& families, const Normalised& normalised,
                    std::vector<Match>& matches) {
  const std::string_view text = normalised.text;
  // Line starts never voted on: informational ones, and those a signature or a specific family explains.
  std::unordered_set<std::size_t> answered;
  if (std::find(normalised.informational.begin(), normalised.informational.end(), true) !=
      normalised.informational.end()) {
    std::size_t begin = 0;
    for (const bool informational : normalised.informational) {
      if (begin >= text.size()) break;
      if (informational) answered.insert(begin);
      begin = text.find('\n', begin) + 1;  // every normalised line ends with one
    }
  }
  std::set<const Family*> matched;
  for (const auto& match : matches) {
    matched.insert(match.family);
    if (match.signature != nullptr || (match.family != nullptr && !match.family->general)) {
      answered.insert(line_start(text, match.offset));
    }
  }
  std::set<std::size_t> replaced;  // lines whose catch-all a vote replaced
  for (const auto begin : words.candidate_lines(text, answered)) {
    const auto end = text.find('\n', begin);
    const auto vote =
        words.vote(text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    if (!vote) continue;
    const Family* family = &families[vote->family];
    if (matched.contains(family)) continue;
    const bool catch_all_here = std::any_of(matches.begin(), matches.end(), [&](const Match& match) {
      return match.signature == nullptr && match.family != nullptr && match.family->general &&
             line_start(text, match.offset) == begin;
    });
    if (catch_all_here && family->general) continue;
    if (catch_all_here) replaced.insert(begin);
    matched.insert(family);
    matches.push_back({nullptr, family, 0, begin, vote->words, vote->term});
  }
  std::erase_if(matches, [&](const Match& match) {
    return match.signature == nullptr && match.family != nullptr && match.family->general &&
           replaced.contains(line_start(text, match.offset));
  });
}

}  // namespace

std::vector<Match> Matcher::scan(std::string_view text) const {
  return scan_normalised(normalise(text));
}

std::vector<Match> Matcher::scan_normalised(const Normalised& normalised) const {
  const std::string_view text = normalised.text;
  auto located = compiled_->prefilter->locate(text);
  if (!located) {
    // A set's DFA ran out of memory: search each pattern alone (still linear each).
    located.emplace();
    for (std::size_t i = 0; i < compiled_->prefilter->size(); ++i) located->emplace(static_cast<int>(i), 0);
  }
  const auto signature_count = compiled_->signatures.size();
  std::vector<Match> matches;
  for (const auto& [index, start] : *located) {
    const auto position = static_cast<std::size_t>(index);
    re2::StringPiece found;
    const RE2& pattern = compiled_->alone(position);
    // A match longer than a block starts before `start`: searched again from the top.
    if (!pattern.Match(text, start, text.size(), RE2::UNANCHORED, &found, 1) &&
        (start == 0 || !pattern.Match(text, 0, text.size(), RE2::UNANCHORED, &found, 1))) {
      continue;
    }
    if (position >= signature_count) {
      const auto& except = compiled_->except[position - signature_count];
      if (except && !skip_excepted(pattern, *except, text, found)) continue;
    }
    const auto offset = static_cast<std::size_t>(found.data() - text.data());
    if (position < signature_count) {
      matches.push_back({&compiled_->signatures[position], compiled_->family_of[position], 0, offset, {}, {}});
    } else {
      matches.push_back({nullptr, &compiled_->families[position - signature_count], 0, offset, {}, {}});
    }
  }
  if (compiled_->words) add_word_votes(*compiled_->words, compiled_->families, normalised, matches);
  number_lines(normalised, matches);
  return prune(std::move(matches));
}

// One matcher per catalogue: the built-in tables, or the overlaid ones once the knowledge
// overlays are installed. A loaded table is never replaced, so the addresses of its
// signatures and families name it, and a matcher is compiled once per pair.
const Matcher& default_matcher() {
  static std::mutex mutex;
  static std::map<std::pair<const void*, const void*>, Matcher> by_catalogue;
  const auto& signatures = symptom::signatures();
  const auto& families = symptom::families();
  const std::pair<const void*, const void*> key{&signatures, &families};
  const std::lock_guard lock(mutex);
  if (const auto it = by_catalogue.find(key); it != by_catalogue.end()) return it->second;
  auto built = Matcher::build(signatures, families, word_settings());
  return by_catalogue.emplace(key, built ? std::move(*built) : std::move(*Matcher::build({}))).first->second;
}

}  // namespace rocm_doctor::symptom
