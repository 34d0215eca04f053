// dpkg's database (/var/lib/dpkg/status), read and parsed once per run: the
// rocm-install fact, the packages and WSL checks all ask it. Empty on
// distributions without dpkg.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

struct DpkgPackage {
  std::string name;
  std::string version;
  std::string want;   // "install", "hold", "deinstall", "purge"
  std::string flag;   // "ok", "reinstreq"
  std::string state;  // "installed", "half-configured", "unpacked", ...
  int line = 0;       // line of its Package: field
};

// The stanzas of a dpkg status file, in file order.
std::vector<DpkgPackage> parse_dpkg_status(std::string_view text);

struct DpkgDatabase {
  static constexpr std::string_view kStatusPath = "/var/lib/dpkg/status";

  std::vector<DpkgPackage> packages;

  // The Version: of `name` when dpkg has it installed (not removed with
  // configuration files left, not half-installed).
  [[nodiscard]] std::optional<std::string> installed_version(std::string_view name) const;

  static DpkgDatabase collect(const CheckContext& ctx);
};

}  // namespace rocm_doctor
