// The error signatures on the real scenario snapshots (tests/scenarios/): the
// user's message, with what the checks find on a machine that shows the cause,
// names that cause first. One case per scenario, named after it.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "host/snapshot_host.h"
#include "rocm_doctor/symptom.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor::symptom {
namespace {

struct ScenarioSymptom {
  std::string scenario;
  std::string signature;    // its first sample is the user's text
  std::string first_cause;  // the finding the section must name first
};

void PrintTo(const ScenarioSymptom& row, std::ostream* out) {
  *out << row.scenario << ": " << row.signature << " -> " << row.first_cause;
}

// Found by replaying every scenario with each signature of its first root cause
// (scenario, signature, first cause); each signature appears once.
const std::vector<ScenarioSymptom>& table() {
  static const std::vector<ScenarioSymptom> rows = {
      {"access-container-unnamed-gid", "rocminfo-failed-get-user-name", "access.group-missing"},
      {"access-group-missing", "kfd-open-permission-denied", "access.group-missing"},
      {"access-hostile-user-name", "rocminfo-not-member-of-group", "access.group-missing"},
      {"access-kfd-denied-measured", "hip-runtime-hsa-init-failed", "access.kfd-denied"},
      {"access-two-gpus-one-denied", "rocminfo-hsa-api-call-failure", "access.group-missing"},
      {"amdgpu-not-loaded", "hip-invalid-device-ordinal", "driver.amdgpu-not-loaded"},
      {"bin-not-on-path", "rocm-tool-not-found", "rocm.bin-not-on-path"},
      {"container-docker-no-kfd", "rock-module-not-loaded", "container.kfd-not-passed"},
      {"container-kfd-volume-dir", "kfd-open-other-errno", "container.kfd-not-passed"},
      {"driver-blacklisted-modprobe", "modprobe-could-not-insert-amdgpu", "driver.blacklisted"},
      {"driver-dkms-headers-missing", "dkms-bad-return-status", "driver.headers-missing"},
      {"driver-secure-boot-unsigned", "module-signature-taint", "driver.secure-boot-unsigned"},
      {"env-visible-devices-bad", "rocblas-tensile-host-no-devices", "env.visible-devices-invalid"},
      {"env-visible-devices-conflict", "torch-no-hip-gpus-available", "env.visible-devices-conflict"},
      {"gpu-apu-plus-rx7900xtx-global-override", "hip-no-binary-for-gpu", "gpu.override-invalid"},
      {"gpu-apu-plus-rx7900xtx", "hip-error-out-of-memory", "gpu.igpu-present"},
      {"gpu-none-visible", "hip-no-device", "gpu.none-visible"},
      {"gpu-rocblas-missing-card-tensile", "hip-no-compatible-code-objects", "gpu.unsupported"},
      {"gpu-rx5700xt-override-10.3.0", "hsa-status-invalid-isa", "gpu.override-invalid"},
      {"gpu-rx580-rocm6", "ollama-no-compatible-amdgpu", "gpu.unsupported"},
      {"gpu-rx6700xt-no-override", "hsa-status-out-of-registers", "gpu.override-needed"},
      {"gpu-rx6700xt-override-11.0.0", "hsa-status-illegal-instruction", "gpu.override-invalid"},
      {"gpu-rx6700xt-override-gfx-name", "memory-access-fault-page-not-present", "gpu.override-invalid"},
      {"gpu-rx7600-hip-only", "rocblas-cannot-read-tensile-library", "gpu.override-needed"},
      {"gpu-rx7600-rocblas", "miopen-missing-system-db", "lib.miopen-arch-missing"},
      {"gpu-rx7900xtx-needless-override", "memory-access-fault-unknown-reason", "gpu.override-unneeded"},
      {"hip-init-failed-old-driver", "hip-insufficient-driver", "hip.init-failed"},
      {"hip-load-failed-missing-comgr", "comgr-or-hsa-cannot-open", "hip.load-failed"},
      {"hip-version-mismatch-distro-shadow", "hsa-status-incompatible-arguments", "hip.version-mismatch"},
      {"kernel-log-firmware-missing", "amdgpu-fatal-init", "driver.firmware-missing"},
      {"kernel-log-gpu-hang", "hsa-status-memory-fault", "driver.kernel-log"},
      {"kfd-missing", "docker-custom-device-kfd-missing", "driver.kfd-missing"},
      {"lib-not-found", "clang-cannot-find-rocm-device-library", "rocm.lib-not-found"},
      {"miopen-cache-owned-by-root", "miopen-status-unknown-error", "miopen.cache-unwritable"},
      {"miopen-readonly-container", "miopen-sqlite-db-error", "miopen.cache-unwritable"},
      {"miopen-shared-tmp-other-user", "miopen-user-db-permission", "miopen.cache-unwritable"},
      {"nomodeset", "amdgpu-probe-failed", "driver.nomodeset"},
      {"nvidia-only", "amdsmi-driver-not-initialized", "driver.no-amd-gpu"},
      {"packages-driver-skew", "amdgpu-ring-timeout", "rocm.driver-skew"},
      {"packages-install-broken", "rocblas-could-not-load-tensile-library", "rocm.install-broken"},
      {"packages-repo-stale", "apt-rocm-distro-version-skew", "rocm.repo-stale"},
      {"platform-kernel-unsupported", "dpkg-amdgpu-dkms-configure-failed", "os.kernel-unsupported"},
      {"platform-os-unsupported", "glibcxx-version-not-found", "os.unsupported"},
      {"repo-suite-debian13-jammy", "apt-radeon-404", "os.unsupported"},
      {"rocm-link-dangling", "libamdhip64-cannot-open", "rocm.link-dangling"},
      {"rocm-not-installed", "ollama-no-rocm-library", "rocm.not-installed"},
      {"rocm714-full-no-loader-entry", "rocm-lib-soname-missing", "rocm.lib-not-found"},
      {"rocm714-minimal-no-alternatives", "amd-comgr-status-error", "rocm.lib-not-found"},
      {"slurm-confined-global-visible-devices", "torch-hip-init-unexpected", "env.visible-devices-invalid"},
      {"smi-ecc-uncorrectable", "amdgpu-gpu-reset", "smi.ecc-errors"},
      {"smi-overheating-throttled", "hip-launch-failure", "smi.overheating"},
      {"topology-4x-pcie-one-x4", "rccl-missing-fine-grain-pcie", "pcie.link-degraded"},
      {"topology-iommu-translated-2gpu", "rccl-collective-hang", "iommu.not-passthrough"},
      {"torch-arch-missing", "hip-invalid-device-function", "torch.arch-missing"},
      {"torch-cpu-wheel", "torch-not-compiled-with-cuda", "torch.cpu-build"},
      {"torch-cuda-wheel", "torch-found-no-nvidia-driver", "torch.cuda-build"},
      {"torch-import-crash", "torch-rocm-lib-cannot-open", "torch.import-failed"},
      {"torch-no-gpu", "ggml-cuda-init-failed", "env.visible-devices-invalid"},
      {"torch-rocm-mismatch", "torch-hipblas-status-error", "torch.rocm-mismatch"},
      {"two-rocm-releases", "rocm-undefined-symbol", "rocm.multiple-installs"},
      {"wsl2-rx6800xt-broken", "wsl-hsa-init-failed", "wsl.unsupported-gpu"},
  };
  return rows;
}

std::string case_name(const ::testing::TestParamInfo<ScenarioSymptom>& info) {
  std::string name = info.param.scenario;
  for (auto& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  return name;
}

class ScenarioSymptoms : public ::testing::TestWithParam<ScenarioSymptom> {};

TEST_P(ScenarioSymptoms, NameTheCauseTheSnapshotShowsFirst) {
  const auto& row = GetParam();
  const auto* signature = find_signature(row.signature);
  ASSERT_NE(signature, nullptr) << row.signature;
  auto host = SnapshotHost::open((std::filesystem::path(ROCM_DOCTOR_SCENARIOS_DIR) / row.scenario).string());
  ASSERT_TRUE(host) << host.error();
  const auto report = testing::run_on(**host);
  ASSERT_NE(testing::find_finding(report, row.first_cause), nullptr)
      << "the snapshot no longer shows " << row.first_cause;
  const auto section = symptom_section(default_matcher().scan(signature->samples.front()), report, "argument");
  ASSERT_FALSE(section["matches"].empty()) << section.dump(1);
  EXPECT_EQ(section["matches"][0]["signature"], row.signature);
  ASSERT_FALSE(section["causes"].empty()) << section.dump(1);
  EXPECT_EQ(section["causes"][0]["finding"], row.first_cause) << section.dump(1);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioSymptoms, ::testing::ValuesIn(table()), case_name);

}  // namespace
}  // namespace rocm_doctor::symptom
