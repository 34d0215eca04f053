#include <fmt/color.h>
#include <fmt/format.h>

#include <algorithm>

#include "render/formats.h"
#include "render/render.h"
#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

constexpr std::size_t kWidth = 80;

// Text from the machine, a snapshot, a plugin or a policy (paths, names, fix
// texts, skip reasons) goes to a terminal: control characters become \xNN so a
// hostile value cannot move the cursor or start a forged report line. Findings'
// summary, detail and evidence are already made displayable by the runner.
// Escaped, never cut: what can grow long is bounded where it is made.
std::string shown(std::string_view text) {
  return displayable(text, std::string_view::npos, false);
}

struct Palette {
  Color color;
  [[nodiscard]] std::string paint(std::string_view text, fmt::text_style style) const {
    return color == Color::on ? fmt::format(style, "{}", text) : std::string(text);
  }
};

fmt::text_style style_for(Severity severity) {
  switch (severity) {
    case Severity::ok: return fmt::fg(fmt::terminal_color::green);
    case Severity::info: return fmt::fg(fmt::terminal_color::cyan);
    case Severity::warning: return fmt::fg(fmt::terminal_color::yellow) | fmt::emphasis::bold;
    case Severity::error: return fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold;
  }
  return {};
}

std::string_view mark_for(Severity severity) {
  switch (severity) {
    case Severity::ok: return "✓";
    case Severity::info: return "•";
    case Severity::warning: return "!";
    case Severity::error: return "✗";
  }
  return "?";
}

std::string status_mark(const CheckResult& check, const Palette& palette) {
  switch (check.status) {
    case CheckStatus::ok: return "[" + palette.paint("✓", style_for(Severity::ok)) + "]";
    case CheckStatus::info: return "[" + palette.paint("✓", style_for(Severity::ok)) + "]";
    case CheckStatus::warning: return "[" + palette.paint("!", style_for(Severity::warning)) + "]";
    case CheckStatus::error: return "[" + palette.paint("✗", style_for(Severity::error)) + "]";
    case CheckStatus::skipped: return "[-]";
    case CheckStatus::internal_error: return "[" + palette.paint("?", style_for(Severity::error)) + "]";
  }
  return "[?]";
}

// Greedy word wrap; every line starts with `indent` spaces.
std::string wrap(std::string_view text, std::size_t indent) {
  std::string out;
  for (const auto paragraph : lines(text)) {
    std::string line(indent, ' ');
    bool line_empty = true;
    for (const auto word : split_words(paragraph)) {
      if (!line_empty && line.size() + 1 + word.size() > kWidth) {
        out += line + "\n";
        line.assign(indent, ' ');
        line_empty = true;
      }
      if (!line_empty) line += ' ';
      line += word;
      line_empty = false;
    }
    out += line + "\n";
  }
  return out;
}

void render_fix(std::string& out, const Fix& fix) {
  out += wrap("Fix: " + shown(fix.description), 6);
  for (const auto& command : fix.commands) out += "        $ " + shown(command) + "\n";
  std::vector<std::string> notes;
  if (fix.needs_root) notes.emplace_back("needs root");
  if (fix.needs_reboot) notes.emplace_back("then reboot");
  if (fix.needs_relogin) notes.emplace_back("then log out and back in");
  if (!notes.empty()) out += "        (" + join(notes, "; ") + ")\n";
  if (!fix.verify.empty()) out += "      Verify: " + shown(fix.verify) + "\n";
}

// Where a finding's detail and fix are printed: at the top (a root cause), at
// the end (also worth doing), or in its check.
enum class Placed { here, top, end };

