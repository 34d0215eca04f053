// The causal stage: applies the rules to a report's findings and ranks the
// root causes (docs/architecture.md#root-causes).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/impact.h"

namespace rocm_doctor {

namespace {

// "*", "prefix.*" or an exact id.
bool id_matches(std::string_view pattern, std::string_view id) {
  if (pattern == "*") return true;
  if (pattern.ends_with(".*")) return id.starts_with(pattern.substr(0, pattern.size() - 1));
  return pattern == id;
}

bool any_matches(const std::vector<std::string>& patterns, std::string_view id) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return id_matches(p, id); });
}

bool field_matches(const Finding& finding, const CausalCondition& condition) {
  switch (condition.field) {
    case CausalCondition::Field::summary: return std::regex_search(finding.summary, condition.regex);
    case CausalCondition::Field::detail: return std::regex_search(finding.detail, condition.regex);
    case CausalCondition::Field::evidence:
      return std::any_of(finding.evidence.begin(), finding.evidence.end(), [&](const Evidence& evidence) {
        return std::regex_search(evidence.source + ": " + evidence.value, condition.regex);
      });
  }
  return false;
}

bool rule_applies(const CausalRule& rule, const Finding& cause, const Finding& effect) {
  if (cause.id != rule.cause || effect.id == rule.cause) return false;
  if (!any_matches(rule.explains, effect.id) || any_matches(rule.except, effect.id)) return false;
  return std::all_of(rule.only_when.begin(), rule.only_when.end(), [&](const CausalCondition& condition) {
    return field_matches(condition.of == CausalCondition::Of::cause ? cause : effect, condition);
  });
}

bool is_alarm(const Finding& finding) {
  return finding.severity >= Severity::warning;
}

std::vector<Finding*> findings_of(Report& report) {
  std::vector<Finding*> all;
  for (auto& check : report.checks) {
    for (auto& finding : check.findings) all.push_back(&finding);
  }
  return all;
}

std::vector<const Finding*> findings_of(const Report& report) {
  std::vector<const Finding*> all;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) all.push_back(&finding);
  }
  return all;
}

// Explains-edges between findings (by position in report order).
class CauseGraph {
 public:
  explicit CauseGraph(std::size_t size) : children_(size) {}

  [[nodiscard]] bool reaches(std::size_t from, std::size_t to) const {
    std::vector<bool> seen(children_.size(), false);
    std::vector<std::size_t> stack{from};
    while (!stack.empty()) {
      const auto node = stack.back();
      stack.pop_back();
      if (node == to) return true;
      if (seen[node]) continue;
      seen[node] = true;
      for (const auto child : children_[node]) stack.push_back(child);
    }
    return false;
  }
  // False (and no edge) when the edge would close a cycle: earlier rules win.
  bool add(std::size_t cause, std::size_t effect) {
    if (reaches(effect, cause)) return false;
    children_[cause].insert(effect);
    return true;
  }
  [[nodiscard]] std::size_t descendants(std::size_t node) const { return descendant_set(node).size(); }
  [[nodiscard]] std::set<std::size_t> descendant_set(std::size_t node) const {
    std::set<std::size_t> seen;
    std::vector<std::size_t> stack(children_[node].begin(), children_[node].end());
    while (!stack.empty()) {
      const auto next = stack.back();
      stack.pop_back();
      if (!seen.insert(next).second) continue;
      for (const auto child : children_[next]) stack.push_back(child);
    }
    return seen;
  }

 private:
  std::vector<std::set<std::size_t>> children_;
};

void add_unique(std::vector<std::string>& list, const std::string& id) {
  if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
}

}  // namespace

