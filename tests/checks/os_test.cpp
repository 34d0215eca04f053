// The `os` check: the distribution and kernel facts, and the WSL and container notes.
#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor::testing {
namespace {

const Finding& require(const Report& report, const std::string& id) {
  const auto* finding = find_finding(report, id);
  if (finding == nullptr) throw std::runtime_error("no finding " + id);
  return *finding;
}

TEST(OsCheck, NamesTheDistributionAndKernel) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-41-generic");
  const auto report = run_on(*b.open(), {"os"});
  const auto& distribution = require(report, "os.distribution");
  EXPECT_EQ(distribution.severity, Severity::info);
  EXPECT_EQ(distribution.summary, "Ubuntu 22.04.4 LTS");
  ASSERT_FALSE(distribution.evidence.empty());
  EXPECT_EQ(distribution.evidence[0].value, "ID=ubuntu VERSION_ID=22.04");
  EXPECT_EQ(require(report, "os.kernel").summary, "Kernel 6.5.0-41-generic");
  EXPECT_EQ(find_finding(report, "os.wsl"), nullptr);
  EXPECT_EQ(find_finding(report, "os.container"), nullptr);
}

TEST(OsCheck, NoOsReleaseIsAnInfoNotAnError) {
  SnapshotBuilder b;
  b.kernel("6.1.0-27-amd64");
  const auto report = run_on(*b.open(), {"os"});
  EXPECT_EQ(require(report, "os.unknown-distribution").severity, Severity::info);
  EXPECT_EQ(find_finding(report, "os.distribution"), nullptr);
}

TEST(OsCheck, UnreadableKernelReleaseSaysSo) {
  SnapshotBuilder b;
  b.os_release("debian", "12", "Debian GNU/Linux 12 (bookworm)");
  const auto report = run_on(*b.open(), {"os"});
  EXPECT_EQ(require(report, "os.kernel").summary, "Kernel release unknown");
}

TEST(OsCheck, Wsl2KernelIsNoted) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("5.15.153.1-microsoft-standard-WSL2");
  const auto report = run_on(*b.open(), {"os"});
  EXPECT_EQ(require(report, "os.wsl").evidence.at(0).value, "5.15.153.1-microsoft-standard-WSL2");
  EXPECT_EQ(require(report, "os.wsl").evidence.at(0).source, "/proc/sys/kernel/osrelease");
}

TEST(OsCheck, ContainerRuntimeIsNamed) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-41-generic").file("/.dockerenv", "");
  const auto report = run_on(*b.open(), {"os"});
  EXPECT_EQ(require(report, "os.container").summary, "Running inside a docker container");
}

TEST(OsCheck, NeverWarns) {
  SnapshotBuilder b;  // nothing at all: every fact unknown, and still only notes
  const auto findings = all_findings(run_on(*b.open(), {"os"}));
  ASSERT_EQ(findings.size(), 2U) << "the distribution and the kernel, both unknown";
  for (const auto& finding : findings) EXPECT_EQ(finding.severity, Severity::info) << finding.id;
  EXPECT_EQ(findings[0].id, "os.unknown-distribution");
  EXPECT_EQ(findings[1].summary, "Kernel release unknown");
}

// Evidence cites the file the fact came from, fallbacks included.
TEST(OsCheck, EvidenceNamesTheFallbackFilesItRead) {
  SnapshotBuilder b;
  b.file("/usr/lib/os-release", "ID=debian\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
      .file("/proc/version",
            "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, "
            "GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)\n");
  const auto report = run_on(*b.open(), {"os"});
  const auto& distribution = require(report, "os.distribution");
  ASSERT_EQ(distribution.evidence.size(), 1U);
  EXPECT_EQ(distribution.evidence[0].source, "/usr/lib/os-release");
  const auto& kernel = require(report, "os.kernel");
  EXPECT_EQ(kernel.summary, "Kernel 6.1.0-18-amd64");
  ASSERT_EQ(kernel.evidence.size(), 1U);
  EXPECT_EQ(kernel.evidence[0].source, "/proc/version");
}

TEST(OsCheck, EvidenceNamesTheContainerMarkItFound) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-41-generic").file("/run/.containerenv", "");
  const auto report = run_on(*b.open(), {"os"});
  const auto& container = require(report, "os.container");
  ASSERT_EQ(container.evidence.size(), 1U);
  EXPECT_EQ(container.evidence[0].source, "/run/.containerenv");
  EXPECT_EQ(container.evidence[0].value, "podman");
}

}  // namespace
}  // namespace rocm_doctor::testing
