// Every rule kind judged against scenario snapshots (pass, fail, and cannot be
// judged), and what tolerances and skips do to a report.
#include <gtest/gtest.h>

#include <filesystem>

#include "render/formats.h"
#include "rocm_doctor/policy.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::policy {
namespace {

namespace fs = std::filesystem;
using testing::find_finding;
using testing::run_on;

std::shared_ptr<const PolicySet> policies(const std::vector<std::string>& texts) {
  PolicySet set;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    auto policy = parse_policy(texts[i], "site" + std::to_string(i) + ".json");
    if (!policy) throw std::runtime_error(policy.error());
    set.policies.push_back(std::move(*policy));
  }
  return std::make_shared<const PolicySet>(std::move(set));
}

std::string rules(const std::string& body) {
  return R"({"rocm-doctor-policy": 1, "rules": )" + body + "}";
}

// The named scenario's machine, judged with `policy` after running `checks`.
Report judge_on(const std::string& scenario, const std::string& policy, RunOptions options = {},
                const std::vector<std::string>& checks = {"os"}) {
  auto host = SnapshotHost::open(fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / scenario);
  if (!host) throw std::runtime_error(host.error());
  options.policies = policies({policy});
  return run_on(**host, checks, options);
}

const CheckResult* policy_entry(const Report& report) {
  for (const auto& check : report.checks) {
    if (check.id == "policy") return &check;
  }
  return nullptr;
}

// The one finding of the policy entry (the policies below have one rule each).
Finding verdict(const Report& report) {
  const auto* entry = policy_entry(report);
  if (entry == nullptr || entry->findings.size() != 1) throw std::runtime_error("expected one policy finding");
  return entry->findings.front();
}

std::string evidence_of(const Finding& finding) {
  std::string out;
  for (const auto& evidence : finding.evidence) out += evidence.source + ": " + evidence.value + "\n";
  return out;
}

bool mentions(const Finding& finding, std::string_view text) {
  return (finding.summary + "\n" + finding.detail + "\n" + evidence_of(finding)).find(text) != std::string::npos;
}

RunOptions image(std::vector<std::string> targets = {}) {
  RunOptions options;
  options.image_mode = true;
  options.target_gfx = std::move(targets);
  return options;
}

TEST(PolicyRules, RocmRelease) {
  const auto pass = verdict(judge_on("torch-rocm62-healthy", rules(R"({"rocm": ">=6.2,<6.3"})")));
  EXPECT_EQ(pass.id, "policy.rocm");
  EXPECT_EQ(pass.severity, Severity::ok);
  EXPECT_TRUE(mentions(pass, "6.2.4 is within >=6.2,<6.3")) << pass.summary;
  const auto fail =
      verdict(judge_on("torch-rocm62-healthy", rules(R"({"rocm": {"version": "~=6.3.0", "message": "We ship 6.3"}})")));
  EXPECT_EQ(fail.severity, Severity::error);
  EXPECT_EQ(fail.summary, "We ship 6.3 (policy 'site0')");  // the policy's own message
  EXPECT_TRUE(mentions(fail, "6.2.4 is outside ~=6.3.0")) << fail.detail;
  EXPECT_TRUE(mentions(fail, "/rules/rocm = {\"message\":\"We ship 6.3\",\"version\":\"~=6.3.0\"}"))
      << evidence_of(fail);
  const auto warn =
      verdict(judge_on("torch-rocm62-healthy", rules(R"({"rocm": {"version": "<6.2", "severity": "warning"}})")));
  EXPECT_EQ(warn.severity, Severity::warning);
  const auto absent = verdict(judge_on("rocm-not-installed", rules(R"({"rocm": "6.2"})")));
  EXPECT_EQ(absent.severity, Severity::error);
  EXPECT_TRUE(mentions(absent, "no ROCm installation was found"));
}

