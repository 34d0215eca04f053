// The fixes of the `gpu-arch` check (gpu_arch.h): set the gfx override for a
// login or for everyone, or remove it from every profile file that sets it.
#include <fmt/format.h>

#include "gpu_arch.h"
#include "rocm_doctor/shell.h"

namespace rocm_doctor::gpu_arch {

std::string profile_path(const Host& host) {
  const auto home = home_of(host);
  return home.empty() ? std::string("\"$HOME\"/.profile") : shell_quote(home + "/.profile");
}

// Commands that comment out every line setting the variable.
std::vector<std::string> removal_commands(const std::vector<Location>& locations, bool& needs_root) {
  std::vector<std::string> commands;
  for (const auto& location : locations) {
    const auto command =
        "sed -i.bak " + shell_quote(fmt::format("{}s/^/# /", location.line)) + " " + shell_quote(location.path);
    commands.push_back(location.system ? "sudo " + command : command);
    needs_root = needs_root || location.system;
  }
  return commands;
}

Fix set_override_fix(const Host& host, const std::string& variable, const std::string& value,
                     const std::vector<Location>& locations) {
  const auto line = fmt::format("export {}={}", variable, value);
  std::vector<std::string> commands = {line};
  bool needs_root = false;
  for (auto& command : removal_commands(locations, needs_root)) commands.push_back(std::move(command));
  commands.push_back("echo " + shell_quote(line) + " >> " + profile_path(host));
  return make_fix(kCheckId,
                  fmt::format("Set {}={} for your login (~/.profile), and now in this shell", variable, value),
                  std::move(commands), {.root = needs_root, .relogin = true});
}

Fix system_wide_fix(const std::string& variable, const std::string& value) {
  return make_fix(kCheckId, "Or, for every user of this machine, a profile.d file (not /etc/profile itself)",
                  {"echo " + shell_quote(fmt::format("export {}={}", variable, value)) +
                   " | sudo tee /etc/profile.d/rocm-gfx-override.sh"},
                  {.root = true, .relogin = true});
}

Fix remove_override_fix(const Subject& subject, const std::vector<Location>& locations) {
  std::vector<std::string> commands = {"unset " + subject.variable};
  bool needs_root = false;
  for (auto& command : removal_commands(locations, needs_root)) commands.push_back(std::move(command));
  return make_fix(
      kCheckId, fmt::format("Remove {} (comment out the lines that set it, then start a new login)", subject.variable),
      std::move(commands), {.root = needs_root, .relogin = !locations.empty()});
}

}  // namespace rocm_doctor::gpu_arch
