// The knowledge base: the compiled-in tables load, are consistent, and the gfx arithmetic is right.
#include "rocm_doctor/kb.h"

#include <gtest/gtest.h>

#include <set>

#include "embedded_data.h"

namespace rocm_doctor {
namespace {

TEST(GfxVersion, DecodesKfdTargetVersionsWithHexStepping) {
  const std::vector<std::pair<std::uint64_t, std::string>> cases = {
      {90010, "gfx90a"},   {90012, "gfx90c"}, {100300, "gfx1030"}, {100301, "gfx1031"}, {110000, "gfx1100"},
      {110501, "gfx1151"}, {90402, "gfx942"}, {80003, "gfx803"},   {120001, "gfx1201"}, {90006, "gfx906"}};
  for (const auto& [value, name] : cases) {
    const auto version = decode_gfx_target_version(value);
    ASSERT_TRUE(version) << value;
    EXPECT_EQ(gfx_name(*version), name) << value;
  }
  EXPECT_FALSE(decode_gfx_target_version(0));
  EXPECT_EQ(override_string(*decode_gfx_target_version(90010)), "9.0.10");
}

TEST(GfxVersion, ParsesOverrideValuesStrictly) {
  for (const auto* good : {"10.3.0", "11.0.0", "9.0.10", "9.4.2", "11.5.1"}) {
    EXPECT_TRUE(parse_override_value(good)) << good;
  }
  for (const auto* bad : {"", "gfx1030", "10.3", "10,3,0", "10.3.0.1", " 10.3.0", "10.3.0 ", "10.3.x", "-10.3.0",
                          "10..0", "+10.3.0", "64.0.0", "0.0.0", "10.3.256"}) {
    EXPECT_FALSE(parse_override_value(bad)) << '"' << bad << '"';
  }
  EXPECT_EQ(*parse_override_value("9.0.12"), (GfxVersion{9, 0, 12}));
}

TEST(GfxVersion, ParsesGfxNames) {
  EXPECT_EQ(*parse_gfx_name("gfx90a"), (GfxVersion{9, 0, 10}));
  EXPECT_EQ(*parse_gfx_name("gfx1030"), (GfxVersion{10, 3, 0}));
  EXPECT_FALSE(parse_gfx_name("gfx"));
  EXPECT_FALSE(parse_gfx_name("nvidia"));
  EXPECT_FALSE(parse_gfx_name("gfx9a0z"));
}

TEST(KnowledgeBase, LoadsAndIsConsistent) {
  const auto& kb = kb::knowledge_base();
  EXPECT_GE(kb.targets().size(), 35u);
  EXPECT_GE(kb.pci_devices().size(), 100u);
  EXPECT_FALSE(kb.sources().empty());
  std::set<std::string> gfx;
  for (const auto& target : kb.targets()) {
    EXPECT_TRUE(gfx.insert(target.gfx).second) << "duplicate " << target.gfx;
    EXPECT_FALSE(target.sources.empty()) << target.gfx;
    EXPECT_FALSE(target.family.empty()) << target.gfx;
  }
  std::set<std::pair<std::uint32_t, std::int64_t>> ids;
  for (const auto& device : kb.pci_devices()) {
    if (!device.gfx.empty()) {
      EXPECT_TRUE(gfx.contains(device.gfx)) << device.name;
    }
    EXPECT_FALSE(device.sources.empty()) << device.name;
    EXPECT_TRUE(ids.insert({device.device, device.revision ? *device.revision : -1}).second) << device.name;
  }
  for (const auto& release : kb.releases()) {
    EXPECT_FALSE(release.targets.empty()) << release.release;
    EXPECT_FALSE(release.sources.empty()) << release.release;
    EXPECT_FALSE(release.os.empty()) << release.release;
    for (const auto& target : release.targets) EXPECT_TRUE(gfx.contains(target.gfx)) << target.gfx;
  }
  EXPECT_EQ(kb.releases().front().release, "5.6");
  for (const auto& library : kb.libraries()) {
    if (library.kernels) {
      EXPECT_FALSE(library.kernels->finding.empty()) << library.name;
    }
  }
}

TEST(KnowledgeBase, CoversTheRequiredCards) {
  const auto& kb = kb::knowledge_base();
  const std::vector<std::tuple<std::uint32_t, std::uint32_t, std::string>> cards = {
      {0x66a1, 0x02, "gfx906"},  {0x738c, 0x01, "gfx908"},  {0x740c, 0x01, "gfx90a"},  {0x74a1, 0x00, "gfx942"},
      {0x74a5, 0x00, "gfx942"},  {0x73a3, 0x00, "gfx1030"}, {0x7448, 0x00, "gfx1100"}, {0x73df, 0xc1, "gfx1031"},
      {0x744c, 0xc8, "gfx1100"}, {0x7480, 0xcf, "gfx1102"}, {0x7550, 0xc0, "gfx1201"}, {0x164e, 0xd8, "gfx1036"},
      {0x1638, 0xc5, "gfx90c"},  {0x15bf, 0xc1, "gfx1103"}, {0x67df, 0xe7, "gfx803"}};
  for (const auto& [device, revision, gfx] : cards) {
    const auto* row = kb.pci_device(device, revision);
    ASSERT_NE(row, nullptr) << std::hex << device;
    EXPECT_EQ(row->gfx, gfx) << std::hex << device;
  }
  EXPECT_EQ(kb.pci_device(0x74ff, 0), nullptr);
}

TEST(KnowledgeBase, KnowsWorkaroundsAndTheirReliability) {
  const auto& kb = kb::knowledge_base();
  EXPECT_EQ(kb.target("gfx1031")->workaround->override_value, "10.3.0");
  EXPECT_EQ(kb.target("gfx1102")->workaround->runs_as, "gfx1100");
  EXPECT_TRUE(kb.target("gfx1103")->workaround->known_unreliable());
  EXPECT_TRUE(kb.target("gfx1010")->workaround->known_unreliable());
  EXPECT_FALSE(kb.target("gfx1100")->workaround);
  EXPECT_EQ(kb.target("gfx1031")->isa_family, kb.target("gfx1030")->isa_family);
  EXPECT_NE(kb.target("gfx1031")->isa_family, kb.target("gfx1100")->isa_family);
}

TEST(KnowledgeBase, AnswersPerReleaseSupport) {
  const auto& kb = kb::knowledge_base();
  ASSERT_NE(kb.release("6.0.2-115"), nullptr);
  EXPECT_TRUE(kb.release("6.0.2")->lists("gfx1100"));
  EXPECT_FALSE(kb.release("5.7.0")->lists("gfx1100", "5.7.0"));
  EXPECT_TRUE(kb.release("5.7.1")->lists("gfx1100", "5.7.1"));
  EXPECT_FALSE(kb.release("6.4.0")->lists("gfx1101", "6.4.0"));
  EXPECT_TRUE(kb.release("6.4.1")->lists("gfx1101", "6.4.1"));
  EXPECT_EQ(kb.release("4.5.2"), nullptr);
  EXPECT_EQ(kb.last_release_listing("gfx906")->release, "6.2");
  EXPECT_EQ(kb.last_release_listing("gfx803"), nullptr);
  EXPECT_TRUE(kb.has_per_device_override("6.2.0"));
  EXPECT_FALSE(kb.has_per_device_override("6.1.2"));
  EXPECT_TRUE(kb::version_less("6.0.2", "6.10"));
}

TEST(KnowledgeBase, RejectsInconsistentTables) {
  const auto targets = std::string(embedded::data_gfx_targets());
  const auto pci = std::string(embedded::data_pci_ids());
  const auto releases = std::string(embedded::data_rocm_releases());
  const auto libraries = std::string(embedded::data_rocm_libraries());
  const auto parse = [](std::string_view t, std::string_view p, std::string_view r, std::string_view l) {
    return kb::parse_knowledge_base(kb::TableTexts{t, p, r, l});
  };
  EXPECT_NO_THROW(parse(targets, pci, releases, libraries));
  const std::string bad_pci =
      R"({"_sources": ["x"], "devices": [{"device": "0x1", "gfx": "gfx9999", "sources": ["x"]}]})";
  EXPECT_THROW(parse(targets, bad_pci, releases, libraries), std::runtime_error);
  const std::string duplicate_pci =
      R"({"_sources": ["x"], "devices": [{"device": "0x1", "gfx": "gfx1030", "sources": ["x"]},
                                         {"device": "0x1", "gfx": "gfx1030", "sources": ["x"]}]})";
  EXPECT_THROW(parse(targets, duplicate_pci, releases, libraries), std::runtime_error);
  const std::string no_sources = R"({"devices": []})";
  EXPECT_THROW(parse(targets, no_sources, releases, libraries), std::runtime_error);
  const std::string bad_release =
      R"({"_sources": ["x"], "releases": [{"release": "6.0", "gfx_targets": [{"gfx": "gfx9999"}], "sources": ["x"]}]})";
  EXPECT_THROW(parse(targets, pci, bad_release, libraries), std::runtime_error);
}

// A run without GPUs must not pay for the PCI ids or gfx targets: each table
// is parsed on its first use, and only its own errors surface there.
TEST(KnowledgeBase, ParsesEachTableOnFirstUse) {
  const kb::KnowledgeBase kb(kb::TableTexts{"not json", "{\"_sources\": [\"x\"], \"devices\": [{]}",
                                            embedded::data_rocm_releases(), embedded::data_rocm_libraries()});
  EXPECT_EQ(kb.release("6.2.4")->release, "6.2");
  EXPECT_FALSE(kb.libraries().empty());
  try {
    (void)kb.pci_devices();
    ADD_FAILURE() << "a malformed pci_ids.json parsed";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("pci_ids.json"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)kb.target("gfx1030"), std::runtime_error);
  EXPECT_THROW((void)kb.pci_devices(), std::runtime_error);  // and again on the next use
}

}  // namespace
}  // namespace rocm_doctor
