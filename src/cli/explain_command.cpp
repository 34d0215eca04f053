#include <fmt/format.h>

#include "cli/cli.h"
#include "core/explain.h"
#include "rocm_doctor/symptom.h"

namespace rocm_doctor {

int explain_command(const std::string& id) {
  const auto text = explain_text(id);
  // Not a finding or check: an error signature's id or name, or a pasted message.
  if (!text) {
    if (const auto described = symptom::explain_symptom(id)) {
      fmt::print("{}", *described);
      return 0;
    }
  }
  if (!text) {
    std::string message = "no finding, check or known error message called '" + id + "'";
    if (auto suggestion = suggest_explain_id(id)) message += " (did you mean '" + *suggestion + "'?)";
    return usage_error(message);
  }
  fmt::print("{}", *text);
  return 0;
}

}  // namespace rocm_doctor
