// The shell completions and the man page know every option and subcommand the
// command line has, and no option it lacks: the list comes from the CLI11 App
// cli_main parses with, so adding an option without them fails here.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <regex>
#include <set>
#include <string>

#include "cli/cli.h"
#include "render/run_tool.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {
namespace {

const std::string kPackaging = std::string(ROCM_DOCTOR_SOURCE_DIR) + "/packaging";

// How one file spells an option's long name ("--level", or fish's "-l level").
struct Document {
  std::string path;
  std::string option_prefix;
  std::string text;
};

Document load(const std::string& relative, const std::string& option_prefix) {
  auto text = testing::read_text(kPackaging + "/" + relative);
  // troff writes a minus as "\-": the man page then reads like the others.
  text = std::regex_replace(text, std::regex(R"(\\-)"), "-");
  return {relative, option_prefix, text};
}

std::vector<Document> documents() {
  return {load("completions/rocm-doctor.bash", "--"), load("completions/_rocm-doctor", "--"),
          load("completions/rocm-doctor.fish", "-l "), load("man/rocm-doctor.1", "--")};
}

struct CommandLineNames {
  std::set<std::string> long_options;  // without the leading "--"
  std::set<std::string> subcommands;
};

void collect(const CLI::App& app, CommandLineNames& names) {
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames()) names.long_options.insert(name);
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.subcommands.insert(sub->get_name());
    collect(*sub, names);
  }
}

CommandLineNames command_line_names() {
  CommandLine values;
  const auto app = make_command_line(values);
  CommandLineNames names;
  collect(*app, names);
  return names;
}

// Every long option the document names, e.g. {"format", "json", ...}.
std::set<std::string> named_options(const Document& document) {
  const std::regex pattern("(^|[^a-zA-Z0-9-])" + document.option_prefix + "([a-z][a-z0-9-]*)");
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(document.text.begin(), document.text.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    found.insert((*it)[2].str());
  }
  return found;
}

bool has_word(std::string_view line, const std::string& word) {
  const std::regex pattern("(^|[^a-z-])" + word + "([^a-z-]|$)");
  return std::regex_search(line.begin(), line.end(), pattern);
}

TEST(CliCompletions, TheCommandLineListsTheOptionsTheTestsRelyOn) {
  // Given the App cli_main parses with, when the test collects its names, it sees
  // options of the run and of the subcommands: the checks below cannot pass empty.
  const auto names = command_line_names();
  for (const auto* name :
       {"level", "probe-timeout", "python", "format", "archive", "help", "version", "symptom", "log"}) {
    EXPECT_TRUE(names.long_options.contains(name)) << name;
  }
  EXPECT_EQ(names.subcommands, (std::set<std::string>{"check", "capture", "diff", "fleet", "explain", "fix",
                                                      "knowledge", "targets", "why", "run"}));
}

TEST(CliCompletions, EveryFileNamesEveryLongOption) {
  const auto names = command_line_names();
  for (const auto& document : documents()) {
    const auto named = named_options(document);
    for (const auto& option : names.long_options) {
      EXPECT_TRUE(named.contains(option)) << document.path << " lacks --" << option;
    }
  }
}

TEST(CliCompletions, NoFileNamesAnOptionTheCommandLineLacks) {
  const auto names = command_line_names();
  for (const auto& document : documents()) {
    for (const auto& option : named_options(document)) {
      EXPECT_TRUE(names.long_options.contains(option))
          << document.path << " names --" << option << ", which rocm-doctor does not have";
    }
  }
}

TEST(CliCompletions, EveryCompletionOffersEverySubcommandOnOneLine) {
  const auto names = command_line_names();
  for (const auto& document : documents()) {
    if (document.path.starts_with("man/")) continue;  // the man page: next test
    const auto text_lines = lines(document.text);
    const bool offered = std::any_of(text_lines.begin(), text_lines.end(), [&](std::string_view line) {
      return std::all_of(names.subcommands.begin(), names.subcommands.end(),
                         [&](const std::string& sub) { return has_word(line, sub); });
    });
    EXPECT_TRUE(offered) << document.path << " has no line offering all of: "
                         << join({names.subcommands.begin(), names.subcommands.end()}, " ");
  }
}

TEST(CliCompletions, TheManPageDescribesEverySubcommand) {
  const auto names = command_line_names();
  const auto page = load("man/rocm-doctor.1", "--");
  for (const auto& sub : names.subcommands) {
    // The synopsis names each as ".B rocm-doctor <sub>" (check as "[ check ]").
    const bool listed = page.text.find(".B rocm-doctor " + sub) != std::string::npos ||
                        page.text.find(".RB [ " + sub + " ]") != std::string::npos;
    EXPECT_TRUE(listed) << "the man page's synopsis lacks " << sub;
  }
}

}  // namespace
}  // namespace rocm_doctor
