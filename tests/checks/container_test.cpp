// The `container` check: table tests for its parsers, then runs on snapshots of
// Docker, Podman, Kubernetes and Apptainer containers built in a few lines.
#include "../../checks/container.h"

#include <gtest/gtest.h>

#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

using testing::find_finding;
using testing::run_on;
using testing::SnapshotBuilder;

TEST(ContainerParsers, ShmSize) {
  struct Case {
    const char* mounts;
    std::optional<std::uint64_t> bytes;
  } cases[] = {
      {"shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n", 64ULL << 20},
      {"overlay / overlay rw 0 0\nshm /dev/shm tmpfs rw,size=2g 0 0\n", 2ULL << 30},
      {"tmpfs /dev/shm tmpfs rw,nosuid,nodev,inode64 0 0\n", std::nullopt},  // no size: half of RAM
      {"proc /proc proc rw 0 0\n", std::nullopt},
      {"shm /dev/shm tmpfs rw,size=65536k 0 0\ntmpfs /dev/shm tmpfs rw,size=8388608k 0 0\n", 8ULL << 30},
      {"", std::nullopt},
  };
  for (const auto& c : cases) EXPECT_EQ(container::parse_shm_size(c.mounts), c.bytes) << c.mounts;
}

TEST(ContainerParsers, SeccompAndUserNamespace) {
  EXPECT_EQ(container::parse_seccomp_mode("Name:\tbash\nSeccomp:\t2\nSeccomp_filters:\t1\n"), 2);
  EXPECT_EQ(container::parse_seccomp_mode("Seccomp:\t0\n"), 0);
  EXPECT_EQ(container::parse_seccomp_mode("Name:\tbash\n"), std::nullopt);
  EXPECT_FALSE(container::in_user_namespace("         0          0 4294967295\n"));
  EXPECT_TRUE(container::in_user_namespace("         0       1000          1\n         1     100000      65536\n"));
  EXPECT_FALSE(container::in_user_namespace(""));
}

TEST(ContainerParsers, ReleaseDistance) {
  const std::vector<std::string> releases = {"5.7", "6.0", "6.1", "6.2", "6.3"};
  EXPECT_EQ(container::release_distance(releases, "6.2", "6.0.2"), 2);
  EXPECT_EQ(container::release_distance(releases, "5.7", "6.3.1"), 4);
  EXPECT_EQ(container::release_distance(releases, "6.2", "9.9"), std::nullopt);
  EXPECT_EQ(container::group_add_flags({109, 109, 44}), "--group-add 109 --group-add 44");
}

SnapshotBuilder docker_base() {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-41-generic");
  b.file("/.dockerenv", "");
  b.file("/proc/1/cgroup", "0::/\n");
  b.file("/proc/self/uid_map", "         0          0 4294967295\n");
  return b;
}

TEST(ContainerCheck, SkippedOutsideContainers) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("6.5.0-41-generic");
  auto host = b.open();
  const auto report = run_on(*host, {"container"});
  ASSERT_EQ(report.checks.size(), 1U);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
}

TEST(ContainerCheck, DockerWithoutKfdGetsRunFlags) {
  auto b = docker_base();
  auto host = b.open();
  const auto report = run_on(*host, {"container"});
  const auto* finding = find_finding(report, "container.kfd-not-passed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  ASSERT_FALSE(finding->fixes.empty());
  ASSERT_FALSE(finding->fixes[0].commands.empty());
  EXPECT_EQ(finding->fixes[0].commands[0],
            "docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add \"$(getent group render | "
            "cut -d: -f3)\" --security-opt seccomp=unconfined IMAGE");
}

TEST(ContainerCheck, HostOnlyGidNamesTheNumber) {
  auto b = docker_base();
  b.file("/etc/group", "root:x:0:\nvideo:x:44:\nrender:x:992:\nubuntu:x:1000:\n");
  b.identity("ubuntu", 1000, 1000, {1000});
  b.node("/dev/kfd", testing::Node::chr("0660", 0, 109));
  b.node("/dev/dri/renderD128", testing::Node::chr("0660", 0, 109));
  auto host = b.open();
  const auto report = run_on(*host, {"container"});
  const auto* finding = find_finding(report, "container.gid-mismatch");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::error);
  EXPECT_NE(finding->detail.find("image's render group is 992"), std::string::npos) << finding->detail;
  ASSERT_FALSE(finding->fixes.empty());
  EXPECT_EQ(finding->fixes[0].commands.at(0),
            "docker run --device=/dev/kfd --device=/dev/dri --group-add 109 --security-opt seccomp=unconfined IMAGE");
  EXPECT_EQ(find_finding(report, "container.ok"), nullptr);
}

