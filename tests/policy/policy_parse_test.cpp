// Reading policies: every rule kind's shorthand and object forms, and errors
// that name the file, the place and the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rocm_doctor/check.h"
#include "rocm_doctor/policy.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::policy {
namespace {

namespace fs = std::filesystem;

Policy parsed(const std::string& text) {
  auto policy = parse_policy(text, "site.json");
  EXPECT_TRUE(policy) << policy.error();
  return policy ? *policy : Policy{};
}

std::string error_of(const std::string& text) {
  auto policy = parse_policy(text, "site.json");
  EXPECT_FALSE(policy) << "accepted: " << text;
  return policy ? std::string() : policy.error();
}

std::string with_rules(const std::string& rules) {
  return R"({"rocm-doctor-policy": 1, "rules": )" + rules + "}";
}

TEST(PolicyParse, ShorthandsOfEveryRuleKind) {
  const auto policy = parsed(with_rules(R"({
    "os": [{"id": "ubuntu", "version": ">=22.04"}, "rhel"],
    "rocm": ">=6.2,<6.3", "amdgpu-driver": ">=6.8", "gfx": ["gfx942", "gfx90a"], "gpu-count": 8,
    "gpu-vram": 190.5, "torch": ">=2.5", "libraries": ["rocblas", "RCCL"],
    "env": {"require": ["ROCM_PATH"], "forbid": {"AMD_LOG_LEVEL": null, "HIP_FORCE_DEV_KERNARG": "0"}}})"));
  std::vector<std::string> names;
  for (const auto& rule : policy.rules) names.push_back(rule.name);
  // Evaluation follows the table's order, not the file's.
  EXPECT_EQ(names, (std::vector<std::string>{"rocm", "amdgpu-driver", "gfx", "gpu-count", "gpu-vram", "torch",
                                             "libraries", "env", "os"}));
  EXPECT_EQ(policy.name, "site");  // from the file name
  for (const auto& rule : policy.rules) EXPECT_EQ(rule.severity, Severity::error) << rule.name;
  EXPECT_EQ(std::get<VersionRule>(policy.rules[0].spec).range.text, ">=6.2,<6.3");
  EXPECT_EQ(std::get<GfxRule>(policy.rules[2].spec).require, (std::vector<std::string>{"gfx942", "gfx90a"}));
  EXPECT_EQ(std::get<GpuCountRule>(policy.rules[3].spec).min, 8);
  EXPECT_DOUBLE_EQ(std::get<GpuVramRule>(policy.rules[4].spec).min_gib, 190.5);
  EXPECT_TRUE(std::get<TorchRule>(policy.rules[5].spec).version);
  EXPECT_FALSE(std::get<TorchRule>(policy.rules[5].spec).rocm);
  EXPECT_EQ(std::get<LibrariesRule>(policy.rules[6].spec).require.size(), 2u);
  EXPECT_EQ(std::get<LibrariesRule>(policy.rules[6].spec).require[0].name, "rocBLAS");  // the table's spelling
  const auto& env = std::get<EnvRule>(policy.rules[7].spec);
  EXPECT_EQ(env.require.at("ROCM_PATH"), std::nullopt);
  EXPECT_EQ(env.forbid.at("HIP_FORCE_DEV_KERNARG"), "0");
  const auto& os = std::get<OsRule>(policy.rules[8].spec);
  ASSERT_EQ(os.allow.size(), 2u);
  EXPECT_EQ(os.allow[1].id, "rhel");
  EXPECT_FALSE(os.allow[1].version);
}

TEST(PolicyParse, ObjectFormsCarrySeverityAndMessage) {
  const auto policy = parsed(R"({"rocm-doctor-policy": 1, "name": "training", "description": "our image",
    "rules": {"torch": {"version": ">=2.5,<2.6", "rocm": "6.2", "severity": "warning", "message": "torch 2.5 for 6.2"},
              "libraries": {"require": {"rocBLAS": ["gfx942"], "RCCL": []}},
              "gfx": {"allow": ["gfx942"]}, "gpu-count": {"min": 2}, "gpu-vram": {"min-gib": 64},
              "os": {"allow": ["debian"], "severity": "info"}, "rocm": {"version": "6.2.x"}}})");
  EXPECT_EQ(policy.name, "training");
  EXPECT_EQ(policy.description, "our image");
  const auto torch =
      std::find_if(policy.rules.begin(), policy.rules.end(), [](const Rule& r) { return r.name == "torch"; });
  ASSERT_NE(torch, policy.rules.end());
  EXPECT_EQ(torch->severity, Severity::warning);
  EXPECT_EQ(torch->message, "torch 2.5 for 6.2");
  EXPECT_TRUE(std::get<TorchRule>(torch->spec).rocm);
  const auto libraries =
      std::find_if(policy.rules.begin(), policy.rules.end(), [](const Rule& r) { return r.name == "libraries"; });
  const auto& required = std::get<LibrariesRule>(libraries->spec).require;
  ASSERT_EQ(required.size(), 2u);
  EXPECT_EQ(required[1].name, "rocBLAS");  // an object's keys come sorted
  EXPECT_EQ(required[1].kernels_for, (std::vector<std::string>{"gfx942"}));
}

