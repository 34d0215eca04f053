// One builder for fixes that change the kernel command line (/proc/cmdline
// parameters) of the next boot, for every check that needs one: the driver's
// nomodeset and blacklist words, driver-config's blacklist, topology's iommu=pt.
// It picks the tool this machine boots with, so the commands are right for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/finding.h"
#include "rocm_doctor/host.h"
#include "rocm_doctor/system_facts.h"

namespace rocm_doctor {

// How this machine's kernel command line is set for the next boot.
enum class BootLoader {
  grubby,        // RHEL, Fedora, CentOS, Rocky, Alma, Oracle Linux: grubby edits every boot entry
  kernelstub,    // Pop!_OS: kernelstub manages the systemd-boot entries
  systemd_boot,  // /etc/kernel/cmdline (or loader.conf), entries written by kernel-install
  grub,          // /etc/default/grub, then update-grub or grub2-mkconfig
};

BootLoader detect_boot_loader(const Host& host, const SystemFacts& facts);
std::string_view to_string(BootLoader loader);

// The words of a GRUB_CMDLINE_LINUX[_DEFAULT]="..." assignment in /etc/default/grub text
// (the last one wins, as in the shell); nullopt when the file does not set `variable`.
std::optional<std::string> grub_variable(std::string_view etc_default_grub, std::string_view variable);

// The fix that adds the words `add` to and removes the words `remove` from the kernel
// command line of the next boot, then reboots. `what` starts the description ("Remove
// nomodeset from the kernel command line"); the rest says how, for this boot loader.
// Needs root and a reboot.
Fix kernel_cmdline_fix(std::string_view check_id, const Host& host, const SystemFacts& facts, std::string what,
                       const std::vector<std::string>& add, const std::vector<std::string>& remove);

}  // namespace rocm_doctor