TEST(ContainerCheck, RootInRootfulDockerIsFine) {
  auto b = docker_base();
  b.identity("root", 0, 0, {0});
  b.node("/dev/kfd", testing::Node::chr("0660", 0, 109));
  b.node("/dev/dri/renderD128", testing::Node::chr("0660", 0, 109));
  b.node("/dev/dri/renderD129", testing::Node::chr("0660", 0, 109));
  b.file("/proc/mounts",
         "overlay / overlay rw 0 0\nshm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n");
  b.file("/proc/self/status", "Name:\trocm-doctor\nSeccomp:\t2\n");
  auto host = b.open();
  const auto report = run_on(*host, {"container"});
  EXPECT_NE(find_finding(report, "container.ok"), nullptr);
  const auto* shm = find_finding(report, "container.no-ipc-host");
  ASSERT_NE(shm, nullptr);
  EXPECT_EQ(shm->severity, Severity::warning);  // two GPUs, 64 MiB
  const auto* seccomp = find_finding(report, "container.seccomp");
  ASSERT_NE(seccomp, nullptr);
  EXPECT_EQ(seccomp->severity, Severity::info);
}

TEST(ContainerCheck, RootlessPodmanOverflowGid) {
  SnapshotBuilder b;
  b.os_release("fedora", "40", "Fedora Linux 40").kernel("6.8.5-301.fc40.x86_64");
  b.file("/run/.containerenv",
         "engine=\"podman-5.0.2\"\nname=\"rocm\"\nimage=\"docker.io/rocm/dev-ubuntu-22.04:6.2\"\n"
         "rootless=1\n");
  b.file("/proc/self/uid_map", "         0       1000          1\n         1     100000      65536\n");
  b.identity("root", 0, 0, {0});
  b.node("/dev/kfd", testing::Node::chr("0660", 65534, 65534).with_access("none"));
  b.node("/dev/dri/renderD128", testing::Node::chr("0660", 65534, 65534).with_access("none"));
  auto host = b.open();
  const auto report = run_on(*host, {"container"});
  const auto* finding = find_finding(report, "container.gid-mismatch");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->detail.find("overflow id"), std::string::npos);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0),
            "podman run --device /dev/kfd --device /dev/dri --group-add keep-groups --security-opt seccomp=unconfined "
            "docker.io/rocm/dev-ubuntu-22.04:6.2");
}

TEST(ContainerCheck, KubernetesWithoutDevicesPointsAtThePlugin) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("5.15.0-119-generic");
  b.env("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  b.dir("/var/run/secrets/kubernetes.io/serviceaccount");
  auto host = b.open();
  const auto report = run_on(*host, {"container"});
  const auto* finding = find_finding(report, "container.kfd-not-passed");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->fixes.at(0).description.find("amd.com/gpu"), std::string::npos);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0),
            "kubectl create -f https://raw.githubusercontent.com/ROCm/k8s-device-plugin/master/k8s-ds-amdgpu-dp.yaml");
}

TEST(ContainerCheck, ApptainerUsesRocmFlag) {
  SnapshotBuilder b;
  b.os_release("ubuntu", "22.04", "Ubuntu 22.04.4 LTS").kernel("5.14.0-427.el9.x86_64");
  b.env("APPTAINER_CONTAINER", "/scratch/alice/pytorch_rocm6.2.sif");
  b.dir("/.singularity.d");
  auto host = b.open();
  const auto report = run_on(*host, {"container"});
  const auto* finding = find_finding(report, "container.kfd-not-passed");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->fixes.at(0).commands.at(0), "apptainer exec --rocm /scratch/alice/pytorch_rocm6.2.sif rocminfo");
}

TEST(ContainerCheck, ImageModeIsSkipped) {
  auto b = docker_base();
  auto host = b.open();
  RunOptions options;
  options.image_mode = true;
  const auto report = run_on(*host, {"container"}, options);
  ASSERT_EQ(report.checks.size(), 1U);
  EXPECT_EQ(report.checks[0].status, CheckStatus::skipped);
}

TEST(ContainerCheck, ImageRocmVersionAgainstHostDriver) {
  auto b = docker_base();
  b.identity("root", 0, 0, {0});
  b.node("/dev/kfd", testing::Node::chr("0660", 0, 109));
  b.node("/dev/dri/renderD128", testing::Node::chr("0660", 0, 109));
  b.file("/sys/module/amdgpu/version", "6.8.5\n");
  b.file("/opt/rocm-6.0.2/.info/version", "6.0.2-115\n");
  b.symlink("/opt/rocm", "rocm-6.0.2");
  auto host = b.open();
  const auto report = run_on(*host, {"container"});
  const auto* finding = find_finding(report, "container.image-rocm-version");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::info);
  EXPECT_NE(finding->summary.find("shipped with ROCm 6.2"), std::string::npos) << finding->summary;
  EXPECT_NE(finding->summary.find("within the supported window"), std::string::npos) << finding->summary;
}

}  // namespace
}  // namespace rocm_doctor