TEST(PolicyParse, TolerateAndSkipNeedReasons) {
  const auto policy = parsed(R"({"rocm-doctor-policy": 1,
    "tolerate": [{"finding": "env.serialize", "max-severity": "warning", "reason": "profiling image"}],
    "skip": [{"check": "smi", "reason": "no rocm-smi in the image"}]})");
  ASSERT_EQ(policy.tolerate.size(), 1u);
  EXPECT_EQ(policy.tolerate[0].max_severity, Severity::warning);
  ASSERT_EQ(policy.skip.size(), 1u);
  EXPECT_EQ(policy.skip[0].reason, "no rocm-smi in the image");
  EXPECT_NE(error_of(R"({"rocm-doctor-policy": 1, "skip": [{"check": "smi"}]})").find("/skip/0: missing \"reason\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"rocm-doctor-policy": 1, "skip": [{"check": "smi", "reason": "  "}]})").find("/skip/0/reason"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"rocm-doctor-policy": 1, "tolerate": [{"finding": "env.serialize", "max-severity": "fatal",
            "reason": "x"}]})")
                .find("/tolerate/0/max-severity: 'fatal' is not a severity"),
            std::string::npos);
}

TEST(PolicyParse, SyntaxErrorsNameLineAndColumn) {
  const auto error = error_of("{\n  \"rocm-doctor-policy\": 1,\n  \"rules\": {\"rocm\": \">=6.2\",}\n}\n");
  EXPECT_EQ(error.rfind("site.json:3:", 0), 0u) << error;
  EXPECT_NE(error.find("invalid JSON"), std::string::npos) << error;
  EXPECT_EQ(error_of("").rfind("site.json:1:1: invalid JSON", 0), 0u) << error_of("");
}

TEST(PolicyParse, DuplicateKeysAreErrorsNotLastOneWins) {
  EXPECT_EQ(error_of(with_rules(R"({"rocm": ">=6.2", "gfx": ["gfx942"], "rocm": ">=5.0"})")),
            "site.json: duplicate key 'rocm' twice in /rules");
  EXPECT_EQ(error_of(R"({"rocm-doctor-policy": 1, "name": "a", "name": "b"})"),
            "site.json: duplicate key 'name' twice in the policy");
  EXPECT_EQ(error_of(with_rules(R"({"os": [{"id": "ubuntu"}, {"id": "rhel", "id": "debian"}]})")),
            "site.json: duplicate key 'id' twice in /rules/os/[]");
  // The same key in sibling objects is fine.
  parsed(with_rules(R"({"os": [{"id": "ubuntu"}, {"id": "rhel"}], "env": {"require": ["A"], "forbid": ["B"]}})"));
}

