// Runs the built rocm-doctor binary as a child, as a user would, and reads
// its JSON report: used by the probe end-to-end tests.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "probe/child_process.h"

namespace rocm_doctor::testing {

struct DoctorRun {
  probe::ChildResult process;
  nlohmann::json report;                       // parsed stdout (null when not JSON)
  std::chrono::steady_clock::duration wall{};  // measured by the test
};

inline DoctorRun run_doctor(const std::vector<std::string>& arguments, const std::vector<std::string>& env = {},
                            std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  std::vector<std::string> argv = {ROCM_DOCTOR_BINARY};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  probe::ChildOptions options;
  options.extra_env = env;
  options.timeout = limit;
  DoctorRun run;
  const auto start = std::chrono::steady_clock::now();
  run.process = probe::run_child(argv, options);
  run.wall = std::chrono::steady_clock::now() - start;
  run.report = nlohmann::json::parse(run.process.out, nullptr, false);
  if (run.report.is_discarded()) run.report = nullptr;
  return run;
}

// (id, severity) of every finding in a JSON report, in report order.
inline std::vector<std::pair<std::string, std::string>> finding_ids(const nlohmann::json& report) {
  std::vector<std::pair<std::string, std::string>> ids;
  if (!report.is_object()) return ids;
  for (const auto& check : report.value("checks", nlohmann::json::array())) {
    for (const auto& finding : check.value("findings", nlohmann::json::array())) {
      ids.emplace_back(finding.value("id", ""), finding.value("severity", ""));
    }
  }
  return ids;
}

inline const nlohmann::json* find_json_finding(const nlohmann::json& report, const std::string& id) {
  if (!report.is_object()) return nullptr;
  for (const auto& check : report["checks"]) {
    for (const auto& finding : check["findings"]) {
      if (finding.value("id", "") == id) return &finding;
    }
  }
  return nullptr;
}

inline std::string check_status(const nlohmann::json& report, const std::string& id) {
  if (!report.is_object()) return "";
  for (const auto& check : report["checks"]) {
    if (check.value("id", "") == id) return check.value("status", "");
  }
  return "";
}

}  // namespace rocm_doctor::testing
