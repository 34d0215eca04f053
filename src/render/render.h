// Output formats for a Report.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rocm_doctor/report.h"

namespace rocm_doctor {

inline constexpr const char* kReportSchema = "rocm-doctor/report";
inline constexpr int kReportSchemaVersion = 1;

nlohmann::ordered_json report_to_json(const Report& report);
std::string render_json(const Report& report);

enum class Color { off, on };
enum class Verbosity { normal, verbose };
std::string render_text(const Report& report, Color color, Verbosity verbosity);

}  // namespace rocm_doctor
