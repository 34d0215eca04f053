// The report's `versions` in every format that shows it: the header line of
// text/markdown/HTML, the JSON object, the Prometheus info metric.
#include <gtest/gtest.h>

#include "render/formats.h"

namespace rocm_doctor {
namespace {

Report report_with(std::vector<std::pair<std::string, std::string>> versions) {
  Report report;
  report.tool_version = "0.1.0";
  report.generated_at = "2026-11-30T07:00:00Z";
  report.source = "snapshot";
  report.host.os = "Ubuntu 22.04.4 LTS";
  report.host.kernel = "6.5.0-35-generic";
  report.versions = std::move(versions);
  return report;
}

const std::vector<std::pair<std::string, std::string>> kNode = {
    {"rocm", "6.2.4"},      {"rocm_packaging", "amd"},  {"rocm_prefix", "/opt/rocm-6.2.4"},
    {"hip", "6.2.41134"},   {"amdgpu", "6.8.5"},        {"amdgpu_source", "module"},
    {"amdgpu_rocm", "6.2"}, {"torch", "2.5.1+rocm6.2"}, {"torch_hip", "6.2.41133-dd7f95766"}};

TEST(VersionsRender, TextHeaderHasOneCompactLine) {
  const auto text = render_text(report_with(kNode), Color::off, Verbosity::normal);
  EXPECT_NE(text.find("\nROCm 6.2.4 · HIP 6.2.41134 · amdgpu 6.8.5 · torch 2.5.1+rocm6.2\n"), std::string::npos)
      << text;
}

TEST(VersionsRender, PhrasesSayWhereROCmAndTheDriverCameFrom) {
  const auto phrases = render_support::version_phrases(report_with({{"rocm", "5.2.3"},
                                                                    {"rocm_packaging", "distribution"},
                                                                    {"hip_runtime", "5.2.21153"},
                                                                    {"amdgpu", "6.8.5"},
                                                                    {"amdgpu_source", "amdgpu-dkms"}}));
  EXPECT_EQ(phrases, (std::vector<std::string>{"ROCm 5.2.3 (distribution)", "HIP 5.2.21153", "amdgpu-dkms 6.8.5"}));
}

TEST(VersionsRender, NoVersionsNoLineNoMetricAnEmptyObject) {
  const auto report = report_with({});
  const auto text = render_text(report, Color::off, Verbosity::normal);
  EXPECT_EQ(text.find("ROCm "), std::string::npos) << text;
  EXPECT_EQ(render_prometheus(report).find("rocm_doctor_versions_info"), std::string::npos);
  EXPECT_EQ(render_html(report).find("id=\"versions\""), std::string::npos);
  const auto json = nlohmann::json::parse(render_json(report));
  EXPECT_TRUE(json["versions"].is_object());
  EXPECT_TRUE(json["versions"].empty());
}

TEST(VersionsRender, JsonKeepsTheOrderAfterHost) {
  const auto json = nlohmann::ordered_json::parse(render_json(report_with(kNode)));
  std::vector<std::string> top;
  for (const auto& [key, value] : json.items()) top.push_back(key);
  const auto host = std::find(top.begin(), top.end(), "host");
  ASSERT_NE(host, top.end());
  EXPECT_EQ(*(host + 1), "versions");
  std::vector<std::pair<std::string, std::string>> versions;
  for (const auto& [key, value] : json["versions"].items()) versions.emplace_back(key, value.get<std::string>());
  EXPECT_EQ(versions, kNode);
}

TEST(VersionsRender, PrometheusInfoMetricHasEveryKeyAsAnEscapedLabel) {
  auto node = kNode;
  node.emplace_back("torch_hip", "a\"b\\c");  // a hostile value still makes one valid sample
  node.erase(node.end() - 2);
  const auto text = render_prometheus(report_with(node));
  EXPECT_NE(text.find("# TYPE rocm_doctor_versions_info gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rocm_doctor_versions_info{rocm=\"6.2.4\",rocm_packaging=\"amd\",rocm_prefix=\"/opt/rocm-6.2.4\","
                      "hip=\"6.2.41134\",amdgpu=\"6.8.5\",amdgpu_source=\"module\",amdgpu_rocm=\"6.2\","
                      "torch=\"2.5.1+rocm6.2\",torch_hip=\"a\\\"b\\\\c\"} 1\n"),
            std::string::npos)
      << text;
}

TEST(VersionsRender, MarkdownAndHtmlEscapeTheLine) {
  const auto report = report_with({{"rocm", "6.2.4"}, {"torch", "<b>2.5*"}});
  const auto markdown = render_markdown(report, RenderOptions{});
  EXPECT_NE(markdown.find("\nROCm 6.2.4 · torch \\<b\\>2.5\\*\n"), std::string::npos) << markdown;
  const auto html = render_html(report);
  EXPECT_NE(html.find("<p class=\"meta\" id=\"versions\">ROCm 6.2.4 · torch &lt;b&gt;2.5*</p>"), std::string::npos)
      << html;
}

}  // namespace
}  // namespace rocm_doctor
