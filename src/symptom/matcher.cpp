// The symptom matcher: every signature's pattern in one RE2::Set, so a log is
// scanned once in linear time; only the signatures the set reports are then
// searched alone, for where their first match starts.
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <set>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {

namespace {

// Case-insensitive like the data file says; Latin-1 so that any byte (invalid
// UTF-8, binary noise) is just a character and never a decoding failure.
RE2::Options pattern_options() {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  // The set's DFA over 136 patterns needs more than RE2's 8 MiB default to
  // stay on the fast path over a long log.
  options.set_max_mem(256 << 20);
  return options;
}

std::size_t line_of(std::string_view text, std::size_t offset) {
  return 1 +
         static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
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
  RE2::Set set{pattern_options(), RE2::UNANCHORED};
};

Matcher::Matcher(std::unique_ptr<Compiled> compiled) : compiled_(std::move(compiled)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

tl::expected<Matcher, std::string> Matcher::build(std::vector<Signature> signatures) {
  auto compiled = std::make_unique<Compiled>();
  for (const auto& signature : signatures) {
    auto regex = std::make_unique<RE2>(signature.pattern, pattern_options());
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

std::vector<Match> Matcher::scan(std::string_view text) const {
  std::vector<int> hits;
  RE2::Set::ErrorInfo info{};
  if (!compiled_->set.Match(text, &hits, &info) && info.kind != RE2::Set::kNoError) {
    // The set's DFA ran out of memory: search each pattern alone (still linear each).
    hits.clear();
    for (std::size_t i = 0; i < compiled_->each.size(); ++i) hits.push_back(static_cast<int>(i));
  }
  std::sort(hits.begin(), hits.end());
  std::vector<Match> matches;
  for (const int index : hits) {
    const auto position = static_cast<std::size_t>(index);
    re2::StringPiece found;
    if (!compiled_->each[position]->Match(text, 0, text.size(), RE2::UNANCHORED, &found, 1)) continue;
    const auto offset = static_cast<std::size_t>(found.data() - text.data());
    matches.push_back({&compiled_->signatures[position], line_of(text, offset), offset});
  }
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
