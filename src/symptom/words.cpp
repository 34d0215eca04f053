// The words layer (words.h): its settings from checks/data/error_words.json, each
// word's weight per family learnt from the catalogue's samples, and the vote.
#include "symptom/words.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "rocm_doctor/data_table.h"
#include "symptom/prefilter.h"

namespace rocm_doctor::symptom {

namespace {

constexpr std::string_view kErrorWordsFile = "error_words.json";

tl::expected<std::size_t, std::string> whole_number(data_table::TableReader& reader, std::string_view key) {
  auto value = reader.number(key);
  if (!value) return tl::unexpected(value.error());
  if (*value < 1 || *value != std::floor(*value))
    return tl::unexpected(reader.error(key, "must be a whole number >= 1"));
  return static_cast<std::size_t>(*value);
}

tl::expected<bool, std::string> yes_or_no(data_table::TableReader& reader, std::string_view key) {
  auto value = reader.at(key);
  if (!value) return tl::unexpected(value.error());
  if (!value->get().is_boolean()) return tl::unexpected(reader.error(key, "must be true or false"));
  return value->get().get<bool>();
}

tl::expected<double, std::string> positive(data_table::TableReader& reader, std::string_view key) {
  auto value = reader.number(key);
  if (!value) return tl::unexpected(value.error());
  if (*value < 0) return tl::unexpected(reader.error(key, "must not be negative"));
  return *value;
}

// Errors: "error_words.json: KEY: what is wrong".
tl::expected<WordSettings, std::string> read_error_words(data_table::TableReader& reader) {
  WordSettings settings;
  auto cue = reader.text("cue");
  auto quiet = reader.text("quiet");
  auto stop = reader.strings("stop_words");
  auto smoothing = positive(reader, "smoothing");
  auto anchor_share = positive(reader, "anchor_share");
  auto anchor_texts = whole_number(reader, "anchor_texts");
  auto min_score = positive(reader, "min_score");
  auto min_margin = positive(reader, "min_margin");
  auto max_lines = whole_number(reader, "max_lines");
  auto evidence = whole_number(reader, "evidence_words");
  auto min_words = whole_number(reader, "min_words");
  auto vote_by_words = yes_or_no(reader, "vote_by_words");
  if (!cue) return tl::unexpected(cue.error());
  if (!quiet) return tl::unexpected(quiet.error());
  if (!stop) return tl::unexpected(stop.error());
  if (!smoothing) return tl::unexpected(smoothing.error());
  if (*smoothing == 0) return tl::unexpected(reader.error("smoothing", "must be more than 0"));
  if (!anchor_share) return tl::unexpected(anchor_share.error());
  if (*anchor_share > 1) return tl::unexpected(reader.error("anchor_share", "must be a share from 0 to 1"));
  if (!anchor_texts) return tl::unexpected(anchor_texts.error());
  if (!min_score) return tl::unexpected(min_score.error());
  if (!min_margin) return tl::unexpected(min_margin.error());
  if (!max_lines) return tl::unexpected(max_lines.error());
  if (!evidence) return tl::unexpected(evidence.error());
  if (!min_words) return tl::unexpected(min_words.error());
  if (!vote_by_words) return tl::unexpected(vote_by_words.error());
  settings.cue = std::move(*cue);
  settings.quiet = std::move(*quiet);
  settings.stop_words = std::move(*stop);
  settings.smoothing = *smoothing;
  settings.anchor_share = *anchor_share;
  settings.anchor_texts = *anchor_texts;
  settings.min_score = *min_score;
  settings.min_margin = *min_margin;
  settings.max_lines = *max_lines;
  settings.evidence_words = *evidence;
  settings.min_words = *min_words;
  settings.vote_by_words = *vote_by_words;
  return settings;
}

[[maybe_unused]] const bool kErrorWordsLoaderRegistered =
    data_table::register_table_loader<WordSettings, &read_error_words>(kErrorWordsFile);

tl::expected<std::unique_ptr<RE2>, std::string> compile(std::string_view key, const std::string& pattern) {
  // (?m): ^ and $ are a line's ends, the cue being searched over a whole text.
  auto regex = std::make_unique<RE2>("(?m)" + pattern, pattern_options());
  if (!regex->ok())
    return tl::unexpected(std::string(kErrorWordsFile) + ": " + std::string(key) + ": " + regex->error());
  return regex;
}

// An address or hash written without 0x ("deadbeef12"): different in every report.
bool is_hex_run(std::string_view word) {
  return word.size() >= 6 && std::all_of(word.begin(), word.end(),
                                         [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// A family's terms (`field` names which), macros expanded; nullptr for none.
tl::expected<std::unique_ptr<RE2>, std::string> compile_terms(const Family& family, const std::string& terms,
                                                              std::string_view field) {
  if (terms.empty()) return std::unique_ptr<RE2>();
  auto regex = std::make_unique<RE2>(expand_pattern(terms), pattern_options());
  if (!regex->ok())
    return tl::unexpected("error family " + family.id + ": " + std::string(field) + ": " + regex->error());
  return regex;
}

// Sample texts of one family, as the scan sees them (normalised), with their line ends.
std::vector<std::string> training_texts(const Signature& signature) {
  std::vector<std::string> texts;
  for (const auto& sample : signature.samples) texts.push_back(normalise(sample).text);
  if (!signature.message.empty()) texts.push_back(normalise(signature.message).text);
  return texts;
}

}  // namespace

const WordSettings* word_settings() {
  const auto& loaded = data_table::load<WordSettings, &read_error_words>(kErrorWordsFile);
  return loaded ? &*loaded : nullptr;
}

tl::expected<WordSettings, std::string> parse_word_settings(std::string_view json_text) {
  return data_table::read_text<WordSettings, &read_error_words>(kErrorWordsFile, json_text);
}

std::vector<std::string> line_words(std::string_view line, const std::unordered_set<std::string>& stop) {
  std::vector<std::string> words;
  std::set<std::string> seen;
  std::string word;
  const auto flush = [&] {
    if (word.empty()) return;
    if (std::isdigit(static_cast<unsigned char>(word.front())) == 0 && !is_hex_run(word)) {
      while (!word.empty() && std::isdigit(static_cast<unsigned char>(word.back())) != 0) word.pop_back();
      if (word.size() >= 2 && !stop.contains(word) && seen.insert(word).second) words.push_back(word);
    }
    word.clear();
  };
  for (const char c : line) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 && byte < 0x80) {
      word += static_cast<char>(std::tolower(byte));
    } else {
      flush();
    }
  }
  flush();
  return words;
}

tl::expected<WordModel, std::string> WordModel::build(const std::vector<Signature>& signatures,
                                                      const std::vector<Family>& families, const WordSettings& settings,
                                                      std::vector<const RE2*> excepts) {
  WordModel model;
  model.settings_ = settings;
  model.except_ = std::move(excepts);
  model.except_.resize(families.size(), nullptr);
  auto cue = compile("cue", settings.cue);
  if (!cue) return tl::unexpected(cue.error());
  auto quiet = compile("quiet", settings.quiet);
  if (!quiet) return tl::unexpected(quiet.error());
  model.cue_ = std::move(*cue);
  model.quiet_ = std::move(*quiet);
  model.stop_.insert(settings.stop_words.begin(), settings.stop_words.end());
  model.family_count_ = families.size();
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < families.size(); ++i) index.emplace(families[i].id, i);
  for (const auto& family : families) {
    auto terms = compile_terms(family, family.terms, "terms");
    if (!terms) return tl::unexpected(terms.error());
    model.terms_.push_back(std::move(*terms));
    auto form = compile_terms(family, family.form_terms, "form_terms");
    if (!form) return tl::unexpected(form.error());
    model.form_terms_.push_back(std::move(*form));
    model.general_.push_back(family.general);
  }
  // Only a vote by words reads the weights: with it off, start-up need not learn them.
  if (!settings.vote_by_words) return model;

