// Replays every folder under tests/scenarios/ and compares with its expected.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "core/report_versions.h"
#include "core/runner.h"
#include "fix/fix_plan.h"
#include "host/read_once_host.h"
#include "rocm_doctor/diagnosis.h"
#include "rocm_doctor/impact.h"
#include "rocm_doctor/policy.h"
#include "rocm_doctor/text.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

namespace fs = std::filesystem;
using testing::all_findings;
using testing::run_on;

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(ROCM_DOCTOR_SCENARIOS_DIR)) {
    if (entry.is_directory() && fs::exists(entry.path() / "expected.json")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json load_expectation(const fs::path& folder) {
  std::ifstream stream(folder / "expected.json");
  return nlohmann::json::parse(stream);
}

// A scenario's policy.json, or the file its "policy" names (relative to the
// repository, e.g. one of docs/examples/), is judged like `--policy` (issue 12).
RunOptions options_from(const nlohmann::json& expectation, const fs::path& folder) {
  RunOptions options;
  const auto policy_file = expectation.contains("policy")
                               ? fs::path(ROCM_DOCTOR_SOURCE_DIR) / expectation["policy"].get<std::string>()
                               : folder / "policy.json";
  if (fs::exists(policy_file)) {
    auto policy = policy::load_policy_file(policy_file.string());
    if (!policy) throw std::runtime_error(policy.error());
    options.policies = std::make_shared<const policy::PolicySet>(policy::PolicySet{{std::move(*policy)}});
  }
  if (!expectation.contains("options")) return options;
  const auto& raw = expectation["options"];
  options.image_mode = raw.value("image", false);
  options.target_gfx = raw.value("target_gfx", std::vector<std::string>{});
  options.binaries = raw.value("binaries", std::vector<std::string>{});  // rocm-doctor targets FILE...
  return options;
}

// "snapshot": another scenario's folder, so a policy scenario reuses a machine.
fs::path snapshot_folder(const nlohmann::json& expectation, const fs::path& folder) {
  if (!expectation.contains("snapshot")) return folder;
  return fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / expectation["snapshot"].get<std::string>();
}

// Every finding id the code can emit: the checks' declared ids and the policy rules'.
std::set<std::string> declared_finding_ids() {
  std::set<std::string> declared;
  for (const Check* check : registered_checks()) {
    for (const auto id : check->finding_ids()) declared.emplace(id);
  }
  for (auto& id : policy::finding_ids()) declared.insert(std::move(id));
  return declared;
}

// A cause's impact: its own, or the worst of what it explains (docs/architecture.md#root-causes).
Impact effective_impact(const RootCause& cause) {
  auto impact = impact_of(*cause.finding);
  for (const auto* effect : cause.explained) impact = std::min(impact, impact_of(*effect));
  return impact;
}

// The property of issue 26 on every scenario: root causes are faults ranked by impact
// (blocks, breaks, degrades), so tidying never outranks what stops the GPU; `also`
// holds only tidying and advice.
void expect_ranked_by_impact(const Report& report) {
  const auto causes = root_causes(report);
  ASSERT_EQ(causes.size(), report.root_causes.size()) << "a ranked root cause is no unexplained warning or error";
  Impact previous = Impact::blocks;
  for (const auto& cause : causes) {
    const auto impact = effective_impact(cause);
    EXPECT_TRUE(is_fault(impact)) << cause.finding->id << " (" << to_string(impact) << ") is a root cause";
    EXPECT_GE(impact, previous) << cause.finding->id << " (" << to_string(impact) << ") ranks below a lesser cause";
    previous = impact;
  }
  for (const auto& item : also_worth_doing(report)) {
    EXPECT_FALSE(is_fault(effective_impact(item))) << item.finding->id << " is a fault but listed under also";
  }
}

// The scenario machine's own files, as its snapshot holds them ("" when absent).
std::string machine_file(const fs::path& folder, const std::string& path) {
  std::ifstream stream(folder / "root" / path.substr(1));
  return std::string(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
}

bool package_installed(const std::string& dpkg_status, const std::string& package) {
  const auto at = dpkg_status.find("Package: " + package + "\n");
  if (at == std::string::npos) return false;
  const auto end = dpkg_status.find("\n\n", at);
  return dpkg_status.substr(at, end - at).find("Status: install ok installed") != std::string::npos;
}

bool group_lists(const std::string& group_file, const std::string& group, const std::string& user) {
  std::istringstream lines(group_file);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(group + ":")) continue;
    const auto members = "," + line.substr(line.rfind(':') + 1) + ",";
    return members.find("," + user + ",") != std::string::npos;
  }
  return false;
}

// Issue 26 on every scenario: `fix` plans one alternative per finding and no step
// whose result is already true here (a package installed, a user already in the group).
void expect_plan_does_only_what_helps(const Report& report, const fs::path& folder,
                                      const std::vector<std::string>& ids) {
  const auto plan = plan_fixes(report, ids);
  ASSERT_TRUE(plan) << plan.error();
  std::map<const Finding*, int> steps;
  const auto dpkg = machine_file(folder, "/var/lib/dpkg/status");
  const auto groups = machine_file(folder, "/etc/group");
  for (const auto& step : plan->steps) {
    EXPECT_EQ(++steps[step.finding], 1) << step.finding->id << ": two alternatives planned";
    if (step.mode != StepMode::apply) continue;
    for (const auto& command : step.fix->commands) {
      std::istringstream words(command);
      std::vector<std::string> argv{std::istream_iterator<std::string>(words), {}};
      const auto install = std::find(argv.begin(), argv.end(), "install");
      if (argv.size() > 2 && (argv[1] == "apt" || argv[1] == "apt-get") && install != argv.end()) {
        for (auto it = install + 1; it != argv.end(); ++it) {
          if (!it->starts_with("-")) {
            EXPECT_FALSE(package_installed(dpkg, *it)) << command << ": already installed";
          }
        }
      }
      const bool usermod = argv.size() >= 5 && argv[1] == "usermod";
      const auto group_list = !usermod ? std::string() : argv[2] == "-aG" ? argv[3] : argv[2] == "-a" ? argv[4] : "";
      if (!group_list.empty()) {
        const auto user = argv.back();
        bool missing = false;
        for (const auto group : split(group_list, ','))
          missing = missing || !group_lists(groups, std::string(group), user);
        EXPECT_TRUE(missing) << command << ": " << user << " is already in every group";
      }
    }
  }
}

// The default plan (root causes, then the other faults and tidying), and the plan of
// every warning and error named by id (advice included).
void expect_fix_plan_does_only_what_helps(const Report& report, const fs::path& folder) {
  expect_plan_does_only_what_helps(report, folder, {});
  std::vector<std::string> alarms;
  for (const auto& finding : all_findings(report)) {
    if (finding.severity >= Severity::warning) alarms.push_back(finding.id);
  }
  if (!alarms.empty()) expect_plan_does_only_what_helps(report, folder, alarms);
}

// A scenario folder as a test name: letters and digits, the rest '_'.
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
  return name;
}

