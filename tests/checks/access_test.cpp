// The `access` check: a table for the pure judgement, then whole runs on
// snapshots built in a few lines (ids, severities, exact fix commands).
#include "../../checks/access.h"

#include <gtest/gtest.h>

#include <ostream>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using access::Basis;
using access::Cause;
using access::Outcome;
using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

NodeInfo node(std::uint32_t mode, std::uint32_t uid, std::uint32_t gid, bool acl = false,
              std::optional<std::string> measured = std::nullopt) {
  return NodeInfo{EntryType::char_device, mode, uid, gid, acl, std::move(measured)};
}

Identity person(std::uint32_t uid, std::vector<std::uint32_t> groups) {
  return Identity{"alice", uid, uid, std::move(groups)};
}

struct JudgeCase {
  const char* name;
  NodeInfo node;
  Identity identity;
  access::GroupFacts group;
  Outcome outcome;
  Basis basis;
  Cause cause;
  bool via_acl;
};

// Names the case in test listings (gtest would print a hex dump of the struct).
void PrintTo(const JudgeCase& c, std::ostream* os) {
  *os << c.name;
}

const access::GroupFacts kRenderMember{"render", true};
const access::GroupFacts kRenderStranger{"render", false};

class Judge : public ::testing::TestWithParam<JudgeCase> {};

TEST_P(Judge, DecidesOutcomeBasisAndCause) {
  const auto& c = GetParam();
  const auto verdict = access::judge(c.node, c.identity, c.group);
  EXPECT_EQ(verdict.outcome, c.outcome);
  EXPECT_EQ(verdict.basis, c.basis);
  EXPECT_EQ(verdict.cause, c.cause);
  EXPECT_EQ(verdict.via_acl, c.via_acl);
}

INSTANTIATE_TEST_SUITE_P(
    Table, Judge,
    ::testing::Values(
        JudgeCase{"in_group", node(0660, 0, 110), person(1000, {1000, 110}), kRenderMember, Outcome::granted,
                  Basis::group_bits, Cause::none, false},
        JudgeCase{"primary_gid_counts", node(0660, 0, 110), Identity{"alice", 1000, 110, {}}, kRenderMember,
                  Outcome::granted, Basis::group_bits, Cause::none, false},
        JudgeCase{"configured_not_in_session", node(0660, 0, 110), person(1000, {1000, 44}), kRenderMember,
                  Outcome::denied, Basis::other_bits, Cause::relogin_required, false},
        JudgeCase{"not_configured", node(0660, 0, 110), person(1000, {1000, 44}), kRenderStranger, Outcome::denied,
                  Basis::other_bits, Cause::group_missing, false},
        JudgeCase{"unnamed_gid", node(0660, 0, 109), person(1000, {1000}), access::GroupFacts{}, Outcome::denied,
                  Basis::other_bits, Cause::group_missing, false},
        JudgeCase{"world_rw", node(0666, 0, 110), person(1000, {1000}), kRenderStranger, Outcome::granted,
                  Basis::other_bits, Cause::none, false},
        JudgeCase{"world_read_only", node(0664, 0, 110), person(1000, {1000}), kRenderStranger, Outcome::denied,
                  Basis::other_bits, Cause::group_missing, false},
        JudgeCase{"group_read_only", node(0640, 0, 110), person(1000, {1000, 110}), kRenderMember, Outcome::denied,
                  Basis::group_bits, Cause::mode_denies, false},
        JudgeCase{"owned_by_root_group", node(0660, 0, 0), person(1000, {1000}), access::GroupFacts{"root", false},
                  Outcome::denied, Basis::other_bits, Cause::mode_denies, false},
        // POSIX: the owner class decides alone, even when "other" would grant.
        JudgeCase{"owner_without_rw", node(0066, 1000, 110), person(1000, {1000, 110}), kRenderMember, Outcome::denied,
                  Basis::owner_bits, Cause::mode_denies, false},
        JudgeCase{"owner_rw", node(0600, 1000, 110), person(1000, {1000}), kRenderStranger, Outcome::granted,
                  Basis::owner_bits, Cause::none, false},
        JudgeCase{"root", node(0600, 0, 0), person(0, {0}), access::GroupFacts{"root", true}, Outcome::granted,
                  Basis::root, Cause::none, false},
        JudgeCase{"root_measured_denied", node(0660, 0, 110, false, "none"), person(0, {0}), kRenderStranger,
                  Outcome::denied, Basis::measured, Cause::blocked, false},
        JudgeCase{"measured_rw_wins", node(0660, 0, 110, false, "rw"), person(1000, {1000}), kRenderStranger,
                  Outcome::granted, Basis::measured, Cause::none, false},
        JudgeCase{"measured_none_despite_group", node(0660, 0, 110, false, "none"), person(1000, {1000, 110}),
                  kRenderMember, Outcome::denied, Basis::measured, Cause::blocked, false},
        JudgeCase{"measured_read_only_is_denied", node(0660, 0, 110, false, "r"), person(1000, {1000, 110}),
                  kRenderMember, Outcome::denied, Basis::measured, Cause::blocked, false},
        JudgeCase{"measured_none_not_in_group", node(0660, 0, 110, false, "none"), person(1000, {1000}),
                  kRenderStranger, Outcome::denied, Basis::measured, Cause::group_missing, false},
        JudgeCase{"acl_measured", node(0660, 0, 110, true, "rw"), person(1000, {1000}), kRenderStranger,
                  Outcome::granted, Basis::measured, Cause::none, true},
        JudgeCase{"acl_not_needed_in_group", node(0660, 0, 110, true, "rw"), person(1000, {1000, 110}), kRenderMember,
                  Outcome::granted, Basis::measured, Cause::none, false},
        JudgeCase{"acl_unmeasured", node(0660, 0, 110, true), person(1000, {1000}), kRenderStranger, Outcome::unknown,
                  Basis::other_bits, Cause::group_missing, true},
        JudgeCase{"acl_measured_denied", node(0660, 0, 110, true, "none"), person(1000, {1000}), kRenderMember,
                  Outcome::denied, Basis::measured, Cause::relogin_required, false}),
    [](const auto& info) { return std::string(info.param.name); });

