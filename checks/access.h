// The pure parts of the `access` check: may this process open a GPU device
// node for read/write, and if not, why (access_verdict.cpp), and the fixes its
// findings offer (access_fixes.cpp). No Host calls: the check gathers the
// facts, these decide; tests/checks/access_test.cpp tables the judgement.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/finding.h"
#include "rocm_doctor/host.h"

namespace rocm_doctor::access {

inline constexpr std::string_view kCheckId = "access";

// What the group database says about the group that owns a node.
struct GroupFacts {
  std::optional<std::string> name;  // nullopt: the gid has no name (common in containers)
  bool user_configured = false;     // the user is listed as a member, or it is their primary group
};

enum class Outcome {
  granted,
  denied,
  unknown,  // mode bits deny, an ACL may grant, and nothing was measured
  closed,   // the process's device cgroup refuses it (EPERM): a GPU of another job, by design
};

// Which evidence the outcome rests on.
enum class Basis {
  measured,    // NodeInfo::access, what access(2) said at capture time
  root,        // uid 0, nothing measured
  owner_bits,  // the process owns the node: the owner bits decide
  group_bits,  // the owning gid is among the process's groups: the group bits decide
  other_bits,  // neither: the "other" bits decide
};

// Why a node is denied (none when granted).
enum class Cause {
  none,
  relogin_required,  // configured in the owning group, but the process lacks the gid
  group_missing,     // not configured in the owning group, whose bits would grant rw
  mode_denies,       // the mode gives the process's class no rw (e.g. 0600, group root)
  blocked,           // the mode grants rw but the measured access is denied (LSM, userns)
  device_cgroup,     // access(2) answered EPERM: the device cgroup (Slurm, a container, a pod) refuses it
};

struct Verdict {
  Outcome outcome = Outcome::denied;
  Basis basis = Basis::other_bits;
  Cause cause = Cause::none;
  bool mode_grants = false;  // what the permission bits alone say (root always true)
  bool via_acl = false;      // granted (or maybe granted) only thanks to a POSIX ACL
};

Verdict judge(const NodeInfo& node, const Identity& identity, const GroupFacts& group);

// --- Whose access (access_subject.cpp) ---

// The user a root process stands in for, judged as the group database configures them.
struct JudgedUser {
  Identity identity;  // their uid, primary gid, and the node groups that list them
  std::string note;   // "judged for alice (you ran this as root via sudo)"
};
// Under sudo (SUDO_USER) or when /proc/self/loginuid names another user, and only for
// uid 0: that user, with the groups among `node_gids` they are configured in; else nullopt.
std::optional<JudgedUser> user_behind_root(const Host& host, const Identity& process,
                                           const std::vector<std::uint32_t>& node_gids);

// `ls -l` style type and permissions, e.g. "crw-rw----+".
std::string mode_string(const NodeInfo& node);

// --- Fixes (access_fixes.cpp) ---

// Inside a container: recreate it with the owning `gids` as supplementary groups.
Fix container_group_fix(const std::vector<std::string>& gids);
// `sudo usermod -aG` the named `groups`, then a new login.
Fix usermod_fix(const std::string& user, const std::vector<std::string>& groups);
// Owning `gids` without a name: usermod cannot take them, the group entry must exist first.
Fix unnamed_gid_fix(const std::vector<std::uint32_t>& gids);
// A `uid` without a passwd entry cannot be added to a group at all.
Fix nameless_user_fix(std::uint32_t uid);
// The group is configured but not in this session; `newgrp_group` when a single named group would do.
Fix relogin_fix(const std::optional<std::string>& newgrp_group);
// What to do about a mode that denies or a block the bits do not explain; nullopt for other causes.
std::optional<Fix> cause_fix(Cause cause, bool in_container);

}  // namespace rocm_doctor::access
