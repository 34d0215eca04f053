// Generalisation of the symptom catalogue (issue 31), measured, not asserted:
// for every signature, the catalogue is rebuilt without it (as if its message
// had never been taught) and each of its real samples is scanned. A sample
// counts as recognised when a match of the right family comes back: another
// signature of that family, or the family's own pattern. Folds are signatures,
// so each sample is scored by a catalogue that never saw its message.
// Prints recall per family and overall (markdown, for docs/performance.md),
// and the benign lines (tests/symptom/benign_lines.txt) that match anything.
//
// The words layer (error_words.json) is taught by the catalogue's samples: in
// every fold it learns only from the samples it is not scored on.
//
// Honest limits: the family patterns were written with these samples in view;
// this measures how far a family carries a message whose signature is missing,
// not how a family never seen would fare. Samples held out from the pattern
// author entirely are the issue's own held-out set, not in this repository.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rocm_doctor/symptom.h"

namespace {

using rocm_doctor::symptom::Family;
using rocm_doctor::symptom::Matcher;
using rocm_doctor::symptom::Signature;

struct Score {
  int samples = 0;
  int recognised = 0;
  int signatures = 0;
  int answered = 0;  // samples that got any family (the folds over samples)
};

struct Scores {
  std::map<std::string, Score> all;       // per family, every signature
  std::map<std::string, Score> held_out;  // per family, signatures the current family patterns never saw
};

bool recognised(const Matcher& matcher, const std::string& sample, const std::string& family) {
  for (const auto& match : matcher.scan(sample)) {
    if (match.family != nullptr && match.family->id == family) return true;
  }
  return false;
}

// Leave-one-signature-out over the whole catalogue: one fold per signature.
Scores held_out_recall(const std::vector<Signature>& all, const std::vector<Family>& families) {
  Scores scores;
  for (std::size_t held = 0; held < all.size(); ++held) {
    std::vector<Signature> others;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (i != held) others.push_back(all[i]);
    }
    // The words are taught by the other signatures' samples only.
    const auto matcher = Matcher::build(std::move(others), families, rocm_doctor::symptom::word_settings());
    if (!matcher) {
      fmt::print(stderr, "cannot build the catalogue: {}\n", matcher.error());
      std::exit(2);
    }
    auto& score = scores.all[all[held].family];
    Score fold;
    fold.signatures = 1;
    for (const auto& sample : all[held].samples) {
      ++fold.samples;
      if (recognised(*matcher, sample, all[held].family)) ++fold.recognised;
    }
    for (auto* into :
         {&score, all[held].held_out == rocm_doctor::symptom::families_round() ? &scores.held_out[all[held].family]
                                                                               : nullptr}) {
      if (into == nullptr) continue;
      into->samples += fold.samples;
      into->recognised += fold.recognised;
      into->signatures += fold.signatures;
    }
  }
  return scores;
}

// The families alone, no signature at all: the floor a new message falls to.
Score families_alone(const std::vector<Signature>& all, const std::vector<Family>& families) {
  const auto matcher = Matcher::build({}, families);
  Score score;
  for (const auto& signature : all) {
    for (const auto& sample : signature.samples) {
      ++score.samples;
      if (recognised(*matcher, sample, signature.family)) ++score.recognised;
    }
  }
  return score;
}

