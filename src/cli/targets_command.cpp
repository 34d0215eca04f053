// `rocm-doctor targets FILE...`: which gfx targets binaries carry GPU code for
// (checks/code_objects.cpp), rendered like any report (--json, -o, --fail-on).
#include <filesystem>

#include "cli/cli.h"

namespace rocm_doctor {

int targets_command(const std::vector<std::string>& files, RunCommandOptions options) {
  if (!options.selection.only.empty() || !options.selection.skip.empty()) {
    return usage_error("targets runs the code-objects check only: --only and --skip do not apply");
  }
  for (const auto& file : files) {
    if (file.empty()) return usage_error("targets: an empty file name");
    // Replays name the snapshot machine's paths; live runs may give relative ones.
    options.run.binaries.push_back(file.front() == '/' || !options.replay.empty()
                                       ? file
                                       : std::filesystem::absolute(file).lexically_normal().string());
  }
  options.selection.only = {"code-objects"};
  return run_command(options);
}

}  // namespace rocm_doctor
