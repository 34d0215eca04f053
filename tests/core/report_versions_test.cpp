// The report's `versions`: from the facts the checks computed, nothing else.
#include "core/report_versions.h"

#include <gtest/gtest.h>

#include <map>

#include "rocm_doctor/facts/rocm_install.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::run_on;
using Versions = std::map<std::string, std::string>;

Versions versions_of(const Report& report) {
  return {report.versions.begin(), report.versions.end()};
}

constexpr std::string_view kDkmsInstalled =
    "Package: amdgpu-dkms\nStatus: install ok installed\nVersion: 1:6.8.5.60204-2041575.22.04\n\n";

TEST(ReportVersions, TheDkmsPackageWhenNoModuleIsLoaded) {
  testing::SnapshotBuilder builder;
  builder.file("/var/lib/dpkg/status", std::string(kDkmsInstalled));
  const auto report = run_on(*builder.open(), {"packages"});
  EXPECT_EQ(versions_of(report),
            (Versions{{"amdgpu", "6.8.5"}, {"amdgpu_source", "amdgpu-dkms"}, {"amdgpu_rocm", "6.2.4"}}));
}

TEST(ReportVersions, TheLoadedModuleWinsAndAnUnknownReleaseIsLeftOut) {
  testing::SnapshotBuilder builder;
  builder.file("/var/lib/dpkg/status", std::string(kDkmsInstalled)).file("/sys/module/amdgpu/version", "6.99.1\n");
  const auto report = run_on(*builder.open(), {"packages"});
  EXPECT_EQ(versions_of(report), (Versions{{"amdgpu", "6.99.1"}, {"amdgpu_source", "module"}}));
}

TEST(ReportVersions, NoKeyWithoutTheCheckThatReadsIt) {
  testing::SnapshotBuilder builder;
  builder.file("/var/lib/dpkg/status", std::string(kDkmsInstalled))
      .file("/opt/rocm-6.2.4/.info/version", "6.2.4-120\n")
      .symlink("/opt/rocm", "rocm-6.2.4");
  auto host = builder.open();
  EXPECT_TRUE(run_on(*host, {"os"}).versions.empty());
  const RunOptions options;
  const CheckContext ctx(*host, options);
  EXPECT_TRUE(collect_versions(ctx, registered_checks()).empty()) << "nothing is computed for the versions alone";
  EXPECT_EQ(ctx.computed_fact<RocmInstallation>(), nullptr);
}

TEST(ReportVersions, AnImageBuildHasNoDriver) {
  testing::SnapshotBuilder builder;
  builder.file("/var/lib/dpkg/status", std::string(kDkmsInstalled)).file("/sys/module/amdgpu/version", "6.8.5\n");
  RunOptions options;
  options.image_mode = true;
  EXPECT_TRUE(run_on(*builder.open(), {"packages"}, options).versions.empty());
}

TEST(ReportVersions, ProbesGiveTheLoadedHipAndTorchWhenASelectedCheckReadsThem) {
  testing::SnapshotBuilder builder;
  builder.probe("hip", {{"status", "ok"}, {"result", {{"runtime_version_text", "6.2.41134"}}}})
      .probe("python",
             {{"status", "ok"},
              {"result",
               {{"executable", "/usr/bin/python3"}, {"torch", {{"version", "2.5.1+rocm6.2"}, {"hip", nullptr}}}}}});
  auto host = builder.open();
  const RunOptions options;
  const auto versions = [&](std::vector<std::string_view> ids) {
    const CheckContext ctx(*host, options);  // one run each: facts are computed once per run
    std::vector<const Check*> checks;
    for (const auto id : ids) checks.push_back(find_check(id));
    const auto list = collect_versions(ctx, checks);
    return Versions(list.begin(), list.end());
  };
  EXPECT_EQ(versions({"hip", "torch"}), (Versions{{"hip_runtime", "6.2.41134"}, {"torch", "2.5.1+rocm6.2"}}))
      << "torch.version.hip null (a CPU wheel): no torch_hip";
  EXPECT_EQ(versions({"torch"}), (Versions{{"torch", "2.5.1+rocm6.2"}}));
  EXPECT_TRUE(versions({"os"}).empty()) << "a live run of `--only os` starts no probe; its replay shows none either";
}

TEST(ReportVersions, FailedProbesAndOddValuesGiveNoKey) {
  testing::SnapshotBuilder builder;
  builder.probe("hip", {{"status", "crashed"}, {"result", {{"runtime_version_text", "6.2.41134"}}}})
      .probe("python", {{"status", "ok"}, {"result", {{"torch", {{"version", 5}, {"hip", "  "}}}}}})
      .file("/sys/module/amdgpu/version", "6.8.5\x1b[31m\n");
  const auto report = run_on(*builder.open(), {"packages", "hip", "torch"});
  const auto versions = versions_of(report);
  EXPECT_FALSE(versions.contains("hip_runtime"));
  EXPECT_FALSE(versions.contains("torch"));
  EXPECT_FALSE(versions.contains("torch_hip")) << "blank is unknown";
  ASSERT_TRUE(versions.contains("amdgpu"));
  EXPECT_EQ(versions.at("amdgpu").find('\x1b'), std::string::npos) << versions.at("amdgpu");
}

TEST(ReportVersions, DriverVersionOfAPackageDropsTheROCmComponent) {
  EXPECT_EQ(driver_version_of_package("6.8.5.60204"), "6.8.5");
  EXPECT_EQ(driver_version_of_package("6.8.5"), "6.8.5");
  EXPECT_EQ(driver_version_of_package("30.10"), "30.10");
}

}  // namespace
}  // namespace rocm_doctor
