// The pure judgement of the `access` check (access.h): which permission class
// applies to this process, what the bits say, and why a node is denied.
#include <algorithm>

#include "access.h"

namespace rocm_doctor {

namespace access {
namespace {

bool in_process_groups(const Identity& identity, std::uint32_t gid) {
  return identity.gid == gid || std::find(identity.groups.begin(), identity.groups.end(), gid) != identity.groups.end();
}

// POSIX picks exactly one class: owner if the uid matches, else group, else other.
Basis permission_class(const NodeInfo& node, const Identity& identity) {
  if (identity.uid == node.uid) return Basis::owner_bits;
  if (in_process_groups(identity, node.gid)) return Basis::group_bits;
  return Basis::other_bits;
}

bool class_has_rw(std::uint32_t mode, Basis basis) {
  const int shift = basis == Basis::owner_bits ? 6 : basis == Basis::group_bits ? 3 : 0;
  return ((mode >> shift) & 06U) == 06U;
}

Cause denial_cause(const NodeInfo& node, const Identity& identity, const GroupFacts& group, bool mode_grants) {
  if (mode_grants) return Cause::blocked;
  if (identity.uid == node.uid || node.gid == 0 || (node.mode & 060U) != 060U) return Cause::mode_denies;
  return group.user_configured ? Cause::relogin_required : Cause::group_missing;
}

}  // namespace

Verdict judge(const NodeInfo& node, const Identity& identity, const GroupFacts& group) {
  Verdict verdict;
  const Basis mode_basis = permission_class(node, identity);
  verdict.mode_grants = identity.uid == 0 || class_has_rw(node.mode, mode_basis);
  if (node.access) {
    verdict.basis = Basis::measured;
    verdict.outcome = *node.access == "rw" ? Outcome::granted : Outcome::denied;
    // The permission bits passed and the device cgroup said no: the kernel
    // checks the cgroup only after the mode (inode_permission), with EPERM.
    if (verdict.outcome == Outcome::denied && node.access_error == "EPERM") {
      verdict.outcome = Outcome::closed;
      verdict.cause = Cause::device_cgroup;
      return verdict;
    }
  } else if (identity.uid == 0) {
    verdict.basis = Basis::root;
    verdict.outcome = Outcome::granted;
  } else {
    verdict.basis = mode_basis;
    verdict.outcome = verdict.mode_grants ? Outcome::granted : node.has_acl ? Outcome::unknown : Outcome::denied;
  }
  verdict.via_acl = verdict.outcome != Outcome::denied && !verdict.mode_grants && node.has_acl;
  if (verdict.outcome != Outcome::granted) {
    verdict.cause = denial_cause(node, identity, group, verdict.mode_grants);
  }
  return verdict;
}

std::string mode_string(const NodeInfo& node) {
  std::string text;
  switch (node.type) {
    case EntryType::char_device: text = "c"; break;
    case EntryType::block_device: text = "b"; break;
    case EntryType::directory: text = "d"; break;
    case EntryType::symlink: text = "l"; break;
    default: text = "-"; break;
  }
  for (int shift = 6; shift >= 0; shift -= 3) {
    const auto bits = (node.mode >> shift) & 07U;
    text += (bits & 04U) != 0 ? 'r' : '-';
    text += (bits & 02U) != 0 ? 'w' : '-';
    text += (bits & 01U) != 0 ? 'x' : '-';
  }
  if (node.has_acl) text += '+';
  return text;
}

}  // namespace access

}  // namespace rocm_doctor
