// Quoting for the fix-it commands the doctor prints (and never runs).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor {

// POSIX-shell-safe single word: plain words stay as they are, anything else
// is single-quoted with embedded quotes escaped ('it'\''s').
std::string shell_quote(std::string_view word);

// Joins words into one command line, quoting each.
std::string shell_command(const std::vector<std::string>& words);

}  // namespace rocm_doctor