void diagnose(Report& report, const std::vector<CausalRule>& rules) {
  const auto all = findings_of(report);
  CauseGraph graph(all.size());
  std::vector<bool> drop_fixes(all.size(), false);
  for (auto* finding : all) finding->caused_by.clear();
  for (const auto& rule : rules) {
    for (std::size_t c = 0; c < all.size(); ++c) {
      if (all[c]->id != rule.cause || !is_alarm(*all[c])) continue;
      for (std::size_t e = 0; e < all.size(); ++e) {
        if (e == c || !is_alarm(*all[e]) || !rule_applies(rule, *all[c], *all[e])) continue;
        if (!graph.add(c, e)) continue;
        add_unique(all[e]->caused_by, all[c]->id);
        if (rule.drop_fixes) drop_fixes[e] = true;
      }
    }
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (drop_fixes[i]) all[i]->fixes.clear();
  }
  // Findings nothing explains, ranked: what they stop (impact: blocks, breaks,
  // degrades), then evidence strength (severity), then how many findings each
  // explains, then report (check) order. Tidying and advice never become root
  // causes: they go to `also`, ranked the same way.
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (is_alarm(*all[i]) && all[i]->caused_by.empty()) roots.push_back(i);
  }
  std::vector<std::size_t> explained(all.size(), 0);
  std::vector<Impact> impact(all.size(), Impact::advice);
  // A cause matters as much as the worst of what it explains (several installs
  // are tidying, until they mix releases and break programs).
  for (const auto root : roots) {
    const auto reached = graph.descendant_set(root);
    explained[root] = reached.size();
    impact[root] = impact_of(*all[root]);
    for (const auto effect : reached) impact[root] = std::min(impact[root], impact_of(*all[effect]));
  }
  std::stable_sort(roots.begin(), roots.end(), [&](std::size_t a, std::size_t b) {
    if (impact[a] != impact[b]) return impact[a] < impact[b];
    if (all[a]->severity != all[b]->severity) return all[a]->severity > all[b]->severity;
    return explained[a] > explained[b];
  });
  report.root_causes.clear();
  report.also.clear();
  for (const auto root : roots) add_unique(is_fault(impact[root]) ? report.root_causes : report.also, all[root]->id);
}

// The root causes a finding folds under: itself when nothing explains it,
// else the roots of its causes (in `caused_by` order).
void roots_of(const std::vector<const Finding*>& all, const std::string& id, std::vector<std::string>& roots,
              std::set<std::string>& seen) {
  if (!seen.insert(id).second) return;
  for (const auto* finding : all) {
    if (finding->id != id) continue;
    if (finding->caused_by.empty()) {
      add_unique(roots, id);
      continue;
    }
    for (const auto& cause : finding->caused_by) roots_of(all, cause, roots, seen);
  }
}

void put_first(Report& report, const std::vector<std::string>& ids) {
  const auto all = findings_of(std::as_const(report));
  std::vector<std::string> wanted;
  std::set<std::string> seen;
  for (const auto& id : ids) roots_of(all, id, wanted, seen);
  std::vector<std::string> ranked;
  for (const auto& id : wanted) {
    if (std::find(report.root_causes.begin(), report.root_causes.end(), id) != report.root_causes.end())
      add_unique(ranked, id);
  }
  for (const auto& id : report.root_causes) add_unique(ranked, id);
  report.root_causes = std::move(ranked);
}

void diagnose(Report& report) {
  const auto& rules = causal_rules();
  if (rules.empty()) spdlog::error("no causal rules: every finding is reported as its own root cause");
  diagnose(report, rules);
}

namespace {

// Each id of `ids` (nothing explains it) with what it explains, directly or
// through other findings, in report order; a finding already placed under an
// earlier entry is not repeated.
std::vector<RootCause> folded(const Report& report, const std::vector<std::string>& ids,
                              std::set<const Finding*>& placed) {
  const auto all = findings_of(report);
  std::vector<RootCause> result;
  for (const auto& id : ids) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const Finding* finding) {
      return finding->id == id && finding->caused_by.empty();
    });
    if (it == all.end()) continue;
    RootCause root;
    root.finding = *it;
    std::set<std::string> reached{id};
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto* finding : all) {
        if (reached.contains(finding->id)) continue;
        const bool child = std::any_of(finding->caused_by.begin(), finding->caused_by.end(),
                                       [&](const std::string& cause) { return reached.contains(cause); });
        if (child) grew = reached.insert(finding->id).second || grew;
      }
    }
    for (const auto* finding : all) {
      if (finding->caused_by.empty() || !reached.contains(finding->id) || placed.contains(finding)) continue;
      root.explained.push_back(finding);
      placed.insert(finding);
    }
    result.push_back(std::move(root));
  }
  return result;
}

}  // namespace

std::vector<RootCause> root_causes(const Report& report) {
  std::set<const Finding*> placed;
  return folded(report, report.root_causes, placed);
}

std::vector<RootCause> also_worth_doing(const Report& report) {
  std::set<const Finding*> placed;
  folded(report, report.root_causes, placed);
  return folded(report, report.also, placed);
}

std::string causal_reason(std::string_view cause, std::string_view effect) {
  for (const auto& rule : causal_rules()) {
    if (rule.cause == cause && any_matches(rule.explains, effect) && !any_matches(rule.except, effect))
      return rule.reason;
  }
  return "";
}

}  // namespace rocm_doctor
