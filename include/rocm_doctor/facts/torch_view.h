// What the run knows about the user's PyTorch, and where it came from: torch's
// files (rocm_doctor/facts/python_env.h, no interpreter started) or the python
// probe's `import torch` (src/probe/python_probe), which answers only at
// --level full, in a replay that recorded it, or when the files cannot decide.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor {

struct PythonEnvironment;

struct TorchView {
  // Shaped like a python probe outcome (docs/snapshot-format.md, probes.python):
  // {"status": "ok", "result": {"executable", "version", "torch": {...}, "source": "files"|"import", ...}}.
  // nullopt: neither the files nor an import could say anything.
  std::optional<nlohmann::json> outcome;
  // Why the files were not enough, when the import was asked ("" otherwise).
  std::string import_reason;
  // The files could not decide and nothing imported torch: what they lacked.
  std::string undecided;

  [[nodiscard]] bool from_files() const;

  static TorchView collect(const CheckContext& ctx);
};

// The probe-shaped result of a static inspection ("source": "files").
nlohmann::json files_result(const PythonEnvironment& env);

// The gfx targets a ROCm torch must carry kernels for, with what needs each:
// every GPU ROCm sees (or its HSA_OVERRIDE_GFX_VERSION), or --target-gfx with --image.
std::vector<std::pair<std::string, std::string>> torch_needed_targets(const CheckContext& ctx);

}  // namespace rocm_doctor
