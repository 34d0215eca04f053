// The platform check: support-list columns, kernel specs, VM markers.
#include "../../checks/platform.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "rocm_doctor/kb.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

// Every kernel a release row names as a flavour ("6.14 HWE", "5.15 GA", "6.17 OEM") is one the
// doctor accepts, wherever the row puts it (issue 26: a parenthesis hid 6.14 HWE from ROCm 7.1).
TEST(PlatformKernels, EveryKernelFlavourARowNamesIsAccepted) {
  const std::regex flavour(R"((\d+)\.(\d+)(\.\d+)? (GA|HWE|OEM))");
  int checked = 0;
  for (const auto& release : kb::knowledge_base().releases()) {
    for (const auto& row : release.os) {
      const auto listed = platform::listed_kernels(row.kernel);
      for (std::sregex_iterator it(row.kernel.begin(), row.kernel.end(), flavour), end; it != end; ++it) {
        const auto kernel = (*it)[1].str() + "." + (*it)[2].str() + ".0-40-generic";
        EXPECT_TRUE(platform::kernel_matches(kernel, listed))
            << "ROCm " << release.release << ", " << row.name << " " << row.version << ": '" << row.kernel << "' names "
            << it->str() << " but " << kernel << " is not accepted";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 30);
}

struct KernelRow {
  std::string name;  // the case, for the test's name
  std::string rocm;
  std::string distro;
  std::string version;
  std::vector<std::string> kernels;  // each must be accepted
};

void PrintTo(const KernelRow& row, std::ostream* out) {
  *out << "ROCm " << row.rocm << " " << row.distro << " " << row.version;
}

class ReleaseKernels : public ::testing::TestWithParam<KernelRow> {};

TEST_P(ReleaseKernels, TheRowAcceptsEveryKernelAmdLists) {
  const auto& want = GetParam();
  const auto* release = kb::knowledge_base().release(want.rocm);
  ASSERT_NE(release, nullptr) << want.rocm;
  const auto row = std::find_if(release->os.begin(), release->os.end(), [&](const kb::OsSupport& os) {
    const auto versions = platform::listed_versions(os.version);
    return os.name == want.distro && std::find(versions.begin(), versions.end(), want.version) != versions.end();
  });
  ASSERT_NE(row, release->os.end()) << want.distro << " " << want.version << " is not listed for " << want.rocm;
  for (const auto& kernel : want.kernels) {
    EXPECT_TRUE(platform::kernel_matches(kernel, platform::listed_kernels(row->kernel)))
        << kernel << " vs " << row->kernel;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AmdTables, ReleaseKernels,
    ::testing::Values(
        KernelRow{"Rocm70Ubuntu24043", "7.0", "Ubuntu", "24.04.3", {"6.8.0-85-generic", "6.14.0-33-generic"}},
        KernelRow{"Rocm71Ubuntu24043", "7.1", "Ubuntu", "24.04.3", {"6.8.0-85-generic", "6.14.0-33-generic"}},
        KernelRow{"Rocm72Ubuntu24043", "7.2", "Ubuntu", "24.04.3", {"6.8.0-85-generic", "6.14.0-33-generic"}},
        KernelRow{"Rocm71Ubuntu22045", "7.1", "Ubuntu", "22.04.5", {"5.15.0-122-generic", "6.8.0-48-generic"}},
        KernelRow{"Rocm72Ubuntu22045", "7.2", "Ubuntu", "22.04.5", {"5.15.0-122-generic", "6.8.0-48-generic"}},
        KernelRow{"Rocm64Ubuntu24042", "6.4", "Ubuntu", "24.04.2", {"6.8.0-60-generic", "6.11.0-29-generic"}},
        KernelRow{"Rocm70Rhel96", "7.0", "RHEL", "9.6", {"5.14.0-570.12.1.el9_6.x86_64"}},
        KernelRow{"Rocm72Rhel101", "7.2", "RHEL", "10.1", {"6.12.0-124.8.1.el10_1.x86_64"}},
        KernelRow{"Rocm71Sles15Sp7", "7.1", "SLES", "15 SP7", {"6.4.0-150700.51-default"}},
        KernelRow{"Rocm714Ubuntu24044", "7.14", "Ubuntu", "24.04.4", {"6.8.0-90-generic", "6.17.0-8-generic"}}),
    [](const auto& info) { return info.param.name; });

TEST(PlatformParse, ListedVersions) {
  using V = std::vector<std::string>;
  EXPECT_EQ(platform::listed_versions("22.04.5"), V{"22.04.5"});
  EXPECT_EQ(platform::listed_versions("24.04 (24.04.1 from 6.2.1)"), V{"24.04"});
  EXPECT_EQ(platform::listed_versions("9.6 (6.4.1+), 9.5 (6.4.0/6.4.1), 9.4"), (V{"9.6", "9.5", "9.4"}));
  EXPECT_EQ(platform::listed_versions("15 SP4, SP5"), (V{"15 SP4", "15 SP5"}));
  EXPECT_EQ(platform::listed_versions("15 SP6 (SP7 added in 6.4.3)"), V{"15 SP6"});
  EXPECT_EQ(platform::listed_versions("12 (MI300X single-node only)"), V{"12"});
}

TEST(PlatformParse, VersionMatching) {
  EXPECT_TRUE(platform::version_matches("22.04", "22.04.5"));
  EXPECT_TRUE(platform::version_matches("9", "9.4"));
  EXPECT_TRUE(platform::version_matches("9.4", "9.4"));
  EXPECT_FALSE(platform::version_matches("9.3", "9.4"));
  EXPECT_FALSE(platform::version_matches("20.04", "22.04.5"));
  EXPECT_TRUE(platform::version_matches("15-SP5", "15 SP5"));
  EXPECT_FALSE(platform::version_matches("15-SP3", "15 SP5"));
  EXPECT_FALSE(platform::version_matches("15", "15 SP5"));
}

TEST(PlatformParse, KernelSpecs) {
  const auto specs = [](std::string_view text) {
    std::vector<std::string> out;
    for (const auto& spec : platform::listed_kernels(text)) {
      out.push_back(std::to_string(spec.major) + "." + std::to_string(spec.minor) + (spec.or_newer ? "+" : ""));
    }
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(specs("5.15 GA, 6.8 HWE"), (V{"5.15", "6.8"}));
  EXPECT_EQ(specs("5.14.0-362"), V{"5.14"});
  EXPECT_EQ(specs("4.18-513"), V{"4.18"});
  EXPECT_EQ(specs("6.4.0/6.5.0+ ; 5.14.21"), (V{"6.4", "6.5+", "5.14"}));
  EXPECT_EQ(specs("RHEL 10.0: 6.12.0-55; 10.1: 6.12.0-124; 9.x: 5.14.0-*"), (V{"6.12", "6.12", "5.14"}));
  EXPECT_EQ(specs("6.6 (preview HWE)"), V{"6.6"});
  EXPECT_EQ(specs("not found"), V{});
  EXPECT_EQ(specs("5.14.21-150500.53-default"), V{"5.14"});
  const auto listed = platform::listed_kernels("5.15 GA, 6.8 HWE");
  EXPECT_TRUE(platform::kernel_matches("6.8.0-48-generic", listed));
  EXPECT_TRUE(platform::kernel_matches("5.15.0-122-generic", listed));
  EXPECT_FALSE(platform::kernel_matches("6.5.0-45-generic", listed));
  EXPECT_TRUE(platform::kernel_matches("5.14.0-427.13.1.el9_4.x86_64", platform::listed_kernels("5.14+")));
  EXPECT_TRUE(platform::kernel_matches("5.16.0", platform::listed_kernels("5.14+")));
}

TEST(PlatformParse, HypervisorFlag) {
  EXPECT_TRUE(platform::cpuinfo_has_hypervisor("processor\t: 0\nflags\t\t: fpu vme de pse hypervisor lahf_lm\n"));
  EXPECT_FALSE(platform::cpuinfo_has_hypervisor("processor\t: 0\nflags\t\t: fpu vme de pse lahf_lm\n"));
}

SnapshotBuilder rocm_machine(const std::string& id, const std::string& version, const std::string& kernel) {
  SnapshotBuilder builder;
  builder.os_release(id, version, id + " " + version).kernel(kernel);
  builder.file("/opt/rocm-6.2.4/.info/version", "6.2.4-139\n").symlink("/opt/rocm", "/opt/rocm-6.2.4");
  return builder;
}

TEST(PlatformCheck, SupportedUbuntuGivesNothing) {
  auto builder = rocm_machine("ubuntu", "22.04", "6.8.0-48-generic");
  auto host = builder.open();
  const auto report = run_on(*host, {"platform"});
  EXPECT_EQ(find_finding(report, "os.unsupported"), nullptr);
  EXPECT_EQ(find_finding(report, "os.kernel-unsupported"), nullptr);
}

TEST(PlatformCheck, OldUbuntuAndOddKernel) {
  auto old = rocm_machine("ubuntu", "20.04", "5.15.0-122-generic");
  auto old_host = old.open();
  const auto old_report = run_on(*old_host, {"platform"});
  EXPECT_NE(find_finding(old_report, "os.unsupported"), nullptr);
  auto mainline = rocm_machine("ubuntu", "22.04", "6.10.3-061003-generic");
  auto mainline_host = mainline.open();
  const auto report = run_on(*mainline_host, {"platform"});
  const auto* finding = find_finding(report, "os.kernel-unsupported");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "sudo apt install --install-recommends linux-generic-hwe-22.04");
}

TEST(PlatformCheck, ImageModeJudgesOnlyTheDistribution) {
  auto builder = rocm_machine("ubuntu", "22.04", "6.10.3-061003-generic");
  builder.file("/proc/cpuinfo", "flags\t\t: fpu hypervisor\n");
  auto host = builder.open();
  RunOptions options;
  options.image_mode = true;
  const auto report = run_on(*host, {"platform"}, options);
  EXPECT_EQ(find_finding(report, "os.kernel-unsupported"), nullptr);
  EXPECT_EQ(find_finding(report, "os.virtualized"), nullptr);
}

Report run_platform_scenario(const std::string& name) {
  auto host = SnapshotHost::open(std::string(ROCM_DOCTOR_SCENARIOS_DIR) + "/" + name);
  if (!host) throw std::runtime_error(host.error());
  return run_on(**host, {"platform"});
}

// A guest sees its VF as a plain PCI function: the VF's own device id tells.
TEST(PlatformCheck, AGuestsMi300xVirtualFunctionIsRecognisedByItsDeviceId) {
  const auto report = run_platform_scenario("platform-sriov-guest-mi300x-vf");
  const auto* vf = find_finding(report, "os.sriov-vf");
  ASSERT_NE(vf, nullptr);
  EXPECT_EQ(vf->severity, Severity::info);
  EXPECT_EQ(vf->summary,
            "GPU 0000:03:00.0 (AMD Instinct MI300X VF (SR-IOV)) is an SR-IOV virtual function in a QEMU/KVM guest");
  EXPECT_NE(vf->detail.find("partition changes"), std::string::npos);
  const auto* vm = find_finding(report, "os.virtualized");
  ASSERT_NE(vm, nullptr);
  EXPECT_NE(vm->summary.find("with an SR-IOV virtual function"), std::string::npos) << vm->summary;
}

// The host that made the VF sees its physfn link: SR-IOV, but no virtual machine.
TEST(PlatformCheck, TheSriovHostSeesPhysfnAndIsNoVirtualMachine) {
  const auto report = run_platform_scenario("platform-sriov-host-vfs");
  const auto* vf = find_finding(report, "os.sriov-vf");
  ASSERT_NE(vf, nullptr);
  EXPECT_EQ(vf->summary,
            "SR-IOV is enabled: 1 AMD GPU virtual function(s) at 0000:03:02.0 (AMD Instinct MI300X VF (SR-IOV))");
  bool physfn = false;
  for (const auto& evidence : vf->evidence) physfn = physfn || evidence.value == "-> 0000:03:00.0";
  EXPECT_TRUE(physfn);
  EXPECT_EQ(find_finding(report, "os.virtualized"), nullptr);
}

TEST(PlatformCheck, APassedThroughWholeGpuIsNoVirtualFunction) {
  const auto report = run_platform_scenario("platform-virtualized");
  EXPECT_NE(find_finding(report, "os.virtualized"), nullptr);
  EXPECT_EQ(find_finding(report, "os.sriov-vf"), nullptr);
}

}  // namespace
}  // namespace rocm_doctor
