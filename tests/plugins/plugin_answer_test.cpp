// A plugin's answer is parsed strictly, and a finished plugin child is judged
// the same way whatever it did (tables of cases).
#include "rocm_doctor/plugin_answer.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "plugins/plugin_runner.h"

namespace rocm_doctor::plugins {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

const std::set<std::string, std::less<>> kBuiltin = {"driver.no-amd-gpu", "access.relogin-required"};

Json answer_with(Json finding) {
  return {{"protocol", 1}, {"findings", Json::array({std::move(finding)})}};
}

Json good_finding() {
  return {{"id", "site.scratch.full"},
          {"severity", "warning"},
          {"summary", "/scratch is 97% full"},
          {"detail", "Jobs write caches there.\nClean it."},
          {"evidence", {{{"source", "df /scratch"}, {"value", "97%"}}}},
          {"fix",
           {{{"description", "Clean old job folders"}, {"commands", {"rm -rf /scratch/old"}}, {"needs_root", true}}}}};
}

TEST(PluginAnswer, AValidAnswerBecomesFindings) {
  const auto findings = parse_plugin_answer(answer_with(good_finding()), "scratch", kBuiltin);
  ASSERT_TRUE(findings) << findings.error();
  ASSERT_EQ(findings->size(), 1U);
  const auto& finding = findings->front();
  EXPECT_EQ(finding.id, "site.scratch.full");
  EXPECT_EQ(finding.severity, Severity::warning);
  EXPECT_EQ(finding.detail, "Jobs write caches there.\nClean it.");
  ASSERT_EQ(finding.evidence.size(), 1U);
  EXPECT_EQ(finding.evidence[0].value, "97%");
  ASSERT_EQ(finding.fixes.size(), 1U);
  EXPECT_EQ(finding.fixes[0].commands, std::vector<std::string>{"rm -rf /scratch/old"});
  EXPECT_TRUE(finding.fixes[0].needs_root);
  EXPECT_FALSE(finding.fixes[0].needs_reboot);
  EXPECT_EQ(finding.fixes[0].verify, "rocm-doctor --only plugins");
}

TEST(PluginAnswer, NoFindingsIsAValidAnswer) {
  const auto findings = parse_plugin_answer({{"protocol", 1}, {"findings", Json::array()}}, "scratch", kBuiltin);
  ASSERT_TRUE(findings) << findings.error();
  EXPECT_TRUE(findings->empty());
}

TEST(PluginAnswer, EveryWayToGetItWrongIsNamed) {
  const auto with = [](const std::string& key, Json value) {
    auto finding = good_finding();
    finding[key] = std::move(value);
    return answer_with(finding);
  };
  auto no_summary = good_finding();
  no_summary.erase("summary");
  auto no_id = good_finding();
  no_id.erase("id");
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json::array(), "the answer is not a JSON object"},
      {{{"findings", Json::array()}}, "the answer has no 'protocol'"},
      {{{"protocol", 2}, {"findings", Json::array()}}, "the answer speaks protocol 2, the doctor speaks protocol 1"},
      {{{"protocol", "1"}, {"findings", Json::array()}},
       "the answer speaks protocol \"1\", the doctor speaks protocol 1"},
      {{{"protocol", 1}}, "the answer has no 'findings'"},
      {{{"protocol", 1}, {"findings", Json::object()}}, "'findings' is not an array"},
      {{{"protocol", 1}, {"findings", Json::array()}, {"extra", 1}}, "the answer has the unknown field 'extra'"},
      {answer_with(no_id), "findings[0].id is missing"},
      {answer_with(no_summary), "findings[0].summary is missing"},
      {with("summary", " "), "findings[0].summary is empty"},
      {with("severity", "fatal"), "findings[0].severity 'fatal' is not one of ok, info, warning, error"},
      {with("id", "driver.no-amd-gpu"),
       "findings[0].id 'driver.no-amd-gpu' is a built-in id; a plugin's ids start with 'site.scratch.'"},
      {with("id", "site.other.x"),
       "findings[0].id 'site.other.x' is not of the form 'site.scratch.<name>' ([a-z0-9-] words joined by dots)"},
      {with("id", "site.scratch."),
       "findings[0].id 'site.scratch.' is not of the form 'site.scratch.<name>' ([a-z0-9-] "
       "words joined by dots)"},
      {with("id", "site.scratch.Upper"),
       "findings[0].id 'site.scratch.Upper' is not of the form 'site.scratch.<name>' "
       "([a-z0-9-] words joined by dots)"},
      {with("summary", 42), "findings[0].summary is not a string"},
      {with("summary", "red\x1b[31malert"), "findings[0].summary contains the control character U+001B"},
      {with("summary", "two\nlines"), "findings[0].summary contains the control character U+000A"},
      {with("summary", "c1 \xc2\x9b csi"), "findings[0].summary contains the control character U+009B"},
      {with("summary", std::string(5000, 'x')), "findings[0].summary is longer than 4096 bytes"},
      {with("colour", "red"), "findings[0] has the unknown field 'colour'"},
      {with("evidence", Json::object()), "findings[0].evidence is not an array"},
      {with("evidence", {{{"source", "x"}}}), "findings[0].evidence[0].value is missing"},
      {with("fix", {{{"commands", {"true"}}}}), "findings[0].fix[0].description is missing"},
      {with("fix", {{{"description", "d"}, {"needs_root", "yes"}}}),
       "findings[0].fix[0].needs_root is not true or false"},
      {with("fix", {{{"description", "d"}, {"commands", {1}}}}), "findings[0].fix[0].commands[0] is not a string"},
      {with("fix", {{{"description", "d"}, {"commands", {"a\nb"}}}}),
       "findings[0].fix[0].commands[0] contains the control character U+000A"},
  };
  for (const auto& [answer, message] : cases) {
    const auto result = parse_plugin_answer(answer, "scratch", kBuiltin);
    ASSERT_FALSE(result) << answer.dump();
    EXPECT_EQ(result.error(), message) << answer.dump();
  }
}

