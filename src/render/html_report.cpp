// The report as one self-contained HTML page: inline CSS, inline JS (copy
// buttons), the GPU topology as inline SVG. Nothing is fetched from anywhere,
// and a Content-Security-Policy forbids it.
#include <fmt/format.h>

#include <set>

#include "render/formats.h"
#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

using render_support::GpuRow;
using render_support::xml_escape;

constexpr std::string_view kStyle = R"(
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
h1{font-size:1.5em;margin-bottom:.2em}.meta{color:#555}
.summary{font-size:1.1em;padding:.6em 1em;border-radius:6px;background:#eef6ee}
.summary.warning{background:#fff6e0}.summary.error{background:#fdecec}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
.finding{border:1px solid #ddd;border-left:6px solid #999;border-radius:4px;margin:1em 0;padding:.4em 1em}
.finding.error{border-left-color:#c62828}.finding.warning{border-left-color:#ef8f00}.finding.info{border-left-color:#1976d2}
.id{font-family:monospace;color:#555}.cmd{position:relative;background:#f4f4f4;border-radius:4px;padding:.5em 5em .5em .8em}
.cmd pre{margin:0;white-space:pre-wrap;word-break:break-all}
.cmd button{position:absolute;top:.4em;right:.4em}
svg text{font:12px sans-serif}
)";

constexpr std::string_view kScript = R"(
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  button.addEventListener('click', function () {
    var text = document.getElementById(button.getAttribute('data-copy')).textContent;
    var done = function () { button.textContent = 'Copied'; setTimeout(function () { button.textContent = 'Copy'; }, 1500); };
    if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(text).then(done); return; }
    var area = document.createElement('textarea');
    area.value = text; document.body.appendChild(area); area.select();
    document.execCommand('copy'); document.body.removeChild(area); done();
  });
});
)";

std::string severity_class(Severity severity) {
  return std::string(to_string(severity));
}

class Page {
 public:
  void add(std::string_view text) { out_ += text; }
  // A command block with a copy button.
  void commands(const std::vector<std::string>& lines_of_code) {
    const std::string id = fmt::format("cmd-{}", ++blocks_);
    out_ += fmt::format(
        "<div class=\"cmd\"><pre id=\"{}\">{}</pre><button type=\"button\" data-copy=\"{}\">Copy</button></div>\n", id,
        xml_escape(join(lines_of_code, "\n")), id);
  }
  [[nodiscard]] std::string take() { return std::move(out_); }

 private:
  std::string out_;
  int blocks_ = 0;
};

void html_gpus(Page& page, const Report& report) {
  const auto rows = render_support::gpu_rows(report);
  if (rows.empty()) return;
  page.add(
      "<h2>GPUs</h2>\n<table><tr><th>#</th><th>PCI address</th><th>Name</th><th>gfx</th><th>VRAM</th>"
      "<th>NUMA</th><th>XGMI hive</th><th>Render node</th><th>Driver</th></tr>\n");
  for (const auto& row : rows) {
    page.add("<tr>");
    for (const auto* cell : {&row.index, &row.pci_address, &row.name, &row.gfx, &row.vram, &row.numa_node, &row.hive,
                             &row.render_node, &row.driver}) {
      page.add("<td>" + (cell->empty() ? std::string("–") : xml_escape(*cell)) + "</td>");
    }
    page.add("</tr>\n");
  }
  page.add("</table>\n<h2>Topology</h2>\n" +
           render_support::topology_svg(rows, render_support::physical_gpu_rows(report)));
}

void html_finding(Page& page, const Finding& finding) {
  page.add(fmt::format("<div class=\"finding {}\"><h3>{} <span class=\"id\">{}</span></h3>\n",
                       severity_class(finding.severity), xml_escape(finding.summary), xml_escape(finding.id)));
  if (!finding.detail.empty()) page.add("<p>" + xml_escape(finding.detail) + "</p>\n");
  if (finding.accepted) page.add("<p><i>" + xml_escape(render_support::acceptance_note(finding)) + "</i></p>\n");
  if (!finding.evidence.empty()) {
    page.add("<ul class=\"evidence\">");
    for (const auto& evidence : finding.evidence) {
      page.add("<li><code>" + xml_escape(evidence.source) + "</code>: <code>" + xml_escape(evidence.value) +
               "</code></li>");
    }
    page.add("</ul>\n");
  }
  for (const auto& fix : finding.fixes) {
    std::vector<std::string> notes;
    if (fix.needs_root) notes.emplace_back("needs root");
    if (fix.needs_reboot) notes.emplace_back("then reboot");
    if (fix.needs_relogin) notes.emplace_back("then log out and back in");
    page.add("<p><b>Fix:</b> " + xml_escape(fix.description) +
             (notes.empty() ? "" : " <i>(" + xml_escape(join(notes, "; ")) + ")</i>") + "</p>\n");
    if (!fix.commands.empty()) page.commands(fix.commands);
    if (!fix.verify.empty()) page.add("<p>Verify: <code>" + xml_escape(fix.verify) + "</code></p>\n");
  }
  page.add("</div>\n");
}

}  // namespace

