#include "symptom/prefilter.h"

#include <algorithm>
#include <array>
#include <functional>
#include <unordered_set>

namespace rocm_doctor::symptom {

namespace {

// Atoms shorter than this are not worth requiring: "gpu" yes, "io" no.
constexpr int kMinAtomLength = 3;

// Patterns whose atoms a stretch holds are searched alone over it: short
// stretches keep that cheap (1 to 16 KiB measured: 4 KiB was fastest).
constexpr std::size_t kStretchBytes = 4U << 10;

// Lines searched around a new one, so a message printed over several lines is
// searched whole even when only one of its lines is new.
constexpr std::size_t kContextLines = 2;

// The patterns with no atom are matched by one set over the whole text, block by
// block: each block from a few KiB before it, so a message printed over several
// lines that crosses into it still matches.
constexpr std::size_t kBlock = 64U << 10;
constexpr std::size_t kOverlap = 4U << 10;

// Candidates that recur get a set of their own; a varied log makes many
// combinations, most seen once, so both the sets and the combinations
// remembered are bounded.
constexpr std::size_t kMaxCandidateSets = 32;
constexpr std::size_t kMaxCombinationsRemembered = 1024;
// Each such set's memory for its DFA: the HIP trace's figure is the same at 16,
// 32 and 64 MB and a third slower at 8 MB (docs/performance.md).
constexpr int64_t kCandidateSetMemory = 32 << 20;

// Calls `search(begin, end)` for each stretch of `text` worth searching: every
// line that is new together with the line before it (a line seen before, after
// the same line, cannot start a first match of a pattern of one or two lines),
// with kContextLines lines either side. A stretch is cut at about kStretchBytes,
// the next one starting kContextLines lines back. Stops when `search` says false.
bool for_each_new_stretch(std::string_view text, const std::function<bool(std::size_t, std::size_t)>& search) {
  std::unordered_set<std::string_view> seen;            // each line with the one before it
  std::array<std::size_t, kContextLines + 1> recent{};  // starts of the last lines, this one last
  std::size_t previous = std::string_view::npos;        // the line before this one
  std::size_t open = std::string_view::npos;            // the open stretch's start, if one is open
  std::size_t open_end = 0;
  std::size_t context_left = 0;
  for (std::size_t begin = 0, end = 0; begin < text.size(); previous = begin, begin = end) {
    end = text.find('\n', begin);
    end = end == std::string_view::npos ? text.size() : end + 1;
    std::rotate(recent.begin(), recent.begin() + 1, recent.end());
    recent.back() = begin;
    const auto window =
        previous == std::string_view::npos ? text.substr(begin, end - begin) : text.substr(previous, end - previous);
    if (seen.insert(window).second) {
      if (open == std::string_view::npos) open = recent.front();
      context_left = kContextLines;
    } else if (open != std::string_view::npos && context_left == 0) {
      if (!search(open, open_end)) return false;
      open = std::string_view::npos;
    } else if (open != std::string_view::npos) {
      --context_left;
    }
    if (open != std::string_view::npos) {
      open_end = end;
      if (open_end - open >= kStretchBytes) {
        if (!search(open, open_end)) return false;
        open = recent[1];
      }
    }
  }
  return open == std::string_view::npos || search(open, open_end);
}

RE2::Options with_memory(RE2::Options options, int64_t max_mem) {
  options.set_max_mem(max_mem);
  return options;
}

}  // namespace

RE2::Options pattern_options(int64_t max_mem) {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  options.set_max_mem(max_mem);
  return options;
}

Prefilter::Prefilter(const RE2::Options& options, int64_t set_memory)
    : filter_(kMinAtomLength),
      options_(with_memory(options, kCandidateSetMemory)),
      atoms_(with_memory(options, set_memory), RE2::UNANCHORED),
      always_set_(with_memory(options, set_memory), RE2::UNANCHORED) {}

tl::expected<Prefilter, std::string> Prefilter::build(const std::vector<std::string>& patterns,
                                                      const std::vector<std::string>& names,
                                                      const RE2::Options& options, int64_t set_memory) {
  Prefilter built(options, set_memory);
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    int id = 0;
    if (built.filter_.Add(patterns[i], options, &id) != RE2::NoError) {
      return tl::unexpected(names[i] + ": pattern: " + RE2(patterns[i], options).error());
    }
  }
  if (patterns.empty()) return built;  // FilteredRE2 logs to stderr when compiled empty
  std::vector<std::string> atoms;
  built.filter_.Compile(&atoms);
  for (const auto& atom : atoms) built.atoms_.Add(RE2::QuoteMeta(atom), nullptr);
  built.any_atom_ = !atoms.empty();
  if (built.any_atom_ && !built.atoms_.Compile()) return tl::unexpected(std::string("the atoms' set is out of memory"));
  built.filter_.AllPotentials({}, &built.always_);
  std::sort(built.always_.begin(), built.always_.end());
  for (const int index : built.always_) built.always_set_.Add(patterns[static_cast<std::size_t>(index)], nullptr);
  if (!built.always_.empty() && !built.always_set_.Compile()) {
    return tl::unexpected(std::string("the set of patterns without atoms is out of memory"));
  }
  return built;
}

