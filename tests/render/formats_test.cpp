// Every report format, checked by the tool its consumers use: cmark for the
// Markdown, xmllint + the JUnit XSD, promtool, headless Chromium for the HTML.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "render/run_tool.h"
#include "support/run_binary.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::find_tool;
using testing::read_text;
using testing::run_doctor;
using testing::run_tool;

const std::string kScenarios = ROCM_DOCTOR_SCENARIOS_DIR;
const std::string kMi300x = kScenarios + "/gpu-mi300x-x8";
const std::string kHealthy = kScenarios + "/ubuntu2204-rx7900xtx-healthy";
const std::string kHostile = kScenarios + "/access-hostile-user-name";
const std::string kGroupMissing = kScenarios + "/access-group-missing";
const std::string kMi300xCpx = kScenarios + "/real-mi300x-cpx-x8";  // real capture, 63 partitions

// Runs a replay writing FORMAT to a file in `folder`; returns its path.
fs::path render_to(const testing::TempDir& folder, const std::string& scenario, const std::string& format,
                   std::vector<std::string> extra = {}) {
  const auto file = folder.path() / ("report." + format);
  std::vector<std::string> args = {"--replay", scenario, "--level", "quick", "--output", format + "=" + file.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto result = run_doctor(args);
  EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
  EXPECT_TRUE(result.out.empty()) << "FORMAT=FILE leaves stdout empty";
  return file;
}

TEST(Formats, SeveralOutputsAtOnceEachInItsFormat) {
  testing::TempDir folder;
  const auto json = folder.path() / "r.json";
  const auto junit = folder.path() / "r.xml";
  const auto plain = folder.path() / "r.txt";
  const auto result = run_doctor({"--replay", kHostile, "--only", "access", "--output", "json=" + json.string(),
                                  "--output", "junit=" + junit.string(), "-o", plain.string()});
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(result.out.empty());
  EXPECT_EQ(nlohmann::json::parse(read_text(json))["schema"], "rocm-doctor/report");
  EXPECT_TRUE(read_text(junit).starts_with("<?xml"));
  EXPECT_NE(read_text(plain).find("Summary:"), std::string::npos) << "plain --output FILE keeps --format (text)";
}

TEST(Formats, UnknownFormatIsAUsageError) {
  EXPECT_EQ(run_doctor({"--replay", kHealthy, "--format", "yaml"}).exit_code, 2);
}

TEST(Formats, MarkdownParsesAsCommonMarkWithCommandsIntact) {
  const auto cmark = find_tool("cmark");
  if (cmark.empty()) GTEST_SKIP() << "cmark is not installed (packaging/test-deps.txt)";
  testing::TempDir folder;
  for (const auto& scenario : {kMi300x, kHostile, kGroupMissing}) {
    const auto file = render_to(folder, scenario, "markdown");
    const auto ast = run_tool({cmark, "--to", "xml", file.string()});
    ASSERT_EQ(ast.exit_code, 0) << ast.out;
    EXPECT_NE(ast.out.find("<heading level=\"2\">"), std::string::npos) << ast.out;
    EXPECT_NE(ast.out.find("<html_block xml:space=\"preserve\">&lt;details"), std::string::npos)
        << "findings are collapsible";
  }
  // The hostile user name reaches the code block byte for byte, quoted once.
  const auto file = render_to(folder, kHostile, "markdown");
  const auto html = run_tool({cmark, file.string()});
  EXPECT_NE(html.out.find("<code class=\"language-sh\">sudo usermod -aG render "), std::string::npos) << html.out;
  EXPECT_EQ(html.out.find("<b>&amp;"), std::string::npos) << "the name's <b> is text, never markup";
  const auto gpus = read_text(render_to(folder, kMi300x, "markdown"));
  EXPECT_NE(gpus.find("| 7 | 0000:"), std::string::npos) << "a row per GPU:\n" << gpus;
}

TEST(Formats, JunitValidatesAgainstTheJenkinsSchema) {
  const auto xmllint = find_tool("xmllint");
  if (xmllint.empty()) GTEST_SKIP() << "xmllint is not installed (libxml2-utils)";
  const std::string schema = std::string(ROCM_DOCTOR_SOURCE_DIR) + "/tests/render/junit-10.xsd";
  testing::TempDir folder;
  for (const auto& scenario : {kMi300x, kHostile, kHealthy, kGroupMissing}) {
    const auto file = render_to(folder, scenario, "junit");
    const auto check = run_tool({xmllint, "--noout", "--schema", schema, file.string()});
    EXPECT_EQ(check.exit_code, 0) << scenario << "\n" << check.out;
  }
  const auto xml = read_text(render_to(folder, kHostile, "junit", {"--only", "access"}));
  EXPECT_NE(xml.find("<failure type=\"access.group-missing\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("tests=\"1\" failures=\"1\" errors=\"0\""), std::string::npos) << xml;
}

TEST(Formats, JunitFailsOnlyAtTheFailOnLevelAndMarksSkippedChecks) {
  testing::TempDir folder;
  const auto xml = read_text(render_to(folder, kMi300x, "junit", {"--fail-on", "warning"}));
  EXPECT_NE(xml.find("<skipped message="), std::string::npos) << "probe checks are skipped at --level quick\n" << xml;
  const auto healthy = read_text(render_to(folder, kHealthy, "junit"));
  EXPECT_EQ(healthy.find("<failure"), std::string::npos) << healthy;
}

TEST(Formats, PrometheusPassesPromtoolAndEscapesLabels) {
  testing::TempDir folder;
  const auto file = render_to(folder, kHostile, "prometheus");
  const auto text = read_text(file);
  EXPECT_NE(text.find("rocm_doctor_finding{check=\"access\",id=\"access.group-missing\",severity=\"error\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE rocm_doctor_last_run_timestamp_seconds gauge"), std::string::npos);
  EXPECT_NE(text.find("rocm_doctor_check_status{check=\"access\",status=\"error\"} 1"), std::string::npos);
  const auto gpus = read_text(render_to(folder, kMi300x, "prometheus"));
  EXPECT_NE(gpus.find("rocm_doctor_gpus 8\n"), std::string::npos) << gpus;
  const auto promtool = find_tool("promtool");
  if (promtool.empty()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  for (const auto& path : {file, render_to(folder, kMi300x, "prometheus")}) {
    const auto check = run_tool({promtool, "check", "metrics"}, path.string());
    EXPECT_EQ(check.exit_code, 0) << check.out;
  }
}

TEST(Formats, NpdIsOneShortLineAndThePluginExitCode) {
  const auto broken = run_doctor({"--replay", kHostile, "--only", "access", "--format", "npd"});
  EXPECT_EQ(broken.exit_code, 1) << "NonOK";
  EXPECT_LE(broken.out.size(), 81U) << broken.out;
  EXPECT_EQ(std::count(broken.out.begin(), broken.out.end(), '\n'), 1) << broken.out;
  EXPECT_TRUE(std::all_of(broken.out.begin(), broken.out.end(), [](char c) {
    return c == '\n' || (c >= 0x20 && c < 0x7f);
  })) << broken.out;
  EXPECT_TRUE(broken.out.starts_with("3E 0W access.")) << broken.out;
  const auto healthy = run_doctor({"--replay", kHealthy, "--level", "quick", "--format", "npd"});
  EXPECT_EQ(healthy.exit_code, 0) << healthy.out << healthy.err;
  EXPECT_TRUE(healthy.out.starts_with("ROCm OK (1 GPU")) << healthy.out;
}

// Nothing the page would load from anywhere: no src/href/url()/@import.
void expect_self_contained(const std::string& html) {
  for (const auto* pattern : {R"(\bsrc\s*=)", R"(\bhref\s*=)", R"(url\s*\()", R"(@import)", R"(<link\b)",
                              R"(<iframe\b)", R"(<object\b)", R"(<embed\b)", R"(<img\b)"}) {
    EXPECT_FALSE(std::regex_search(html, std::regex(pattern, std::regex::icase))) << pattern;
  }
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos) << "a CSP forbids loads as well";
}

TEST(Formats, HtmlIsSelfContainedWithTopologyAndCopyButtons) {
  testing::TempDir folder;
  const auto file = render_to(folder, kMi300x, "html");
  const auto html = read_text(file);
  expect_self_contained(html);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("XGMI hive"), std::string::npos) << "the MI300X hive is drawn";
  EXPECT_NE(html.find("NUMA node"), std::string::npos);
  const auto hostile = read_text(render_to(folder, kHostile, "html"));
  expect_self_contained(hostile);
  EXPECT_NE(hostile.find("data-copy=\"cmd-1\""), std::string::npos);
  EXPECT_EQ(hostile.find("<b>&"), std::string::npos) << "the user name is escaped";
  EXPECT_NE(hostile.find("&lt;b&gt;&amp;"), std::string::npos);
}

