// The error text a run diagnoses (issue 17): --symptom TEXT (`why TEXT`, "-"
// for stdin), --log FILE, and what `run -- CMD ARGS...` printed.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tl/expected.hpp>

#include "cli/cli.h"

namespace rocm_doctor {

struct SymptomInput {
  std::string text;
  std::string source;                             // "argument", "stdin", "log FILE", "command NAME"
  std::optional<nlohmann::ordered_json> command;  // how `run --` ended (docs/report-format.md#symptom)
};

// The run's symptom text, nullopt when the run has none. Runs the user's
// command (once, isolated, --probe-timeout) only for `run --`. An unreadable
// log, empty text or a command that cannot start is an error message.
tl::expected<std::optional<SymptomInput>, std::string> read_symptom(const RunCommandOptions& options);

// Matches the text against the error signatures and sets report.sections["symptom"].
void add_symptom_section(Report& report, const SymptomInput& input);

// Keeps the last `limit` bytes: a long log's error is at its end.
std::string keep_tail(std::string text, std::size_t limit);

}  // namespace rocm_doctor