void render_finding(std::string& out, const Finding& finding, const Palette& palette, Verbosity verbosity,
                    Placed where) {
  const std::string mark = palette.paint(mark_for(finding.severity), style_for(finding.severity));
  out += "    " + mark + " " + finding.summary + "  " +
         palette.paint("(" + shown(finding.id) + ")", fmt::emphasis::faint) + "\n";
  if (finding.accepted) out += wrap(shown(render_support::acceptance_note(finding)), 6);
  // A consequence is folded under its cause: one line by default, all of it with -v.
  if (!finding.caused_by.empty()) out += wrap("Caused by " + shown(join(finding.caused_by, ", ")) + " (see above).", 6);
  if (where != Placed::here && verbosity != Verbosity::verbose) {
    out += wrap(where == Placed::top ? "Root cause: its detail and fix are at the top."
                                     : "Worth doing: its detail and fix are at the end.",
                6);
    return;
  }
  const bool full =
      verbosity == Verbosity::verbose || (finding.severity >= Severity::warning && finding.caused_by.empty());
  if (!full) return;
  if (!finding.detail.empty()) out += wrap(finding.detail, 6);
  for (const auto& evidence : finding.evidence) {
    out += wrap("Evidence: " + evidence.source + (evidence.value.empty() ? "" : ": " + evidence.value), 6);
  }
  for (const auto& fix : finding.fixes) render_fix(out, fix);
}

void render_check(std::string& out, const CheckResult& check, const Palette& palette, Verbosity verbosity,
                  const std::vector<std::string>& roots, const std::vector<std::string>& also) {
  out += status_mark(check, palette) + " " + shown(check.title);
  if (check.status == CheckStatus::skipped) out += " (skipped: " + shown(check.skipped_reason) + ")";
  out += "\n";
  if (check.status == CheckStatus::internal_error) {
    out += wrap("The check itself failed: " + shown(check.internal_error) +
                    ". Other checks are not affected; please report this.",
                4);
  }
  for (const auto& finding : check.findings) {
    const auto listed = [&](const std::vector<std::string>& ids) {
      return finding.caused_by.empty() && finding.severity >= Severity::warning &&
             std::find(ids.begin(), ids.end(), finding.id) != ids.end();
    };
    const auto where = listed(roots) ? Placed::top : listed(also) ? Placed::end : Placed::here;
    render_finding(out, finding, palette, verbosity, where);
  }
}

std::string report_header(const Report& report) {
  std::vector<std::string> parts = {"rocm-doctor " + shown(report.tool_version), shown(report.source)};
  if (!report.host.os.empty()) parts.push_back(shown(report.host.os));
  if (!report.host.kernel.empty()) parts.push_back("kernel " + shown(report.host.kernel));
  std::string out = join(parts, " · ") + "\n";
  std::vector<std::string> versions;
  for (const auto& phrase : render_support::version_phrases(report)) versions.push_back(shown(phrase));
  if (!versions.empty()) out += join(versions, " · ") + "\n";
  return out + "\n";
}

// Which policies judged this run: every skip and acceptance below names one of them.
std::string policy_line(const Report& report) {
  const auto it = report.sections.find("policies");
  if (it == report.sections.end() || !it->second.is_array() || it->second.empty()) return "";
  std::vector<std::string> names;
  for (const auto& policy : it->second) {
    names.push_back(shown(policy.value("name", std::string("?"))) + " (" +
                    shown(policy.value("file", std::string("?"))) + ")");
  }
  return "Policies: " + join(names, ", ") + "\n\n";
}

void render_cause(std::string& out, const RootCause& root, const Palette& palette, Verbosity verbosity) {
  const auto& finding = *root.finding;
  out += "  " + palette.paint(mark_for(finding.severity), style_for(finding.severity)) + " " + finding.summary + "  " +
         palette.paint("(" + shown(finding.id) + ")", fmt::emphasis::faint) + "\n";
  if (!finding.detail.empty()) out += wrap(finding.detail, 6);
  for (const auto& fix : finding.fixes) render_fix(out, fix);
  if (root.explained.empty()) return;
  out += "      It also explains:\n";
  for (const auto* effect : root.explained) {
    out += "        - " + effect->summary + "  " + palette.paint("(" + shown(effect->id) + ")", fmt::emphasis::faint) +
           "\n";
    if (verbosity != Verbosity::verbose) continue;
    for (const auto& cause : effect->caused_by) {
      const auto reason = causal_reason(cause, effect->id);
      if (!reason.empty()) out += wrap(shown(cause) + ": " + shown(reason), 10);
    }
  }
}

