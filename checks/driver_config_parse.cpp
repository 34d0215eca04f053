// `driver-config`: the pure parsers and package helpers declared in driver_config.h
// (modprobe.d rules, the SecureBoot EFI variable, module files, header packages).
#include <algorithm>

#include "driver_config.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::driver_config {

namespace {

std::string module_name(std::string_view word) {
  std::string name(word);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

bool disables_loading(const std::vector<std::string_view>& command) {
  if (command.empty()) return false;
  static const std::vector<std::string_view> kNoOps = {"/bin/false", "/usr/bin/false", "false",
                                                       "/bin/true",  "/usr/bin/true",  "true"};
  return command.size() == 1 && std::find(kNoOps.begin(), kNoOps.end(), command.front()) != kNoOps.end();
}

}  // namespace

std::vector<ModprobeRule> parse_modprobe_conf(std::string_view text, std::string_view module) {
  std::vector<ModprobeRule> rules;
  const auto wanted = module_name(module);
  std::string joined;
  int first_line = 0;
  int number = 0;
  for (const auto raw : lines(text)) {
    ++number;
    std::string_view line = raw;
    if (joined.empty()) first_line = number;
    const bool continued = !line.empty() && line.back() == '\\';
    if (continued) line.remove_suffix(1);
    joined += std::string(line);
    if (continued) {
      joined += ' ';
      continue;
    }
    const auto statement = std::string(trim(std::exchange(joined, {})));
    if (statement.empty() || statement.front() == '#') continue;
    const auto words = split_words(statement);
    if (words.size() < 2 || module_name(words[1]) != wanted) continue;
    if (words[0] == "blacklist" && words.size() == 2) {
      rules.push_back({ModprobeRule::Kind::blacklist, first_line, statement});
    } else if (words[0] == "install" &&
               disables_loading(std::vector<std::string_view>(words.begin() + 2, words.end()))) {
      rules.push_back({ModprobeRule::Kind::install_disabled, first_line, statement});
    }
  }
  return rules;
}

std::optional<bool> parse_secure_boot_efivar(std::string_view bytes) {
  if (bytes.size() != 5) return std::nullopt;
  const auto value = static_cast<unsigned char>(bytes[4]);
  if (value > 1) return std::nullopt;
  return value == 1;
}

bool is_module_file(std::string_view name, std::string_view module) {
  const auto base = std::string(module) + ".ko";
  return name == base || name == base + ".xz" || name == base + ".zst" || name == base + ".gz";
}

Family distro_family(const SystemFacts& facts) {
  const std::string ids = facts.os_id + " " + facts.os_id_like;  // named: the words are views into it
  const auto words = split_words(ids);
  const auto has = [&](std::string_view id) { return std::find(words.begin(), words.end(), id) != words.end(); };
  if (has("debian") || has("ubuntu")) return Family::debian;
  if (has("rhel") || has("fedora") || has("centos")) return Family::rhel;
  if (has("suse") || has("sles") || has("opensuse")) return Family::suse;
  return Family::other;
}

std::string header_package(Family family, std::string_view kernel_release) {
  if (kernel_release.empty()) return "";
  const std::string release(kernel_release);
  switch (family) {
    case Family::debian: return "linux-headers-" + release;
    case Family::rhel: return "kernel-devel-" + release;
    case Family::suse: {
      const auto dash = release.rfind('-');
      if (dash == std::string::npos) return "";
      return "kernel-" + release.substr(dash + 1) + "-devel-" + release.substr(0, dash);
    }
    case Family::other: return "";
  }
  return "";
}

std::string install_command(Family family, const std::vector<std::string>& packages) {
  std::vector<std::string> words;
  switch (family) {
    case Family::debian: words = {"sudo", "apt", "install"}; break;
    case Family::rhel: words = {"sudo", "dnf", "install"}; break;
    case Family::suse: words = {"sudo", "zypper", "install"}; break;
    case Family::other: return "";
  }
  words.insert(words.end(), packages.begin(), packages.end());
  return shell_command(words);
}

}  // namespace rocm_doctor::driver_config
