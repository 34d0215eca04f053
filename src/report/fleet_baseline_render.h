// The `--baseline` part of `rocm-doctor fleet`'s text, Markdown and JSON summaries
// (docs/fleet.md#the-node-that-differs).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "report/fleet_baseline.h"

namespace rocm_doctor {

struct BaselineSource {
  std::string file;  // the --baseline report, "" for auto
  std::string host;  // its node name
};

std::string render_baseline_text(const FleetDrift& drift, const BaselineSource& source);
std::string render_baseline_markdown(const FleetDrift& drift, const BaselineSource& source);
nlohmann::ordered_json baseline_to_json(const FleetDrift& drift, const BaselineSource& source);

// A Markdown table cell: `|` would end the cell (GitHub and GitLab tables).
std::string markdown_cell(std::string_view text);

}  // namespace rocm_doctor
