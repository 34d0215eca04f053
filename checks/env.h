// The `env` check's finding groups, one function per kind of variable:
// visibility lists (env_visibility.cpp); debugging switches, the allocator config
// and target lists (env_settings.cpp); names, install paths and mixed releases
// (env_paths.cpp). env.cpp reads the environment once and runs them in order.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor::env_check {

inline constexpr std::string_view kCheckId = "env";

// The environment this check judges: the values of the variables it may read.
struct Environment {
  std::map<std::string, std::string> values;  // only ROCm-looking names and the few others we judge
  [[nodiscard]] std::optional<std::string> get(const std::string& name) const {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  }
};

void visibility_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings);
void debug_switch_findings(const Environment& env, std::vector<Finding>& findings);
void alloc_conf_findings(const Environment& env, std::vector<Finding>& findings);
void arch_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings);
void name_findings(const Environment& env, std::vector<Finding>& findings);
void path_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings);
void mixed_release_findings(const CheckContext& ctx, const Environment& env, std::vector<Finding>& findings);

}  // namespace rocm_doctor::env_check
