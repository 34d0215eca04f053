// checks/data/env_variables.json, read once through its typed loader (rocm_doctor/data_table.h):
// the variable names the env, tools, render-nodes, gpu-arch and rocm-install checks share.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rocm_doctor::env_lint {

struct InventedVariable {
  std::string why;
  std::string instead;
};

struct EnvVariablesTable {
  std::vector<std::string> prefixes;
  std::vector<std::string> strict_prefixes;
  std::vector<std::string> known;
  std::vector<std::string> patterns;
  std::map<std::string, InventedVariable> invented;
  std::vector<std::string> foreign;  // set by other stacks' images: nobody's mistake, not ROCm's
  // GPU visibility lists, ROCR_VISIBLE_DEVICES (the HSA-level filter) first.
  std::vector<std::string> visibility_variables;
  std::vector<std::string> alloc_conf_variables;  // PyTorch caching-allocator configs
  std::vector<std::string> arch_list_variables;   // build target lists
  std::vector<std::string> path_variables;        // ROCm install prefixes
  std::vector<std::string> tools;                 // ROCm command-line tools looked for on PATH
};

// The table (overlays included); throws with "env_variables.json: KEY: ..." when it is broken.
const EnvVariablesTable& env_variables_table();

}  // namespace rocm_doctor::env_lint
