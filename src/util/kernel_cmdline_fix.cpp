#include "rocm_doctor/kernel_cmdline_fix.h"

#include <algorithm>

#include "rocm_doctor/check.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

constexpr std::string_view kGrubDefaults = "/etc/default/grub";
constexpr std::string_view kKernelCmdline = "/etc/kernel/cmdline";

bool rhel_like(const SystemFacts& facts) {
  for (const std::string_view id : {"fedora", "rhel", "centos", "rocky", "almalinux", "ol"}) {
    if (facts.os_id == id) return true;
  }
  return facts.os_id_like.find("rhel") != std::string::npos || facts.os_id_like.find("fedora") != std::string::npos;
}

bool debian_like(const SystemFacts& facts) {
  return facts.os_id == "debian" || facts.os_id == "ubuntu" || facts.os_id_like.find("debian") != std::string::npos ||
         facts.os_id_like.find("ubuntu") != std::string::npos;
}

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  for (const auto word : split_words(text)) words.emplace_back(word);
  return words;
}

// `current` without the words of `remove`, then with those of `add` it lacks.
std::vector<std::string> edited(std::vector<std::string> current, const std::vector<std::string>& add,
                                const std::vector<std::string>& remove) {
  std::erase_if(current,
                [&](const std::string& word) { return std::find(remove.begin(), remove.end(), word) != remove.end(); });
  for (const auto& word : add) {
    if (std::find(current.begin(), current.end(), word) == current.end()) current.push_back(word);
  }
  return current;
}

// A value that can go between double quotes in a sed replacement with '|' as delimiter.
bool sed_safe(std::string_view text) {
  return text.find_first_of("|&\\\"$`'\n") == std::string_view::npos;
}

std::string grub_regenerate(const SystemFacts& facts) {
  return debian_like(facts) ? "sudo update-grub" : "sudo grub2-mkconfig -o /boot/grub2/grub.cfg";
}

void grub_commands(const Host& host, const std::vector<std::string>& add, const std::vector<std::string>& remove,
                   std::vector<std::string>& commands) {
  const auto file = host.read_file(kGrubDefaults);
  bool manual = !file;
  bool edited_any = false;
  for (const std::string_view variable : {"GRUB_CMDLINE_LINUX_DEFAULT", "GRUB_CMDLINE_LINUX"}) {
    if (manual) break;
    const bool adds_here = variable == "GRUB_CMDLINE_LINUX_DEFAULT" && !add.empty();
    const auto value = grub_variable(*file, variable);
    if (!value) {
      if (adds_here) {
        commands.push_back("echo " + shell_quote(std::string(variable) + "=\"" + join(add, " ") + "\"") +
                           " | sudo tee -a " + std::string(kGrubDefaults));
        edited_any = true;
      }
      continue;
    }
    const auto before = words_of(*value);
    const auto after = edited(before, adds_here ? add : std::vector<std::string>{}, remove);
    if (after == before) continue;
    const auto updated = join(after, " ");
    if (!sed_safe(updated)) {
      manual = true;
      break;
    }
    commands.push_back(shell_command(
        {"sudo", "sed", "-i", "s|^" + std::string(variable) + "=.*|" + std::string(variable) + "=\"" + updated + "\"|",
         std::string(kGrubDefaults)}));
    edited_any = true;
  }
  if (manual || (!edited_any && !remove.empty())) {
    commands.erase(std::remove_if(commands.begin(), commands.end(),
                                  [](const std::string& c) { return c.find(kGrubDefaults) != std::string::npos; }),
                   commands.end());
    commands.push_back("sudoedit " + std::string(kGrubDefaults));
  }
}

