// Pure part of the `python-site` check.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rocm_doctor {

// "amdsmi-7.0.2.dist-info" -> {"amdsmi", "7.0.2"}; "amdsmi-24.6.2+9f8f.egg-info" ->
// {"amdsmi", "24.6.2+9f8f"}; anything else (no version, another suffix) -> nullopt.
std::optional<std::pair<std::string, std::string>> parse_dist_info_name(std::string_view folder);

}  // namespace rocm_doctor
