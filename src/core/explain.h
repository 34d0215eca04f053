// `rocm-doctor explain ID`: the sections of docs/checks.md, compiled in.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor {

// docs/checks.md as compiled into the binary.
std::string_view checks_document();

// The section of a markdown document whose heading is `id` (a "## check-id"
// or "### finding.id" heading), up to the next heading of the same or a higher level.
std::optional<std::string> find_section(std::string_view document, std::string_view id);
std::optional<std::string> explain_text(std::string_view id);
// Every finding id documented (the "### " headings).
std::vector<std::string> documented_ids(std::string_view document);
std::optional<std::string> suggest_explain_id(std::string_view id);

}  // namespace rocm_doctor