TEST(Formats, HtmlRendersInHeadlessChromium) {
  const auto chromium = find_tool("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (packaging/test-deps.txt)";
  testing::TempDir folder;
  const auto file = render_to(folder, kMi300x, "html");
  const auto shot = folder.path() / "shot.png";
  const auto profile = folder.path() / "profile";
  const std::vector<std::string> flags = {chromium,
                                          "--headless",
                                          "--no-sandbox",
                                          "--disable-gpu",
                                          "--disable-background-networking",
                                          "--disable-component-update",
                                          "--disable-sync",
                                          "--no-first-run",
                                          "--user-data-dir=" + profile.string(),
                                          "--window-size=1280,1600"};
  auto args = flags;
  args.push_back("--screenshot=" + shot.string());
  args.push_back("file://" + file.string());
  const auto run = run_tool(args);
  ASSERT_TRUE(fs::exists(shot)) << run.out;
  EXPECT_GT(fs::file_size(shot), 10000U) << "a real picture, not a blank page";
  // The page's script ran without error and the SVG is in the live DOM.
  args = flags;
  args.push_back("--dump-dom");
  args.push_back("file://" + file.string());
  const auto dom = run_tool(args);
  EXPECT_NE(dom.out.find("<svg"), std::string::npos) << dom.out.substr(0, 2000);
  EXPECT_NE(dom.out.find("data-copy=\"cmd-"), std::string::npos);
  // A partitioned node: the live DOM groups the 63 partitions under their 8 GPUs (issue 22).
  args = flags;
  args.push_back("--dump-dom");
  args.push_back("file://" + render_to(folder, kMi300xCpx, "html").string());
  const auto partitioned = run_tool(args);
  const auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (auto at = partitioned.out.find(text); at != std::string::npos; at = partitioned.out.find(text, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("<g class=\"physical-gpu\""), 8U) << partitioned.out.substr(0, 2000);
  EXPECT_EQ(count("<g class=\"partition\">"), 63U);
}

}  // namespace
}  // namespace rocm_doctor
