// The report's `versions`: the releases a fleet compares at a glance (ROCm,
// HIP, the amdgpu driver, PyTorch), taken from the facts the checks computed.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

using VersionList = std::vector<std::pair<std::string, std::string>>;

// Reads only what the run's `checks` already read: a fact no check asked for
// and a probe no selected check reads leave their keys out (a snapshot may hold
// probes a live run with this selection would not start), so this adds no work
// and a replay of a capture gives the same list (docs/report-format.md#versions).
VersionList collect_versions(const CheckContext& ctx, const std::vector<const Check*>& checks);

// Every key collect_versions can write, in its order; each has a row in
// docs/report-format.md#versions (a test holds the page to it).
const std::vector<std::string_view>& version_keys();

// "6.8.5.60204" -> "6.8.5": the driver's own version inside an amdgpu-dkms
// package version (the last component is the ROCm release it shipped with).
std::string driver_version_of_package(std::string_view package_version);

}  // namespace rocm_doctor