TEST(PluginAnswer, OneBadFindingRejectsTheWholeAnswer) {
  auto answer = answer_with(good_finding());
  answer["findings"].push_back({{"id", "site.other.x"}, {"severity", "error"}, {"summary", "blame"}});
  const auto result = parse_plugin_answer(answer, "scratch", kBuiltin);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().find("findings[1].id 'site.other.x'"), std::string::npos);
}

TEST(PluginAnswer, AtMostAHundredFindings) {
  Json answer = {{"protocol", 1}, {"findings", Json::array()}};
  for (int i = 0; i < 101; ++i) answer["findings"].push_back(good_finding());
  const auto result = parse_plugin_answer(answer, "scratch", kBuiltin);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), "the answer has 101 findings, more than 100");
}

probe::ChildResult finished(int exit_code, std::string out, std::string err = "") {
  probe::ChildResult child;
  child.started = true;
  child.exit_code = exit_code;
  child.out = std::move(out);
  child.err_tail = std::move(err);
  child.err_bytes = child.err_tail.size();
  child.elapsed = 12ms;
  return child;
}

TEST(PluginRunOutcome, JudgesEveryWayAPluginCanEnd) {
  auto ok = plugin_run_outcome(finished(0, R"({"protocol": 1, "findings": []})"), 10s);
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_EQ(ok["output"]["protocol"], 1);
  EXPECT_EQ(ok["elapsed_ms"], 12);

  auto exited = plugin_run_outcome(finished(3, R"({"protocol": 1, "findings": []})", "license server down\n"), 10s);
  EXPECT_EQ(exited["status"], "exit-code");
  EXPECT_EQ(exited["exit_code"], 3);
  EXPECT_EQ(exited["stderr_tail"], "license server down\n");
  EXPECT_FALSE(exited.contains("output"));

  auto crashed = finished(0, "");
  crashed.exit_code.reset();
  crashed.signal = SIGSEGV;
  EXPECT_EQ(plugin_run_outcome(crashed, 10s)["status"], "crashed");
  EXPECT_EQ(plugin_run_outcome(crashed, 10s)["signal_name"], "SIGSEGV");

  auto hung = crashed;
  hung.signal = SIGKILL;
  hung.timed_out = true;
  EXPECT_EQ(plugin_run_outcome(hung, 10s)["status"], "timeout");
  EXPECT_EQ(plugin_run_outcome(hung, 10s)["timeout_ms"], 10000);

  probe::ChildResult not_started;
  not_started.exec_error = "cannot run /x: Exec format error";
  EXPECT_EQ(plugin_run_outcome(not_started, 10s)["status"], "exec-failed");
  EXPECT_EQ(plugin_run_outcome(not_started, 10s)["error"], "cannot run /x: Exec format error");

  const std::vector<std::pair<probe::ChildResult, std::string>> invalid = {
      {finished(0, "hello \xff\xfe world\n"), "its stdout is not UTF-8 text"},
      {finished(0, "  \n"), "it printed nothing on stdout"},
      {finished(0, "everything is fine\n"),
       "its stdout is not one JSON document (parse error at line 1, column 1: syntax error while parsing value - "
       "invalid literal; last read: 'e')"},
  };
  for (const auto& [child, problem] : invalid) {
    const auto outcome = plugin_run_outcome(child, 10s);
    EXPECT_EQ(outcome["status"], "invalid-output") << child.out;
    EXPECT_EQ(outcome["problem"], problem) << child.out;
    EXPECT_NO_THROW((void)outcome.dump()) << "the record must stay valid JSON text";
  }
  auto big = finished(0, std::string(100, 'x'));
  big.out_truncated = true;
  EXPECT_EQ(plugin_run_outcome(big, 10s)["problem"], "it wrote more than 1024 KiB on stdout");
}

TEST(ValidUtf8, KeepsTextAndReplacesBrokenBytes) {
  EXPECT_TRUE(is_valid_utf8("plain"));
  EXPECT_TRUE(is_valid_utf8("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf")) << "overlong";
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80")) << "surrogate";
  EXPECT_FALSE(is_valid_utf8("\xe2\x82")) << "cut short";
  EXPECT_EQ(valid_utf8("a\xff"
                       "b"),
            "a\xef\xbf\xbd"
            "b");
}

}  // namespace
}  // namespace rocm_doctor::plugins