void systemd_boot_commands(const Host& host, const SystemFacts& facts, const std::vector<std::string>& add,
                           const std::vector<std::string>& remove, std::vector<std::string>& commands) {
  // kernel-install writes the entries from /etc/kernel/cmdline, or from the running
  // kernel's command line when that file does not exist.
  std::vector<std::string> base;
  if (auto text = host.read_trimmed(kKernelCmdline)) {
    base = words_of(*text);
  } else if (auto running = host.read_trimmed("/proc/cmdline")) {
    for (auto& word : words_of(*running)) {
      if (!word.starts_with("BOOT_IMAGE=") && !word.starts_with("initrd=")) base.push_back(std::move(word));
    }
  }
  commands.push_back("echo " + shell_quote(join(edited(base, add, remove), " ")) + " | sudo tee " +
                     std::string(kKernelCmdline));
  const auto& release = facts.kernel_release;
  if (release.empty()) {
    commands.push_back("sudo kernel-install add \"$(uname -r)\" \"/boot/vmlinuz-$(uname -r)\"");
    return;
  }
  const auto usr_image = "/usr/lib/modules/" + release + "/vmlinuz";
  const auto image = host.exists(usr_image) ? usr_image : "/boot/vmlinuz-" + release;
  commands.push_back(shell_command({"sudo", "kernel-install", "add", release, image}));
}

}  // namespace

BootLoader detect_boot_loader(const Host& host, const SystemFacts& facts) {
  if (rhel_like(facts)) return BootLoader::grubby;
  if (host.exists("/usr/bin/kernelstub")) return BootLoader::kernelstub;
  if (host.exists(kGrubDefaults)) return BootLoader::grub;
  for (const std::string_view marker :
       {kKernelCmdline, std::string_view("/boot/efi/loader/loader.conf"), std::string_view("/efi/loader/loader.conf"),
        std::string_view("/boot/loader/loader.conf")}) {
    if (host.exists(marker)) return BootLoader::systemd_boot;
  }
  return BootLoader::grub;
}

std::string_view to_string(BootLoader loader) {
  switch (loader) {
    case BootLoader::grubby: return "grubby";
    case BootLoader::kernelstub: return "kernelstub";
    case BootLoader::systemd_boot: return "systemd-boot";
    case BootLoader::grub: return "GRUB";
  }
  return "GRUB";
}

std::optional<std::string> grub_variable(std::string_view etc_default_grub, std::string_view variable) {
  std::optional<std::string> value;
  const auto prefix = std::string(variable) + "=";
  for (const auto line : lines(etc_default_grub)) {
    const auto text = trim(line);
    if (!text.starts_with(prefix)) continue;
    auto rest = text.substr(prefix.size());
    if (rest.size() >= 2 && (rest.front() == '"' || rest.front() == '\'') && rest.back() == rest.front()) {
      rest = rest.substr(1, rest.size() - 2);
    }
    value = std::string(rest);
  }
  return value;
}

Fix kernel_cmdline_fix(std::string_view check_id, const Host& host, const SystemFacts& facts, std::string what,
                       const std::vector<std::string>& add, const std::vector<std::string>& remove) {
  std::vector<std::string> commands;
  std::string how;
  switch (detect_boot_loader(host, facts)) {
    case BootLoader::grubby: {
      std::string command = "sudo grubby --update-kernel=ALL";
      if (!add.empty()) command += " --args=" + shell_quote(join(add, " "));
      if (!remove.empty()) command += " --remove-args=" + shell_quote(join(remove, " "));
      commands.push_back(std::move(command));
      how = " grubby changes every installed kernel's boot entry.";
      break;
    }
    case BootLoader::kernelstub:
      for (const auto& word : add) commands.push_back(shell_command({"sudo", "kernelstub", "-a", word}));
      for (const auto& word : remove) commands.push_back(shell_command({"sudo", "kernelstub", "-d", word}));
      how = " kernelstub writes the systemd-boot entry.";
      break;
    case BootLoader::systemd_boot:
      systemd_boot_commands(host, facts, add, remove, commands);
      how = " systemd-boot takes it from /etc/kernel/cmdline when kernel-install writes the boot entry.";
      break;
    case BootLoader::grub:
      grub_commands(host, add, remove, commands);
      commands.push_back(grub_regenerate(facts));
      how = commands.front().starts_with("sudoedit")
                ? " Edit GRUB_CMDLINE_LINUX_DEFAULT and GRUB_CMDLINE_LINUX in /etc/default/grub, then regenerate "
                  "the GRUB configuration."
                : " The words go in GRUB_CMDLINE_LINUX_DEFAULT / GRUB_CMDLINE_LINUX of /etc/default/grub; then "
                  "the GRUB configuration is regenerated.";
      break;
  }
  commands.push_back("sudo reboot");
  return make_fix(check_id, std::move(what) + " and reboot." + how, std::move(commands),
                  FixNeeds{.root = true, .reboot = true});
}

}  // namespace rocm_doctor
