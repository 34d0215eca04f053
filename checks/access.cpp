// `access`: can this process open /dev/kfd and every /dev/dri/renderD* for
// read/write? Measured access(2) results win over the permission bits; the
// group database says whether a missing gid needs `usermod` or a new login.
#include "access.h"

#include <fmt/format.h>

#include <algorithm>

#include "rocm_doctor/check.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::access_check {

namespace {

using access::Cause;
using access::kCheckId;
using access::Outcome;

constexpr std::string_view kKfd = "/dev/kfd";

// One device node with everything the findings need to explain it.
struct NodeReport {
  std::string path;
  NodeInfo node;
  access::GroupFacts group;
  access::Verdict verdict;
};

// What the findings say about the running process and the machine.
struct Subject {
  Identity identity;
  std::string container;  // SystemFacts::container
  // "judged for alice (you ran this as root via sudo)" when a root process stands
  // in for a user (access_subject.cpp); empty when the process is judged itself.
  std::string judged_for;
};

access::GroupFacts group_facts(const Host& host, const Identity& identity, std::uint32_t gid) {
  access::GroupFacts facts;
  const auto group = host.group_by_gid(gid);
  if (group) facts.name = group->name;
  if (identity.user.empty()) return facts;
  if (group && std::find(group->members.begin(), group->members.end(), identity.user) != group->members.end()) {
    facts.user_configured = true;
  } else if (const auto user = host.user_by_name(identity.user)) {
    facts.user_configured = user->gid == gid;
  }
  return facts;
}

std::vector<std::string> render_node_paths(const Host& host) {
  std::vector<std::string> paths;
  const auto entries = host.list_dir("/dev/dri");
  if (!entries) return paths;
  for (const auto& entry : *entries) {
    if (entry.name.starts_with("renderD")) paths.push_back("/dev/dri/" + entry.name);
  }
  return paths;
}

std::optional<NodeReport> inspect(const Host& host, const Subject& subject, const std::string& path) {
  auto node = host.stat_node(path);
  // Something else at a device path (a directory from a volume mount) grants
  // nothing to judge: the driver check names it (driver.kfd-not-a-device).
  if (!node || node->type != EntryType::char_device) return std::nullopt;
  // What root measured says nothing of the user it stands in for: their bits decide.
  if (!subject.judged_for.empty()) {
    node->access.reset();
    node->access_error.reset();
  }
  const auto& identity = subject.identity;
  NodeReport report{path, *node, group_facts(host, identity, node->gid), {}};
  report.verdict = access::judge(report.node, identity, report.group);
  return report;
}

// "render (110)" or "gid 110 (no name in the group database)".
std::string group_label(const NodeReport& report) {
  if (report.group.name) return fmt::format("{} ({})", *report.group.name, report.node.gid);
  return fmt::format("gid {} (no name in the group database)", report.node.gid);
}

std::string basis_text(const NodeReport& report, const Identity& identity) {
  switch (report.verdict.basis) {
    case access::Basis::measured:
      return "measured with access(2): " + *report.node.access +
             (report.node.access_error ? " (" + *report.node.access_error + ")" : std::string());
    case access::Basis::root: return "running as root (uid 0)";
    case access::Basis::owner_bits: return fmt::format("judged from the owner bits: uid {} owns it", identity.uid);
    case access::Basis::group_bits:
      return fmt::format("judged from the group bits: gid {} is among this process's groups", report.node.gid);
    case access::Basis::other_bits: return "judged from the bits for others (not the owner, not in its group)";
  }
  return "";
}

Evidence node_evidence(const NodeReport& report, const Identity& identity) {
  return {report.path, fmt::format("{} uid {}, group {}; {}", access::mode_string(report.node), report.node.uid,
                                   group_label(report), basis_text(report, identity))};
}

Evidence judged_for_evidence(const Subject& subject) {
  return {"judged for", subject.judged_for};
}

Evidence identity_evidence(const Identity& identity) {
  std::vector<std::string> gids;
  for (const auto gid : identity.groups) gids.push_back(std::to_string(gid));
  const auto user = identity.user.empty() ? std::string("(no user name)") : identity.user;
  return {"process identity",
          fmt::format("user {} uid {} gid {} groups [{}]", user, identity.uid, identity.gid, join(gids, ", "))};
}

std::vector<const NodeReport*> select(const std::vector<NodeReport>& reports, auto predicate) {
  std::vector<const NodeReport*> selected;
  for (const auto& report : reports) {
    if (predicate(report)) selected.push_back(&report);
  }
  return selected;
}

// Distinct owning-group names (in node order) and the gids that have no name.
struct OwningGroups {
  std::vector<std::string> names;
  std::vector<std::uint32_t> unnamed;
};

OwningGroups owning_groups(const std::vector<const NodeReport*>& reports) {
  OwningGroups groups;
  for (const auto* report : reports) {
    if (report->group.name) {
      if (std::find(groups.names.begin(), groups.names.end(), *report->group.name) == groups.names.end()) {
        groups.names.push_back(*report->group.name);
      }
    } else if (std::find(groups.unnamed.begin(), groups.unnamed.end(), report->node.gid) == groups.unnamed.end()) {
      groups.unnamed.push_back(report->node.gid);
    }
  }
  return groups;
}

std::vector<std::string> group_labels(const std::vector<const NodeReport*>& reports) {
  std::vector<std::string> labels;
  for (const auto* report : reports) {
    auto label = group_label(*report);
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(std::move(label));
  }
  return labels;
}

std::vector<std::string> owning_gids(const std::vector<const NodeReport*>& reports) {
  std::vector<std::string> gids;
  for (const auto* report : reports) {
    const auto gid = std::to_string(report->node.gid);
    if (std::find(gids.begin(), gids.end(), gid) == gids.end()) gids.push_back(gid);
  }
  return gids;
}

std::string paths_of(const std::vector<const NodeReport*>& reports) {
  std::vector<std::string> paths;
  for (const auto* report : reports) paths.push_back(report->path);
  return join(paths, ", ");
}

Finding group_missing_finding(const std::vector<const NodeReport*>& reports, const Subject& subject) {
  const auto groups = owning_groups(reports);
  const auto& user = subject.identity.user;
  const auto labels = group_labels(reports);
  const bool render_owned = std::find(groups.names.begin(), groups.names.end(), "render") != groups.names.end();
  auto finding =
      make_finding("access.group-missing", Severity::error,
                   fmt::format("{} is not in the group that owns {}",
                               user.empty() ? fmt::format("uid {}", subject.identity.uid) : user, paths_of(reports)))
          .because(fmt::format(
              "The nodes give read/write to their owning group ({}), and this user is neither a member nor has it "
              "as primary group, so ROCm cannot open them.{}",
              join(labels, ", "),
              render_owned ? " On current Ubuntu the GPU nodes belong to `render`: being in `video` is not enough."
                           : ""));
  finding.evidence.push_back(identity_evidence(subject.identity));
  for (const auto* report : reports) finding.evidence.push_back(node_evidence(*report, subject.identity));
  if (!subject.container.empty()) return finding.with_fix(access::container_group_fix(owning_gids(reports)));
  if (!groups.names.empty() && !user.empty()) finding.with_fix(access::usermod_fix(user, groups.names));
  if (!groups.unnamed.empty()) finding.with_fix(access::unnamed_gid_fix(groups.unnamed));
  if (user.empty()) finding.with_fix(access::nameless_user_fix(subject.identity.uid));
  return finding;
}

Finding relogin_finding(const std::vector<const NodeReport*>& reports, const Subject& subject) {
  const auto groups = owning_groups(reports);
  const auto labels = group_labels(reports);
  auto finding =
      make_finding("access.relogin-required", Severity::error,
                   fmt::format("{} was added to {} but this session does not have the group yet", subject.identity.user,
                               join(labels, ", ")))
          .because(fmt::format(
              "The group database already lists {} in {} (the `sudo usermod` already happened), but a process "
              "keeps the groups it had when the session started: the running one lacks them, so it cannot open {}.",
              subject.identity.user, join(labels, ", "), paths_of(reports)));
  finding.evidence.push_back(identity_evidence(subject.identity));
  for (const auto* report : reports) finding.evidence.push_back(node_evidence(*report, subject.identity));
  if (!subject.container.empty()) return finding.with_fix(access::container_group_fix(owning_gids(reports)));
  const bool one_named_group = groups.names.size() == 1 && groups.unnamed.empty();
  return finding.with_fix(access::relogin_fix(one_named_group ? std::optional(groups.names[0]) : std::nullopt));
}

std::string cause_text(const NodeReport& report) {
  switch (report.verdict.cause) {
    case Cause::relogin_required: return "its group is configured but not in this session (access.relogin-required)";
    case Cause::group_missing: return "not in its owning group (access.group-missing)";
    case Cause::mode_denies:
      return fmt::format("its mode {} owned by group {} gives this process no read/write",
                         access::mode_string(report.node), group_label(report));
    case Cause::blocked:
      return "the permission bits allow it, yet access(2) was refused: a security module (SELinux, AppArmor), "
             "a container's device rules, or a user namespace that does not map the owning group";
    case Cause::device_cgroup:
      return "the permission bits allow it, yet access(2) answered EPERM: the device cgroup of this job, container "
             "or pod does not include it";
    case Cause::none: break;
  }
  return "";
}

Finding denied_finding(std::string id, const std::vector<const NodeReport*>& reports, const Subject& subject,
                       std::string_view why) {
  std::vector<std::string> causes;
  for (const auto* report : reports) causes.push_back(report->path + ": " + cause_text(*report));
  auto finding = make_finding(std::move(id), Severity::error,
                              fmt::format("This process cannot open {} for read/write", paths_of(reports)))
                     .because(fmt::format("{} Why: {}.", why, join(causes, "; ")));
  for (const auto* report : reports) finding.evidence.push_back(node_evidence(*report, subject.identity));
  std::vector<Cause> seen;
  for (const auto* report : reports) {
    const auto cause = report->verdict.cause;
    if (std::find(seen.begin(), seen.end(), cause) != seen.end()) continue;
    seen.push_back(cause);
    if (auto fix = access::cause_fix(cause, !subject.container.empty())) finding.with_fix(*fix);
  }
  return finding;
}

Finding acl_finding(const std::vector<const NodeReport*>& reports, const Subject& subject) {
  const bool measured = std::all_of(reports.begin(), reports.end(),
                                    [](const auto* report) { return report->verdict.outcome == Outcome::granted; });
  auto finding =
      make_finding("access.acl-only", Severity::info,
                   measured
                       ? fmt::format("Access to {} comes from a POSIX ACL, not from a group", paths_of(reports))
                       : fmt::format("{} may be reachable only through a POSIX ACL (not measured)", paths_of(reports)))
          .because(
              "The desktop (systemd-logind) grants the user at the local seat access to GPU nodes with an ACL "
              "(the '+' of ls -l). SSH sessions, cron jobs, services and containers do not get it, and it ends "
              "at logout: ROCm works in the desktop session only.");
  for (const auto* report : reports) finding.evidence.push_back(node_evidence(*report, subject.identity));
  std::vector<const NodeReport*> unconfigured;
  for (const auto* report : reports) {
    if (!report->group.user_configured && report->node.gid != 0) unconfigured.push_back(report);
  }
  const auto groups = owning_groups(unconfigured);
  if (subject.container.empty() && !subject.identity.user.empty() && !groups.names.empty()) {
    auto fix = access::usermod_fix(subject.identity.user, groups.names);
    fix.description = "Optional, to use the GPU outside the desktop session too: " + fix.description;
    finding.with_fix(fix);
  }
  return finding;
}

Finding ok_finding(const std::vector<NodeReport>& reports, const Subject& subject) {
  const auto closed = static_cast<std::size_t>(std::count_if(
      reports.begin(), reports.end(), [](const auto& r) { return r.verdict.outcome == Outcome::closed; }));
  const auto renders = reports.size() - 1 - closed;
  auto what = fmt::format("/dev/kfd and {} render node{}", renders, renders == 1 ? "" : "s");
  std::string summary = subject.identity.uid == 0 ? "Running as root: " + what + " are open to this process"
                                                  : "This process can open " + what + " for read/write";
  if (!subject.judged_for.empty()) {
    summary = fmt::format("{} can open {} for read/write ({})", subject.identity.user, what, subject.judged_for);
  }
  if (closed > 0) {
    summary += fmt::format("; {} more {} closed by its device cgroup (GPUs of other jobs)", closed,
                           closed == 1 ? "is" : "are");
  }
  auto finding = make_finding("access.ok", Severity::ok, summary)
                     .because(closed == 0 ? "ROCm opens /dev/kfd and the render node of every GPU it uses."
                                          : "ROCm opens /dev/kfd and the render node of every GPU it uses. A job "
                                            "(Slurm ConstrainDevices=yes, a container's --device list, a pod's "
                                            "device plugin) is given some GPUs: the others' render nodes answer "
                                            "EPERM and ROCm skips them, which is how it should be (the job check "
                                            "lists the GPUs this job may use).");
  finding.evidence.push_back(identity_evidence(subject.identity));
  for (const auto& report : reports) finding.evidence.push_back(node_evidence(report, subject.identity));
  return finding;
}

// Root with nobody behind it (no sudo, no other login uid): root opens every node,
// which says nothing about the users who will run GPU programs.
Finding root_alone_finding(const Identity& identity) {
  return make_finding("access.root-no-user", Severity::info,
                      "Running as root with no user behind it: access is judged for root, who opens every node")
      .because(
          "Root (or a container's root) may open /dev/kfd and every render node whatever their groups. The users "
          "who run GPU programs need the owning groups (render, video): run rocm-doctor as that user, or with sudo "
          "from their login, to have their access judged.")
      .with_evidence("process identity", fmt::format("uid {} gid {}", identity.uid, identity.gid))
      .with_evidence("/proc/self/loginuid and SUDO_USER", "no other user");
}

std::vector<Finding> findings_for(const std::vector<NodeReport>& reports, const Subject& subject) {
  const auto denied = [](const NodeReport& r) { return r.verdict.outcome == Outcome::denied; };
  const auto kfd = select(
      reports, [&](const auto& r) { return (denied(r) || r.verdict.outcome == Outcome::closed) && r.path == kKfd; });
  const auto render = select(reports, [&](const auto& r) { return denied(r) && r.path != kKfd; });
  const auto missing =
      select(reports, [&](const auto& r) { return denied(r) && r.verdict.cause == Cause::group_missing; });
  const auto relogin =
      select(reports, [&](const auto& r) { return denied(r) && r.verdict.cause == Cause::relogin_required; });
  const auto acl = select(reports, [](const auto& r) { return r.verdict.via_acl; });
  std::vector<Finding> findings;
  if (!kfd.empty()) {
    findings.push_back(denied_finding("access.kfd-denied", kfd, subject,
                                      "ROCm talks to every GPU through /dev/kfd: without it rocminfo fails with "
                                      "'Unable to open /dev/kfd read-write' and HIP sees no device."));
  }
  if (!render.empty()) {
    findings.push_back(denied_finding("access.render-denied", render, subject,
                                      "ROCm uses the render node of each GPU: a GPU whose node is closed is invisible "
                                      "to HIP or fails when allocating memory."));
  }
  if (!missing.empty()) findings.push_back(group_missing_finding(missing, subject));
  if (!relogin.empty()) findings.push_back(relogin_finding(relogin, subject));
  if (!acl.empty()) findings.push_back(acl_finding(acl, subject));
  // A render node the device cgroup closes belongs to another job's GPU: not a denial.
  const auto usable = [](const NodeReport& r) {
    return r.verdict.outcome == Outcome::granted || (r.verdict.outcome == Outcome::closed && r.path != kKfd);
  };
  if (kfd.empty() && std::all_of(reports.begin(), reports.end(), usable)) {
    findings.push_back(ok_finding(reports, subject));
  }
  if (!subject.judged_for.empty()) {
    for (auto& finding : findings) finding.evidence.insert(finding.evidence.begin(), judged_for_evidence(subject));
  }
  return findings;
}

// The process, or the user a root process stands in for (access_subject.cpp).
Subject subject_of(const Host& host, const SystemFacts& facts, const std::vector<std::string>& paths) {
  Subject subject{host.identity(), facts.container, ""};
  std::vector<std::uint32_t> gids;
  for (const auto& path : paths) {
    if (const auto node = host.stat_node(path)) gids.push_back(node->gid);
  }
  if (auto judged = access::user_behind_root(host, subject.identity, gids)) {
    subject.identity = std::move(judged->identity);
    subject.judged_for = std::move(judged->note);
  }
  return subject;
}

class AccessCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "GPU device access"; }
  int order() const override { return 30; }
  std::vector<std::string_view> finding_ids() const override {
    return {"access.ok",
            "access.kfd-denied",
            "access.render-denied",
            "access.group-missing",
            "access.relogin-required",
            "access.acl-only",
            "access.root-no-user"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode) return CheckOutcome::skipped("building an image: no GPU device nodes expected");
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.wsl) return CheckOutcome::skipped("WSL reaches the GPU through /dev/dxg: there is no /dev/kfd");
    const Host& host = ctx.host();
    std::vector<std::string> paths = {std::string(kKfd)};
    for (auto& path : render_node_paths(host)) paths.push_back(std::move(path));
    const auto subject = subject_of(host, facts, paths);
    auto kfd = inspect(host, subject, paths.front());
    if (!kfd) return CheckOutcome::skipped("/dev/kfd does not exist or is not a device: the driver check tells why");
    std::vector<NodeReport> reports = {*kfd};
    for (std::size_t i = 1; i < paths.size(); ++i) {
      if (auto report = inspect(host, subject, paths[i])) reports.push_back(*report);
    }
    auto findings = findings_for(reports, subject);
    if (subject.identity.uid == 0) findings.push_back(root_alone_finding(subject.identity));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::access_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::access_check::AccessCheck)