// The report opens with what is wrong: each root cause with why and its fix,
// and the findings it explains, one line each (docs/architecture.md#root-causes).
// A machine with only tidying to do says so in one line and never says "Root cause".
std::string root_cause_section(const Report& report, const Palette& palette, Verbosity verbosity) {
  const auto roots = root_causes(report);
  if (roots.empty()) {
    if (report.also.empty()) return "";
    return "Nothing stops ROCm here; " + render_support::worth_tidying(report.also.size()) + " (at the end).\n\n";
  }
  std::string out = roots.size() == 1 ? "Root cause:\n" : "Root causes (most likely first):\n";
  for (const auto& root : roots) render_cause(out, root, palette, verbosity);
  return out + "\n";
}

// Tidying and advice, last: never above what stops the GPU (issue 26).
std::string also_section(const Report& report, const Palette& palette, Verbosity verbosity) {
  const auto also = also_worth_doing(report);
  if (also.empty()) return "";
  std::string out = "\nAlso worth doing:\n";
  for (const auto& item : also) render_cause(out, item, palette, verbosity);
  return out;
}

// The user's error text, before the root cause it may point at (issue 17).
std::string symptom_block(const Report& report) {
  std::string out;
  for (const auto& line : render_support::symptom_lines(report)) {
    if (line.level == 0) out += shown(line.text) + "\n";
    if (line.command) {
      out += "      $ " + shown(line.text) + "\n";  // wrapped, a pasted command would break
    } else if (line.level > 0) {
      out += wrap(shown(line.text), line.level == 1 ? 2 : 6);
    }
  }
  return out.empty() ? out : out + "\n";
}

std::string plural(int count, std::string_view word) {
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

// Without -v only the checks with something to say are listed; the others
// fold into one line (passed, and not applicable here).
bool has_something_to_say(const CheckResult& check) {
  return check.status == CheckStatus::warning || check.status == CheckStatus::error ||
         check.status == CheckStatus::internal_error;
}

std::string folded_checks_line(const Report& report) {
  int passed = 0;
  int not_applicable = 0;
  for (const auto& check : report.checks) {
    if (check.status == CheckStatus::skipped) ++not_applicable;
    if (check.status == CheckStatus::ok || check.status == CheckStatus::info) ++passed;
  }
  std::vector<std::string> parts;
  if (passed > 0) parts.push_back(plural(passed, "check") + " passed");
  if (not_applicable > 0) {
    const auto* verb = not_applicable == 1 ? "does" : "do";
    parts.push_back(passed > 0 ? fmt::format("{} {} not apply here", not_applicable, verb)
                               : fmt::format("{} {} not apply here", plural(not_applicable, "check"), verb));
  }
  if (parts.empty()) return "";
  return join(parts, ", ") + "; -v lists them.\n";
}

}  // namespace

std::string render_text(const Report& report, Color color, Verbosity verbosity) {
  const Palette palette{color};
  std::string out = report_header(report);
  out += render_support::text_gpu_table(report, verbosity);
  out += render_support::text_installs_block(report, verbosity);
  out += policy_line(report);
  out += symptom_block(report);
  out += root_cause_section(report, palette, verbosity);
  for (const auto& check : report.checks) {
    if (verbosity == Verbosity::verbose || has_something_to_say(check))
      render_check(out, check, palette, verbosity, report.root_causes, report.also);
  }
  if (verbosity != Verbosity::verbose) out += folded_checks_line(report);
  out += also_section(report, palette, verbosity);
  out += "\nSummary: " + render_support::summary_line(report) + "\n";
  return out;
}

}  // namespace rocm_doctor
