// Symptoms (issue 17): the error text a user brings (`why TEXT`, --symptom,
// --log, `run -- CMD`), matched against checks/data/error_signatures.json and
// explained with what the checks found on this machine (docs/architecture.md#symptoms).
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/report.h"

namespace rocm_doctor::symptom {

struct SignatureCause {
  std::string cause;
  std::string tell_apart;
  std::vector<std::string> findings;  // finding ids that back this cause on a machine
};

// Alarming but usually harmless: a cause only when one of `unless` is found.
struct Harmless {
  std::string why;
  std::vector<std::string> unless;
};

struct Signature {
  std::string id;
  std::string family;              // the error_families.json family it belongs to
  std::vector<std::string> names;  // literal names users type (hipErrorNoBinaryForGpu)
  std::string message;
  std::string pattern;  // RE2, case-insensitive; \s crosses lines
  std::string component;
  std::string category;
  std::string meaning;
  std::vector<SignatureCause> causes;  // most frequent first
  std::vector<std::string> logging;    // extra logging that shows more (AMD_LOG_LEVEL=3)
  std::string next_step;               // the command to paste
  std::vector<std::string> samples;
  std::vector<std::string> refines;  // general signatures this one wins over
  bool general = false;              // a catch-all any other match wins over
  std::optional<Harmless> harmless;
  std::vector<std::string> sources;
  // The round of family patterns it was mined against (0: the patterns were
  // written from it): the families of that round never saw its samples
  // (bench/symptom_recall.cpp scores the current round's apart).
  int held_out = 0;
};

// A family of messages (checks/data/error_families.json): one component's one
// failure class, with a tolerant pattern of its own, so that a variant no
// signature knows still says what kind of failure it is.
struct Family {
  std::string id;
  std::string name;     // "GPU memory access fault"
  std::string pattern;  // RE2 like a signature's, macros expanded
  std::string component;
  std::string meaning;
  std::vector<SignatureCause> causes;  // most frequent first
  std::vector<std::string> logging;
  std::string next_step;
  std::vector<std::string> sources;
  // A catch-all ("the amdgpu driver printed an error"): reported only for a
  // line no other family or signature explains.
  bool general = false;
  // RE2 with the pattern's macros: a line the pattern matches but this also matches is
  // not this family (an informational line that names a missing library).
  std::string except;
  // RE2 with the pattern's macros: the family's own terms (its component's library,
  // tool, source file and function names, its subsystem's words). A failing line no
  // pattern explains that names one is this family's, before any vote by words.
  std::string terms;
  // RE2 with the pattern's macros: a message's form that only this family's
  // component prints (a compiler's `file:line:col: error:`). It names the family
  // of a failing line that names no family's own term; a term on the line, even
  // after the form, says better what failed (the library whose header is missing).
  std::string form_terms;
};

// The families of an error_families.json text; an error names the file, the family and field.
tl::expected<std::vector<Family>, std::string> parse_families(std::string_view json_text);
// checks/data/error_families.json (overlays included), parsed once per table text.
const std::vector<Family>& families();
// Its "round": bumped each time the family patterns are rewritten.
int families_round();
// The family with this id, or nullptr.
const Family* find_family(std::string_view id);

// A pattern as written in the data, its macros expanded: {hex} a hex number
// (0x optional), {n} a decimal number, {path} a path or file name, {sp} any
// run of blanks. Unknown braces are left as written (RE2 repetition counts).
std::string expand_pattern(std::string_view pattern);

// The text as it really arrives, made plain once before matching: CR and CRLF
// ends, ANSI colours, timestamps and log prefixes (kernel, syslog, journald,
// ISO dates, [rank3]:, vLLM/Ray worker tags, mpirun/srun ranks, kubectl
// --prefix), docker/k8s/journald JSON lines whose message is unescaped into its
// lines, CRI log lines, and lines a terminal wrapped at its width joined again.
struct Normalised {
  std::string text;
  std::vector<std::size_t> origin;  // per normalised line: the 1-based input line it came from
  // Per normalised line: a prefix it lost named an informational level (INFO,
  // WARNING, glog I/W): the words layer never votes on it.
  std::vector<bool> informational;
};
Normalised normalise(std::string_view text);

// The signatures of an error_signatures.json text; an error names the file, the signature and field.
tl::expected<std::vector<Signature>, std::string> parse_signatures(std::string_view json_text);
// checks/data/error_signatures.json (overlays included), parsed once per table text.
const std::vector<Signature>& signatures();
// The signature with this id or literal name (case-insensitive), or nullptr.
const Signature* find_signature(std::string_view id_or_name);

// How a failing line that no pattern explains is given a family by its words
// (checks/data/error_words.json; the words' counts come from the catalogue's samples).
struct WordSettings {
  std::string cue;    // RE2: the line says something failed
  std::string quiet;  // RE2: ...but at an informational level, or as a warning: never voted on
  std::vector<std::string> stop_words;
  double smoothing = 0.02;         // added to the share of a family's texts that have a word
  double anchor_share = 0.5;       // the winner needs a word it has at least this share of...
  std::size_t anchor_texts = 2;    // ...in at least this many of its texts (not only shared words)
  double min_score = 30;           // the winner's score must reach this...
  double min_margin = 3;           // ...and beat the runner-up by this much
  std::size_t max_lines = 64;      // only the last lines of a text are voted on
  std::size_t evidence_words = 3;  // the winner's strongest words named in the match
  std::size_t min_words = 2;       // the winner needs this many of its words on the line
  bool vote_by_words = true;       // false: only a family's term votes, never its words alone
};
// The error_words.json of this run (overlays included); a broken table gives no words layer.
const WordSettings* word_settings();
// The settings of an error_words.json text; an error names the file and the key.
tl::expected<WordSettings, std::string> parse_word_settings(std::string_view json_text);

// A signature's match (its family set too), or only a family's: a message no
// signature knows that still has the shape of the family's failures, by its
// family's pattern or, failing that, by its words.
struct Match {
  const Signature* signature = nullptr;         // nullptr: only the family matched
  const Family* family = nullptr;               // nullptr only for a signature without a known family
  std::size_t line = 0;                         // 1-based line of the input where the match starts
  std::size_t offset = 0;                       // byte offset of the match start in the normalised text
  std::vector<std::string> words;               // not empty: the family was voted by these words
  std::string term;                             // not empty: the line names this term of the family
  [[nodiscard]] const std::string& id() const;  // the signature's id, else the family's
  [[nodiscard]] bool by_words() const { return !words.empty(); }
  [[nodiscard]] bool by_term() const { return !term.empty(); }
};

// Every signature and family pattern compiled once, behind a prefilter of the
// literals each requires (src/symptom/prefilter.h): a text is scanned in linear
// time whatever the number of signatures. Movable, not copyable.
class Matcher {
 public:
  // An error names the signature whose pattern RE2 refused. With `words`, a failing
  // line nothing else explains is voted a family by the words of the signatures' samples.
  static tl::expected<Matcher, std::string> build(std::vector<Signature> signatures, std::vector<Family> families = {},
                                                  const WordSettings* words = nullptr);
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

