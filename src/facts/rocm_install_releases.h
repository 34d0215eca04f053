// The release finders of the RocmInstallation fact (src/facts/rocm_install.cpp), one per
// layout under /opt and in Python environments; shared by its two source files only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/facts/rocm_install.h"

namespace rocm_doctor::install_detail {

inline constexpr std::string_view kHipStem = "libamdhip64.so";

// "6.2.4" with at least min_parts numbers, nothing else.
bool is_dotted_number(std::string_view text, std::size_t min_parts);
// share/hip/version of a release prefix, "" when absent.
std::string release_hip_version(const Host& host, const std::string& prefix);
bool has_hip_library(const Host& host, const std::string& folder);
// "libamdhip64.so.7" when the folder holds it, else "libamdhip64.so" when only that is there, else "".
std::string hip_soname_in(const Host& host, const std::string& folder);
// A folder under /opt that carries ROCm's version file or its runtime or tools, as a release.
std::optional<RocmRelease> opt_release(const Host& host, const std::string& prefix,
                                       std::optional<std::string> folder_version);
// The Core SDK's /opt/rocm/core-X.Y folders (not the /opt/rocm/core, core-N links).
std::vector<RocmRelease> core_sdk_releases(const Host& host);
// pip's rocm-sdk-core in the active, user and system site-packages.
std::vector<RocmRelease> python_releases(const Host& host);

}  // namespace rocm_doctor::install_detail
