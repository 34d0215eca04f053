// `os`: the distribution and kernel, and whether this is WSL or a container.
// Facts only; later checks judge them against the installed ROCm release.
#include "rocm_doctor/check.h"
#include "rocm_doctor/system_facts.h"

namespace rocm_doctor::os_check {
namespace {

constexpr std::string_view kCheckId = "os";

// Evidence names the file each fact was read from: /usr/lib/os-release and
// /proc/version are fallbacks, and citing the first choice would send the user
// to a file that is missing or says something else.
Finding distribution_finding(const SystemFacts& facts) {
  if (facts.os_pretty_name.empty()) {
    auto finding =
        make_finding("os.unknown-distribution", Severity::info, "Distribution unknown: /etc/os-release is missing")
            .because(
                "Without /etc/os-release the doctor cannot compare this system with ROCm's list of supported "
                "distributions.");
    if (!facts.os_release_file.empty()) return finding.with_evidence(facts.os_release_file, "no PRETTY_NAME or NAME");
    return finding.with_evidence("/etc/os-release", "not found").with_evidence("/usr/lib/os-release", "not found");
  }
  return make_finding("os.distribution", Severity::info, facts.os_pretty_name)
      .because("The distribution and its version decide which ROCm releases AMD supports here.")
      .with_evidence(facts.os_release_file, "ID=" + facts.os_id + " VERSION_ID=" + facts.os_version_id);
}

Finding kernel_finding(const SystemFacts& facts) {
  if (facts.kernel_release.empty()) {
    return make_finding("os.kernel", Severity::info, "Kernel release unknown")
        .because("Neither /proc/sys/kernel/osrelease nor /proc/version could be read.")
        .with_evidence("/proc/sys/kernel/osrelease", "unreadable")
        .with_evidence("/proc/version", facts.kernel_version.empty() ? "unreadable" : facts.kernel_version);
  }
  return make_finding("os.kernel", Severity::info, "Kernel " + facts.kernel_release)
      .because("The amdgpu driver ships with the kernel (or as amdgpu-dkms built for it).")
      .with_evidence(facts.kernel_release_file, facts.kernel_release);
}

// WSL shows in the kernel release, else in /proc/version, else only as /dev/dxg.
Finding wsl_finding(const SystemFacts& facts) {
  auto finding = make_finding("os.wsl", Severity::info, "Running under WSL2")
                     .because(
                         "Under WSL the GPU is reached through /dev/dxg and the Windows driver, not through "
                         "/dev/kfd: native-Linux driver checks do not apply.");
  if (mentions_wsl(facts.kernel_release)) return finding.with_evidence(facts.kernel_release_file, facts.kernel_release);
  if (mentions_wsl(facts.kernel_version)) return finding.with_evidence("/proc/version", facts.kernel_version);
  return finding.with_evidence("/dev/dxg", "present");
}

class OsCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Operating system"; }
  int order() const override { return 10; }
  std::vector<std::string_view> finding_ids() const override {
    return {"os.distribution", "os.unknown-distribution", "os.kernel", "os.wsl", "os.container"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& facts = ctx.fact<SystemFacts>();
    std::vector<Finding> findings = {distribution_finding(facts), kernel_finding(facts)};
    if (facts.wsl) findings.push_back(wsl_finding(facts));
    if (!facts.container.empty()) {
      findings.push_back(
          make_finding("os.container", Severity::info, "Running inside a " + facts.container + " container")
              .because("In a container the GPU device nodes and their group ids come from the "
                       "host and must be passed in explicitly.")
              .with_evidence(facts.container_source, facts.container));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::os_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::os_check::OsCheck)
