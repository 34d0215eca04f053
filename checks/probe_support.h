// Shared by the checks that read runtime probe outcomes (hip, smi, probe):
// what an outcome says, and its captured stderr turned into evidence.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor::probe_support {

// The probes the doctor runs, in report order.
inline const std::vector<std::string>& probe_names() {
  static const std::vector<std::string> names = {"hip", "smi", "dxcore"};
  return names;
}

// Why a check cannot judge a probe's result, or nullopt when the probe ran
// and returned one (then outcome["result"] is an object).
inline std::optional<std::string> unavailable_reason(const std::optional<nlohmann::json>& outcome,
                                                     std::string_view name) {
  if (!outcome) {
    return "the " + std::string(name) +
           " probe did not run (--level quick; at --level standard, no GPU driver here: no /dev/kfd, amdgpu "
           "module or /dev/dxg; or a snapshot captured without probe results)";
  }
  const auto status = outcome->value("status", std::string("unknown"));
  if (status == "ok" && outcome->contains("result") && (*outcome)["result"].is_object()) return std::nullopt;
  return "the " + std::string(name) + " probe did not finish (" + status + "): see the probe check";
}

// The captured stderr as at most `max_lines` printable lines, without the
// doctor's own step markers: vendor noise is evidence, never printed raw.
inline std::vector<std::string> stderr_lines(const nlohmann::json& outcome, std::size_t max_lines = 8) {
  const auto text = outcome.value("stderr_tail", std::string());
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line;
    for (char c : text.substr(start, end - start)) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte >= 0x20 && byte != 0x7f)
        line.push_back(c);
      else if (c == '\t')
        line.push_back(' ');
    }
    start = end + 1;
    if (line.empty() || line.rfind("rocm-doctor-probe: ", 0) == 0) continue;
    if (line.size() > 200) {
      line.resize(197);
      line += "...";
    }
    lines.push_back(std::move(line));
  }
  if (lines.size() > max_lines) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(max_lines));
  return lines;
}

// Adds "probe <name> stderr" evidence lines to a finding.
inline Finding& with_stderr(Finding& finding, const nlohmann::json& outcome, std::string_view name) {
  for (auto& line : stderr_lines(outcome)) finding.with_evidence("probe " + std::string(name) + " stderr", line);
  return finding;
}

}  // namespace rocm_doctor::probe_support
