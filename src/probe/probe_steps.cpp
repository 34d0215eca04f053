#include "probe/probe_steps.h"

#include <unistd.h>

namespace rocm_doctor::probe {

void mark_step(std::string_view name) {
  std::string line(kStepPrefix);
  line.append(name);
  line.push_back('\n');
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, line.data(), line.size());
}

std::optional<std::string> last_step(std::string_view stderr_text) {
  const auto at = stderr_text.rfind(kStepPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  auto rest = stderr_text.substr(at + kStepPrefix.size());
  rest = rest.substr(0, rest.find('\n'));
  if (rest.empty()) return std::nullopt;
  return std::string(rest);
}

}  // namespace rocm_doctor::probe