TEST(PolicyRules, AmdgpuDriverRelease) {
  EXPECT_EQ(verdict(judge_on("torch-rocm62-healthy", rules(R"({"amdgpu-driver": ">=6.8"})"))).severity, Severity::ok);
  const auto old = verdict(judge_on("gpu-mi300x-x8", rules(R"({"amdgpu-driver": ">=6.8"})")));
  EXPECT_EQ(old.severity, Severity::error);
  EXPECT_TRUE(mentions(old, "amdgpu driver 6.3.6 is outside >=6.8"));
  testing::SnapshotBuilder builder;
  const auto in_tree = builder.dir("/sys/module/amdgpu").open();
  RunOptions options;
  options.policies = policies({rules(R"({"amdgpu-driver": ">=6.8"})")});
  const auto report = run_on(*in_tree, {"os"}, options);
  EXPECT_TRUE(mentions(verdict(report), "in-tree")) << verdict(report).summary;
  EXPECT_EQ(verdict(report).severity, Severity::error);
  const auto building =
      verdict(judge_on("image-rocm62-ci-gate", rules(R"({"amdgpu-driver": ">=6.8"})"), image({"gfx942"})));
  // The ROCm release a driver shipped with, from checks/data/amdgpu_driver.json.
  const auto shipped = verdict(judge_on("torch-rocm62-healthy", rules(R"({"amdgpu-driver": {"rocm": "6.2"}})")));
  EXPECT_EQ(shipped.severity, Severity::ok) << shipped.summary;
  EXPECT_TRUE(mentions(shipped, "amdgpu 6.8.5 (ROCm 6.2) is within 6.2")) << shipped.summary;
  const auto older =
      verdict(judge_on("gpu-mi300x-x8", rules(R"({"amdgpu-driver": {"version": ">=6.0", "rocm": ">=6.2"}})")));
  EXPECT_EQ(older.severity, Severity::error);
  EXPECT_TRUE(mentions(older, "amdgpu 6.3.6 shipped with ROCm 6.0, outside >=6.2")) << older.summary;
  testing::SnapshotBuilder unknown_driver;
  const auto untabled = unknown_driver.file("/sys/module/amdgpu/version", "6.9.9\n").open();
  RunOptions with_rocm_rule;
  with_rocm_rule.policies = policies({rules(R"({"amdgpu-driver": {"rocm": ">=6.2"}})")});
  const auto table = verdict(run_on(*untabled, {"os"}, with_rocm_rule));
  EXPECT_TRUE(mentions(table, "cannot be evaluated: amdgpu 6.9.9 is not in the driver table")) << table.summary;
  EXPECT_EQ(building.severity, Severity::error);  // cannot be judged is not a pass
  EXPECT_TRUE(mentions(building, "cannot be evaluated")) << building.summary;
}

TEST(PolicyRules, GfxTargets) {
  EXPECT_EQ(verdict(judge_on("torch-rocm62-healthy", rules(R"({"gfx": ["gfx1100"]})"))).severity, Severity::ok);
  const auto missing =
      verdict(judge_on("torch-rocm62-healthy", rules(R"({"gfx": {"require": ["gfx942"], "allow": ["gfx942"]}})")));
  EXPECT_EQ(missing.severity, Severity::error);
  EXPECT_TRUE(mentions(missing, "gfx942 is not among them")) << missing.summary;
  EXPECT_TRUE(mentions(missing, "gfx1100 is not allowed")) << missing.summary;
  // Building an image: --target-gfx stands in for the GPUs.
  const auto targets =
      verdict(judge_on("image-rocm62-ci-gate", rules(R"({"gfx": ["gfx942", "gfx90a"]})"), image({"gfx942", "gfx90a"})));
  EXPECT_EQ(targets.severity, Severity::ok);
  EXPECT_TRUE(mentions(targets, "--target-gfx")) << evidence_of(targets);
  const auto no_targets = verdict(judge_on("image-rocm62-ci-gate", rules(R"({"gfx": ["gfx942"]})"), image()));
  EXPECT_TRUE(mentions(no_targets, "cannot be evaluated")) << no_targets.summary;
  ASSERT_FALSE(no_targets.fixes.empty());
  EXPECT_NE(no_targets.fixes[0].description.find("--target-gfx gfx942"), std::string::npos);
  const auto no_gpu = verdict(judge_on("gpu-none-visible", rules(R"({"gfx": ["gfx1030"]})")));
  EXPECT_EQ(no_gpu.severity, Severity::error);
  EXPECT_TRUE(mentions(no_gpu, "no GPU is visible to ROCm"));
}

