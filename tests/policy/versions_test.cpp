// Versions as ROCm and PyTorch spell them: the edge cases policies depend on.
#include "rocm_doctor/versions.h"

#include <gtest/gtest.h>

#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"

namespace rocm_doctor::versions {
namespace {

Version v(std::string_view text) {
  auto parsed = parse(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error();
  return parsed ? *parsed : Version{};
}

Range r(std::string_view text) {
  auto parsed = parse_range(text);
  EXPECT_TRUE(parsed) << text << ": " << parsed.error();
  return parsed ? *parsed : Range{};
}

TEST(Versions, ParsesRocmSpellings) {
  EXPECT_EQ(v("6.2.4").release, (std::vector<std::uint64_t>{6, 2, 4}));
  const auto info = v("6.2.4-120");  // /opt/rocm/.info/version
  EXPECT_EQ(info.release, (std::vector<std::uint64_t>{6, 2, 4}));
  EXPECT_EQ(info.build, "120");
  const auto hip = v("6.2.41134-8c743ae5d");  // torch.version.hip, HIP_VERSION
  EXPECT_EQ(hip.release, (std::vector<std::uint64_t>{6, 2, 41134}));
  EXPECT_EQ(hip.build, "8c743ae5d");
  EXPECT_EQ(v("6.4.0.1-12").release, (std::vector<std::uint64_t>{6, 4, 0, 1}));
  EXPECT_EQ(v("v7.0").release, (std::vector<std::uint64_t>{7, 0}));
  const auto rc = v("7.0.0rc1");
  ASSERT_TRUE(rc.pre);
  EXPECT_EQ(rc.pre->kind, PreKind::rc);
  EXPECT_EQ(rc.pre->number, 1u);
  EXPECT_EQ(v("7.0.0-rc1").pre, rc.pre);         // a dash before the pre-release is the same
  EXPECT_EQ(v("6.2.4-c0ffee").build, "c0ffee");  // a build id that starts like a keyword
  EXPECT_FALSE(v("6.2.4-c0ffee").pre);
}

TEST(Versions, ParsesPytorchSpellings) {
  const auto wheel = v("2.5.1+rocm6.2");
  EXPECT_EQ(wheel.release, (std::vector<std::uint64_t>{2, 5, 1}));
  EXPECT_EQ(wheel.local, "rocm6.2");
  const auto nightly = v("2.6.0.dev20241112+rocm6.2");
  EXPECT_EQ(nightly.release, (std::vector<std::uint64_t>{2, 6, 0}));
  EXPECT_EQ(nightly.dev, 20241112u);
  EXPECT_EQ(nightly.local, "rocm6.2");
  const auto source = v("2.5.0a0+git1b2c3d");
  ASSERT_TRUE(source.pre);
  EXPECT_EQ(source.pre->kind, PreKind::alpha);
  EXPECT_EQ(v("2.4.1.post2").post, 2u);
  EXPECT_EQ(v("2.6.0rc1.dev3").to_string(), "2.6.0rc1.dev3");
}

TEST(Versions, RejectsWhatIsNotAVersion) {
  for (const auto* text : {"", "   ", "rocm", "6.x.2", "6..2", "6.2.4 beta", "2.5.1+", "2.5.1+rocm 6.2", ".6.2",
                           "6.2.4rc1rc2", "6.2.4.dev1.dev2"}) {
    const auto parsed = parse(text);
    EXPECT_FALSE(parsed) << "'" << text << "' parsed as " << (parsed ? parsed->to_string() : "");
  }
  EXPECT_NE(parse("6.x.2").error().find("6.x.2"), std::string::npos);  // the message names the input
}

TEST(Versions, OrdersReleasesNumerically) {
  EXPECT_LT(compare(v("6.9.1"), v("6.10.0")), 0);
  EXPECT_EQ(compare(v("6.2"), v("6.2.0")), 0);
  EXPECT_GT(compare(v("6.2.41134"), v("6.2.4")), 0);              // a HIP build number is just a big patch
  EXPECT_EQ(compare(v("6.2.4-120"), v("6.2.4")), 0);              // build ids do not order
  EXPECT_EQ(compare(v("2.5.1+rocm6.2"), v("2.5.1+rocm6.1")), 0);  // nor do local tags
}

TEST(Versions, OrdersPreAndPostReleasesLikePep440) {
  const std::vector<std::string> ascending = {"2.6.0.dev20241112", "2.6.0a0",  "2.6.0b1", "2.6.0rc1.dev3",
                                              "2.6.0rc1",          "2.6.0rc2", "2.6.0",   "2.6.0.post1",
                                              "2.6.1.dev1",        "2.6.1"};
  for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(compare(v(ascending[i]), v(ascending[i + 1])), 0) << ascending[i] << " < " << ascending[i + 1];
    EXPECT_GT(compare(v(ascending[i + 1]), v(ascending[i])), 0) << ascending[i + 1] << " > " << ascending[i];
  }
  EXPECT_LT(compare(v("7.0.0rc1"), v("7.0.0")), 0);
  EXPECT_GT(compare(v("7.0.0rc1"), v("6.4.3")), 0);
}

TEST(VersionRanges, ComparatorsAndCommas) {
  const auto rocm62 = r(">=6.2,<6.3");
  EXPECT_TRUE(rocm62.contains(v("6.2.0")));
  EXPECT_TRUE(rocm62.contains(v("6.2.4-120")));
  EXPECT_TRUE(rocm62.contains(v("6.2.41134-8c743ae5d")));
  EXPECT_FALSE(rocm62.contains(v("6.1.3")));
  EXPECT_FALSE(rocm62.contains(v("6.3.0")));
  EXPECT_FALSE(rocm62.contains(v("6.3.0rc1")));       // "<6.3" excludes 6.3's pre-releases
  EXPECT_TRUE(r("<6.3rc2").contains(v("6.3.0rc1")));  // unless the bound is a pre-release itself
  EXPECT_TRUE(r(" > 6.1 , != 6.2.1 ").contains(v("6.2.2")));
  EXPECT_FALSE(r("> 6.1, != 6.2.1").contains(v("6.2.1")));
  EXPECT_TRUE(r("<=6.2").contains(v("6.2.0")));
  EXPECT_FALSE(r("<=6.2").contains(v("6.2.1")));
  EXPECT_TRUE(r("==6.2").contains(v("6.2.0")));
  EXPECT_FALSE(r("==6.2").contains(v("6.2.4")));
  EXPECT_TRUE(r("=6.2.4").contains(v("6.2.4")));
  EXPECT_FALSE(r(">=7.0").contains(v("7.0.0rc1")));  // 7.0.0rc1 < 7.0.0
  EXPECT_TRUE(r(">=7.0.0rc1").contains(v("7.0.0")));
  EXPECT_TRUE(r(">=6.2").contains(v("7.0.0rc1")));
}

TEST(VersionRanges, WildcardsBareVersionsAndCompatibleReleases) {
  for (const auto* text : {"6.2.x", "6.2.*", "==6.2.x", "6.2", "6.2.X"}) {
    const auto range = r(text);
    EXPECT_TRUE(range.contains(v("6.2.0"))) << text;
    EXPECT_TRUE(range.contains(v("6.2.41134"))) << text;
    EXPECT_TRUE(range.contains(v("6.2.0rc1"))) << text;
    EXPECT_FALSE(range.contains(v("6.20.0"))) << text;
    EXPECT_FALSE(range.contains(v("6.3.0"))) << text;
  }
  EXPECT_TRUE(r("6").contains(v("6.4.1")));
  EXPECT_FALSE(r("!=6.2.x").contains(v("6.2.4")));
  EXPECT_TRUE(r("!=6.2.x").contains(v("6.3.0")));
  EXPECT_TRUE(r("~=6.2.1").contains(v("6.2.4")));
  EXPECT_FALSE(r("~=6.2.1").contains(v("6.2.0")));
  EXPECT_FALSE(r("~=6.2.1").contains(v("6.3.0")));
  EXPECT_TRUE(r("~=6.2").contains(v("6.4.0")));
  EXPECT_FALSE(r("~=6.2").contains(v("7.0.0")));
  EXPECT_TRUE(r("==2.5.1+rocm6.2").contains(v("2.5.1+rocm6.2")));
  EXPECT_FALSE(r("==2.5.1+rocm6.2").contains(v("2.5.1+rocm6.1")));
  EXPECT_TRUE(r("==2.5.1").contains(v("2.5.1+rocm6.1")));                        // no local tag in the bound: any tag
  EXPECT_TRUE(r("2.6.0.dev20241112").contains(v("2.6.0.dev20241112+rocm6.2")));  // exact, not a prefix
  EXPECT_FALSE(r("2.6.0.dev20241112").contains(v("2.6.0")));
}

TEST(VersionRanges, RejectMalformedRangesWithAReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty"},
      {">=6.2,", "empty comparator"},
      {">=6.2,,<6.3", "empty comparator"},
      {">=6.x", "wildcard"},
      {"~=6", "two numbers"},
      {">>6.2", "release number"},
      {"6.2.x.1", "unexpected"},
      {"6.2rc1.x", "wildcard"},
      {"latest", "release number"},
  };
  for (const auto& [text, reason] : cases) {
    const auto range = parse_range(text);
    ASSERT_FALSE(range) << "'" << text << "' was accepted";
    EXPECT_NE(range.error().find(reason), std::string::npos) << text << ": " << range.error();
  }
}

TEST(VersionRanges, UnparsableVersionsNeverSatisfy) {
  EXPECT_FALSE(satisfies("unknown", r(">=0")));
  EXPECT_TRUE(satisfies("6.2.4-120", r("6.2")));
}

// The older helpers share the ordering (consolidated here).
TEST(Versions, LegacyHelpersAgree) {
  EXPECT_GT(compare_versions("6.10.0", "6.9.1"), 0);
  EXPECT_EQ(compare_versions("6.2", "6.2.0"), 0);
  EXPECT_TRUE(kb::version_less("6.2.4-120", "6.10"));
  EXPECT_FALSE(kb::version_less("6.2", "6.2.0"));
}

}  // namespace
}  // namespace rocm_doctor::versions
