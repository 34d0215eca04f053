#include "rocm_doctor/text.h"

#include <gtest/gtest.h>

#include "rocm_doctor/shell.h"

namespace rocm_doctor {
namespace {

TEST(Text, TrimRemovesSurroundingWhitespaceOnly) {
  EXPECT_EQ(trim("  gfx1100\n"), "gfx1100");
  EXPECT_EQ(trim("\t\n "), "");
  EXPECT_EQ(trim("a b"), "a b");
}

TEST(Text, SplitKeepsEmptyFields) {
  const auto fields = split("render:x:110:", ':');
  ASSERT_EQ(fields.size(), 4U);
  EXPECT_EQ(fields[2], "110");
  EXPECT_EQ(fields[3], "");
}

TEST(Text, LinesDropsOnlyTheFinalEmptyLine) {
  EXPECT_EQ(lines("a\n\nb\n").size(), 3U);
  EXPECT_TRUE(lines("").empty());
}

TEST(Text, ParseUintRejectsGarbageSignsAndOverflow) {
  EXPECT_EQ(parse_uint("110"), 110U);
  EXPECT_EQ(parse_uint("0x1002", 16), 0x1002U);
  EXPECT_EQ(parse_uint(" 42\n"), 42U);
  EXPECT_FALSE(parse_uint("-1"));
  EXPECT_FALSE(parse_uint("12abc"));
  EXPECT_FALSE(parse_uint(""));
  EXPECT_FALSE(parse_uint("99999999999999999999999"));
}

TEST(Text, ParseEnvFileHandlesQuotesCommentsAndJunk) {
  const auto values = parse_env_file(
      "# comment\nNAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nID=ubuntu\nnot a pair\n=novalue\nPRETTY_NAME='Ubuntu 22.04.4 "
      "LTS'\n");
  EXPECT_EQ(values.at("NAME"), "Ubuntu");
  EXPECT_EQ(values.at("VERSION_ID"), "22.04");
  EXPECT_EQ(values.at("ID"), "ubuntu");
  EXPECT_EQ(values.at("PRETTY_NAME"), "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(values.size(), 4U);
}

TEST(Text, ParseKeyValueLinesReadsKfdProperties) {
  const auto values = parse_key_value_lines("cpu_cores_count 0\nsimd_count 192\ngfx_target_version 110000\nbroken\n");
  EXPECT_EQ(values.at("gfx_target_version"), "110000");
  EXPECT_EQ(values.size(), 3U);
}

TEST(Text, ClosestMatchSuggestsWithinDistance) {
  const std::vector<std::string> candidates = {"HSA_OVERRIDE_GFX_VERSION", "HIP_VISIBLE_DEVICES"};
  EXPECT_EQ(closest_match("HSA_OVERIDE_GFX_VERSION", candidates, 2), "HSA_OVERRIDE_GFX_VERSION");
  EXPECT_FALSE(closest_match("PATH", candidates, 2));
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3U);
}

TEST(Text, DisplayableEscapesControlCharactersAndKeepsText) {
  // C0 controls and DEL become \xNN; newline and tab only when asked to keep lines.
  EXPECT_EQ(displayable("a\x1b[2Jb\x7f", 100, false), "a\\x1b[2Jb\\x7f");
  EXPECT_EQ(displayable("a\nb\tc\r", 100, false), "a\\x0ab\\x09c\\x0d");
  EXPECT_EQ(displayable("a\nb\tc\r", 100, true), "a\nb\tc\\x0d");
  // C1 controls (U+009B is a one-character CSI) are escaped byte by byte; other UTF-8 stays.
  EXPECT_EQ(displayable("x\xc2\x9b"
                        "2Jy",
                        100, false),
            "x\\xc2\\x9b2Jy");
  EXPECT_EQ(displayable("\xc2\x85", 100, true), "\\xc2\\x85");
  EXPECT_EQ(displayable("caf\xc3\xa9 \xc2\xa0 \xe2\x9c\x93", 100, false), "caf\xc3\xa9 \xc2\xa0 \xe2\x9c\x93");
  // Cut on a UTF-8 boundary, saying how long the text was.
  EXPECT_EQ(displayable("ab\xe2\x9c\x93", 3, false), "ab... (5 bytes in all)");
}

TEST(Shell, QuotesOnlyWhatNeedsQuoting) {
  EXPECT_EQ(shell_quote("alice"), "alice");
  EXPECT_EQ(shell_quote("render,video"), "render,video");
  EXPECT_EQ(shell_quote("John Smith"), "'John Smith'");
  EXPECT_EQ(shell_quote("o'brien"), "'o'\\''brien'");
  EXPECT_EQ(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_command({"sudo", "usermod", "-aG", "render", "a b"}), "sudo usermod -aG render 'a b'");
}

}  // namespace
}  // namespace rocm_doctor

namespace rocm_doctor {
namespace {

TEST(ControlStanzas, FieldsLinesAndStanzaEnds) {
  std::vector<std::string> seen;
  read_control_stanzas(
      "# comment: not a field\nTypes: deb\nURIs:  https://repo.radeon.com/rocm/apt/6.2.4 \n continued: line\n"
      "no colon\n\n\nPackage: rocminfo",
      [&](const ControlField& field) {
        seen.push_back(std::string(field.name) + "=" + std::string(field.value) + "@" + std::to_string(field.line));
      },
      [&] { seen.emplace_back("|"); });
  const std::vector<std::string> expected = {
      "Types=deb@2", "URIs=https://repo.radeon.com/rocm/apt/6.2.4@3", "|", "|", "Package=rocminfo@8", "|"};
  EXPECT_EQ(seen, expected);
}

}  // namespace
}  // namespace rocm_doctor