TEST(PolicyParse, ContentErrorsNamePathAndProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"rules": {}})", "site.json: not a rocm-doctor policy: the \"rocm-doctor-policy\": 1 key is missing"},
      {R"({"rocm-doctor-policy": 2})", "site.json: /rocm-doctor-policy: policy format 2 is not supported"},
      {R"({"rocm-doctor-policy": "1"})", "site.json: /rocm-doctor-policy: expected an integer"},
      {R"([1])", "site.json: expected a JSON object, found array"},
      {R"({"rocm-doctor-policy": 1, "rule": {}})", "site.json: /rule: unknown key 'rule' (did you mean 'rules'?)"},
      {with_rules(R"({"rocm": ">=6.x"})"), "site.json: /rules/rocm: bad version range: '>=6.x': a wildcard"},
      {with_rules(R"({"rocm": 6.2})"), "site.json: /rules/rocm: expected a string, found number"},
      {with_rules(R"({"rocm": {"versoin": "6.2"}})"),
       "/rules/rocm/versoin: unknown key 'versoin' (did you mean 'version'?)"},
      {with_rules(R"({"rocm": {"severity": "warning"}})"), "/rules/rocm: missing \"version\""},
      {with_rules(R"({"rocm": {"version": "6.2", "severity": "ok"}})"), "/rules/rocm/severity: 'ok' is not a severity"},
      {with_rules(R"({"cuda": "12"})"), "/rules/cuda: unknown key 'cuda'"},
      {with_rules(R"({"gfx": ["gfx942", "mi300x"]})"), "/rules/gfx/1: 'mi300x' is not a gfx target"},
      {with_rules(R"({"gfx": {}})"), "/rules/gfx: names no gfx target"},
      {with_rules(R"({"gpu-count": 0})"), "/rules/gpu-count: expected a whole number of at least 1"},
      {with_rules(R"({"gpu-count": 2.5})"), "/rules/gpu-count: expected a whole number"},
      {with_rules(R"({"gpu-vram": -1})"), "/rules/gpu-vram: expected a number greater than 0"},
      {with_rules(R"({"torch": {"message": "x"}})"), "/rules/torch: needs \"version\" and/or \"rocm\""},
      {with_rules(R"({"amdgpu-driver": {"severity": "info"}})"),
       "/rules/amdgpu-driver: needs \"version\" and/or \"rocm\""},
      {with_rules(R"({"torch": {"rocm": "rocm6.2"}})"), "/rules/torch/rocm: bad version range"},
      {with_rules(R"({"libraries": ["rocblsa"]})"),
       "/rules/libraries/0: unknown library 'rocblsa' (did you mean 'rocBLAS'?)"},
      {with_rules(R"({"libraries": {"require": {"RCCL": ["gfx942"]}}})"),
       "/rules/libraries/require/RCCL: RCCL has no per-target kernel files"},
      {with_rules(R"({"libraries": {"require": []}})"), "/rules/libraries/require: names no library"},
      {with_rules(R"({"env": ["AMD_LOG_LEVEL"]})"),
       "/rules/env: expected an object with \"require\" and/or \"forbid\""},
      {with_rules(R"({"env": {"forbid": ["AMD LOG"]}})"),
       "/rules/env/forbid: 'AMD LOG' is not an environment variable name"},
      {with_rules(R"({"env": {"require": {"ROCM_PATH": 1}}})"),
       "/rules/env/require/ROCM_PATH: expected a string value or null"},
      {with_rules(R"({"os": []})"), "/rules/os: expected a non-empty array"},
      {with_rules(R"({"os": [{"name": "ubuntu"}]})"), "/rules/os/0/name: unknown key 'name'"},
      {with_rules(R"({"os": [{"id": "ubuntu", "version": "jammy"}]})"), "/rules/os/0/version: bad version range"},
  };
  for (const auto& [text, expected] : cases) {
    const auto error = error_of(text);
    EXPECT_NE(error.find(expected), std::string::npos) << text << "\n  gave: " << error << "\n  want: " << expected;
    EXPECT_EQ(error.rfind("site.json", 0), 0u) << error;
  }
}

