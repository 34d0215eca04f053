// A plugin folder's name is chosen by whoever made the folder: with an escape
// sequence or a newline in it, the human-readable reports (text, markdown) and
// --list-checks must show it escaped, never let it clear the screen or start
// a line of its own.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "rocm_doctor/text.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;

// ESC [2J clears a terminal; the newline would make "FORGED ..." a report line.
const std::string kHostileName = "evil\x1b[2J\nFORGED [ok] all checks passed";

class HostilePluginFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = dir_.path() / kHostileName;
    home_ = dir_.path() / "home";
    fs::create_directories(folder_);
    fs::create_directory(home_);
  }

  testing::CommandResult doctor(std::vector<std::string> args) const {
    args.insert(args.end(), {"--plugin-dir", folder_.string()});
    return testing::run_doctor(args, {{"HOME", home_.string()}, {"NO_COLOR", "1"}});
  }

  testing::TempDir dir_;
  fs::path folder_;
  fs::path home_;
};

// The name reached the output only escaped: no ESC byte, no line of its own,
// and the escaped form is there for the reader (ESC as \x1b, markdown adding
// its own backslashes; the newline as \x0a, or a space in markdown text).
void expect_escaped(const std::string& out) {
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  for (const auto line : lines(out)) EXPECT_FALSE(trim(line).starts_with("FORGED")) << out;
  EXPECT_NE(out.find("x1b"), std::string::npos) << out;
  EXPECT_TRUE(out.find("x0aFORGED") != std::string::npos || out.find("2J FORGED") != std::string::npos) << out;
}

TEST_F(HostilePluginFolder, AnUnsafeFolderIsShownEscapedInItsFindingAndFix) {
  // Given a folder everyone may write: the plugins check refuses it and offers
  // `chmod go-w <folder>`, a fix command that quotes the name.
  ::chmod(folder_.c_str(), 0777);
  for (const auto* format : {"text", "markdown"}) {
    const auto result = doctor({"--only", "plugins", "--format", format});
    EXPECT_NE(result.out.find("plugin.unsafe-folder"), std::string::npos) << format << "\n" << result.out;
    EXPECT_NE(result.out.find("chmod go-w"), std::string::npos) << format << "\n" << result.out;
    SCOPED_TRACE(format);
    expect_escaped(result.out);
  }
}

TEST_F(HostilePluginFolder, AnEmptyFolderIsShownEscapedInTheSkipReason) {
  // Given a safe folder without plugins: the check is skipped, naming where it looked
  // (the text report lists skipped checks with -v).
  ::chmod(folder_.c_str(), 0755);
  for (const auto* format : {"text", "markdown"}) {
    const auto result = doctor({"--only", "plugins", "--format", format, "-v"});
    EXPECT_NE(result.out.find("no site plugins installed"), std::string::npos) << format << "\n" << result.out;
    SCOPED_TRACE(format);
    expect_escaped(result.out);
  }
}

TEST_F(HostilePluginFolder, ListChecksShowsTheFolderEscaped) {
  ::chmod(folder_.c_str(), 0777);
  const auto refused = doctor({"--list-checks"});
  EXPECT_NE(refused.out.find("refused folder"), std::string::npos) << refused.out;
  expect_escaped(refused.out);
  ::chmod(folder_.c_str(), 0755);
  const auto empty = doctor({"--list-checks"});
  EXPECT_NE(empty.out.find("(none; looked in"), std::string::npos) << empty.out;
  expect_escaped(empty.out);
}

}  // namespace
}  // namespace rocm_doctor
