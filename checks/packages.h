// Pure parsers of the `packages` check: apt sources (one-line and deb822), yum/zypper
// .repo files, dpkg status stanzas (the driver rules are in rocm_doctor/facts/amdgpu_driver.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/facts/amdgpu_driver.h"

namespace rocm_doctor::packages {

// One repository entry, whatever file format it came from.
struct RepoEntry {
  int line = 0;      // where it starts in its file (1-based)
  std::string text;  // the line / stanza head as written, for evidence
  std::vector<std::string> uris;
  std::string suite;       // apt only ("jammy")
  std::string components;  // apt only ("main")
  bool signed_by = false;  // apt: signed-by= / Signed-By: present
  bool enabled = true;
};

// "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 jammy main"
std::vector<RepoEntry> parse_apt_list(std::string_view text);
// deb822 ".sources" stanzas (Types, URIs, Suites, Components, Signed-By, Enabled).
std::vector<RepoEntry> parse_deb822(std::string_view text);
// yum/dnf/zypper ".repo" ini sections (baseurl=, enabled=).
std::vector<RepoEntry> parse_repo_ini(std::string_view text);

// What a repo.radeon.com URL serves: kind "rocm"/"amdgpu"/"graphics" and the release in it
// ("https://repo.radeon.com/rocm/apt/6.2.4" -> rocm 6.2.4; ".../amdgpu/30.10/ubuntu" -> amdgpu 30.10;
// ".../rocm/apt/latest" -> rocm, no release).
struct RadeonRepo {
  std::string kind;
  std::optional<std::string> release;
};
// AMD's repository hosts (checks/data/rocm_packages.json): the legacy repo_hosts
// (repo.radeon.com) and the Core SDK's core_sdk_channels hosts (stable.repo.amd.com, ...).
struct RepoHosts {
  std::vector<std::string> legacy;
  std::vector<std::string> core_sdk;
};
RepoHosts repo_hosts();
// Any of AMD's repositories: the legacy ones as parse_radeon_url says; a Core SDK channel is kind
// "core-sdk" ("https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/" -> core-sdk, no release).
std::optional<RadeonRepo> parse_amd_repo_url(std::string_view url, const RepoHosts& hosts);
// The legacy repository only (repo.radeon.com and the other repo_hosts).
std::optional<RadeonRepo> parse_radeon_url(std::string_view url);

// The dkms package version decoder lives with the driver rules.
using amdgpu_driver::rocm_release_from_package_version;

}  // namespace rocm_doctor::packages