TEST(PolicyParse, ReferencesAreHeldToTheRegistry) {
  std::vector<std::string> checks;
  std::vector<std::string> findings;
  for (const Check* check : registered_checks()) {
    checks.emplace_back(check->id());
    for (const auto id : check->finding_ids()) findings.emplace_back(id);
  }
  const auto validate = [&](const std::string& text) {
    return validate_references(PolicySet{{parsed(text)}}, checks, findings);
  };
  const auto skip = validate(R"({"rocm-doctor-policy": 1, "skip": [{"check": "smii", "reason": "x"}]})");
  ASSERT_FALSE(skip);
  EXPECT_NE(skip.error().find("site.json: /skip/0/check: unknown check 'smii' (did you mean 'smi'?)"),
            std::string::npos)
      << skip.error();
  const auto typo = validate(
      R"({"rocm-doctor-policy": 1, "tolerate": [{"finding": "env.serialise", "max-severity": "warning", "reason": "x"}]})");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().find(
                "/tolerate/0/finding: check 'env' has no finding 'env.serialise' (did you mean 'env.serialize'?)"),
            std::string::npos)
      << typo.error();
  // Ids of checks this build does not have (a plugin's) cannot be held to a list.
  EXPECT_TRUE(validate(
      R"({"rocm-doctor-policy": 1, "tolerate": [{"finding": "site-check.slow-nfs", "max-severity": "warning", "reason": "x"}]})"));
  EXPECT_TRUE(validate(
      R"({"rocm-doctor-policy": 1, "tolerate": [{"finding": "policy.os", "max-severity": "error", "reason": "x"}]})"));
}

TEST(PolicyLoad, FilesThenTheSystemFolderInNameOrder) {
  testing::TempDir dir;
  const auto write = [&](const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  };
  write(dir.path() / "explicit.json", R"({"rocm-doctor-policy": 1, "name": "explicit"})");
  write(dir.path() / "policy.d" / "b.json", R"({"rocm-doctor-policy": 1})");
  write(dir.path() / "policy.d" / "a.json", R"({"rocm-doctor-policy": 1})");
  write(dir.path() / "policy.d" / "README", "not a policy");
  const auto set = load_policies({(dir.path() / "explicit.json").string()}, (dir.path() / "policy.d").string());
  ASSERT_TRUE(set) << set.error();
  ASSERT_EQ(set->policies.size(), 3u);
  EXPECT_EQ(set->policies[0].name, "explicit");
  EXPECT_EQ(set->policies[1].name, "a");
  EXPECT_EQ(set->policies[2].name, "b");
  EXPECT_TRUE(load_policies({}, (dir.path() / "absent.d").string()));  // no folder: no policies
  const auto missing = load_policies({(dir.path() / "nope.json").string()}, std::nullopt);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("nope.json: no such file"), std::string::npos) << missing.error();
  write(dir.path() / "policy.d" / "c.json", "{");
  const auto broken = load_policies({}, (dir.path() / "policy.d").string());
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().find("c.json:1:2: invalid JSON"), std::string::npos) << broken.error();
}

TEST(PolicyLoad, TheDocumentedExamplesLoad) {
  for (const auto* name : {"pytorch-training-image.json", "inference-image.json", "mi300x-node.json"}) {
    const auto path = std::string(ROCM_DOCTOR_SOURCE_DIR) + "/docs/examples/" + name;
    const auto policy = load_policy_file(path);
    ASSERT_TRUE(policy) << policy.error();
    EXPECT_FALSE(policy->rules.empty()) << name;
    EXPECT_FALSE(policy->description.empty()) << name;
  }
}

}  // namespace
}  // namespace rocm_doctor::policy
