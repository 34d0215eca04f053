// The pure judgement behind the `access` check: may this process open a GPU
// device node for read/write, and if not, why. No Host calls: the check
// gathers the facts, this decides, tests/checks/access_test.cpp tables it.
#pragma once

#include <optional>
#include <string>

#include "rocm_doctor/host.h"

namespace rocm_doctor::access {

// What the group database says about the group that owns a node.
struct GroupFacts {
  std::optional<std::string> name;  // nullopt: the gid has no name (common in containers)
  bool user_configured = false;     // the user is listed as a member, or it is their primary group
};

enum class Outcome {
  granted,
  denied,
  unknown,  // mode bits deny, an ACL may grant, and nothing was measured
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
  blocked,           // the mode grants rw but the measured access is denied (LSM, cgroup, userns)
};

struct Verdict {
  Outcome outcome = Outcome::denied;
  Basis basis = Basis::other_bits;
  Cause cause = Cause::none;
  bool mode_grants = false;  // what the permission bits alone say (root always true)
  bool via_acl = false;      // granted (or maybe granted) only thanks to a POSIX ACL
};

Verdict judge(const NodeInfo& node, const Identity& identity, const GroupFacts& group);

// `ls -l` style type and permissions, e.g. "crw-rw----+".
std::string mode_string(const NodeInfo& node);

}  // namespace rocm_doctor::access