TEST(PolicyRules, GpuCountAndMemory) {
  EXPECT_EQ(verdict(judge_on("gpu-mi300x-x8", rules(R"({"gpu-count": 8})"))).severity, Severity::ok);
  const auto few = verdict(judge_on("gpu-mi300x-x8", rules(R"({"gpu-count": {"min": 16, "severity": "warning"}})")));
  EXPECT_EQ(few.severity, Severity::warning);
  EXPECT_TRUE(mentions(few, "8 GPU(s) visible to ROCm, the policy requires at least 16"));
  EXPECT_EQ(verdict(judge_on("gpu-mi300x-x8", rules(R"({"gpu-vram": 192})"))).severity, Severity::ok);
  const auto small = verdict(judge_on("gpu-mi300x-x8", rules(R"({"gpu-vram": {"min-gib": 256}})")));
  EXPECT_EQ(small.severity, Severity::error);
  EXPECT_TRUE(mentions(small, "192.0 GiB, less than 256 GiB")) << small.summary;
  EXPECT_TRUE(mentions(verdict(judge_on("image-rocm62-ci-gate", rules(R"({"gpu-count": 1})"), image({"gfx942"}))),
                       "cannot be evaluated"));
}

TEST(PolicyRules, TorchVersionAndRocmTag) {
  const auto pass =
      verdict(judge_on("torch-rocm62-healthy", rules(R"({"torch": {"version": ">=2.5,<2.6", "rocm": "6.2"}})")));
  EXPECT_EQ(pass.severity, Severity::ok) << pass.summary;
  EXPECT_TRUE(mentions(pass, "2.5.1+rocm6.2"));
  const auto version = verdict(judge_on("torch-rocm62-healthy", rules(R"({"torch": "<2.5"})")));
  EXPECT_EQ(version.severity, Severity::error);
  EXPECT_TRUE(mentions(version, "torch 2.5.1+rocm6.2 is outside <2.5")) << version.summary;
  const auto tag = verdict(judge_on("torch-rocm62-healthy", rules(R"({"torch": {"rocm": ">=6.3"}})")));
  EXPECT_TRUE(mentions(tag, "torch 2.5.1+rocm6.2 is built for ROCm 6.2 (+rocm tag), outside >=6.3")) << tag.summary;
  const auto cuda = verdict(judge_on("torch-cuda-wheel", rules(R"({"torch": {"rocm": "6.2"}})")));
  EXPECT_TRUE(mentions(cuda, "not a ROCm build")) << cuda.summary;
  const auto absent = verdict(judge_on("torch-not-installed", rules(R"({"torch": ">=2.5"})")));
  EXPECT_EQ(absent.severity, Severity::error);
  EXPECT_TRUE(mentions(absent, "PyTorch is not installed")) << absent.summary;
  // No python probe in the snapshot: torch's files are read instead (here: no python3 at all), never a silent pass.
  const auto unprobed =
      verdict(judge_on("gpu-mi300x-x8", rules(R"({"torch": {"version": ">=2.5", "severity": "warning"}})")));
  EXPECT_EQ(unprobed.severity, Severity::warning);
  EXPECT_TRUE(mentions(unprobed, "no Python interpreter was found")) << unprobed.summary;
  const auto hung = verdict(judge_on("torch-probe-timeout", rules(R"({"torch": ">=2.5"})")));
  EXPECT_TRUE(mentions(hung, "did not finish (timeout)")) << hung.summary;
}