std::string render_html(const Report& report) {
  Page page;
  const auto worst = worst_severity(report);
  const std::string title = "rocm-doctor report" + (report.host.hostname.empty() ? "" : ": " + report.host.hostname);
  page.add(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
  page.add("<title>" + xml_escape(title) + "</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n");
  page.add("<h1>" + xml_escape(title) + "</h1>\n<p class=\"meta\">");
  std::vector<std::string> facts;
  if (!report.host.os.empty()) facts.push_back(xml_escape(report.host.os));
  if (!report.host.kernel.empty()) facts.push_back("kernel " + xml_escape(report.host.kernel));
  if (!report.host.container.empty()) facts.push_back("container " + xml_escape(report.host.container));
  facts.push_back("rocm-doctor " + xml_escape(report.tool_version) + ", " + xml_escape(report.source) + ", " +
                  xml_escape(report.generated_at));
  page.add(join(facts, " · ") + "</p>\n");
  std::vector<std::string> versions;
  for (const auto& phrase : render_support::version_phrases(report)) versions.push_back(xml_escape(phrase));
  if (!versions.empty()) page.add("<p class=\"meta\" id=\"versions\">" + join(versions, " · ") + "</p>\n");
  page.add(fmt::format("<p class=\"summary {}\" id=\"summary\">{}</p>\n", severity_class(worst),
                       xml_escape(render_support::summary_line(report))));
  html_gpus(page, report);

  // The user's error text first (issue 17), then what is wrong on the machine.
  for (const auto& line : render_support::symptom_lines(report)) {
    if (line.level == 0) page.add("<h2 id=\"symptom\">" + xml_escape(line.text) + "</h2>\n");
    if (line.command) {
      page.commands({line.text});
    } else if (line.level == 1) {
      page.add("<p>" + xml_escape(line.text) + "</p>\n");
    } else if (line.level == 2) {
      page.add("<p class=\"meta\">" + xml_escape(line.text) + "</p>\n");
    }
  }

  // What is wrong first: each root cause in full, the findings it explains one line each.
  const auto roots = root_causes(report);
  if (!roots.empty())
    page.add(roots.size() == 1 ? "<h2 id=\"root-causes\">Root cause</h2>\n"
                               : "<h2 id=\"root-causes\">Root causes (most likely first)</h2>\n");
  for (const auto& root : roots) {
    html_finding(page, *root.finding);
    if (root.explained.empty()) continue;
    page.add("<p>It also explains:</p>\n<ul class=\"explained\">\n");
    for (const auto* effect : root.explained) {
      page.add("<li>" + xml_escape(effect->summary) + " <code>" + xml_escape(effect->id) + "</code></li>\n");
    }
    page.add("</ul>\n");
  }

  if (roots.empty() && !report.also.empty()) {
    page.add("<p id=\"nothing-stops\">Nothing stops ROCm here; " +
             xml_escape(render_support::worth_tidying(report.also.size())) + " (at the end).</p>\n");
  }

  // Tidying and its consequences come last, under "Also worth doing" (issue 26).
  std::set<const Finding*> tidying;
  for (const auto& item : also_worth_doing(report)) {
    tidying.insert(item.finding);
    tidying.insert(item.explained.begin(), item.explained.end());
  }
  page.add("<h2>Findings</h2>\n");
  bool any = false;
  for (const auto severity : {Severity::error, Severity::warning, Severity::info}) {
    for (const auto& check : report.checks) {
      for (const auto& finding : check.findings) {
        if (finding.severity != severity || tidying.contains(&finding)) continue;
        html_finding(page, finding);
        any = true;
      }
    }
  }
  if (!any && tidying.empty()) page.add("<p>No problems found.</p>\n");
  if (!tidying.empty()) page.add("<h2 id=\"also\">Also worth doing</h2>\n");
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      if (tidying.contains(&finding)) html_finding(page, finding);
    }
  }

  page.add("<h2>Checks</h2>\n<table><tr><th>Check</th><th>Status</th><th>Time</th></tr>\n");
  for (const auto& check : report.checks) {
    std::string status(to_string(check.status));
    if (check.status == CheckStatus::skipped) status += ": " + check.skipped_reason;
    if (check.status == CheckStatus::internal_error) status += ": " + check.internal_error;
    page.add(fmt::format("<tr><td>{} <span class=\"id\">{}</span></td><td>{}</td><td>{:.1f} ms</td></tr>\n",
                         xml_escape(check.title), xml_escape(check.id), xml_escape(status), check.duration_ms));
  }
  page.add("</table>\n<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n");
  return page.take();
}

}  // namespace rocm_doctor
