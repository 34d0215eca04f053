#include "host/snapshot_manifest.h"

#include <gtest/gtest.h>

#include <ostream>

namespace rocm_doctor {
namespace {

constexpr const char* kMinimal =
    R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"user":"a","uid":1000,"gid":1000,"groups":[1000]}})";

TEST(SnapshotManifest, ParsesTheDocumentedExample) {
  const auto manifest = parse_snapshot_manifest(R"({
    "format": "rocm-doctor-snapshot", "version": 1,
    "captured_at": "2026-11-30T07:00:00Z", "captured_by": "rocm-doctor 0.1.0",
    "env": {"PATH": "/usr/bin:/bin", "HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
    "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [1000, 44]},
    "nodes": {"/dev/kfd": {"type": "char", "mode": "0660", "uid": 0, "gid": 109},
              "/dev/dri/renderD128": {"type": "char", "mode": "0660", "uid": 0, "gid": 109, "acl": true, "access": "rw"}},
    "probes": {}, "some_future_key": [1, 2, 3]})");
  ASSERT_TRUE(manifest) << manifest.error();
  EXPECT_EQ(manifest->env.at("HSA_OVERRIDE_GFX_VERSION"), "10.3.0");
  EXPECT_EQ(manifest->identity.groups, (std::vector<std::uint32_t>{1000, 44}));
  EXPECT_EQ(manifest->nodes.at("/dev/kfd").gid, 109U);
  EXPECT_EQ(manifest->nodes.at("/dev/kfd").mode, 0660U);
  EXPECT_TRUE(manifest->nodes.at("/dev/dri/renderD128").has_acl);
}

TEST(SnapshotManifest, RoundTripsThroughJson) {
  auto manifest = parse_snapshot_manifest(kMinimal).value();
  manifest.nodes["/dev/kfd"] = NodeInfo{EntryType::char_device, 0660, 0, 110, true, "rw"};
  manifest.unreadable.insert("/dev/kmsg");
  const auto again = parse_snapshot_manifest(to_json(manifest).dump());
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->nodes.at("/dev/kfd").gid, 110U);
  EXPECT_EQ(again->nodes.at("/dev/kfd").access, "rw");
  EXPECT_TRUE(again->unreadable.contains("/dev/kmsg"));
  EXPECT_TRUE(again->stat.empty());
}

// A render node a device cgroup closes (Slurm ConstrainDevices): the EPERM a
// capture measured replays as it ran.
TEST(SnapshotManifest, TheAccessErrorOfAClosedNodeRoundTrips) {
  auto manifest = parse_snapshot_manifest(kMinimal).value();
  NodeInfo closed{EntryType::char_device, 0666, 0, 110, false, "none"};
  closed.access_error = "EPERM";
  manifest.nodes["/dev/dri/renderD129"] = closed;
  const auto json = to_json(manifest);
  EXPECT_EQ(json["nodes"]["/dev/dri/renderD129"]["access_error"], "EPERM");
  const auto again = parse_snapshot_manifest(json.dump());
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again->nodes.at("/dev/dri/renderD129").access_error, "EPERM");
  EXPECT_FALSE(parse_snapshot_manifest(kMinimal)->nodes.contains("/dev/dri/renderD129"));
}

TEST(SnapshotManifest, StatEntriesRoundTrip) {
  auto manifest = parse_snapshot_manifest(kMinimal).value();
  manifest.stat["/home/a/.cache/miopen"] = NodeInfo{EntryType::directory, 0755, 0, 0, false, std::nullopt};
  manifest.stat["/tmp"] = NodeInfo{EntryType::directory, 01777, 0, 0, true, "rw"};
  const auto json = to_json(manifest);
  EXPECT_EQ(json["stat"]["/home/a/.cache/miopen"]["type"], "dir");
  EXPECT_EQ(json["stat"]["/tmp"]["mode"], "1777");
  const auto again = parse_snapshot_manifest(json.dump());
  ASSERT_TRUE(again) << again.error();
  ASSERT_EQ(again->stat.size(), 2U);
  EXPECT_EQ(again->stat.at("/home/a/.cache/miopen").type, EntryType::directory);
  EXPECT_EQ(again->stat.at("/tmp").mode, 01777U);
  EXPECT_TRUE(again->stat.at("/tmp").has_acl);
  EXPECT_EQ(again->stat.at("/tmp").access, "rw");
}