TEST(PolicyRules, LibrariesAndTheirKernels) {
  const auto pass =
      verdict(judge_on("image-rocm62-ci-gate",
                       rules(R"({"libraries": {"require": {"rocBLAS": ["gfx942", "gfx90a"]}}})"), image({"gfx942"})));
  EXPECT_EQ(pass.severity, Severity::ok) << pass.summary;
  const auto kernels = verdict(judge_on(
      "image-rocm62-ci-gate", rules(R"({"libraries": {"require": {"rocBLAS": ["gfx908"]}}})"), image({"gfx942"})));
  EXPECT_EQ(kernels.severity, Severity::error);
  EXPECT_TRUE(mentions(kernels, "rocBLAS has no gfx908 kernels")) << kernels.summary;
  const auto missing =
      verdict(judge_on("image-rocm62-ci-gate", rules(R"({"libraries": ["rocBLAS", "MIOpen"]})"), image({"gfx942"})));
  EXPECT_TRUE(mentions(missing, "MIOpen is not installed")) << missing.summary;
  EXPECT_FALSE(mentions(missing, "rocBLAS is not installed"));
}

TEST(PolicyRules, EnvironmentVariables) {
  const auto scenario = "env-serialize-and-alloc-conf";  // AMD_SERIALIZE_KERNEL=3, AMD_LOG_LEVEL=4
  EXPECT_EQ(verdict(judge_on(scenario, rules(R"({"env": {"require": {"AMD_SERIALIZE_KERNEL": "3"}}})"))).severity,
            Severity::ok);
  const auto forbidden = verdict(judge_on(scenario, rules(R"({"env": {"forbid": ["AMD_LOG_LEVEL"]}})")));
  EXPECT_EQ(forbidden.severity, Severity::error);
  EXPECT_TRUE(mentions(forbidden, "AMD_LOG_LEVEL=4 is forbidden")) << forbidden.summary;
  EXPECT_EQ(verdict(judge_on(scenario, rules(R"({"env": {"forbid": {"AMD_LOG_LEVEL": "1"}}})"))).severity,
            Severity::ok);
  const auto wrong =
      verdict(judge_on(scenario, rules(R"({"env": {"require": {"AMD_SERIALIZE_KERNEL": "0", "ROCM_PATH": null}}})")));
  EXPECT_TRUE(mentions(wrong, "AMD_SERIALIZE_KERNEL=3, the policy requires 0")) << wrong.summary;
  EXPECT_TRUE(mentions(wrong, "ROCM_PATH is not set")) << wrong.summary;
}

TEST(PolicyRules, OperatingSystem) {
  EXPECT_EQ(
      verdict(judge_on("torch-rocm62-healthy", rules(R"({"os": [{"id": "ubuntu", "version": ">=22.04"}]})"))).severity,
      Severity::ok);
  EXPECT_EQ(verdict(judge_on("torch-rocm62-healthy", rules(R"({"os": ["Ubuntu"]})"))).severity, Severity::ok);
  const auto other =
      verdict(judge_on("torch-rocm62-healthy", rules(R"({"os": [{"id": "ubuntu", "version": "24.04"}, "rhel"]})")));
  EXPECT_EQ(other.severity, Severity::error);
  EXPECT_TRUE(mentions(other, "ubuntu 22.04 is not among the allowed systems (ubuntu 24.04; rhel)")) << other.summary;
}

