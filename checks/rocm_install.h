// Pure parts of the `rocm-install` check (checks/rocm_install.cpp), per ROCm layout
// (legacy, Core SDK, distribution, pip): checks/rocm_install_layout.cpp.
#pragma once

#include <optional>
#include <string>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/rocm_install.h"

namespace rocm_doctor::rocm_install_check {

// "ROCm 7.14.0 (Core SDK) in /opt/rocm/core-7.14", "ROCm 5.2.3 (distribution packages in ...)".
std::string release_label(const RocmRelease& release);
// Where a release's layout was seen, for the evidence of rocm.version.
std::string layout_evidence(const RocmInstallation& install, const RocmRelease& release);
// The bin folder users should type for a release: /opt/rocm/bin when a link leads there.
std::string preferred_bin_dir(const Host& host, const RocmInstallation& install, const RocmRelease& release);
// rocm.release-unknown-newer, when the release is newer than every row of rocm_releases.json.
std::optional<Finding> release_unknown_newer(const RocmRelease& active);
// rocm.not-installed as advice when no system ROCm is there but something brings a HIP runtime
// (rocm_doctor/facts/rocm_installs.h); nullopt when nothing does.
std::optional<Finding> bundled_only(const CheckContext& ctx);

}  // namespace rocm_doctor::rocm_install_check
