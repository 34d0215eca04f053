// A plugin's answer, parsed strictly (docs/plugins.md, protocol 1):
//   {"protocol": 1, "findings": [<finding as in docs/report-format.md>, ...]}
// One wrong thing rejects the whole answer: a plugin that breaks the protocol
// is reported as failed rather than half-believed.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/finding.h"

namespace rocm_doctor::plugins {

// The plugin protocol version, both ways (docs/plugins.md): the `plugins` check
// sends it in the facts and parse_plugin_answer() accepts only it.
inline constexpr int kProtocol = 1;

inline constexpr std::size_t kMaxFindings = 100;
inline constexpr std::size_t kMaxText = 4096;  // bytes of any one string

// The findings, or one sentence saying what is wrong ("findings[2].id
// 'driver.no-amd-gpu' is a built-in id; ...").
tl::expected<std::vector<Finding>, std::string> parse_plugin_answer(
    const nlohmann::json& answer, std::string_view plugin_name, const std::set<std::string, std::less<>>& builtin_ids);

// site.<plugin>.<rest>: rest is [a-z0-9-] words joined by dots.
bool valid_plugin_finding_id(std::string_view id, std::string_view plugin_name);

}  // namespace rocm_doctor::plugins