TEST(PolicyReport, ToleratedFindingsAreDowngradedAndAttributed) {
  const auto tolerate = R"({"rocm-doctor-policy": 1, "name": "profiling", "tolerate": [
      {"finding": "env.serialize", "max-severity": "warning", "reason": "the profiling image serializes on purpose"},
      {"finding": "env.alloc-conf-invalid", "max-severity": "warning", "reason": "never above a warning"}]})";
  const auto report = judge_on("env-serialize-and-alloc-conf", tolerate, {}, {"env"});
  const auto* accepted = find_finding(report, "env.serialize");
  ASSERT_NE(accepted, nullptr);
  EXPECT_EQ(accepted->severity, Severity::info);
  ASSERT_TRUE(accepted->accepted);
  EXPECT_EQ(accepted->accepted->policy, "profiling");
  EXPECT_EQ(accepted->accepted->original_severity, Severity::warning);
  // An error is more than the policy tolerates: it stays an error.
  const auto* kept = find_finding(report, "env.alloc-conf-invalid");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->severity, Severity::error);
  EXPECT_FALSE(kept->accepted);

  const auto json = report_to_json(report);
  bool found = false;
  for (const auto& check : json["checks"]) {
    for (const auto& finding : check["findings"]) {
      if (finding["id"] != "env.serialize") continue;
      found = true;
      EXPECT_EQ(finding["severity"], "info");
      EXPECT_EQ(finding["accepted"]["policy"], "profiling");
      EXPECT_EQ(finding["accepted"]["original_severity"], "warning");
      EXPECT_EQ(finding["accepted"]["reason"], "the profiling image serializes on purpose");
    }
  }
  EXPECT_TRUE(found);
  ASSERT_TRUE(json.contains("policies"));
  EXPECT_EQ(json["policies"][0]["name"], "profiling");
  EXPECT_EQ(json["policies"][0]["tolerate"][0]["accepted"],
            1);  // AMD_SERIALIZE_KERNEL (AMD_LOG_LEVEL is env.debug-logging)
  EXPECT_EQ(json["policies"][0]["tolerate"][1]["accepted"], 0);
  const auto text = render_text(report, Color::off, Verbosity::normal);
  EXPECT_NE(text.find("Accepted by policy 'profiling' (was warning): the profiling image\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Policies: profiling (site0.json)"), std::string::npos) << text;
  const auto markdown = render_report(report, Format::markdown, {});
  EXPECT_NE(markdown.find("Accepted by policy 'profiling'"), std::string::npos);
}

TEST(PolicyReport, SkippedChecksSayWhichPolicyAndWhy) {
  const auto skip =
      R"({"rocm-doctor-policy": 1, "name": "image", "skip": [{"check": "env", "reason": "judged at run time"}]})";
  const auto report = judge_on("env-serialize-and-alloc-conf", skip, {}, {"os", "env"});
  const auto it =
      std::find_if(report.checks.begin(), report.checks.end(), [](const CheckResult& c) { return c.id == "env"; });
  ASSERT_NE(it, report.checks.end());
  EXPECT_EQ(it->status, CheckStatus::skipped);
  EXPECT_EQ(it->skipped_reason, "skipped by policy 'image' (site0.json): judged at run time");
  EXPECT_TRUE(it->findings.empty());
  EXPECT_EQ(find_finding(report, "env.serialize"), nullptr);
  const auto json = report_to_json(report);
  EXPECT_EQ(json["policies"][0]["skip"][0]["check"], "env");
  EXPECT_EQ(json["summary"]["skipped_checks"], 1);
}

TEST(PolicyReport, EveryPolicyIsJudgedAndNoneMeansNoEntry) {
  auto host = SnapshotHost::open(fs::path(ROCM_DOCTOR_SCENARIOS_DIR) / "torch-rocm62-healthy");
  ASSERT_TRUE(host);
  RunOptions options;
  options.policies = policies({rules(R"({"rocm": "6.2"})"), rules(R"({"rocm": "6.3", "os": ["ubuntu"]})")});
  const auto report = run_on(**host, {"os"}, options);
  const auto* entry = policy_entry(report);
  ASSERT_NE(entry, nullptr);
  ASSERT_EQ(entry->findings.size(), 3u);
  EXPECT_EQ(entry->findings[0].severity, Severity::ok);
  EXPECT_EQ(entry->findings[1].severity, Severity::error);
  EXPECT_EQ(entry->status, CheckStatus::error);
  EXPECT_EQ(entry->title, "Site policy: site0, site1");
  EXPECT_EQ(exit_code_for(report, Severity::error), ExitCode::findings);
  const auto plain = run_on(**host, {"os"}, RunOptions{});
  EXPECT_EQ(policy_entry(plain), nullptr);
  EXPECT_FALSE(report_to_json(plain).contains("policies"));
}

}  // namespace
}  // namespace rocm_doctor::policy
