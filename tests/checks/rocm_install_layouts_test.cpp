// The ROCm Core SDK (7.14+) and Python-managed layouts of the RocmInstallation fact, and the
// loader fix each gets (never "install the runtime" when it is there).
#include <gtest/gtest.h>

#include "rocm_doctor/facts/rocm_install.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;
using Opt = std::optional<std::string>;
using nlohmann::json;

constexpr const char* kHipFile = "libamdhip64.so.7.14.60850-0000000";
constexpr const char* kSite = "/home/alice/venv/lib/python3.12/site-packages";

TEST(RocmLayoutParsing, CoreFolders) {
  const std::vector<std::pair<std::string, Opt>> cases = {
      {"core-7.14", "7.14"},    {"core-10.0", "10.0"},       {"core-asan-7.15", "7.15"},      {"core", std::nullopt},
      {"core-7", std::nullopt}, {"extras-10", std::nullopt}, {"core-7.14.bak", std::nullopt}, {"lib", std::nullopt},
  };
  for (const auto& [name, expected] : cases) EXPECT_EQ(parse_core_folder(name), expected) << name;
}

TEST(RocmLayoutParsing, DistInfoFolders) {
  const std::vector<std::pair<std::string, Opt>> cases = {
      {"rocm_sdk_core-7.14.0.dist-info", "7.14.0"},           {"rocm_sdk_core-7.15.0a20260630.dist-info", "7.15.0"},
      {"rocm_sdk_core-10.0.0rc1.dist-info", "10.0.0"},        {"rocm_sdk_core-7.14.0", std::nullopt},
      {"rocm_sdk_core_extra-7.14.0.dist-info", std::nullopt}, {"rocm-7.14.0.dist-info", std::nullopt},
      {"rocm_sdk_core-latest.dist-info", std::nullopt},
  };
  for (const auto& [name, expected] : cases)
    EXPECT_EQ(parse_dist_info_version(name, "rocm_sdk_core"), expected) << name;
}

