// `rocm-doctor diff A.json B.json`: what changed between two reports (before
// and after an upgrade, a working node and a broken one). Exit codes as diff(1):
// 0 the same, 1 different, 2 a report could not be read.
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli.h"
#include "report/report_digest.h"

namespace rocm_doctor {

namespace {

struct Change {
  std::string key;
  std::string before;
  std::string after;
};

struct ReportDiff {
  std::vector<DigestFinding> appeared;
  std::vector<DigestFinding> gone;
  std::vector<Change> severity;  // finding id: before -> after
  std::vector<Change> checks;    // check id: status before -> after
  std::vector<Change> versions;
  std::vector<std::string> gpus_added;
  std::vector<std::string> gpus_removed;
  [[nodiscard]] bool empty() const {
    return appeared.empty() && gone.empty() && severity.empty() && checks.empty() && versions.empty() &&
           gpus_added.empty() && gpus_removed.empty();
  }
};

// Findings are matched by id, as many times as each report has it.
ReportDiff compare(const ReportDigest& a, const ReportDigest& b) {
  ReportDiff diff;
  std::multimap<std::string, const DigestFinding*> before;
  for (const auto& finding : a.findings) before.emplace(finding.id, &finding);
  for (const auto& finding : b.findings) {
    const auto it = before.find(finding.id);
    if (it == before.end()) {
      diff.appeared.push_back(finding);
      continue;
    }
    if (it->second->severity != finding.severity)
      diff.severity.push_back({finding.id, it->second->severity, finding.severity});
    before.erase(it);
  }
  for (const auto& finding : a.findings) {
    if (before.find(finding.id) != before.end()) {
      diff.gone.push_back(finding);
      before.erase(before.find(finding.id));
    }
  }
  for (const auto& [id, status] : b.check_status) {
    const auto it = a.check_status.find(id);
    const std::string old = it == a.check_status.end() ? "not run" : it->second;
    if (old != status) diff.checks.push_back({id, old, status});
  }
  for (const auto& [id, status] : a.check_status) {
    if (!b.check_status.contains(id)) diff.checks.push_back({id, status, "not run"});
  }
  std::set<std::string> keys;
  for (const auto& [key, value] : a.versions) keys.insert(key);
  for (const auto& [key, value] : b.versions) keys.insert(key);
  for (const auto& key : keys) {
    const auto old = a.versions.contains(key) ? a.versions.at(key) : "";
    const auto now = b.versions.contains(key) ? b.versions.at(key) : "";
    if (old != now) diff.versions.push_back({key, old.empty() ? "-" : old, now.empty() ? "-" : now});
  }
  const std::multiset<std::string> gpus_a(a.gpus.begin(), a.gpus.end());
  const std::multiset<std::string> gpus_b(b.gpus.begin(), b.gpus.end());
  std::set_difference(gpus_b.begin(), gpus_b.end(), gpus_a.begin(), gpus_a.end(), std::back_inserter(diff.gpus_added));
  std::set_difference(gpus_a.begin(), gpus_a.end(), gpus_b.begin(), gpus_b.end(),
                      std::back_inserter(diff.gpus_removed));
  return diff;
}

std::string label(const ReportDigest& digest) {
  return fmt::format("{} ({}, {})", digest.file, digest.hostname.empty() ? "?" : digest.hostname, digest.generated_at);
}

std::string render_diff_text(const ReportDigest& a, const ReportDigest& b, const ReportDiff& diff, bool markdown) {
  const std::string bullet = markdown ? "- " : "  ";
  const auto code = [&](const std::string& text) { return markdown ? "`" + text + "`" : text; };
  std::string out = markdown ? "## rocm-doctor diff\n\n" : "";
  out += fmt::format("{}Before: {}\n{}After:  {}\n\n", markdown ? "- " : "", label(a), markdown ? "- " : "", label(b));
  if (diff.empty()) return out + "No differences.\n";
  const auto section = [&](const std::string& title) { out += markdown ? "### " + title + "\n\n" : title + ":\n"; };
  if (!diff.appeared.empty()) {
    section(fmt::format("Findings that appeared ({})", diff.appeared.size()));
    for (const auto& f : diff.appeared)
      out += bullet + fmt::format("+ [{}] {}: {}\n", f.severity, code(f.id), f.summary);
    out += "\n";
  }
  if (!diff.gone.empty()) {
    section(fmt::format("Findings that disappeared ({})", diff.gone.size()));
    for (const auto& f : diff.gone) out += bullet + fmt::format("- [{}] {}: {}\n", f.severity, code(f.id), f.summary);
    out += "\n";
  }
  const auto changes = [&](const std::string& title, const std::vector<Change>& list) {
    if (list.empty()) return;
    section(title);
    for (const auto& change : list)
      out += bullet + fmt::format("{}: {} -> {}\n", code(change.key), change.before, change.after);
    out += "\n";
  };
  changes("Severity changed", diff.severity);
  changes("Check status changed", diff.checks);
  changes("Versions changed", diff.versions);
  if (!diff.gpus_added.empty() || !diff.gpus_removed.empty()) {
    section("GPUs");
    for (const auto& gpu : diff.gpus_added) out += bullet + "+ " + gpu + "\n";
    for (const auto& gpu : diff.gpus_removed) out += bullet + "- " + gpu + "\n";
  }
  return out;
}

nlohmann::ordered_json diff_json(const ReportDigest& a, const ReportDigest& b, const ReportDiff& diff) {
  using Json = nlohmann::ordered_json;
  const auto findings = [](const std::vector<DigestFinding>& list) {
    Json out = Json::array();
    for (const auto& f : list)
      out.push_back({{"id", f.id}, {"check", f.check}, {"severity", f.severity}, {"summary", f.summary}});
    return out;
  };
  const auto changes = [](const std::vector<Change>& list) {
    Json out = Json::array();
    for (const auto& c : list) out.push_back({{"id", c.key}, {"before", c.before}, {"after", c.after}});
    return out;
  };
  return {{"schema", "rocm-doctor/diff"},
          {"schema_version", 1},
          {"before", {{"file", a.file}, {"hostname", a.hostname}, {"generated_at", a.generated_at}}},
          {"after", {{"file", b.file}, {"hostname", b.hostname}, {"generated_at", b.generated_at}}},
          {"same", diff.empty()},
          {"appeared", findings(diff.appeared)},
          {"disappeared", findings(diff.gone)},
          {"severity_changed", changes(diff.severity)},
          {"check_status_changed", changes(diff.checks)},
          {"versions_changed", changes(diff.versions)},
          {"gpus_added", diff.gpus_added},
          {"gpus_removed", diff.gpus_removed}};
}

}  // namespace

int diff_command(const std::string& before, const std::string& after, const std::string& format) {
  const auto a = load_report_digest(before);
  if (!a) return usage_error(a.error());
  const auto b = load_report_digest(after);
  if (!b) return usage_error(b.error());
  const auto diff = compare(*a, *b);
  const std::string out =
      format == "json" ? diff_json(*a, *b, diff).dump(2) + "\n" : render_diff_text(*a, *b, diff, format == "markdown");
  std::fwrite(out.data(), 1, out.size(), stdout);
  return diff.empty() ? 0 : 1;
}

}  // namespace rocm_doctor
