// The causal stage: applies the rules to a report's findings and ranks the
// root causes (docs/architecture.md#root-causes).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "rocm_doctor/diagnosis.h"

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
  [[nodiscard]] std::size_t descendants(std::size_t node) const {
    std::set<std::size_t> seen;
    std::vector<std::size_t> stack(children_[node].begin(), children_[node].end());
    while (!stack.empty()) {
      const auto next = stack.back();
      stack.pop_back();
      if (!seen.insert(next).second) continue;
      for (const auto child : children_[next]) stack.push_back(child);
    }
    return seen.size();
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
  // Rank: evidence strength (severity), then how many findings each explains,
  // then report (check) order.
  std::vector<std::size_t> roots;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (is_alarm(*all[i]) && all[i]->caused_by.empty()) roots.push_back(i);
  }
  std::vector<std::size_t> explained(all.size(), 0);
  for (const auto root : roots) explained[root] = graph.descendants(root);
  std::stable_sort(roots.begin(), roots.end(), [&](std::size_t a, std::size_t b) {
    if (all[a]->severity != all[b]->severity) return all[a]->severity > all[b]->severity;
    return explained[a] > explained[b];
  });
  report.root_causes.clear();
  for (const auto root : roots) add_unique(report.root_causes, all[root]->id);
}

void diagnose(Report& report) {
  const auto& rules = causal_rules();
  if (rules.empty()) spdlog::error("no causal rules: every finding is reported as its own root cause");
  diagnose(report, rules);
}

std::vector<RootCause> root_causes(const Report& report) {
  const auto all = findings_of(report);
  std::set<const Finding*> placed;
  std::vector<RootCause> result;
  for (const auto& id : report.root_causes) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const Finding* finding) {
      return finding->id == id && finding->caused_by.empty();
    });
    if (it == all.end()) continue;
    RootCause root;
    root.finding = *it;
    // Everything whose caused_by chain leads to this id, in report order.
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

std::string causal_reason(std::string_view cause, std::string_view effect) {
  for (const auto& rule : causal_rules()) {
    if (rule.cause == cause && any_matches(rule.explains, effect) && !any_matches(rule.except, effect))
      return rule.reason;
  }
  return "";
}

}  // namespace rocm_doctor