// K-fold over samples (sample i of the catalogue in fold i % k): the words are
// taught by the other folds' samples, and no signature's pattern is on (each was
// written from its own samples), so only the family patterns and the words
// answer. With `patterns` off, the terms and the words answer alone, the words'
// vote on whatever error_words.json says.
Score sample_folds(const std::vector<Signature>& all, const std::vector<Family>& families, bool patterns) {
  constexpr std::size_t kFolds = 5;
  Score score;
  for (std::size_t fold = 0; fold < kFolds; ++fold) {
    std::vector<Signature> taught;
    std::vector<std::pair<std::string, std::string>> held;  // family, sample
    std::size_t index = 0;
    for (const auto& signature : all) {
      auto copy = signature;
      copy.pattern = "\\b\\B";  // never matches: the signature only teaches its words
      copy.samples.clear();
      for (const auto& sample : signature.samples) {
        if (index++ % kFolds == fold) {
          held.emplace_back(signature.family, sample);
        } else {
          copy.samples.push_back(sample);
        }
      }
      copy.message.clear();  // the message is a sample too, often of the held-out ones
      taught.push_back(std::move(copy));
    }
    auto scored = families;
    if (!patterns) {
      for (auto& family : scored) family.pattern = "\\b\\B";
    }
    // The words alone are measured with their vote on, though the table turns it off.
    auto words = *rocm_doctor::symptom::word_settings();
    words.vote_by_words = words.vote_by_words || !patterns;
    const auto matcher = Matcher::build(std::move(taught), std::move(scored), &words);
    if (!matcher) {
      fmt::print(stderr, "cannot build the catalogue: {}\n", matcher.error());
      std::exit(2);
    }
    for (const auto& [family, sample] : held) {
      ++score.samples;
      if (recognised(*matcher, sample, family)) ++score.recognised;
      if (!matcher->scan(sample).empty()) ++score.answered;
    }
  }
  return score;
}

// A blind held-out set (bench/held_out/round<N>.json): real messages read by
// the pattern author only after that round was frozen. Per family: how many
// come back with their family, and how many only with a general family.
struct Blind {
  std::map<std::string, Score> right;
  std::map<std::string, int> general_only;
  int also_right = 0;   // the family missed, but one of the message's `also` labels matched
  std::string retired;  // why the set is no longer blind (pattern authors have seen it), else empty
};

Blind blind_recall(const Matcher& matcher, const std::filesystem::path& file) {
  std::ifstream stream(file);
  const auto document = nlohmann::json::parse(stream, nullptr, false);
  Blind blind;
  if (document.is_discarded() || !document.contains("messages")) {
    fmt::print(stderr, "{}: not JSON\n", file.string());
    std::exit(2);
  }
  blind.retired = document.value("retired", "");
  for (const auto& message : document.at("messages")) {
    const auto family = message.at("family").get<std::string>();
    auto& score = blind.right[family];
    ++score.samples;
    const auto matches = matcher.scan(message.at("text").get<std::string>());
    // "none": a real message of no GPU fault (a locale warning, a CPU fan), right when nothing matches.
    if (family == "none" && matches.empty()) ++score.recognised;
    bool general = false;
    bool right = false;
    for (const auto& match : matches) {
      if (match.family == nullptr) continue;
      if (match.family->id == family) {
        ++score.recognised;
        right = true;
        general = false;
        break;
      }
      general = general || match.family->general;
    }
    if (general) ++blind.general_only[family];
    // `also` (round 7 on): other families a support engineer would accept as the right reading.
    const auto also = message.value("also", nlohmann::json::array());
    if (!right && std::any_of(matches.begin(), matches.end(), [&](const auto& match) {
          return match.family != nullptr && std::find(also.begin(), also.end(), match.family->id) != also.end();
        })) {
      ++blind.also_right;
    }
  }
  return blind;
}

// The benign lines: the test suite's (tests/symptom/benign_lines.txt) and the blind
// rounds' (bench/held_out/round<N>_benign.txt), which no pattern author saw.
std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::ifstream stream(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(stream, line);) {
    if (!line.empty() && !line.starts_with('#')) lines.push_back(line);
  }
  return lines;
}

// bench/held_out/<name> for every file whose name starts "round" and ends with `suffix`, in order.
std::vector<std::filesystem::path> held_out_files(std::string_view suffix) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/bench/held_out")) {
    const auto name = entry.path().filename().string();
    if (name.starts_with("round") && name.ends_with(suffix)) files.push_back(entry.path());
  }
  // By round number: round10 after round9.
  const auto round = [](const std::filesystem::path& path) {
    return std::stoi(path.filename().string().substr(std::string_view("round").size()));
  };
  std::sort(files.begin(), files.end(), [&](const auto& a, const auto& b) { return round(a) < round(b); });
  return files;
}

