// ASCII case folding, part of the text helpers of src/util/text.cpp (rocm_doctor/text.h):
// the same in every locale (bytes outside A-Z / a-z are kept), for the ASCII names of
// sysfs, package databases, policies and the environment.
#pragma once

#include <string>
#include <string_view>

namespace rocm_doctor {

std::string lower(std::string_view text);
std::string upper(std::string_view text);

}  // namespace rocm_doctor
