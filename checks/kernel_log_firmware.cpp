// `kernel-log`: the driver.firmware-missing finding (firmware files amdgpu asked for and did not get).
#include "driver_config.h"
#include "kernel_log_findings.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/amdgpu_driver.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::kernel_log {

namespace {

std::string firmware_package(const SystemFacts& facts, bool dkms) {
  const auto& packages = amdgpu_driver::driver_rules().firmware_packages;  // amdgpu_driver.json
  const auto package = [&](std::string_view key) {
    const auto it = packages.find(key);
    return it == packages.end() ? std::string() : it->second;
  };
  if (dkms) return package("amdgpu-dkms");
  if (packages.contains(facts.os_id)) return package(facts.os_id);
  switch (driver_config::distro_family(facts)) {
    case driver_config::Family::debian: return package("debian");
    case driver_config::Family::rhel: return package("rhel");
    case driver_config::Family::suse: return package("suse");
    case driver_config::Family::other: return "";
  }
  return "";
}

bool firmware_on_disk(const Host& host, const std::string& name) {
  for (const std::string suffix : {"", ".xz", ".zst"}) {
    if (host.exists("/lib/firmware/" + name + suffix)) return true;
  }
  return false;
}

}  // namespace

Finding firmware_missing(const CheckContext& ctx, const std::string& source, const std::vector<Group>& groups,
                         const std::vector<std::string>& names) {
  const auto& host = ctx.host();
  const auto& facts = ctx.fact<SystemFacts>();
  std::vector<std::string> absent, present;
  for (const auto& name : names) (firmware_on_disk(host, name) ? present : absent).push_back(name);
  auto finding =
      make_finding("driver.firmware-missing", Severity::error, "amdgpu could not load firmware: " + join(names, ", "))
          .because(
              "Each GPU block (graphics, compute, SDMA, power management) runs firmware the driver "
              "loads at start-up. A missing file makes amdgpu fail the GPU or leave parts of it off: "
              "no /dev/kfd, hangs, or a GPU that ROCm does not list.");
  for (std::size_t i = 0; i < groups.size() && i < kMaxQuoted; ++i) finding.with_evidence(source, quote(groups[i]));
  for (const auto& name : absent) finding.with_evidence("/lib/firmware/" + name, "absent");
  for (const auto& name : present) finding.with_evidence("/lib/firmware/" + name, "present on disk now");
  const auto family = driver_config::distro_family(facts);
  const bool dkms = host.exists("/var/lib/dkms/amdgpu") || host.exists("/sys/module/amdgpu/version");
  if (!absent.empty()) {
    const auto package = firmware_package(facts, dkms);
    std::vector<std::string> commands;
    if (!package.empty()) commands.push_back(driver_config::install_command(family, {package}));
    commands.push_back("sudo reboot");
    finding.with_fix(
        make_fix(kCheckId,
                 "Install the firmware package that carries these files" +
                     (package.empty() ? std::string(" (linux-firmware on most distributions)") : " (" + package + ")") +
                     "; a GPU newer than the distribution's firmware also needs a newer package or "
                     "amdgpu-dkms-firmware from AMD's repository.",
                 commands, {.root = true, .reboot = true}));
  } else if (!facts.kernel_release.empty()) {
    const auto command = family == driver_config::Family::debian
                             ? shell_command({"sudo", "update-initramfs", "-u", "-k", facts.kernel_release})
                             : shell_command({"sudo", "dracut", "--force", "--kver", facts.kernel_release});
    finding.with_fix(make_fix(kCheckId,
                              "The files are on disk now but were not there when amdgpu loaded (it loads from the "
                              "initramfs): rebuild the initramfs and reboot.",
                              {command, "sudo reboot"}, {.root = true, .reboot = true}));
  }
  return finding;
}

}  // namespace rocm_doctor::kernel_log
