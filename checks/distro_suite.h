// Which repo.radeon.com apt suite (an Ubuntu codename) fits this distribution release:
// shared by the `repo-suite` check and the `platform` check's os.unsupported fix.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "rocm_doctor/host.h"

namespace rocm_doctor::distro_suite {

struct Release {
  std::string distro;         // "Ubuntu", "Debian", or the derivative's NAME ("Linux Mint")
  std::string version;        // "25.04", "13"
  std::string codename;       // "plucky", "trixie"
  bool interim = false;       // an Ubuntu release that is not LTS
  std::string base;           // for derivatives: the Ubuntu codename they build on ("noble")
  std::string suite;          // AMD's suite for it ("noble"), "" when none is known
  std::string suite_version;  // "24.04"
  std::string evidence;       // the os-release fields it came from
};

// From /etc/os-release fields (parse_env_file): ID, ID_LIKE, VERSION_ID, VERSION_CODENAME,
// UBUNTU_CODENAME, NAME. nullopt for distributions without apt suites of AMD's.
std::optional<Release> judge(const std::map<std::string, std::string>& os_release);
std::optional<Release> read(const Host& host);

// "Ubuntu 25.04 'plucky' (interim release)", "Debian 13 'trixie'".
std::string describe(const Release& release);

}  // namespace rocm_doctor::distro_suite
