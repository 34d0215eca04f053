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
};

// The signatures of an error_signatures.json text; an error names the signature and field.
tl::expected<std::vector<Signature>, std::string> parse_signatures(std::string_view json_text);
// The compiled-in checks/data/error_signatures.json.
const std::vector<Signature>& signatures();
// The signature with this id or literal name (case-insensitive), or nullptr.
const Signature* find_signature(std::string_view id_or_name);

struct Match {
  const Signature* signature = nullptr;
  std::size_t line = 0;    // 1-based line of the match start
  std::size_t offset = 0;  // byte offset of the match start
};

// Every signature compiled into one RE2::Set: a text is scanned in linear time,
// whatever the number of signatures. Movable, not copyable.
class Matcher {
 public:
  // An error names the signature whose pattern RE2 refused.
  static tl::expected<Matcher, std::string> build(std::vector<Signature> signatures);
  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

  // The signatures that match `text`, each once at its first match, the
  // specific before the general (a refined or general one is dropped when a
  // more specific one matched), then in text order.
  [[nodiscard]] std::vector<Match> scan(std::string_view text) const;
  [[nodiscard]] const std::vector<Signature>& signatures() const;

 private:
  struct Compiled;
  explicit Matcher(std::unique_ptr<Compiled> compiled);
  std::unique_ptr<Compiled> compiled_;
};

// The matcher over the compiled-in catalogue (built once).
const Matcher& default_matcher();

// The report's `symptom` section (docs/report-format.md#symptom): the matches,
// the causes ranked by what the report's findings back, the usually-harmless
// messages, and the next step when nothing on this machine backs a cause.
nlohmann::ordered_json symptom_section(const std::vector<Match>& matches, const Report& report,
                                       std::string_view text_source);

// `explain ID`: the signature with this id or literal name, or the first one a
// literal message matches; nullptr when none.
const Signature* signature_for(std::string_view id_or_message);
// Everything the catalogue says of one signature, as plain text.
std::string describe(const Signature& signature);

// The most a symptom text may be: a longer log keeps its end (where the error is).
constexpr std::size_t kMaxTextBytes = 128U * 1024 * 1024;

}  // namespace rocm_doctor::symptom
