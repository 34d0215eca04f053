// The report as a GitHub/GitLab issue comment (CommonMark + the HTML both allow).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "render/formats.h"
#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

using render_support::xml_escape;

// Every piece of text goes through here. Line breaks become spaces (a report
// line stays one line); other control characters, which a hostile path, plugin
// or policy could carry, become \xNN so they cannot act on a terminal that shows
// the markdown.
std::string one_line(std::string_view text) {
  std::string out(text);
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  return displayable(out, std::string_view::npos, false);  // escaped, never cut: what is long is bounded upstream
}

// Inline text: every character CommonMark could read as markup is escaped.
std::string escape(std::string_view text) {
  std::string out;
  for (const char c : one_line(text)) {
    if (std::string_view("\\`*_[]<>|~#&!").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::size_t longest_run(std::string_view text, char c) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (const char ch : text) {
    run = ch == c ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// A code span that holds any text, backticks included.
std::string code_span(std::string_view text) {
  const std::string content = one_line(text);
  const std::string fence(longest_run(content, '`') + 1, '`');
  const bool pad = !content.empty() && (content.front() == '`' || content.back() == '`');
  return fence + (pad ? " " : "") + content + (pad ? " " : "") + fence;
}

std::string code_block(const std::vector<std::string>& lines_of_code) {
  std::size_t longest = 2;
  std::vector<std::string> shown;
  for (const auto& line : lines_of_code) shown.push_back(one_line(line));
  for (const auto& line : shown) longest = std::max(longest, longest_run(line, '`'));
  const std::string fence(longest + 1, '`');
  std::string out = fence + "sh\n";
  for (const auto& line : shown) out += line + "\n";
  return out + fence + "\n";
}

std::string_view icon(Severity severity) {
  switch (severity) {
    case Severity::error: return "❌";
    case Severity::warning: return "⚠️";
    case Severity::info: return "ℹ️";
    case Severity::ok: return "✅";
  }
  return "";
}

std::string check_status_text(const CheckResult& check) {
  switch (check.status) {
    case CheckStatus::ok: return "✅ ok";
    case CheckStatus::info: return "✅ ok (info)";
    case CheckStatus::warning: return "⚠️ warning";
    case CheckStatus::error: return "❌ error";
    case CheckStatus::skipped: return "➖ skipped: " + escape(check.skipped_reason);
    case CheckStatus::internal_error: return "💥 internal error: " + escape(check.internal_error);
  }
  return "";
}

void markdown_fix(std::string& out, const Fix& fix) {
  std::vector<std::string> notes;
  if (fix.needs_root) notes.emplace_back("needs root");
  if (fix.needs_reboot) notes.emplace_back("then reboot");
  if (fix.needs_relogin) notes.emplace_back("then log out and back in");
  out += "**Fix:** " + escape(fix.description);
  if (!notes.empty()) out += " (" + join(notes, "; ") + ")";
  out += "\n\n";
  if (!fix.commands.empty()) out += code_block(fix.commands) + "\n";
  if (!fix.verify.empty()) out += "Verify with " + code_span(fix.verify) + "\n\n";
}

void markdown_finding(std::string& out, const Finding& finding, bool open) {
  out += open ? "<details open>\n" : "<details>\n";
  out += fmt::format("<summary>{} <code>{}</code> {}</summary>\n\n", icon(finding.severity),
                     xml_escape(one_line(finding.id)), xml_escape(one_line(finding.summary)));
  if (!finding.detail.empty()) out += escape(finding.detail) + "\n\n";
  if (finding.accepted) out += fmt::format("*{}*\n\n", escape(render_support::acceptance_note(finding)));
  if (!finding.evidence.empty()) {
    out += "Evidence:\n\n";
    for (const auto& evidence : finding.evidence) {
      out += "- " + code_span(evidence.source);
      if (!evidence.value.empty()) out += ": " + code_span(evidence.value);
      out += "\n";
    }
    out += "\n";
  }
  for (const auto& fix : finding.fixes) markdown_fix(out, fix);
  out += "</details>\n\n";
}

void markdown_gpus(std::string& out, const Report& report) {
  const auto rows = render_support::gpu_rows(report);
  if (rows.empty()) return;
  out += "### GPUs\n\n| # | PCI address | Name | gfx | VRAM | NUMA | XGMI hive | Driver |\n";
  out += "|---|---|---|---|---|---|---|---|\n";
  for (const auto& row : rows) {
    const auto cell = [](const std::string& text) { return text.empty() ? std::string("–") : escape(text); };
    out += fmt::format("| {} | {} | {}{} | {} | {} | {} | {} | {} |\n", row.index.empty() ? "–" : row.index,
                       cell(row.pci_address), cell(row.name), row.integrated ? " (integrated)" : "", cell(row.gfx),
                       cell(row.vram), cell(row.numa_node), cell(row.hive), cell(row.driver));
  }
  out += "\n";
}

// Partitioned GPUs (issue 22): one row per physical GPU, so that 8 GPUs in CPX mode are 8 rows
// beside the 64 rows of the GPUs table that lists every partition.
void render_physical_gpus(std::string& out, const Report& report) {
  const auto rows = render_support::physical_gpu_rows(report);
  if (!render_support::any_partitioned(rows)) return;
  out += "### Physical GPUs\n\n| PCI address | Name | gfx | Compute partition | Memory partition | Partitions | ";
  out += "HIP indices | CUs per partition |\n|---|---|---|---|---|---|---|---|\n";
  const auto cell = [](const std::string& text) { return text.empty() ? std::string("–") : escape(text); };
  for (const auto& gpu : rows) {
    std::string count = std::to_string(gpu.partitions.size());
    if (!gpu.expected_count.empty() && gpu.expected_count != count)
      count += " (the mode makes " + gpu.expected_count + ")";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(gpu.pci_address), cell(gpu.name),
                       cell(gpu.gfx), cell(gpu.compute_mode), cell(gpu.memory_mode), cell(count), cell(gpu.indices()),
                       cell(gpu.compute_units()));
  }
  out += "\n";
}

}  // namespace

std::string render_markdown(const Report& report, const RenderOptions& options) {
  std::string out = "## rocm-doctor report";
  if (!report.host.hostname.empty()) out += ": " + escape(report.host.hostname);
  out += "\n\n**" + render_support::summary_line(report) + "**";
  const auto worst = worst_severity(report);
  out +=
      worst >= options.fail_on ? " (fails at --fail-on " + std::string(to_string(options.fail_on)) + ")\n\n" : "\n\n";
  std::vector<std::string> facts;
  if (!report.host.os.empty()) facts.push_back(escape(report.host.os));
  if (!report.host.kernel.empty()) facts.push_back("kernel " + code_span(report.host.kernel));
  if (!report.host.container.empty()) facts.push_back("container: " + escape(report.host.container));
  if (report.host.wsl) facts.emplace_back("WSL2");
  facts.push_back("rocm-doctor " + escape(report.tool_version) + " (" + escape(report.source) + ", " +
                  escape(report.generated_at) + ")");
  out += join(facts, " · ") + "\n\n";
  std::vector<std::string> versions;
  for (const auto& phrase : render_support::version_phrases(report)) versions.push_back(escape(phrase));
  if (!versions.empty()) out += join(versions, " · ") + "\n\n";
  render_physical_gpus(out, report);
  markdown_gpus(out, report);

  // The user's error text first (issue 17), then what is wrong on the machine.
  for (const auto& line : render_support::symptom_lines(report)) {
    if (line.level == 0) out += "### " + escape(line.text) + "\n\n";
    if (line.command) {
      out += "\n" + code_block({line.text}) + "\n";
    } else if (line.level == 1) {
      out += "- " + escape(line.text) + "\n";
    } else if (line.level == 2) {
      out += "  - " + escape(line.text) + "\n";
    }
  }
  if (report.sections.contains("symptom")) out += "\n";

  // What is wrong first; the findings a root cause explains follow it, one line each.
  const auto roots = root_causes(report);
  if (!roots.empty()) out += roots.size() == 1 ? "### Root cause\n\n" : "### Root causes (most likely first)\n\n";
  for (const auto& root : roots) {
    out += "- **" + escape(root.finding->summary) + "** (" + code_span(root.finding->id) + ")\n";
    for (const auto* effect : root.explained) {
      out += "  - explains: " + escape(effect->summary) + " (" + code_span(effect->id) + ")\n";
    }
  }
  if (!roots.empty()) out += "\n";
  if (roots.empty() && !report.also.empty())
    out += "Nothing stops ROCm here; " + render_support::worth_tidying(report.also.size()) + " (at the end).\n\n";

  // Tidying and its consequences come last, under "Also worth doing" (issue 26).
  std::set<const Finding*> tidying;
  for (const auto& item : also_worth_doing(report)) {
    tidying.insert(item.finding);
    tidying.insert(item.explained.begin(), item.explained.end());
  }
  bool any = false;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      if (finding.severity < Severity::warning || tidying.contains(&finding)) continue;
      if (!any) out += "### Problems\n\n";
      any = true;
      markdown_finding(out, finding, finding.severity == Severity::error);
    }
  }
  if (!any && tidying.empty()) out += "No problems found.\n\n";
  if (!tidying.empty()) out += "### Also worth doing\n\n";
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      if (tidying.contains(&finding)) markdown_finding(out, finding, false);
    }
  }

  bool other = false;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      if (finding.severity >= Severity::warning) continue;
      if (!other) out += "<details>\n<summary>Other findings</summary>\n\n";
      other = true;
      out += "- " + std::string(icon(finding.severity)) + " " + code_span(finding.id) + " " + escape(finding.summary) +
             (finding.accepted ? " — " + escape(render_support::acceptance_note(finding)) : std::string()) + "\n";
    }
  }
  if (other) out += "\n</details>\n\n";

  out += "<details>\n<summary>Checks</summary>\n\n| Check | Status | Time |\n|---|---|---|\n";
  for (const auto& check : report.checks) {
    out += fmt::format("| {} ({}) | {} | {:.1f} ms |\n", escape(check.title), code_span(check.id),
                       check_status_text(check), check.duration_ms);
  }
  out += "\n</details>\n";
  return out;
}

}  // namespace rocm_doctor