// EPERM from access(2) is the device cgroup's answer (the kernel asks it after
// the permission bits pass): another job's GPU, closed by design.
TEST(AccessJudge, EpermIsTheDeviceCgroupClosingTheNode) {
  auto closed = node(0666, 0, 110, false, "none");
  closed.access_error = "EPERM";
  const auto verdict = access::judge(closed, person(1000, {1000}), kRenderStranger);
  EXPECT_EQ(verdict.outcome, Outcome::closed);
  EXPECT_EQ(verdict.basis, Basis::measured);
  EXPECT_EQ(verdict.cause, Cause::device_cgroup);
  auto refused = node(0666, 0, 110, false, "none");
  refused.access_error = "EACCES";
  EXPECT_EQ(access::judge(refused, person(1000, {1000}), kRenderStranger).cause, Cause::blocked);
}

TEST(AccessCheck, ClosedRenderNodesAreNotDenialsButAClosedKfdIs) {
  SnapshotBuilder builder;
  builder.identity("alice", 1000, 1000, {1000, 110});
  builder.node("/dev/kfd", testing::Node::chr("0666", 0, 110).with_access("rw"));
  builder.node("/dev/dri/renderD128", testing::Node::chr("0660", 0, 110).with_access("rw"));
  builder.node("/dev/dri/renderD129", testing::Node::chr("0660", 0, 110).closed_by_cgroup());
  auto host = builder.open();
  const auto report = run_on(*host, {"access"});
  EXPECT_EQ(find_finding(report, "access.render-denied"), nullptr);
  const auto* ok = find_finding(report, "access.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_NE(ok->summary.find("1 render node for read/write; 1 more is closed by its device cgroup"), std::string::npos)
      << ok->summary;

  SnapshotBuilder no_kfd;
  no_kfd.identity("alice", 1000, 1000, {1000, 110});
  no_kfd.node("/dev/kfd", testing::Node::chr("0666", 0, 110).closed_by_cgroup());
  no_kfd.node("/dev/dri/renderD128", testing::Node::chr("0660", 0, 110).with_access("rw"));
  auto closed_host = no_kfd.open();
  const auto closed_report = run_on(*closed_host, {"access"});
  const auto* denied = find_finding(closed_report, "access.kfd-denied");
  ASSERT_NE(denied, nullptr);
  EXPECT_NE(denied->detail.find("answered EPERM"), std::string::npos) << denied->detail;
  EXPECT_EQ(find_finding(closed_report, "access.ok"), nullptr);
}

TEST(AccessModeString, LooksLikeLs) {
  EXPECT_EQ(access::mode_string(node(0660, 0, 110)), "crw-rw----");
  EXPECT_EQ(access::mode_string(node(0666, 0, 110, true)), "crw-rw-rw-+");
}

testing::Node owned(const std::string& mode, std::uint32_t gid) {
  testing::Node result;
  result.mode = mode;
  result.gid = gid;
  return result;
}

// An Ubuntu 22.04 box: kfd and one render node owned by render (110).
void ubuntu(SnapshotBuilder& builder, const std::string& group_file, const std::string& passwd_file = "") {
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS")
      .kernel("6.5.0-28-generic")
      .file("/etc/group", group_file)
      .file("/etc/passwd", passwd_file.empty() ? "root:x:0:0:root:/root:/bin/bash\n"
                                                 "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n"
                                               : passwd_file)
      .node("/dev/kfd", owned("0660", 110))
      .node("/dev/dri/renderD128", owned("0660", 110))
      .node("/dev/dri/card0", owned("0660", 44));
}

constexpr const char* kGroups = "root:x:0:\nvideo:x:44:\nrender:x:110:\nalice:x:1000:\n";

Report run_access(SnapshotBuilder& builder, RunOptions options = {}) {
  auto host = builder.open();
  return run_on(*host, {"access"}, std::move(options));
}

TEST(AccessCheck, GroupMissingGivesUsermodWithTheOwningGroup) {
  SnapshotBuilder builder;
  ubuntu(builder, kGroups);
  builder.identity("alice", 1000, 1000, {1000});
  const auto report = run_access(builder);
  ASSERT_NE(find_finding(report, "access.kfd-denied"), nullptr);
  ASSERT_NE(find_finding(report, "access.render-denied"), nullptr);
  const auto* missing = find_finding(report, "access.group-missing");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->severity, Severity::error);
  ASSERT_EQ(missing->fixes.size(), 1U);
  EXPECT_EQ(missing->fixes[0].commands, std::vector<std::string>{"sudo usermod -aG render alice"});
  EXPECT_TRUE(missing->fixes[0].needs_root);
  EXPECT_TRUE(missing->fixes[0].needs_relogin);
  EXPECT_EQ(missing->fixes[0].verify, verify_command("access"));
  EXPECT_EQ(find_finding(report, "access.ok"), nullptr);
  EXPECT_EQ(find_finding(report, "access.relogin-required"), nullptr);
}