  // counts[word][family]: the texts of the family the word is in; documents[word]: all texts.
  std::unordered_map<std::string, std::map<std::size_t, double>> counts;
  std::unordered_map<std::string, double> documents;
  std::vector<double> family_texts(families.size(), 0.0);
  double texts = 0;
  for (const auto& signature : signatures) {
    const auto family = index.find(signature.family);
    if (family == index.end() || signature.harmless) continue;
    for (const auto& text : training_texts(signature)) {
      texts += 1;
      family_texts[family->second] += 1;
      for (const auto& word : line_words(text, model.stop_)) {
        counts[word][family->second] += 1;
        documents[word] += 1;
      }
    }
  }
  // A word's weight in a family: how rare it is over all texts (idf) times the
  // log-smoothed share of the family's texts that have it, so one shared rare
  // word outvotes many common ones and a family with many samples does not win
  // on common words alone. An anchor is a word mostly this family's.
  for (const auto& [word, by_family] : counts) {
    const double rarity = std::log(texts / documents[word]);
    auto& weights = model.weights_[word];
    for (const auto& [family, count] : by_family) {
      const bool anchor =
          count >= static_cast<double>(settings.anchor_texts) && count / documents[word] >= settings.anchor_share;
      weights.push_back({family, rarity * std::log1p(count / family_texts[family] / settings.smoothing), anchor});
    }
  }
  return model;
}

std::optional<WordModel::Vote> WordModel::vote(std::string_view line) const {
  if (family_count_ == 0 || !RE2::PartialMatch(line, *cue_) || RE2::PartialMatch(line, *quiet_)) return std::nullopt;
  auto vote = term_vote(line);
  if (!vote && settings_.vote_by_words) vote = word_vote(line);
  // A line the family's pattern would not take (its except) is not the family's by words either.
  if (vote && except_[vote->family] && RE2::PartialMatch(line, *except_[vote->family])) return std::nullopt;
  return vote;
}

// The family whose term the line names: a specific family's term first, then
// a form only one family's component prints, then a catch-all's term; among
// equals the term that comes first on the line (the component a message starts
// with is the one that printed it: "rocBLAS error from hip error code ..."),
// then the family listed first.
std::optional<WordModel::Vote> WordModel::term_vote(std::string_view line) const {
  std::optional<Vote> best;
  std::pair<int, std::size_t> best_rank;  // (kind of term, where on the line)
  const auto consider = [&](std::size_t family, const RE2* terms, int kind) {
    re2::StringPiece found;
    if (terms == nullptr || !terms->Match(line, 0, line.size(), RE2::UNANCHORED, &found, 1) || found.empty()) return;
    const std::pair rank{kind, static_cast<std::size_t>(found.data() - line.data())};
    if (best && rank >= best_rank) return;
    best = Vote{family, 0, {}, std::string(found.data(), found.size())};
    best_rank = rank;
  };
  for (std::size_t family = 0; family < terms_.size(); ++family) {
    consider(family, terms_[family].get(), general_[family] ? 2 : 0);
    consider(family, form_terms_[family].get(), 1);
  }
  return best;
}

std::optional<WordModel::Vote> WordModel::word_vote(std::string_view line) const {
  std::vector<double> score(family_count_, 0.0);
  const auto words = line_words(line, stop_);
  for (const auto& word : words) {
    const auto it = weights_.find(word);
    if (it == weights_.end()) continue;
    for (const auto& [family, weight, anchor] : it->second) score[family] += weight;
  }
  std::vector<std::size_t> order(family_count_);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::partial_sort(order.begin(), order.begin() + std::min<std::size_t>(2, order.size()), order.end(),
                    [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  const double best = score[order[0]];
  const double second = order.size() > 1 ? score[order[1]] : 0.0;
  if (best < settings_.min_score || best - second < settings_.min_margin) return std::nullopt;

  Vote vote{order[0], best, {}, {}};
  std::vector<std::pair<double, std::string>> strongest;
  bool anchored = false;
  for (const auto& word : words) {
    const auto it = weights_.find(word);
    if (it == weights_.end()) continue;
    for (const auto& [family, weight, anchor] : it->second) {
      if (family != vote.family) continue;
      strongest.emplace_back(weight, word);
      anchored = anchored || anchor;
    }
  }
  // Words every family shares ("invalid", "access") are no evidence of this one,
  // and one rare word alone ("range") is a coincidence more often than a family.
  if (!anchored || strongest.size() < settings_.min_words) return std::nullopt;
  std::stable_sort(strongest.begin(), strongest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; i < strongest.size() && i < settings_.evidence_words; ++i) {
    vote.words.push_back(strongest[i].second);
  }
  return vote;
}

std::vector<std::size_t> WordModel::candidate_lines(std::string_view text,
                                                    const std::unordered_set<std::size_t>& skip) const {
  // Every failing line's start, in one pass of the cue over the text.
  std::vector<std::size_t> failing;
  re2::StringPiece found;
  for (std::size_t at = 0; at < text.size() && cue_->Match(text, at, text.size(), RE2::UNANCHORED, &found, 1);) {
    const auto offset = static_cast<std::size_t>(found.data() - text.data());
    const auto begin = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;  // npos + 1 == 0
    const auto end = text.find('\n', offset);
    if (!skip.contains(begin)) failing.push_back(begin);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  // The last max_lines of them that are not quiet: the error is at a log's end.
  std::vector<std::size_t> kept;
  for (auto it = failing.rbegin(); it != failing.rend() && kept.size() < settings_.max_lines; ++it) {
    const auto end = text.find('\n', *it);
    const auto line = text.substr(*it, end == std::string_view::npos ? std::string_view::npos : end - *it);
    if (!RE2::PartialMatch(line, *quiet_)) kept.push_back(*it);
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

}  // namespace rocm_doctor::symptom