const RE2& Prefilter::pattern(std::size_t index) const {
  return filter_.GetRE2(static_cast<int>(index));
}

bool Prefilter::search_stretch(std::string_view text, std::size_t begin, std::size_t end,
                               std::map<int, std::size_t>& starts) const {
  const auto stretch = text.substr(begin, end - begin);
  std::vector<int> found;
  RE2::Set::ErrorInfo info{};
  if (!atoms_.Match(stretch, &found, &info)) return info.kind == RE2::Set::kNoError;
  std::sort(found.begin(), found.end());
  std::vector<int> candidates;
  filter_.AllPotentials(found, &candidates);
  std::erase_if(candidates, [&](int index) {
    return starts.contains(index) || std::binary_search(always_.begin(), always_.end(), index);
  });
  for (const int index : match_candidates(stretch, candidates)) starts.emplace(index, begin);
  return true;
}

std::shared_ptr<const RE2::Set> Prefilter::set_for(const std::vector<int>& indices) const {
  auto& cache = *candidate_sets_;
  const std::lock_guard hold(cache.lock);
  auto known = cache.sets.find(indices);
  if (known == cache.sets.end()) {
    if (cache.sets.size() < kMaxCombinationsRemembered) cache.sets.emplace(indices, CandidateSet{});
    return nullptr;
  }
  auto& entry = known->second;
  if (entry.tried || cache.built >= kMaxCandidateSets) return entry.set;
  entry.tried = true;
  ++cache.built;
  auto set = std::make_shared<RE2::Set>(options_, RE2::UNANCHORED);
  for (const int index : indices) set->Add(filter_.GetRE2(index).pattern(), nullptr);
  if (set->Compile()) entry.set = std::move(set);
  return entry.set;
}

std::size_t Prefilter::candidate_sets() const {
  const std::lock_guard hold(candidate_sets_->lock);
  return candidate_sets_->built;
}

void Prefilter::give_up(const std::vector<int>& indices) const {
  auto& cache = *candidate_sets_;
  const std::lock_guard hold(cache.lock);
  cache.sets[indices].set = nullptr;
}

std::vector<int> Prefilter::match_candidates(std::string_view stretch, const std::vector<int>& indices) const {
  std::vector<int> matched;
  if (indices.size() > 1) {
    if (const auto set = set_for(indices)) {
      std::vector<int> found;
      RE2::Set::ErrorInfo info{};
      if (set->Match(stretch, &found, &info)) {
        for (const int position : found) matched.push_back(indices[static_cast<std::size_t>(position)]);
        return matched;
      }
      if (info.kind == RE2::Set::kNoError) return matched;
      give_up(indices);  // out of memory: each alone from now on
    }
  }
  for (const int index : indices) {
    if (filter_.GetRE2(index).Match(stretch, 0, stretch.size(), RE2::UNANCHORED, nullptr, 0)) matched.push_back(index);
  }
  return matched;
}

bool Prefilter::search_always(std::string_view text, std::map<int, std::size_t>& starts) const {
  std::size_t previous = 0;
  std::vector<int> found;
  for (std::size_t begin = 0; begin < text.size();) {
    auto end = text.find('\n', std::min(text.size(), begin + kBlock));
    end = end == std::string_view::npos ? text.size() : end + 1;
    const auto from = begin > kOverlap ? text.rfind('\n', begin - kOverlap) + 1 : 0;  // npos + 1 == 0
    found.clear();
    RE2::Set::ErrorInfo info{};
    if (always_set_.Match(text.substr(from, end - from), &found, &info)) {
      // The first block wins; the match may start in the block before.
      for (const int index : found) starts.emplace(always_[static_cast<std::size_t>(index)], previous);
    } else if (info.kind != RE2::Set::kNoError) {
      return false;
    }
    previous = begin;
    begin = end;
  }
  return true;
}

std::optional<std::map<int, std::size_t>> Prefilter::locate(std::string_view text) const {
  std::map<int, std::size_t> starts;
  if (!always_.empty() && !search_always(text, starts)) return std::nullopt;
  if (!any_atom_) return starts;
  const bool searched = for_each_new_stretch(
      text, [&](std::size_t begin, std::size_t end) { return search_stretch(text, begin, end, starts); });
  if (!searched) return std::nullopt;
  return starts;
}

}  // namespace rocm_doctor::symptom