TEST(AccessCheck, UserNameWithQuoteAndSpaceIsQuoted) {
  SnapshotBuilder builder;
  ubuntu(builder, kGroups, "o'brien jr:x:1001:1001::/home/obrien:/bin/bash\n");
  builder.identity("o'brien jr", 1001, 1001, {1001});
  const auto report = run_access(builder);
  const auto* missing = find_finding(report, "access.group-missing");
  ASSERT_NE(missing, nullptr);
  ASSERT_EQ(missing->fixes.size(), 1U);
  EXPECT_EQ(missing->fixes[0].commands, std::vector<std::string>{"sudo usermod -aG render 'o'\\''brien jr'"});
}

TEST(AccessCheck, ConfiguredButNotLoggedInAgain) {
  SnapshotBuilder builder;
  ubuntu(builder, "root:x:0:\nvideo:x:44:alice\nrender:x:110:alice\nalice:x:1000:\n");
  builder.identity("alice", 1000, 1000, {1000, 44});
  const auto report = run_access(builder);
  const auto* relogin = find_finding(report, "access.relogin-required");
  ASSERT_NE(relogin, nullptr);
  ASSERT_EQ(relogin->fixes.size(), 1U);
  EXPECT_EQ(relogin->fixes[0].commands, std::vector<std::string>{"newgrp render"});
  EXPECT_TRUE(relogin->fixes[0].needs_relogin);
  EXPECT_FALSE(relogin->fixes[0].needs_root);
  EXPECT_EQ(find_finding(report, "access.group-missing"), nullptr);
}

