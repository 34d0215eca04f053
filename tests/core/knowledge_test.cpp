// Knowledge overlays (docs/knowledge.md): the merge, the schema check, and the command line
// (`rocm-doctor knowledge`, --knowledge DIR, /etc/rocm-doctor/knowledge.d through the host).
#include "rocm_doctor/knowledge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_doctor;

const json kReleases = json::parse(R"({
  "_sources": ["built in"],
  "releases": [
    {"release": "7.2", "patch_releases": ["7.2.0"], "gfx_targets": [{"gfx": "gfx942", "since": ""}],
     "sources": ["notes 7.2"]},
    {"release": "7.14", "patch_releases": ["7.14.0"], "gfx_targets": [{"gfx": "gfx942", "since": ""}],
     "sources": ["notes 7.14"]}
  ],
  "per_device_override": {"since": "6.2", "inferred": true}
})");

TEST(KnowledgeMerge, ANewKeyAddsARowInVersionOrder) {
  const auto merged = knowledge::merge(
      kReleases,
      json::parse(R"({"_sources": ["site"], "releases": [{"release": "7.9", "gfx_targets": [], "sources": ["x"]}]})"));
  ASSERT_EQ(merged["releases"].size(), 3U);
  EXPECT_EQ(merged["releases"][0]["release"], "7.2");
  EXPECT_EQ(merged["releases"][1]["release"], "7.9");  // 7.9 < 7.14 numerically
  EXPECT_EQ(merged["releases"][2]["release"], "7.14");
  EXPECT_EQ(merged["_sources"], json::array({"built in", "site"}));  // strings: a union
}

TEST(KnowledgeMerge, AKnownKeyReplacesTheRow) {
  const auto merged = knowledge::merge(kReleases, json::parse(R"({"_sources": ["site"], "releases": [
    {"release": "7.14", "gfx_targets": [{"gfx": "gfx950", "since": ""}], "sources": ["site notes"]}]})"));
  ASSERT_EQ(merged["releases"].size(), 2U);
  EXPECT_EQ(merged["releases"][1]["gfx_targets"][0]["gfx"], "gfx950");
  EXPECT_FALSE(merged["releases"][1].contains("patch_releases"));  // the row is the overlay's
  EXPECT_EQ(merged["per_device_override"]["since"], "6.2");        // untouched keys stay
}

TEST(KnowledgeMerge, ObjectsMergeKeyByKeyAndReplaceReplacesAll) {
  const auto merged =
      knowledge::merge(kReleases, json::parse(R"({"_sources": ["s"], "per_device_override": {"since": "7.0"}})"));
  EXPECT_EQ(merged["per_device_override"]["since"], "7.0");
  EXPECT_EQ(merged["per_device_override"]["inferred"], true);
  const auto replaced =
      knowledge::merge(kReleases, json::parse(R"({"_replace": true, "_sources": ["s"], "releases": []})"));
  EXPECT_TRUE(replaced["releases"].empty());
  EXPECT_FALSE(replaced.contains("per_device_override"));
  EXPECT_FALSE(replaced.contains("_replace"));
}

struct SchemaCase {
  std::string name;
  std::string overlay;
  std::string expected;  // a piece of the error; empty: accepted
};

void PrintTo(const SchemaCase& c, std::ostream* os) {
  *os << c.name;
}

class KnowledgeSchema : public ::testing::TestWithParam<SchemaCase> {};

TEST_P(KnowledgeSchema, ChecksTheOverlayAgainstTheTable) {
  const auto& param = GetParam();
  const auto result =
      knowledge::check_schema("/k/rocm_releases.json", "rocm_releases.json", kReleases, json::parse(param.overlay));
  if (param.expected.empty()) {
    EXPECT_TRUE(result) << result.error();
  } else {
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().find("/k/rocm_releases.json"), std::string::npos) << result.error();
    EXPECT_NE(result.error().find(param.expected), std::string::npos) << result.error();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, KnowledgeSchema,
    ::testing::Values(
        SchemaCase{"NewRelease", R"({"_sources": ["s"], "releases": [{"release": "10.3", "sources": ["n"]}]})", ""},
        SchemaCase{"NoSources", R"({"releases": []})", "_sources: missing or empty"},
        SchemaCase{"EmptySource", R"({"_sources": [""], "releases": []})", "_sources: every entry is a text"},
        SchemaCase{"UnknownField", R"({"_sources": ["s"], "relases": []})", "relases: unknown field"},
        SchemaCase{"WrongTopType", R"({"_sources": ["s"], "releases": {}})", "releases: is object, must be array"},
        SchemaCase{"RowWithoutKey", R"({"_sources": ["s"], "releases": [{"sources": ["n"]}]})",
                   "releases[0].release: missing"},
        SchemaCase{"RowWithoutSources", R"({"_sources": ["s"], "releases": [{"release": "10.3"}]})",
                   "releases[0].sources: missing"},
        SchemaCase{
            "FieldOfAnotherType",
            R"({"_sources": ["s"], "releases": [{"release": "10.3", "gfx_targets": "gfx942", "sources": ["n"]}]})",
            "releases[0].gfx_targets: is string, must be array"},
        SchemaCase{"RowOfAnotherType", R"({"_sources": ["s"], "releases": ["10.3"]})",
                   "releases[0]: is string, the table's rows are object"},
        SchemaCase{"ReplaceNotABool", R"({"_sources": ["s"], "_replace": "yes"})", "_replace: must be true or false"}),
    [](const ::testing::TestParamInfo<SchemaCase>& info) { return info.param.name; });

