// Findings: what a check tells the user, with evidence and a fix.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor {

// Ordered: a higher value is worse.
enum class Severity { ok = 0, info = 1, warning = 2, error = 3 };

std::string_view to_string(Severity severity);
std::optional<Severity> parse_severity(std::string_view text);

// Where a finding's judgement came from: a file and what it said, an env
// variable and its value, a probe and its answer.
struct Evidence {
  std::string source;  // "/proc/cmdline", "env HSA_OVERRIDE_GFX_VERSION", "probe hip"
  std::string value;   // the relevant value or line, trimmed
};

// What a fix must achieve, checked by `rocm-doctor fix` after running it: the
// finding `finding` (empty: the finding the fix belongs to) is absent from the
// re-run, or at most `at_most`. Otherwise the fix "did not change anything" (a failure).
struct Postcondition {
  std::string finding;
  Severity at_most = Severity::info;
};

// A fix the user can paste. The doctor never runs it.
struct Fix {
  std::string description;
  std::vector<std::string> commands;  // exact shell commands, already quoted
  bool needs_root = false;
  bool needs_reboot = false;
  bool needs_relogin = false;
  std::string verify;                          // command that confirms the fix, e.g. "rocm-doctor --only access"
  std::optional<Postcondition> postcondition;  // default: its own finding at most info
};

// A finding a site policy accepts on purpose (its `tolerate` list): shown,
// downgraded to info, and attributed, never silently dropped.
struct Acceptance {
  std::string policy;  // the policy's name
  std::string file;    // where it was read from
  std::string reason;  // the policy's words
  Severity original_severity = Severity::warning;
};

struct Finding {
  std::string id;  // stable dotted id, e.g. "access.relogin-required"
  Severity severity = Severity::info;
  std::string summary;  // one line
  std::string detail;   // why it matters
  std::vector<Evidence> evidence;
  std::vector<Fix> fixes;
  std::optional<Acceptance> accepted;  // set by a policy's tolerance
  // The ids of the findings that explain this one (set by the causal stage,
  // include/rocm_doctor/diagnosis.h): empty for a root cause or an unrelated finding.
  std::vector<std::string> caused_by;

  // Fluent helpers keep check code short and readable.
  Finding& because(std::string text) {
    detail = std::move(text);
    return *this;
  }
  // string_view, so that a path constant or a trimmed slice needs no std::string(...) at the call.
  Finding& with_evidence(std::string_view source, std::string_view value) {
    evidence.push_back({std::string(source), std::string(value)});
    return *this;
  }
  Finding& with_fix(Fix fix) {
    fixes.push_back(std::move(fix));
    return *this;
  }
};

inline Finding make_finding(std::string id, Severity severity, std::string summary) {
  Finding finding;
  finding.id = std::move(id);
  finding.severity = severity;
  finding.summary = std::move(summary);
  return finding;
}

}  // namespace rocm_doctor