TEST(AccessCheck, PrimaryGroupInPasswdCountsAsConfigured) {
  SnapshotBuilder builder;
  ubuntu(builder, kGroups, "alice:x:1000:110:Alice:/home/alice:/bin/bash\n");
  builder.identity("alice", 1000, 1000, {1000});
  const auto report = run_access(builder);
  EXPECT_NE(find_finding(report, "access.relogin-required"), nullptr);
  EXPECT_EQ(find_finding(report, "access.group-missing"), nullptr);
}

TEST(AccessCheck, ContainerWithUnnamedGidGetsGroupAdd) {
  SnapshotBuilder builder;
  ubuntu(builder, "root:x:0:\nvideo:x:44:\n");
  builder.file("/.dockerenv", "").identity("alice", 1000, 1000, {1000});
  const auto report = run_access(builder);
  const auto* missing = find_finding(report, "access.group-missing");
  ASSERT_NE(missing, nullptr);
  ASSERT_EQ(missing->fixes.size(), 1U);
  EXPECT_TRUE(missing->fixes[0].commands.empty());
  EXPECT_NE(missing->fixes[0].description.find("--group-add 110"), std::string::npos);
  EXPECT_NE(missing->detail.find("gid 110 (no name"), std::string::npos);
}

TEST(AccessCheck, UnnamedGidOutsideContainerSaysSo) {
  SnapshotBuilder builder;
  ubuntu(builder, "root:x:0:\nvideo:x:44:\n");
  builder.identity("alice", 1000, 1000, {1000});
  const auto report = run_access(builder);
  const auto* missing = find_finding(report, "access.group-missing");
  ASSERT_NE(missing, nullptr);
  ASSERT_EQ(missing->fixes.size(), 1U);
  EXPECT_TRUE(missing->fixes[0].commands.empty());
  EXPECT_NE(missing->fixes[0].description.find("No group with id 110"), std::string::npos);
}

TEST(AccessCheck, TwoOwningGroupsAreCommaJoined) {
  SnapshotBuilder builder;
  ubuntu(builder, kGroups);
  builder.node("/dev/dri/renderD129", owned("0660", 44)).identity("alice", 1000, 1000, {1000});
  const auto report = run_access(builder);
  const auto* missing = find_finding(report, "access.group-missing");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->fixes[0].commands, std::vector<std::string>{"sudo usermod -aG render,video alice"});
  const auto* render = find_finding(report, "access.render-denied");
  ASSERT_NE(render, nullptr);
  EXPECT_NE(render->summary.find("/dev/dri/renderD128, /dev/dri/renderD129"), std::string::npos);
}

TEST(AccessCheck, InTheGroupIsOk) {
  SnapshotBuilder builder;
  ubuntu(builder, kGroups);
  builder.identity("alice", 1000, 1000, {1000, 110});
  const auto report = run_access(builder);
  const auto* ok = find_finding(report, "access.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->severity, Severity::ok);
  EXPECT_EQ(testing::all_findings(report).size(), 1U);
}

TEST(AccessCheck, NoKfdIsSkippedNotDuplicated) {
  SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-28-generic");
  const auto report = run_access(builder);
  ASSERT_EQ(report.checks.size(), 1U);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
}

TEST(AccessCheck, ImageModeAndWslAreSkipped) {
  SnapshotBuilder image;
  ubuntu(image, kGroups);
  RunOptions options;
  options.image_mode = true;
  EXPECT_EQ(run_access(image, options).checks[0].status, CheckStatus::skipped);

  SnapshotBuilder wsl;
  ubuntu(wsl, kGroups);
  wsl.kernel("5.15.153.1-microsoft-standard-WSL2");
  EXPECT_EQ(run_access(wsl).checks[0].status, CheckStatus::skipped);
}

}  // namespace
}  // namespace rocm_doctor