SnapshotBuilder& core_714(SnapshotBuilder& builder) {
  builder.file("/opt/rocm/core-7.14/.info/version", "7.14.0\n")
      .file(std::string("/opt/rocm/core-7.14/lib/") + kHipFile, "")
      .symlink("/opt/rocm/core-7.14/lib/libamdhip64.so.7", kHipFile)
      .file("/opt/rocm/core-7.14/bin/rocminfo", "")
      .file("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
      .file("/etc/ld.so.conf.d/x86_64-linux-gnu.conf", "/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n")
      .env("PATH", "/usr/bin:/bin");
  return builder;
}

SnapshotBuilder& alternatives(SnapshotBuilder& builder) {
  builder.symlink("/etc/alternatives/rocm-lib", "/opt/rocm/core-7.14/lib")
      .symlink("/opt/rocm/lib", "/etc/alternatives/rocm-lib")
      .symlink("/etc/alternatives/rocm-bin", "/opt/rocm/core-7.14/bin")
      .symlink("/opt/rocm/bin", "/etc/alternatives/rocm-bin")
      .symlink("/etc/alternatives/core", "/opt/rocm/core-7.14")
      .symlink("/opt/rocm/core", "/etc/alternatives/core")
      .symlink("/etc/alternatives/rocminfo", "/opt/rocm/core-7.14/bin/rocminfo")
      .symlink("/usr/bin/rocminfo", "/etc/alternatives/rocminfo");
  return builder;
}

RocmInstallation collect(SnapshotBuilder& builder) {
  auto host = builder.open();
  const RunOptions options;
  const CheckContext ctx(*host, options);
  return ctx.fact<RocmInstallation>();
}

Report run_checks_on(SnapshotBuilder& builder, std::vector<std::string> checks) {
  auto host = builder.open();
  return run_on(*host, std::move(checks), {});
}

TEST(RocmCoreSdkFact, FullInstallIsOneReleaseSelectedByTheAlternatives) {
  SnapshotBuilder builder;
  alternatives(core_714(builder));
  const auto install = collect(builder);
  ASSERT_EQ(install.releases.size(), 1U);  // /opt/rocm and /opt/rocm/core are links, not releases
  ASSERT_TRUE(install.active);
  EXPECT_EQ(install.active->layout, RocmLayout::core_sdk);
  EXPECT_EQ(install.active->version, "7.14.0");
  EXPECT_EQ(install.active->prefix, "/opt/rocm/core-7.14");
  EXPECT_EQ(install.active->lib_dir, "/opt/rocm/core-7.14/lib");
  EXPECT_EQ(install.active->hip_soname, "libamdhip64.so.7");
  EXPECT_EQ(install.opt_rocm_lib_target, "/etc/alternatives/rocm-lib");
  EXPECT_EQ(install.opt_rocm_lib_resolved, "/opt/rocm/core-7.14/lib");
  EXPECT_TRUE(install.selection_known());
}

TEST(RocmCoreSdkFact, TheAlternativesPickTheActiveOfTwoReleases) {
  SnapshotBuilder builder;
  alternatives(core_714(builder));
  builder.file("/opt/rocm/core-10.0/.info/version", "10.0.0\n").file("/opt/rocm/core-10.0/lib/libamdhip64.so.7", "");
  const auto install = collect(builder);
  ASSERT_EQ(install.releases.size(), 2U);
  EXPECT_EQ(install.releases.front().version, "10.0.0");  // newest first
  EXPECT_EQ(install.active->version, "7.14.0");           // but /opt/rocm/lib selects 7.14
}

TEST(RocmCoreSdkCheck, MissingLoaderEntryIsFixedWithTheCoreLibFolderNeverAReinstall) {
  for (const bool full : {true, false}) {
    SnapshotBuilder builder;
    core_714(builder);
    if (full) alternatives(builder);
    const auto report = run_checks_on(builder, {"rocm-install"});
    const auto* finding = find_finding(report, "rocm.lib-not-found");
    ASSERT_NE(finding, nullptr) << (full ? "full" : "minimal");
    EXPECT_EQ(finding->severity, Severity::error);
    ASSERT_EQ(finding->fixes.size(), 1U);
    EXPECT_EQ(finding->fixes[0].commands,
              (std::vector<std::string>{"echo /opt/rocm/core-7.14/lib | sudo tee /etc/ld.so.conf.d/rocm-core-7.14.conf",
                                        "sudo ldconfig"}));
    for (const auto& command : finding->fixes[0].commands)
      EXPECT_EQ(command.find("hip-runtime-amd"), std::string::npos);
    EXPECT_EQ(find_finding(report, "rocm.not-installed"), nullptr);
  }
}

TEST(RocmCoreSdkCheck, LoaderEntryMakesItHealthy) {
  SnapshotBuilder builder;
  alternatives(core_714(builder)).file("/etc/ld.so.conf.d/rocm-core-7.14.conf", "/opt/rocm/core-7.14/lib\n");
  const auto report = run_checks_on(builder, {"rocm-install"});
  EXPECT_NE(find_finding(report, "rocm.ok"), nullptr);
  EXPECT_EQ(find_finding(report, "rocm.bin-not-on-path"), nullptr);  // /usr/bin/rocminfo is the alternative
}

TEST(RocmCoreSdkCheck, MinimalInstallPutsTheCoreBinOnPath) {
  SnapshotBuilder builder;
  core_714(builder).file("/etc/ld.so.conf.d/rocm-core-7.14.conf", "/opt/rocm/core-7.14/lib\n");
  const auto report = run_checks_on(builder, {"rocm-install"});
  const auto* finding = find_finding(report, "rocm.bin-not-on-path");
  ASSERT_NE(finding, nullptr);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands.front(), "export PATH=\"$PATH:/opt/rocm/core-7.14/bin\"");
}

TEST(RocmCoreSdkCheck, AReleaseWithoutRuntimeInstallsTheCorePackage) {
  SnapshotBuilder builder;
  builder.file("/opt/rocm/core-7.14/.info/version", "7.14.0\n")
      .file("/opt/rocm/core-7.14/bin/rocminfo", "")
      .file("/etc/ld.so.conf", "")
      .env("PATH", "/usr/bin:/opt/rocm/core-7.14/bin");
  const auto report = run_checks_on(builder, {"rocm-install"});
  const auto* finding = find_finding(report, "rocm.lib-not-found");
  ASSERT_NE(finding, nullptr);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands, (std::vector<std::string>{"sudo apt install amdrocm-core7.14"}));
}