// ---- the command line ----

class KnowledgeCli : public ::testing::Test {
 protected:
  void write(const std::string& name, const std::string& text) { std::ofstream(folder_.path() / name) << text; }
  std::string dir() const { return folder_.path().string(); }
  testing::TempDir folder_;
};

const char* kRelease103 = R"json({
  "_sources": ["ROCm Core SDK 10.3.0 release notes (site copy)"],
  "_as_of": {"date": "2027-01-15", "newest_release": "10.3.0"},
  "releases": [{"release": "10.3", "patch_releases": ["10.3.0"], "released": {"10.3.0": "2027-01-10"},
                "layout": "core-sdk", "gfx_targets": [{"gfx": "gfx1010", "since": ""}, {"gfx": "gfx1100", "since": ""}],
                "os": [{"name": "Ubuntu", "version": "26.04", "kernel": "7.0 GA"}],
                "sources": ["ROCm Core SDK 10.3.0 release notes"]}]
})json";

TEST_F(KnowledgeCli, PrintsWhatIsKnownAndAsOfWhen) {
  const auto result = run_doctor({"knowledge"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("as of 2026-12-01"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("newest release ROCm 10.2.0 (released 2026-11-23, "), std::string::npos) << result.out;
  for (const char* table : {"rocm_releases.json", "gfx_targets.json", "pci_ids.json", "amdgpu_driver.json",
                            "torch_wheels.json", "platform.json", "env_variables.json"}) {
    EXPECT_NE(result.out.find(table), std::string::npos) << table;
  }
  EXPECT_NE(result.out.find("releases 14"), std::string::npos) << result.out;
}

TEST_F(KnowledgeCli, AnOverlayAddsANewerReleaseAndIsNamed) {
  write("rocm_releases.json", kRelease103);
  const auto result = run_doctor({"knowledge", "--format", "json", "--knowledge", dir()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto report = json::parse(result.out);
  EXPECT_EQ(report["as_of"]["newest_release"], "10.3.0");
  EXPECT_EQ(report["as_of"]["date"], "2027-01-15");
  EXPECT_EQ(report["as_of"]["released"], "2027-01-10");
  bool named = false;
  for (const auto& table : report["tables"]) {
    if (table["file"] == "rocm_releases.json") {
      EXPECT_EQ(table["counts"]["releases"], 15);
      named = table["from"].size() == 2 && table["from"][1].get<std::string>().ends_with("/rocm_releases.json");
    }
  }
  EXPECT_TRUE(named) << result.out;
}

TEST_F(KnowledgeCli, AMalformedOverlayIsAnInputErrorNamingFileAndField) {
  write("rocm_releases.json", R"({"_sources": ["s"], "releases": [{"release": "10.3", "gfx_targets": "gfx942",
                                  "sources": ["n"]}]})");
  const auto result =
      run_doctor({"--knowledge", dir(), "--replay", std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/rocm714-full-healthy"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.out.empty());
  EXPECT_NE(result.err.find(dir() + "/rocm_releases.json"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("releases[0].gfx_targets"), std::string::npos) << result.err;
}

TEST_F(KnowledgeCli, BrokenReferencesAndUnknownTablesAreRejected) {
  write("rocm_releases.json", R"({"_sources": ["s"], "releases": [{"release": "10.3",
        "gfx_targets": [{"gfx": "gfx9999", "since": ""}], "sources": ["n"]}]})");
  auto result = run_doctor({"knowledge", "--knowledge", dir()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("unknown gfx gfx9999"), std::string::npos) << result.err;
  fs::remove(folder_.path() / "rocm_releases.json");
  write("gpu_facts.json", R"({"_sources": ["s"]})");
  result = run_doctor({"knowledge", "--knowledge", dir()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("gpu_facts.json"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("no knowledge table"), std::string::npos) << result.err;
  write("not-json.json", "{");
  fs::remove(folder_.path() / "gpu_facts.json");
  result = run_doctor({"knowledge", "--knowledge", dir()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("not-json.json: not valid JSON"), std::string::npos) << result.err;
}

TEST_F(KnowledgeCli, AnOverlaidReleaseIsJudgedByItsOwnList) {
  const auto scenario = std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/gpu-release-newer-than-kb";
  auto result = run_doctor({"--replay", scenario, "--json", "--only", "gpu-arch,rocm-install"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("gpu.support-unknown"), std::string::npos);
  EXPECT_NE(result.out.find("rocm.release-unknown-newer"), std::string::npos);
  write("50-rocm-10.3.json", std::string(kRelease103).replace(1, 0, "\"_table\": \"rocm_releases.json\",\n"));
  result = run_doctor({"--replay", scenario, "--json", "--only", "gpu-arch,rocm-install", "--knowledge", dir()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.find("gpu.support-unknown"), std::string::npos);
  EXPECT_EQ(result.out.find("rocm.release-unknown-newer"), std::string::npos);
  EXPECT_NE(result.out.find("gpu.supported"), std::string::npos) << result.out;
}

TEST_F(KnowledgeCli, TheMachinesKnowledgeDirIsReadThroughTheHost) {
  testing::SnapshotBuilder builder;
  builder.file("/etc/rocm-doctor/knowledge.d/rocm_releases.json", kRelease103);
  const auto snapshot = builder.write().string();
  const auto result = run_doctor({"knowledge", "--replay", snapshot});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("newest release ROCm 10.3.0"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("+ overlay /etc/rocm-doctor/knowledge.d/rocm_releases.json"), std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace rocm_doctor
