#include "host/account_files.h"

#include <limits>

#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {
std::optional<std::uint32_t> parse_id(std::string_view text) {
  const auto value = parse_uint(text);
  if (!value || *value > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}
}  // namespace

std::vector<GroupEntry> parse_group_file(std::string_view text) {
  std::vector<GroupEntry> groups;
  for (const auto line : lines(text)) {
    if (line.empty() || line.front() == '#') continue;
    const auto fields = split(line, ':');
    if (fields.size() < 4 || fields[0].empty()) continue;
    const auto gid = parse_id(fields[2]);
    if (!gid) continue;
    GroupEntry group{std::string(fields[0]), *gid, {}};
    for (const auto member : split(trim(fields[3]), ',')) {
      if (!trim(member).empty()) group.members.emplace_back(trim(member));
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<UserEntry> parse_passwd_file(std::string_view text) {
  std::vector<UserEntry> users;
  for (const auto line : lines(text)) {
    if (line.empty() || line.front() == '#') continue;
    const auto fields = split(line, ':');
    if (fields.size() < 7 || fields[0].empty()) continue;
    const auto uid = parse_id(fields[2]);
    const auto gid = parse_id(fields[3]);
    if (!uid || !gid) continue;
    users.push_back({std::string(fields[0]), *uid, *gid, std::string(fields[5]), std::string(trim(fields[6]))});
  }
  return users;
}

std::string format_group_line(const GroupEntry& group) {
  std::string line = group.name + ":x:" + std::to_string(group.gid) + ":";
  for (std::size_t i = 0; i < group.members.size(); ++i) {
    line += (i > 0 ? "," : "") + group.members[i];
  }
  return line;
}

std::string format_passwd_line(const UserEntry& user) {
  return user.name + ":x:" + std::to_string(user.uid) + ":" + std::to_string(user.gid) + "::" + user.home + ":" +
         user.shell;
}

}  // namespace rocm_doctor
