// The symptom section of a report: which signatures matched, and which of
// their usual causes this machine's findings back. A cause nothing backs is
// not guessed at: the section says so and gives the next step instead.
#include <algorithm>
#include <map>
#include <set>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor::symptom {

namespace {

using OrderedJson = nlohmann::ordered_json;
using Present = std::map<std::string, const Finding*, std::less<>>;

// The findings a cause can name: warning or worse (a policy-accepted one is info).
Present present_findings(const Report& report) {
  Present present;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      if (finding.severity >= Severity::warning) present.emplace(finding.id, &finding);
    }
  }
  return present;
}

const Finding* first_present(const std::vector<std::string>& ids, const Present& present) {
  for (const auto& id : ids) {
    if (const auto it = present.find(id); it != present.end()) return it->second;
  }
  return nullptr;
}

// A usually-harmless message is a symptom only when the machine says so: one
// of its `unless` findings, or a finding that backs one of its causes.
bool harmless_here(const Signature* signature_or_null, const Present& present) {
  if (signature_or_null == nullptr) return false;
  const auto& signature = *signature_or_null;
  if (!signature.harmless || first_present(signature.harmless->unless, present) != nullptr) return false;
  for (const auto& cause : signature.causes) {
    if (first_present(cause.findings, present) != nullptr) return false;
  }
  return true;
}

// The signature's id, or null when only a family matched.
OrderedJson signature_id(const Match& match) {
  return match.signature != nullptr ? OrderedJson(match.signature->id) : OrderedJson(nullptr);
}

OrderedJson family_id(const Match& match) {
  return match.family != nullptr ? OrderedJson(match.family->id) : OrderedJson(nullptr);
}

const std::vector<SignatureCause>& causes_of(const Match& match) {
  static const std::vector<SignatureCause> none;
  if (match.signature != nullptr) return match.signature->causes;
  return match.family != nullptr ? match.family->causes : none;
}

// What recognised the message: its signature's pattern, its family's, a term
// of its family, or its words' vote.
std::string_view matched_by(const Match& match) {
  if (match.signature != nullptr) return "signature";
  if (match.by_term()) return "term";
  return match.by_words() ? "words" : "family";
}

OrderedJson match_json(const Match& match) {
  const bool alone = match.signature == nullptr;
  OrderedJson json = {{"signature", signature_id(match)},
                      {"family", family_id(match)},
                      {"matched_by", matched_by(match)},
                      {"component", alone ? match.family->component : match.signature->component},
                      {"meaning", alone ? match.family->meaning : match.signature->meaning},
                      {"line", match.line}};
  if (match.by_words()) json["words"] = match.words;
  if (match.by_term()) json["term"] = match.term;
  return json;
}

std::string why_backed(const Finding& finding) {
  std::string why = "This machine shows it: " + finding.summary;
  if (!finding.caused_by.empty()) why += " (itself explained by " + finding.caused_by.front() + ")";
  return why;
}

// The backed causes of every match: those whose finding is a root cause of the
// report first, then in match order and the signature's frequency order.
OrderedJson backed_causes(const std::vector<const Match*>& matches, const Present& present, const Report& report) {
  std::vector<OrderedJson> root;
  std::vector<OrderedJson> other;
  std::set<std::string> named;
  for (const auto* match : matches) {
    for (const auto& cause : causes_of(*match)) {
      const auto* finding = first_present(cause.findings, present);
      if (finding == nullptr || !named.insert(finding->id).second) continue;
      const bool is_root =
          std::find(report.root_causes.begin(), report.root_causes.end(), finding->id) != report.root_causes.end();
      (is_root ? root : other)
          .push_back({{"finding", finding->id},
                      {"signature", signature_id(*match)},
                      {"family", family_id(*match)},
                      {"cause", cause.cause},
                      {"why", why_backed(*finding)}});
    }
  }
  OrderedJson causes = OrderedJson::array();
  for (auto& cause : root) causes.push_back(std::move(cause));
  for (auto& cause : other) causes.push_back(std::move(cause));
  return causes;
}

OrderedJson next_step(const Match& match) {
  const bool alone = match.signature == nullptr;
  OrderedJson step = {{"signature", signature_id(match)},
                      {"family", family_id(match)},
                      {"logging", alone ? match.family->logging : match.signature->logging},
                      {"command", alone ? match.family->next_step : match.signature->next_step}};
  OrderedJson usual = OrderedJson::array();
  for (const auto& cause : causes_of(match)) usual.push_back(cause.cause);
  step["usual_causes"] = std::move(usual);
  return step;
}

}  // namespace

OrderedJson symptom_section(const std::vector<Match>& matches, const Report& report, std::string_view text_source) {
  const auto present = present_findings(report);
  OrderedJson section = {{"text_source", std::string(text_source)}};
  OrderedJson matched = OrderedJson::array();
  OrderedJson harmless = OrderedJson::array();
  std::vector<const Match*> symptoms;
  for (const auto& match : matches) {
    if (harmless_here(match.signature, present)) {
      harmless.push_back({{"signature", match.signature->id},
                          {"family", family_id(match)},
                          {"component", match.signature->component},
                          {"line", match.line},
                          {"why", match.signature->harmless->why}});
      continue;
    }
    matched.push_back(match_json(match));
    symptoms.push_back(&match);
  }
  section["matches"] = std::move(matched);
  section["causes"] = backed_causes(symptoms, present, report);
  section["harmless"] = std::move(harmless);
  if (symptoms.empty()) {
    section["note"] = matches.empty() ? "No known error message in this text." : "Only usually-harmless messages.";
  } else if (section["causes"].empty()) {
    section["note"] = "Nothing the checks found on this machine backs a cause of this error.";
    section["next_step"] = next_step(*symptoms.front());
  }
  return section;
}

}  // namespace rocm_doctor::symptom
