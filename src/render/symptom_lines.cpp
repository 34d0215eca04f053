// The "Your error" block every human-readable format shows near the top:
// which messages matched, the causes this machine backs, the harmless ones,
// and the next step when nothing here backs a cause.
#include <fmt/format.h>

#include "render/formats.h"
#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::render_support {

namespace {

using OrderedJson = nlohmann::ordered_json;

std::string text_of(const OrderedJson& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string line_of(const OrderedJson& object) {
  const auto it = object.find("line");
  return it != object.end() && it->is_number() ? fmt::format("line {}: ", it->get<long long>()) : std::string();
}

// A signature by its id; a message only its family knows by the family's name.
std::string match_title(const OrderedJson& match) {
  auto signature = text_of(match, "signature");
  if (!signature.empty()) return signature;
  const auto family = text_of(match, "family");
  const auto* known = symptom::find_family(family);
  const auto kind = "a message of the kind \"" + (known != nullptr ? known->name : family) + "\" (" + family + ")";
  if (const auto term = text_of(match, "term"); !term.empty()) {
    return "no known message; it names \"" + term + "\", " + kind;
  }
  const auto words = match.find("words");
  if (words == match.end() || !words->is_array() || words->empty()) return "no exact signature, " + kind;
  std::string said;
  for (const auto& word : *words)
    said += (said.empty() ? "" : ", ") + (word.is_string() ? word.get<std::string>() : "");
  return "no known message; by its words (" + said + ") " + kind;
}

// What `explain` takes for it: the signature, else the family.
std::string explain_id(const OrderedJson& object) {
  const auto signature = text_of(object, "signature");
  return signature.empty() ? text_of(object, "family") : signature;
}

void add_command(std::vector<SymptomLine>& out, const OrderedJson& section) {
  const auto it = section.find("command");
  if (it == section.end() || !it->is_object()) return;
  std::string ended = "The command ";
  if (it->value("timed_out", false)) {
    ended += "was killed at the timeout (--probe-timeout)";
  } else if (it->contains("exit_code") && (*it)["exit_code"].is_number()) {
    ended += fmt::format("exited with status {}", (*it)["exit_code"].get<int>());
  } else if (it->contains("signal") && (*it)["signal"].is_number()) {
    ended += fmt::format("was ended by signal {}", (*it)["signal"].get<int>());
  } else {
    ended += "ended";
  }
  out.push_back({1, ended + "."});
}

void add_next_step(std::vector<SymptomLine>& out, const OrderedJson& section) {
  const auto it = section.find("next_step");
  if (it == section.end() || !it->is_object()) return;
  const auto logging = it->value("logging", std::vector<std::string>{});
  out.push_back({1, logging.empty() ? std::string("Next step:")
                                    : "Next step: turn on " + join(logging, " ") + " and run it again:"});
  const auto command = text_of(*it, "command");
  if (!command.empty()) out.push_back({2, command, true});
  // Its usual causes are not guessed at here; explain lists them.
  out.push_back({1, "Its usual causes (none confirmed here): rocm-doctor explain " + explain_id(*it)});
}

}  // namespace

std::vector<SymptomLine> symptom_lines(const Report& report) {
  const auto found = report.sections.find("symptom");
  if (found == report.sections.end() || !found->second.is_object()) return {};
  const OrderedJson& section = found->second;
  std::vector<SymptomLine> out;
  out.push_back({0, "Your error (" + text_of(section, "text_source") + "):"});
  add_command(out, section);
  for (const auto& match : section.value("matches", OrderedJson::array())) {
    out.push_back({1, line_of(match) + match_title(match) + " (" + text_of(match, "component") + ")"});
    out.push_back({2, text_of(match, "meaning")});
  }
  const auto causes = section.value("causes", OrderedJson::array());
  if (!causes.empty()) out.push_back({1, "Cause on this machine (most likely first):"});
  for (const auto& cause : causes) {
    out.push_back({2, text_of(cause, "finding") + ": " + text_of(cause, "cause") + " " + text_of(cause, "why")});
  }
  for (const auto& harmless : section.value("harmless", OrderedJson::array())) {
    out.push_back({1, line_of(harmless) + text_of(harmless, "signature") + " (usually harmless)"});
    out.push_back({2, text_of(harmless, "why")});
  }
  const auto note = text_of(section, "note");
  if (!note.empty()) out.push_back({1, note});
  add_next_step(out, section);
  return out;
}

}  // namespace rocm_doctor::render_support