class Scenario : public ::testing::TestWithParam<std::string> {};

TEST_P(Scenario, ProducesExactlyTheExpectedFindings) {
  const fs::path folder = fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / GetParam();
  const auto expectation = load_expectation(folder);
  auto host = SnapshotHost::open(snapshot_folder(expectation, folder));
  ASSERT_TRUE(host) << host.error();
  const auto report =
      run_on(**host, expectation.value("checks", std::vector<std::string>{}), options_from(expectation, folder));

  std::map<std::string, std::string> produced;
  for (const auto& check : report.checks) {
    EXPECT_NE(check.status, CheckStatus::internal_error) << check.id << ": " << check.internal_error;
  }
  for (const auto& finding : all_findings(report)) produced[finding.id] = std::string(to_string(finding.severity));

  const auto expected = expectation.value("expect", std::map<std::string, std::string>{});
  for (const auto& [id, severity] : expected) {
    ASSERT_TRUE(produced.contains(id)) << "missing finding " << id;
    EXPECT_EQ(produced[id], severity) << "severity of " << id;
  }
  for (const auto& id : expectation.value("absent", std::vector<std::string>{})) {
    EXPECT_FALSE(produced.contains(id)) << "unexpected finding " << id;
  }
  // The report's `versions`, exactly, when the scenario states them (`{}`: none known).
  if (const auto it = expectation.find("versions"); it != expectation.end()) {
    const std::map<std::string, std::string> versions(report.versions.begin(), report.versions.end());
    const auto want = it->get<std::map<std::string, std::string>>();
    EXPECT_EQ(versions, want) << "versions";
  }
  for (const auto& [key, value] : report.versions) {
    EXPECT_NE(std::find(version_keys().begin(), version_keys().end(), key), version_keys().end())
        << "undocumented " << key;
    EXPECT_FALSE(value.empty() || value == "unknown") << key;
  }
  // Root causes (issue 17): exactly as stated for a broken scenario, none for a healthy one.
  // Tidying and advice (issue 26) go to `also`, stated exactly too, and never rank as a cause.
  const bool broken = std::any_of(expected.begin(), expected.end(), [](const auto& entry) {
    return entry.second == "warning" || entry.second == "error";
  });
  if (broken) {
    ASSERT_TRUE(expectation.contains("root_causes")) << "a broken scenario states its root_causes";
    EXPECT_EQ(report.root_causes, expectation["root_causes"].get<std::vector<std::string>>()) << "root_causes";
  } else {
    EXPECT_TRUE(report.root_causes.empty()) << "a healthy scenario has no root cause, got " << report.root_causes[0];
    if (expectation.contains("root_causes")) {
      EXPECT_TRUE(expectation["root_causes"].empty());
    }
  }
  EXPECT_EQ(report.also, expectation.value("also", std::vector<std::string>{})) << "also";
  expect_ranked_by_impact(report);
  expect_fix_plan_does_only_what_helps(report, snapshot_folder(expectation, folder));
  // "fixes_only_for": no other finding offers a fix (advice a machine without an AMD GPU cannot use).
  if (const auto it = expectation.find("fixes_only_for"); it != expectation.end()) {
    const auto allowed = it->get<std::set<std::string>>();
    for (const auto& finding : all_findings(report)) {
      EXPECT_TRUE(finding.fixes.empty() || allowed.contains(finding.id)) << finding.id << " offers a fix";
    }
  }
  for (const auto& finding : all_findings(report)) {
    for (const auto& cause : finding.caused_by) {
      EXPECT_TRUE(produced.contains(cause)) << finding.id << " caused by absent " << cause;
    }
  }
  const auto declared = declared_finding_ids();
  for (const auto& finding : all_findings(report)) {
    // site.<plugin>.<id>: a site plugin's own findings (docs/plugins.md), declared by no check.
    EXPECT_TRUE(declared.contains(finding.id) || finding.id.starts_with("site."))
        << finding.id << " is emitted but not in any check's finding_ids()";
    if (finding.severity >= Severity::warning) {
      EXPECT_TRUE(expected.contains(finding.id))
          << "surprise " << to_string(finding.severity) << " " << finding.id << ": " << finding.summary;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Scenario, ::testing::ValuesIn(scenario_names()), test_name);

// Answers a probe only when the running check declares it in probes(), as a live
// run plans only the probes its selected checks read (docs/performance.md), and
// remembers what was asked and read.
class DeclaredProbesHost final : public Host {
 public:
  DeclaredProbesHost(const Host& inner, const Check& check) : inner_(inner) {
    for (const auto name : check.probes()) declared_.emplace(name);
  }
  mutable std::set<std::string> asked;  // probes
  mutable std::set<std::string> read;   // files, folders, links and nodes

  std::string_view source() const override { return inner_.source(); }
  HostResult<std::string> read_file(std::string_view path, std::size_t max_bytes) const override {
    read.emplace(path);
    return inner_.read_file(path, max_bytes);
  }
  HostResult<std::string> read_range(std::string_view path, std::uint64_t offset, std::size_t length) const override {
    return inner_.read_range(path, offset, length);
  }
  HostResult<std::uint64_t> file_size(std::string_view path) const override { return inner_.file_size(path); }
  HostResult<std::vector<DirEntry>> list_dir(std::string_view path) const override {
    read.emplace(path);
    return inner_.list_dir(path);
  }
  HostResult<std::string> read_link(std::string_view path) const override {
    read.emplace(path);
    return inner_.read_link(path);
  }
  HostResult<NodeInfo> stat_node(std::string_view path) const override {
    read.emplace(path);
    return inner_.stat_node(path);
  }
  std::optional<std::string> env(std::string_view name) const override { return inner_.env(name); }
  std::vector<std::string> env_names() const override { return inner_.env_names(); }
  Identity identity() const override { return inner_.identity(); }
  std::optional<GroupEntry> group_by_gid(std::uint32_t gid) const override { return inner_.group_by_gid(gid); }
  std::optional<GroupEntry> group_by_name(std::string_view name) const override { return inner_.group_by_name(name); }
  std::optional<UserEntry> user_by_name(std::string_view name) const override { return inner_.user_by_name(name); }
  std::optional<nlohmann::json> run_plugins(const nlohmann::json& facts) const override {
    return inner_.run_plugins(facts);
  }
  std::optional<nlohmann::json> probe(std::string_view name) const override {
    asked.emplace(name);
    return declared(name) ? inner_.probe(name) : std::nullopt;
  }
  bool declared(std::string_view name) const { return declared_.contains(std::string(name)); }

 private:
  const Host& inner_;
  std::set<std::string> declared_;
};

// Everything a check's result says, except what the later stages add (caused_by,
// a policy's acceptance): one line per field, so a failure shows the difference.
std::string described(const CheckResult& result) {
  std::ostringstream out;
  out << to_string(result.status) << " " << result.skipped_reason << result.internal_error << "\n";
  for (const auto& finding : result.findings) {
    out << finding.id << " " << to_string(finding.severity) << " " << finding.summary << "\n  " << finding.detail
        << "\n";
    for (const auto& evidence : finding.evidence)
      out << "  evidence " << evidence.source << ": " << evidence.value << "\n";
    for (const auto& fix : finding.fixes) {
      out << "  fix " << fix.description << " root=" << fix.needs_root << " reboot=" << fix.needs_reboot
          << " relogin=" << fix.needs_relogin << " verify=" << fix.verify << "\n";
      for (const auto& command : fix.commands) out << "    $ " << command << "\n";
    }
  }
  return out.str();
}

// Issue 30: `--only X` finds exactly what the full run finds for X, on every scenario and
// every check. A check that reads a probe it does not declare, or a fact only another check
// computes (computed_fact), differs here. In-process, like run_checks: each check alone in a
// fresh CheckContext (what `--only X` builds), the host's reads shared for speed.
class ScenarioAlone : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioAlone, EveryCheckAloneFindsWhatTheFullRunFindsForIt) {
  const fs::path folder = fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / GetParam();
  const auto expectation = load_expectation(folder);
  auto snapshot = SnapshotHost::open(snapshot_folder(expectation, folder));
  ASSERT_TRUE(snapshot) << snapshot.error();
  const ReadOnceHost host(**snapshot);
  auto options = options_from(expectation, folder);
  options.policies = nullptr;  // a policy judges the report after the checks, not one check alone
  // The full run's check loop, as run_checks runs it: every check in order in one context
  // (the causal stage after it would drop some fixes, so it is left out on both sides).
  const auto& checks = registered_checks();
  const CheckContext shared(host, options);
  std::vector<CheckResult> full;
  for (const Check* check : checks) full.push_back(run_check(*check, shared));
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const Check& check = *checks[i];
    const DeclaredProbesHost gated(host, check);
    const CheckContext alone(gated, options);
    EXPECT_EQ(described(run_check(check, alone)), described(full[i])) << "--only " << check.id();
    for (const auto& name : gated.asked) {
      EXPECT_TRUE(gated.declared(name)) << check.id() << " reads the " << name << " probe: declare it in probes()";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, ScenarioAlone, ::testing::ValuesIn(scenario_names()), test_name);

// The runner reads nothing the checks did not (check.h): `--only os` on an 8-GPU machine
// reads no KFD, DRM or PCI tree, so its capture records none (issue 30).
TEST(Scenarios, OnlyOsReadsNoGpuTree) {
  auto snapshot = SnapshotHost::open(fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / "gpu-mi300x-x8");
  ASSERT_TRUE(snapshot) << snapshot.error();
  const Check* os = find_check("os");
  ASSERT_NE(os, nullptr);
  const DeclaredProbesHost host(**snapshot, *os);
  const RunOptions options;
  const auto report = run_checks(host, options, {os});
  EXPECT_FALSE(report.sections.contains("gpus"));
  ASSERT_FALSE(host.read.empty());
  for (const auto& path : host.read) {
    for (const char* tree : {"/sys/class/kfd", "/sys/class/drm", "/sys/bus/pci", "/dev/dri"}) {
      EXPECT_FALSE(path.starts_with(tree)) << "--only os read " << path;
    }
  }
  // The same machine's full run does list its GPUs.
  const auto full = run_checks(**snapshot, options, registered_checks());
  ASSERT_TRUE(full.sections.contains("gpus"));
  EXPECT_EQ(full.sections.at("gpus").size(), 8U);
}

TEST(Scenarios, CoverEveryFindingId) {
  std::set<std::string> covered;
  for (const auto& name : scenario_names()) {
    for (const auto& [id, severity] : load_expectation(fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / name)
                                          .value("expect", std::map<std::string, std::string>{})) {
      covered.insert(id);
    }
  }
  for (const auto& id : declared_finding_ids()) EXPECT_TRUE(covered.contains(id)) << "no scenario expects " << id;
}

}  // namespace
}  // namespace rocm_doctor