TEST(SnapshotManifest, OlderSnapshotsWithoutStatStillParse) {
  const auto manifest = parse_snapshot_manifest(kMinimal);
  ASSERT_TRUE(manifest) << manifest.error();
  EXPECT_TRUE(manifest->stat.empty());
  EXPECT_FALSE(to_json(*manifest).contains("stat"));
}

struct BadManifest {
  const char* text;
  const char* expected_message;
};

// Names the case in test listings (gtest would print a hex dump of the struct).
void PrintTo(const BadManifest& c, std::ostream* os) {
  *os << "manifest that fails with \"" << c.expected_message << '"';
}

class MalformedManifest : public ::testing::TestWithParam<BadManifest> {};

TEST_P(MalformedManifest, NamesTheProblem) {
  const auto result = parse_snapshot_manifest(GetParam().text);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().find(GetParam().expected_message), std::string::npos) << result.error();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedManifest,
    ::testing::Values(
        BadManifest{"", "not valid JSON"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":1)", "not valid JSON"},
        BadManifest{"[]", "top level must be a JSON object"},
        BadManifest{R"({"format":"other","version":1})", "'format' must be"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":2,"identity":{"uid":0}})", "unsupported 'version' 2"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1})", "missing 'identity'"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":-1}})", "identity.uid"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"env":{"A":1}})", "'env.A'"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"nodes":{"/etc/x":{}}})",
                    "not a /dev path"},
        BadManifest{
            R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"nodes":{"/dev/kfd":{"mode":"rw"}}})",
            "octal string"},
        BadManifest{
            R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"nodes":{"/dev/kfd":{"type":"pipe"}}})",
            "expected char"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"probes":[]})",
                    "'probes' must be an object"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"stat":[]})",
                    "'stat' must be an object"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"stat":{"home/a":{}}})",
                    "'stat' key 'home/a' is not an absolute path"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"stat":{"/dev/kfd":{}}})",
                    "device nodes belong in 'nodes'"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},"stat":{"/tmp":"dir"}})",
                    "'stat./tmp' must be an object"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},
                        "stat":{"/tmp":{"type":"dir","mode":"1777","gid":0}}})",
                    "missing 'stat./tmp.uid'"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},
                        "stat":{"/tmp":{"type":"dir","mode":"1777","uid":-1,"gid":0}}})",
                    "'stat./tmp.uid' must be a non-negative 32-bit integer"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},
                        "stat":{"/tmp":{"type":"dir","mode":"0999","uid":0,"gid":0}}})",
                    "'stat./tmp.mode' must be an octal string"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},
                        "stat":{"/tmp":{"type":"folder","mode":"0755","uid":0,"gid":0}}})",
                    "'stat./tmp.type' is 'folder'"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},
                        "stat":{"/tmp":{"type":"dir","mode":"0755","uid":0,"gid":0,"access":"x"}}})",
                    "'stat./tmp.access' must be"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},
                        "nodes":{"/dev/kfd":{"access":"none","access_error":"permission denied"}}})",
                    "'nodes./dev/kfd.access_error' must be an errno name"},
        BadManifest{R"({"format":"rocm-doctor-snapshot","version":1,"identity":{"uid":0},
                        "nodes":{"/dev/kfd":{"access":"none","access_error":1}}})",
                    "'nodes./dev/kfd.access_error' must be an errno name"}));

}  // namespace
}  // namespace rocm_doctor
