#include "support/synthetic_node.h"

#include <chrono>

#include "probe/child_process.h"

namespace rocm_doctor::testing {

tl::expected<void, std::string> write_synthetic_node(const std::filesystem::path& folder, int gpus, int groups) {
  const std::string script = std::string(ROCM_DOCTOR_SOURCE_DIR) + "/tests/scenarios/gen_synthetic_node.py";
  probe::ChildOptions options;
  options.timeout = std::chrono::minutes(5);  // a few thousand small files on a busy disk
  const auto child = probe::run_child({"/usr/bin/python3", script, "--gpus", std::to_string(gpus), "--groups",
                                       std::to_string(groups), "--out", folder.string()},
                                      options);
  if (!child.started) return tl::unexpected("cannot run " + script + ": " + child.exec_error);
  if (child.exit_code.value_or(-1) != 0) return tl::unexpected(script + " failed: " + child.err_tail);
  return {};
}

}  // namespace rocm_doctor::testing