SnapshotBuilder& python_714(SnapshotBuilder& builder) {
  const std::string core = std::string(kSite) + "/_rocm_sdk_core";
  builder.file(core + "/__init__.py", "")
      .file(core + "/lib/" + kHipFile, "")
      .symlink(core + "/lib/libamdhip64.so.7", kHipFile)
      .file(std::string(kSite) + "/rocm_sdk_core-7.14.0.dist-info/METADATA", "Name: rocm-sdk-core\n")
      .file("/etc/ld.so.conf", "")
      .env("VIRTUAL_ENV", "/home/alice/venv")
      .env("PATH", "/home/alice/venv/bin:/usr/bin");
  return builder;
}

TEST(RocmPythonFact, SitePackagesCoreIsARelease) {
  SnapshotBuilder builder;
  python_714(builder);
  const auto install = collect(builder);
  ASSERT_TRUE(install.active);
  EXPECT_EQ(install.active->layout, RocmLayout::python);
  EXPECT_EQ(install.active->version, "7.14.0");
  EXPECT_EQ(install.active->lib_dir, std::string(kSite) + "/_rocm_sdk_core/lib");
  EXPECT_EQ(install.active->evidence, std::string(kSite) + "/rocm_sdk_core-7.14.0.dist-info");
}

TEST(RocmPythonCheck, OutsidePythonTheLoaderNeedsLdLibraryPathAndThatIsInfo) {
  SnapshotBuilder builder;
  python_714(builder);
  const auto report = run_checks_on(builder, {"rocm-install"});
  const auto* finding = find_finding(report, "rocm.lib-not-found");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands,
            (std::vector<std::string>{"export LD_LIBRARY_PATH=" + std::string(kSite) +
                                      "/_rocm_sdk_core/lib\"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\""}));
  EXPECT_FALSE(finding->fixes[0].needs_root);
  EXPECT_EQ(find_finding(report, "rocm.bin-not-on-path"), nullptr);
}

TEST(RocmPythonFact, ASystemReleaseStaysActiveBesideAVenv) {
  SnapshotBuilder builder;
  alternatives(core_714(builder));
  python_714(builder);
  const auto install = collect(builder);
  ASSERT_EQ(install.releases.size(), 2U);
  EXPECT_EQ(install.active->layout, RocmLayout::core_sdk);
  const auto report = run_checks_on(builder, {"rocm-install"});
  const auto* multiple = find_finding(report, "rocm.multiple-installs");
  ASSERT_NE(multiple, nullptr);
  EXPECT_EQ(multiple->severity, Severity::info);  // a venv's copy is no second system release
}

json not_found_probe() {
  json attempts = json::array();
  for (const char* name : {"libamdhip64.so.7", "libamdhip64.so"}) {
    attempts.push_back({{"name", name},
                        {"error", std::string(name) + ": cannot open shared object file: No such "
                                                      "file or directory"}});
  }
  return {{"status", "ok"}, {"result", {{"library", {{"status", "not-found"}, {"attempts", attempts}}}}}};
}

TEST(HipNotFound, AnInstalledCoreRuntimeGetsTheLoaderEntryNotAReinstall) {
  SnapshotBuilder builder;
  core_714(builder).probe("hip", not_found_probe());
  const auto report = run_checks_on(builder, {"hip"});
  const auto* finding = find_finding(report, "hip.not-found");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands.front(),
            "echo /opt/rocm/core-7.14/lib | sudo tee /etc/ld.so.conf.d/rocm-core-7.14.conf");
}

TEST(HipNotFound, OnlyAPythonRuntimeIsInfoWithLdLibraryPath) {
  SnapshotBuilder builder;
  python_714(builder).probe("hip", not_found_probe());
  const auto report = run_checks_on(builder, {"hip"});
  const auto* finding = find_finding(report, "hip.not-found");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_TRUE(finding->fixes[0].commands.front().starts_with("export LD_LIBRARY_PATH="));
}

TEST(HipNotFound, NoRuntimeAnywhereStillSaysInstall) {
  SnapshotBuilder builder;
  builder.probe("hip", not_found_probe());
  const auto report = run_checks_on(builder, {"hip"});
  const auto* finding = find_finding(report, "hip.not-found");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_NE(finding->fixes[0].description.find("amdrocm-core"), std::string::npos);
}

}  // namespace
}  // namespace rocm_doctor
