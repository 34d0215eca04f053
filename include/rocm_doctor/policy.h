// Site policies (--policy FILE, /etc/rocm-doctor/policy.d/*.json): what *our*
// stack must look like, beyond "ROCm works". Format: docs/policy-format.md.
//
// A policy is operator input, not machine state: it is read with plain file IO
// by the CLI, and its rules are judged on the facts the checks collect through
// the Host, so they work the same live and on --replay.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <variant>
#include <vector>

#include "rocm_doctor/finding.h"
#include "rocm_doctor/report.h"
#include "rocm_doctor/versions.h"

namespace rocm_doctor {
class CheckContext;
}

namespace rocm_doctor::policy {

// The format this build reads: `"rocm-doctor-policy": 1`.
inline constexpr int kFormatVersion = 1;
inline constexpr std::string_view kFormatKey = "rocm-doctor-policy";
// Read on live runs (never on --replay): the machine's own policies, sorted by name.
inline constexpr std::string_view kSystemPolicyDir = "/etc/rocm-doctor/policy.d";
// The id of the report entry that holds every rule's finding.
inline constexpr std::string_view kCheckId = "policy";

// ---- rules: one struct per kind (docs/policy-format.md) ----

struct VersionRule {  // "rocm"
  versions::Range range;
};
struct DriverRule {                        // "amdgpu-driver"
  std::optional<versions::Range> version;  // of /sys/module/amdgpu/version ("6.8.5")
  std::optional<versions::Range> rocm;     // the ROCm release that driver shipped with ("6.2")
};
struct GfxRule {                     // "gfx"
  std::vector<std::string> require;  // each must be among the GPUs (or --target-gfx)
  std::vector<std::string> allow;    // every GPU must be one of these (empty: any)
};
struct GpuCountRule {  // "gpu-count"
  int min = 1;
};
struct GpuVramRule {  // "gpu-vram"
  double min_gib = 0;
};
struct TorchRule {                         // "torch"
  std::optional<versions::Range> version;  // of torch.__version__ without its local tag
  std::optional<versions::Range> rocm;     // the X.Y of its "+rocmX.Y" tag
};
struct LibraryRequirement {
  std::string name;                      // as in checks/data/rocm_libraries.json: "rocBLAS"
  std::vector<std::string> kernels_for;  // gfx targets its kernel files must carry
};
struct LibrariesRule {  // "libraries"
  std::vector<LibraryRequirement> require;
};
struct EnvRule {  // "env": name -> value (nullopt: any value)
  std::map<std::string, std::optional<std::string>> require;
  std::map<std::string, std::optional<std::string>> forbid;
};
struct OsAllowed {
  std::string id;                          // os-release ID: "ubuntu"
  std::optional<versions::Range> version;  // of VERSION_ID; nullopt: any
};
struct OsRule {  // "os"
  std::vector<OsAllowed> allow;
};

using RuleSpec = std::variant<VersionRule, DriverRule, GfxRule, GpuCountRule, GpuVramRule, TorchRule, LibrariesRule,
                              EnvRule, OsRule>;

struct Rule {
  std::string name;  // the key under "rules"; its finding id is policy.<name>
  Severity severity = Severity::error;
  std::string message;  // the policy's own words for a failure (may be empty)
  std::string written;  // the rule's JSON as written (compact), for evidence
  RuleSpec spec;
};

// Accepts a finding on purpose: at or below `max_severity` it becomes info,
// marked with the policy and the reason.
struct Tolerance {
  std::string finding;
  Severity max_severity = Severity::warning;
  std::string reason;
};

struct SkippedCheck {
  std::string check;
  std::string reason;
};

struct Policy {
  std::string file;  // as given on the command line, or the policy.d path
  std::string name;  // "name", else the file name without .json
  std::string description;
  std::vector<Rule> rules;
  std::vector<Tolerance> tolerate;
  std::vector<SkippedCheck> skip;
};

struct PolicySet {
  std::vector<Policy> policies;
  [[nodiscard]] bool empty() const { return policies.empty(); }
};

// Every rule name this build knows, in evaluation order ("rocm", "amdgpu-driver", ...).
const std::vector<std::string_view>& rule_names();
// "policy.rocm", ...: the finding ids a policy can produce.
std::vector<std::string> finding_ids();

// ---- loading: errors name the file and line:column (syntax) or JSON path (content) ----

// `label` names the input in errors (normally its path).
tl::expected<Policy, std::string> parse_policy(std::string_view text, std::string_view label);
tl::expected<Policy, std::string> load_policy_file(const std::string& path);
// The explicit files in order, then (when `system_dir` is given and exists) its *.json files by name.
tl::expected<PolicySet, std::string> load_policies(const std::vector<std::string>& files,
                                                   const std::optional<std::string>& system_dir);
// Skip lists must name real checks; tolerated finding ids of built-in checks must exist.
// `check_ids` / `finding_ids`: what the registry declares.
tl::expected<void, std::string> validate_references(const PolicySet& set, const std::vector<std::string>& check_ids,
                                                    const std::vector<std::string>& finding_ids);

// ---- the run (a small hook in run_checks) ----

// The reason a policy skips this check ("skipped by policy 'x': ..."), if any.
std::optional<std::string> skip_reason(const PolicySet& set, std::string_view check_id);
// Every rule of every policy, judged on the run's facts: the `policy` report entry.
CheckResult evaluate(const PolicySet& set, const CheckContext& ctx);
// Applies tolerances to every finding of the report and adds its `policies` section.
void apply_to_report(const PolicySet& set, Report& report);

// A human listing of the active policies (--list-checks).
std::string describe(const PolicySet& set);

}  // namespace rocm_doctor::policy
