// Parsers for /etc/group and /etc/passwd (colon-separated, one entry a line).
#pragma once

#include <string_view>
#include <vector>

#include "rocm_doctor/host.h"

namespace rocm_doctor {

// Malformed lines (too few fields, a non-numeric id) are skipped.
std::vector<GroupEntry> parse_group_file(std::string_view text);
std::vector<UserEntry> parse_passwd_file(std::string_view text);

std::string format_group_line(const GroupEntry& group);
std::string format_passwd_line(const UserEntry& user);

}  // namespace rocm_doctor
