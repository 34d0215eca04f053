#include <nlohmann/json.hpp>

#include "render/render.h"
#include "rocm_doctor/impact.h"
#include "version.h"

namespace rocm_doctor {

namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson fix_to_json(const Fix& fix) {
  return {{"description", fix.description},   {"commands", fix.commands},           {"needs_root", fix.needs_root},
          {"needs_reboot", fix.needs_reboot}, {"needs_relogin", fix.needs_relogin}, {"verify", fix.verify}};
}

OrderedJson finding_to_json(const Finding& finding) {
  OrderedJson evidence = OrderedJson::array();
  for (const auto& item : finding.evidence) evidence.push_back({{"source", item.source}, {"value", item.value}});
  OrderedJson fixes = OrderedJson::array();
  for (const auto& fix : finding.fixes) fixes.push_back(fix_to_json(fix));
  OrderedJson result = {{"id", finding.id},
                        {"severity", to_string(finding.severity)},
                        {"impact", to_string(impact_of(finding))},
                        {"summary", finding.summary},
                        {"detail", finding.detail},
                        {"evidence", evidence},
                        {"fix", fixes},
                        {"caused_by", finding.caused_by}};
  if (finding.accepted) {
    result["accepted"] = {{"policy", finding.accepted->policy},
                          {"file", finding.accepted->file},
                          {"reason", finding.accepted->reason},
                          {"original_severity", to_string(finding.accepted->original_severity)}};
  }
  return result;
}

OrderedJson check_to_json(const CheckResult& check) {
  OrderedJson findings = OrderedJson::array();
  for (const auto& finding : check.findings) findings.push_back(finding_to_json(finding));
  OrderedJson result = {{"id", check.id},
                        {"title", check.title},
                        {"status", to_string(check.status)},
                        {"duration_ms", check.duration_ms},
                        {"findings", findings}};
  if (check.status == CheckStatus::skipped) result["skipped_reason"] = check.skipped_reason;
  if (check.status == CheckStatus::internal_error) result["internal_error"] = check.internal_error;
  return result;
}

OrderedJson versions_to_json(const Report& report) {
  OrderedJson versions = OrderedJson::object();
  for (const auto& [key, value] : report.versions) versions[key] = value;
  return versions;
}

}  // namespace

nlohmann::ordered_json report_to_json(const Report& report) {
  const auto counts = count_findings(report);
  OrderedJson checks = OrderedJson::array();
  for (const auto& check : report.checks) checks.push_back(check_to_json(check));
  OrderedJson result = {
      {"schema", kReportSchema},
      {"schema_version", kReportSchemaVersion},
      {"tool", {{"name", "rocm-doctor"}, {"version", report.tool_version}, {"commit", git_commit()}}},
      {"generated_at", report.generated_at},
      {"source", report.source},
      {"host",
       {{"hostname", report.host.hostname},
        {"os", report.host.os},
        {"os_id", report.host.os_id},
        {"os_version", report.host.os_version},
        {"kernel", report.host.kernel},
        {"container", report.host.container.empty() ? OrderedJson(nullptr) : OrderedJson(report.host.container)},
        {"wsl", report.host.wsl}}},
      {"versions", versions_to_json(report)},
      {"summary",
       {{"ok", counts.ok},
        {"info", counts.info},
        {"warning", counts.warning},
        {"error", counts.error},
        {"skipped_checks", counts.skipped},
        {"internal_errors", counts.internal_error},
        {"worst", to_string(worst_severity(report))}}},
      {"root_causes", report.root_causes},
      {"also", report.also},
      {"checks", checks},
  };
  for (const auto& [name, section] : report.sections) result[name] = section;
  return result;
}

// Evidence quotes machine files and variables, which may hold bytes that are not
// UTF-8 (a corrupt sysfs file, a hostile snapshot): those become U+FFFD rather
// than an exception that would lose the whole report.
std::string render_json(const Report& report) {
  return report_to_json(report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace rocm_doctor
