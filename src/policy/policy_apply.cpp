// A policy in a run: skipped checks, the `policy` report entry with one finding
// per rule, accepted (tolerated) findings, and the report's `policies` section.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "policy/policy_rules.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::policy {

namespace {

std::string label(const Policy& policy) {
  return "policy '" + policy.name + "'";
}

Evidence rule_evidence(const Policy& policy, const Rule& rule) {
  return {"policy " + policy.file, "/rules/" + rule.name + " = " + rule.written};
}

Finding rule_finding(const Policy& policy, const Rule& rule, Judgement judgement) {
  const std::string id = "policy." + rule.name;
  Finding finding;
  switch (judgement.verdict) {
    case Verdict::pass:
      finding = make_finding(id, Severity::ok, judgement.text + " (" + label(policy) + ")");
      finding.because("The " + label(policy) + " rule '" + rule.name + "' holds.");
      break;
    case Verdict::fail:
      finding = make_finding(id, rule.severity,
                             (rule.message.empty() ? judgement.text : rule.message) + " (" + label(policy) + ")");
      finding.because("The " + label(policy) + " (" + policy.file + ") rule '" + rule.name +
                      "' fails: " + judgement.text + ".");
      break;
    case Verdict::unknown:
      // Never a silent pass: a rule that cannot be judged counts as its own severity.
      finding =
          make_finding(id, rule.severity,
                       "Rule '" + rule.name + "' of " + label(policy) + " cannot be evaluated: " + judgement.text);
      finding.because("A policy rule the doctor cannot check is not a pass. " +
                      (rule.message.empty() ? std::string() : "The rule says: " + rule.message + "."));
      if (!judgement.to_evaluate.empty()) {
        Fix fix;
        fix.description = "To make it judgeable: " + judgement.to_evaluate + ".";
        fix.verify = "rocm-doctor --policy " + shell_quote(policy.file);
        finding.with_fix(std::move(fix));
      }
      break;
  }
  for (auto& evidence : judgement.evidence) finding.evidence.push_back(std::move(evidence));
  finding.evidence.push_back(rule_evidence(policy, rule));
  return finding;
}

Finding judge_safely(const Policy& policy, const Rule& rule, const CheckContext& ctx) {
  try {
    return rule_finding(policy, rule, judge(rule, ctx));
  } catch (const std::exception& error) {
    spdlog::error("policy rule '{}' of {} failed: {}", rule.name, policy.file, error.what());
    return rule_finding(
        policy, rule, {Verdict::unknown, std::string("the doctor failed to read its facts: ") + error.what(), {}, ""});
  }
}

const Tolerance* tolerance_for(const PolicySet& set, const Finding& finding, const Policy** owner) {
  for (const auto& policy : set.policies) {
    for (const auto& tolerance : policy.tolerate) {
      if (tolerance.finding == finding.id && finding.severity <= tolerance.max_severity) {
        *owner = &policy;
        return &tolerance;
      }
    }
  }
  return nullptr;
}

// Warnings and errors a policy accepts become info, marked with who accepted them and why.
int apply_tolerances(const PolicySet& set, CheckResult& check) {
  int accepted = 0;
  for (auto& finding : check.findings) {
    if (finding.severity <= Severity::info || finding.accepted) continue;
    const Policy* owner = nullptr;
    const auto* tolerance = tolerance_for(set, finding, &owner);
    if (tolerance == nullptr) continue;
    finding.accepted = Acceptance{owner->name, owner->file, tolerance->reason, finding.severity};
    finding.severity = Severity::info;
    ++accepted;
  }
  if (accepted > 0 && check.status != CheckStatus::skipped && check.status != CheckStatus::internal_error) {
    check.status = status_from(check.findings);
  }
  return accepted;
}

nlohmann::ordered_json policy_to_json(const Policy& policy, const Report& report) {
  using Json = nlohmann::ordered_json;
  Json rules = Json::object();
  for (const auto& rule : policy.rules) rules[rule.name] = Json::parse(rule.written);
  Json tolerate = Json::array();
  for (const auto& tolerance : policy.tolerate) {
    int applied = 0;
    for (const auto& check : report.checks) {
      for (const auto& finding : check.findings) {
        if (finding.accepted && finding.accepted->policy == policy.name && finding.accepted->file == policy.file &&
            finding.id == tolerance.finding) {
          ++applied;
        }
      }
    }
    tolerate.push_back({{"finding", tolerance.finding},
                        {"max_severity", to_string(tolerance.max_severity)},
                        {"reason", tolerance.reason},
                        {"accepted", applied}});
  }
  Json skip = Json::array();
  for (const auto& skipped : policy.skip) skip.push_back({{"check", skipped.check}, {"reason", skipped.reason}});
  return {{"name", policy.name}, {"file", policy.file},  {"description", policy.description},
          {"rules", rules},      {"tolerate", tolerate}, {"skip", skip}};
}

}  // namespace

std::optional<std::string> skip_reason(const PolicySet& set, std::string_view check_id) {
  for (const auto& policy : set.policies) {
    for (const auto& skipped : policy.skip) {
      if (skipped.check == check_id) return "skipped by " + label(policy) + " (" + policy.file + "): " + skipped.reason;
    }
  }
  return std::nullopt;
}

CheckResult evaluate(const PolicySet& set, const CheckContext& ctx) {
  CheckResult result;
  result.id = std::string(kCheckId);
  std::vector<std::string> names;
  for (const auto& policy : set.policies) names.push_back(policy.name);
  result.title = "Site policy: " + join(names, ", ");
  const auto start = std::chrono::steady_clock::now();
  for (const auto& policy : set.policies) {
    for (const auto& rule : policy.rules) result.findings.push_back(judge_safely(policy, rule, ctx));
  }
  result.status = status_from(result.findings);
  result.duration_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

void apply_to_report(const PolicySet& set, Report& report) {
  if (set.empty()) return;
  for (auto& check : report.checks) apply_tolerances(set, check);
  auto section = nlohmann::ordered_json::array();
  for (const auto& policy : set.policies) section.push_back(policy_to_json(policy, report));
  report.sections["policies"] = std::move(section);
}

std::string describe(const PolicySet& set) {
  std::string out;
  for (const auto& policy : set.policies) {
    out += fmt::format("{} ({}){}\n", policy.name, policy.file,
                       policy.description.empty() ? "" : ": " + policy.description);
    for (const auto& rule : policy.rules) {
      out += fmt::format("  rule {:<14} {} (policy.{}, {})\n", rule.name, rule.written, rule.name,
                         to_string(rule.severity));
    }
    for (const auto& tolerance : policy.tolerate) {
      out += fmt::format("  tolerate {} up to {}: {}\n", tolerance.finding, to_string(tolerance.max_severity),
                         tolerance.reason);
    }
    for (const auto& skipped : policy.skip) out += fmt::format("  skip {}: {}\n", skipped.check, skipped.reason);
  }
  return out;
}

}  // namespace rocm_doctor::policy
