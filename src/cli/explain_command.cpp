#include <fmt/format.h>

#include "cli/cli.h"
#include "core/explain.h"

namespace rocm_doctor {

int explain_command(const std::string& id) {
  const auto text = explain_text(id);
  if (!text) {
    std::string message = "no finding or check called '" + id + "'";
    if (auto suggestion = suggest_explain_id(id)) message += " (did you mean '" + *suggestion + "'?)";
    return usage_error(message);
  }
  fmt::print("{}", *text);
  return 0;
}

}  // namespace rocm_doctor
