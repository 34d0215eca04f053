// Progress markers a probe child writes to its stderr before each vendor
// call, so a crash or a hang can be pinned to the call that caused it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rocm_doctor::probe {

inline constexpr std::string_view kStepPrefix = "rocm-doctor-probe: step ";

// Writes "rocm-doctor-probe: step <name>\n" to stderr (unbuffered).
void mark_step(std::string_view name);

// The last step named in a stderr text, if any.
std::optional<std::string> last_step(std::string_view stderr_text);

}  // namespace rocm_doctor::probe
