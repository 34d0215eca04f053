// `rocm-doctor explain ID` for an error signature: everything the catalogue
// knows of one message, as plain text.
#include <fmt/format.h>

#include "rocm_doctor/symptom.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::symptom {

namespace {

void add_causes(std::string& out, const Signature& signature) {
  out += "Usual causes (most frequent first):\n";
  int number = 1;
  for (const auto& cause : signature.causes) {
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
  add_causes(out, signature);
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

const Signature* signature_for(std::string_view id_or_message) {
  if (const auto* known = find_signature(id_or_message)) return known;
  const auto matches = default_matcher().scan(id_or_message);
  if (matches.empty()) return nullptr;
  return find_signature(matches.front().signature->id);
}

}  // namespace rocm_doctor::symptom
