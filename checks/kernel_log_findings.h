// The `kernel-log` check's findings, built from the matched lines (kernel_log.h).
#pragma once

#include <string>
#include <vector>

#include "kernel_log.h"
#include "rocm_doctor/check.h"

namespace rocm_doctor::kernel_log {

inline constexpr std::size_t kMaxQuoted = 8;

// One pattern's matched lines on one device: `device` is "GPU 0 (0000:c1:00.0)", a PCI
// address no GPU has, or "" when the line names none.
struct Hit {
  const Pattern* pattern = nullptr;
  std::string device;
  Group group;
};

// One finding per finding id of the hits, in the table's order of first appearance.
std::vector<Finding> hit_findings(const std::string& source, const std::string& window, const std::vector<Hit>& hits);

Finding firmware_missing(const CheckContext& ctx, const std::string& source, const std::vector<Group>& groups,
                         const std::vector<std::string>& names);

}  // namespace rocm_doctor::kernel_log
