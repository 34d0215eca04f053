// `rocm-doctor explain ID` for an error signature: everything the catalogue
// knows of one message, as plain text.
#include <fmt/format.h>

#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::symptom {

namespace {

void add_causes(std::string& out, const std::vector<SignatureCause>& causes) {
  out += "Usual causes (most frequent first):\n";
  int number = 1;
  for (const auto& cause : causes) {
    out += fmt::format("  {}. {}\n", number++, cause.cause);
    if (!cause.tell_apart.empty()) out += "     Told apart by: " + cause.tell_apart + "\n";
    if (!cause.findings.empty()) out += "     Findings that show it: " + join(cause.findings, ", ") + "\n";
  }
}

}  // namespace

std::string describe(const Signature& signature) {
  std::string out = "## " + signature.id;
  if (!signature.names.empty()) out += " (" + join(signature.names, ", ") + ")";
  out += "\n\n";
  if (!signature.message.empty()) out += "Message: " + signature.message + "\n";
  out += "Printed by: " + signature.component + "\n";
  out += "Meaning: " + signature.meaning + "\n";
  if (const auto* family = find_family(signature.family)) out += "Family: " + family->id + " (" + family->name + ")\n";
  add_causes(out, signature.causes);
  if (signature.harmless) {
    out += "Usually harmless: " + signature.harmless->why + "\n";
    if (!signature.harmless->unless.empty())
      out += "  A cause only with: " + join(signature.harmless->unless, ", ") + "\n";
  }
  if (!signature.refines.empty()) out += "More specific than: " + join(signature.refines, ", ") + "\n";
  if (!signature.logging.empty()) out += "More logging: " + join(signature.logging, " ") + "\n";
  if (!signature.next_step.empty()) out += "Next step: " + signature.next_step + "\n";
  out += "Sources:\n";
  for (const auto& source : signature.sources) out += "  - " + source + "\n";
  return out;
}

std::string describe(const Family& family) {
  std::string out = "## " + family.id + " (family: " + family.name + ")\n\n";
  out += "Printed by: " + family.component + "\n";
  out += "Meaning: " + family.meaning + "\n";
  add_causes(out, family.causes);
  std::vector<std::string> members;
  for (const auto& signature : signatures()) {
    if (signature.family == family.id) members.push_back(signature.id);
  }
  out += "Known messages (signatures): " + (members.empty() ? std::string("none") : join(members, ", ")) + "\n";
  if (!family.logging.empty()) out += "More logging: " + join(family.logging, " ") + "\n";
  if (!family.next_step.empty()) out += "Next step: " + family.next_step + "\n";
  out += "Sources:\n";
  for (const auto& source : family.sources) out += "  - " + source + "\n";
  return out;
}

std::optional<std::string> explain_symptom(std::string_view id_or_message) {
  if (const auto* known = find_signature(id_or_message)) return describe(*known);
  if (const auto* family = find_family(id_or_message)) return describe(*family);
  const auto matches = default_matcher().scan(id_or_message);
  if (matches.empty()) return std::nullopt;
  if (matches.front().signature != nullptr) return describe(*matches.front().signature);
  return describe(*matches.front().family);
}

}  // namespace rocm_doctor::symptom
