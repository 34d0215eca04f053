// Whose access the `access` check judges. `sudo rocm-doctor` runs as root,
// and root opens every node: the question the user asked is whether THEY
// can, so under sudo (SUDO_USER) or a root process whose login uid names
// another user, the nodes are judged for that user as the group database
// configures them (what their next login gets).
#include <fmt/format.h>

#include <algorithm>

#include "access.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::access {

namespace {

// The kernel's "no login uid" (an unsigned -1).
constexpr std::string_view kNoLoginUid = "4294967295";

// /etc/passwd's entry for `uid`, read through the host (Host looks users up by name only).
std::optional<std::string> user_name_of(const Host& host, std::uint32_t uid) {
  const auto passwd = host.read_file("/etc/passwd");
  if (!passwd) return std::nullopt;
  for (const auto line : lines(*passwd)) {
    const auto fields = split(line, ':');
    if (fields.size() >= 3 && parse_uint(fields[2]) == uid) return std::string(fields[0]);
  }
  return std::nullopt;
}

struct Behind {
  std::string name;
  std::string how;
};

std::optional<Behind> user_behind(const Host& host) {
  if (auto sudo_user = host.env("SUDO_USER"); sudo_user && !sudo_user->empty() && *sudo_user != "root") {
    return Behind{*sudo_user, "you ran this as root via sudo"};
  }
  const auto login = host.read_trimmed("/proc/self/loginuid");
  if (!login || *login == kNoLoginUid) return std::nullopt;
  const auto uid = parse_uint(*login);
  if (!uid || *uid == 0) return std::nullopt;
  if (auto name = user_name_of(host, static_cast<std::uint32_t>(*uid))) {
    return Behind{*name, fmt::format("this runs as root; the login uid {} is {}", *uid, *name)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<JudgedUser> user_behind_root(const Host& host, const Identity& process,
                                           const std::vector<std::uint32_t>& node_gids) {
  if (process.uid != 0) return std::nullopt;
  const auto behind = user_behind(host);
  if (!behind) return std::nullopt;
  const auto entry = host.user_by_name(behind->name);
  if (!entry || entry->uid == 0) return std::nullopt;
  JudgedUser judged;
  judged.identity = Identity{entry->name, entry->uid, entry->gid, {entry->gid}};
  // The groups a new login of the user gets, as far as the nodes' owners go.
  for (const auto gid : node_gids) {
    const auto group = host.group_by_gid(gid);
    if (group && std::find(group->members.begin(), group->members.end(), entry->name) != group->members.end() &&
        std::find(judged.identity.groups.begin(), judged.identity.groups.end(), gid) == judged.identity.groups.end()) {
      judged.identity.groups.push_back(gid);
    }
  }
  judged.note = fmt::format("judged for {} ({})", entry->name, behind->how);
  return judged;
}

}  // namespace rocm_doctor::access
