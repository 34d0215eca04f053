// The fixes the `access` findings offer (access.h): pure builders from the
// groups, gids and cause the check found, so each can be read on its own.
#include <fmt/format.h>

#include "access.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::access {

Fix container_group_fix(const std::vector<std::string>& gids) {
  std::string flags;
  for (const auto& gid : gids) flags += (flags.empty() ? "" : " ") + std::string("--group-add ") + gid;
  return make_fix(kCheckId,
                  fmt::format("A container's groups are fixed when it starts: recreate it with the host's numeric "
                              "group ids (docker/podman run {} ...; Kubernetes: securityContext.supplementalGroups). "
                              "Group names inside the image may not match the host's ids; rootless podman can keep "
                              "the host groups with --group-add keep-groups.",
                              flags));
}

Fix usermod_fix(const std::string& user, const std::vector<std::string>& groups) {
  return make_fix(kCheckId,
                  fmt::format("Add {} to {}, then log out of every session and log back in (or reboot)", user,
                              join(groups, " and ")),
                  {shell_command({"sudo", "usermod", "-aG", join(groups, ","), user})},
                  FixNeeds{.root = true, .relogin = true});
}

Fix unnamed_gid_fix(const std::vector<std::uint32_t>& gids) {
  std::vector<std::string> texts;
  for (const auto gid : gids) texts.push_back(std::to_string(gid));
  return make_fix(
      kCheckId,
      fmt::format(
          "No group with id {} exists in the group database (/etc/group or NSS), so `usermod` cannot add anyone to "
          "it. Find out which group owns the GPU nodes on this system (the udev rules under /etc/udev/rules.d and "
          "/usr/lib/udev/rules.d set it) and create or repair that group entry.",
          join(texts, ", ")));
}

Fix nameless_user_fix(std::uint32_t uid) {
  return make_fix(kCheckId, fmt::format("uid {} has no user name (no passwd entry), so it cannot be added to a group: "
                                        "run as a user that has one, or give the process the group ids when it starts",
                                        uid));
}

Fix relogin_fix(const std::optional<std::string>& newgrp_group) {
  std::vector<std::string> commands;
  if (newgrp_group) commands = {shell_command({"newgrp", *newgrp_group})};
  return make_fix(kCheckId,
                  "Log out of every session and log back in (or reboot) so new sessions get the group; a desktop "
                  "session counts too. To try at once in one shell, `newgrp` starts a shell with the group.",
                  std::move(commands), FixNeeds{.relogin = true});
}

std::optional<Fix> cause_fix(Cause cause, bool in_container) {
  if (cause == Cause::mode_denies) {
    return make_fix(kCheckId,
                    "The udev rules that give GPU nodes to the `render` group with mode 0660 are missing or "
                    "overridden: check /etc/udev/rules.d and /usr/lib/udev/rules.d for rules matching kfd and "
                    "renderD*, then reload them",
                    {"sudo udevadm control --reload-rules", "sudo udevadm trigger"}, FixNeeds{.root = true});
  }
  if (cause == Cause::device_cgroup) {
    return make_fix(kCheckId, in_container
                                  ? "Start the container with the device (--device=/dev/kfd; a Kubernetes pod gets it "
                                    "from the AMD GPU device plugin with an amd.com/gpu limit)"
                                  : "The device cgroup of this job refuses /dev/kfd: the site's rules must allow it to "
                                    "every GPU job (Slurm: /dev/kfd is not a GRES File, so keep it out of gres.conf "
                                    "and allowed by the cgroup plugin), then start the job again");
  }
  if (cause != Cause::blocked) return std::nullopt;
  if (in_container) {
    return make_fix(kCheckId,
                    "Pass the devices into the container (--device=/dev/kfd --device=/dev/dri); on SELinux hosts "
                    "allow containers to use devices (setsebool -P container_use_devices=1 on the host); rootless "
                    "podman needs --group-add keep-groups");
  }
  return make_fix(kCheckId,
                  "Look for the denial in the kernel log (SELinux `avc: denied`, AppArmor `apparmor=\"DENIED\"`) and "
                  "allow the device for this program",
                  {"sudo journalctl -k --grep 'avc: +denied|apparmor=\"DENIED\"'"}, FixNeeds{.root = true});
}

}  // namespace rocm_doctor::access
