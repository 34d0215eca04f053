// checks/data/rocm_packages.json, read once through its typed loader (rocm_doctor/data_table.h):
// AMD's repository hosts, the signing key, and which packages are ROCm's (packages, repo-suite).
#pragma once

#include <string>
#include <vector>

namespace rocm_doctor::packages {

struct RocmPackagesTable {
  std::vector<std::string> legacy_hosts;    // repo_hosts (repo.radeon.com), lower case
  std::vector<std::string> core_sdk_hosts;  // core_sdk_channels.hosts (stable.repo.amd.com, ...), lower case
  std::string key_url;
  std::string keyring;
  std::vector<std::string> package_prefixes;
  std::vector<std::string> package_exclude_prefixes;
  std::vector<std::string> broken_states;  // dpkg states of a half-done install
};

// The table (overlays included); throws with "rocm_packages.json: KEY: ..." when it is broken.
const RocmPackagesTable& rocm_packages_table();

}  // namespace rocm_doctor::packages