  // The signatures that match `text` (normalised first), each once at its
  // first match, the specific before the general (a refined or general one is
  // dropped when a more specific one matched), then in text order; then the
  // families that matched where no signature did: a family is dropped when
  // one of its signatures matched, or a specific signature on the same line.
  // Last, the failing lines nothing matched (or only a catch-all family), each
  // given the family whose term it names (by_term()), else the family its words
  // vote for, when the vote is clear (by_words()).
  [[nodiscard]] std::vector<Match> scan(std::string_view text) const;
  // The same over a text normalise() already made plain.
  [[nodiscard]] std::vector<Match> scan_normalised(const Normalised& text) const;
  [[nodiscard]] const std::vector<Signature>& signatures() const;
  [[nodiscard]] const std::vector<Family>& families() const;

  struct Compiled;  // src/symptom/matcher.cpp

 private:
  explicit Matcher(std::unique_ptr<Compiled> compiled);
  std::unique_ptr<Compiled> compiled_;
};

// The matcher over signatures() and families() (built once per catalogue: the built-in one,
// or the overlaid one once the knowledge overlays are installed).
const Matcher& default_matcher();

// The report's `symptom` section (docs/report-format.md#symptom): the matches,
// the causes ranked by what the report's findings back, the usually-harmless
// messages, and the next step when nothing on this machine backs a cause.
nlohmann::ordered_json symptom_section(const std::vector<Match>& matches, const Report& report,
                                       std::string_view text_source);

// Everything the catalogue says of one signature, as plain text.
std::string describe(const Signature& signature);
// Everything error_families.json says of one family, with its signatures.
std::string describe(const Family& family);
// `explain` for a signature's id or name, a family's id, or a pasted message
// (its first signature, else its family); nullopt when none of them.
std::optional<std::string> explain_symptom(std::string_view id_or_message);

// The most a symptom text may be: a longer log keeps its end (where the error is).
constexpr std::size_t kMaxTextBytes = 128U * 1024 * 1024;

}  // namespace rocm_doctor::symptom
