// Where a run's report goes: stdout, or one or more files in one or more
// formats (`--output FILE`, `--output FORMAT=FILE`), plus the fix script.
#pragma once

#include <string>
#include <tl/expected.hpp>
#include <vector>

#include "cli/cli.h"
#include "render/formats.h"

namespace rocm_doctor {

struct OutputTarget {
  Format format = Format::text;
  std::string file;  // empty: stdout
};

// The targets the options ask for; a usage error names the bad --output.
tl::expected<std::vector<OutputTarget>, std::string> output_targets(const RunCommandOptions& options);

// Renders the report once per target and writes each file atomically (and
// the --fix-script). Returns 0, or the internal exit code when a write failed.
int write_outputs(const Report& report, const std::vector<OutputTarget>& targets, const RunCommandOptions& options);

// The exit code of a run: --fail-on, except in node-problem-detector mode
// (--format npd), whose plugin protocol wants 0 OK, 1 NonOK, 2 Unknown.
int run_exit_code(const Report& report, const RunCommandOptions& options);

}  // namespace rocm_doctor