double percent(int part, int whole) {
  return whole == 0 ? 0.0 : 100.0 * part / whole;
}

}  // namespace

// One table row per family and a total; the number of families with 5+ samples under 75 %.
int print_table(const std::map<std::string, Score>& scores,
                std::string_view column = "recognised with its signature left out") {
  Score total;
  int weak = 0;
  fmt::print("| family | signatures | samples | {} |\n|---|---|---|---|\n", column);
  for (const auto& [family, score] : scores) {
    fmt::print("| {} | {} | {} | {}/{} ({:.0f} %) |\n", family, score.signatures, score.samples, score.recognised,
               score.samples, percent(score.recognised, score.samples));
    total.samples += score.samples;
    total.recognised += score.recognised;
    total.signatures += score.signatures;
    if (score.samples >= 5 && percent(score.recognised, score.samples) < 75.0) ++weak;
  }
  fmt::print("| **all** | {} | {} | {}/{} ({:.1f} %) |\n\n", total.signatures, total.samples, total.recognised,
             total.samples, percent(total.recognised, total.samples));
  return weak;
}

int main() {
  const auto& all = rocm_doctor::symptom::signatures();
  const auto& families = rocm_doctor::symptom::families();
  const auto scores = held_out_recall(all, families);
  fmt::print("Every signature, each scored by the catalogue without it:\n\n");
  const auto weak = print_table(scores.all);
  fmt::print("Families with 5+ samples under 75 %: {}.\n\n", weak);
  fmt::print("Only the signatures mined after round {} of the family patterns was frozen (held_out = {}):\n\n",
             rocm_doctor::symptom::families_round(), rocm_doctor::symptom::families_round());
  const auto weak_held_out = print_table(scores.held_out);
  fmt::print("Families with 5+ held-out samples under 75 %: {}.\n\n", weak_held_out);
  const auto floor = families_alone(all, families);
  fmt::print("Families alone (no signature at all): {}/{} ({:.1f} %).\n", floor.recognised, floor.samples,
             percent(floor.recognised, floor.samples));
  const auto folds = sample_folds(all, families, true);
  fmt::print("5-fold over samples, family patterns and words taught by the other folds: {}/{} ({:.1f} %).\n",
             folds.recognised, folds.samples, percent(folds.recognised, folds.samples));
  const auto words = sample_folds(all, families, false);
  fmt::print(
      "5-fold over samples, terms and words alone (the words' vote on): {}/{} ({:.1f} %); "
      "{} got a family, {:.1f} % of them the right one.\n",
      words.recognised, words.samples, percent(words.recognised, words.samples), words.answered,
      percent(words.recognised, words.answered));
  const auto& matcher = rocm_doctor::symptom::default_matcher();
  for (const auto& file : held_out_files(".json")) {
    const auto blind = blind_recall(matcher, file);
    if (blind.retired.empty()) {
      fmt::print("\nBlind held-out set bench/held_out/{}, right family:\n\n", file.filename().string());
    } else {
      fmt::print("\nRetired held-out set bench/held_out/{} (not blind: {}), right family:\n\n",
                 file.filename().string(), blind.retired);
    }
    print_table(blind.right, "recognised (signatures: none of these is a sample)");
    int general_only = 0;
    for (const auto& [family, count] : blind.general_only) general_only += count;
    fmt::print(
        "Of the rest, {} matched only a general family (a catch-all's meaning, not the family's), and {} "
        "matched one of the message's `also` families (another right reading).\n\n",
        general_only, blind.also_right);
  }
  auto benign = lines_of(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/tests/symptom/benign_lines.txt");
  for (const auto& file : held_out_files("_benign.txt")) {
    const auto more = lines_of(file);
    benign.insert(benign.end(), more.begin(), more.end());
  }
  int benign_hits = 0;
  for (const auto& line : benign) {
    if (!matcher.scan(line).empty()) {
      ++benign_hits;
      fmt::print("benign line matched: {}\n", line);
    }
  }
  fmt::print("Benign real lines matching anything: {} of {}.\n", benign_hits, benign.size());
  return 0;
}
