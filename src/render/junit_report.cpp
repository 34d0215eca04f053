// The report as JUnit XML for CI gates: one <testcase> per check.
#include <fmt/format.h>

#include "render/formats.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

using render_support::xml_escape;

std::string seconds(double milliseconds) {
  return fmt::format("{:.3f}", milliseconds / 1000.0);
}

// The body of a <failure>: what a CI log shows when the test case is opened.
std::string finding_text(const Finding& finding) {
  std::string out = "[" + std::string(to_string(finding.severity)) + "] " + finding.id + ": " + finding.summary + "\n";
  if (!finding.detail.empty()) out += finding.detail + "\n";
  if (finding.accepted) out += render_support::acceptance_note(finding) + "\n";
  for (const auto& evidence : finding.evidence) out += "Evidence: " + evidence.source + ": " + evidence.value + "\n";
  for (const auto& fix : finding.fixes) {
    out += "Fix: " + fix.description + "\n";
    for (const auto& command : fix.commands) out += "  $ " + command + "\n";
    if (!fix.verify.empty()) out += "Verify: " + fix.verify + "\n";
  }
  return out;
}

struct Counts {
  int failures = 0;
  int errors = 0;
  int skipped = 0;
};

std::string render_case(const CheckResult& check, Severity fail_on, Counts& counts) {
  std::string out = fmt::format("    <testcase name=\"{}\" classname=\"rocm-doctor.{}\" time=\"{}\">\n",
                                xml_escape(check.title), xml_escape(check.id), seconds(check.duration_ms));
  if (check.status == CheckStatus::skipped) {
    out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(check.skipped_reason));
    ++counts.skipped;
  }
  if (check.status == CheckStatus::internal_error) {
    out += fmt::format("      <error type=\"internal-error\" message=\"{}\">{}</error>\n",
                       xml_escape(check.internal_error), xml_escape(check.internal_error));
    ++counts.errors;
  }
  bool failed = false;
  std::string below;
  for (const auto& finding : check.findings) {
    if (finding.severity >= fail_on) {
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", xml_escape(finding.id),
                         xml_escape(finding.summary), xml_escape(finding_text(finding)));
      failed = true;
    } else {
      below += finding_text(finding);
    }
  }
  if (failed) ++counts.failures;
  if (!below.empty()) out += "      <system-out>" + xml_escape(below) + "</system-out>\n";
  return out + "    </testcase>\n";
}

}  // namespace

std::string render_junit(const Report& report, Severity fail_on) {
  Counts counts;
  std::string cases;
  double total_ms = 0;
  for (const auto& check : report.checks) {
    cases += render_case(check, fail_on, counts);
    total_ms += check.duration_ms;
  }
  const auto tests = report.checks.size();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"rocm-doctor\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{}\">\n",
                     tests, counts.failures, counts.errors, seconds(total_ms));
  out += fmt::format(
      "  <testsuite name=\"rocm-doctor\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\" "
      "timestamp=\"{}\" hostname=\"{}\">\n",
      tests, counts.failures, counts.errors, counts.skipped, seconds(total_ms), xml_escape(report.generated_at),
      xml_escape(report.host.hostname));
  out += "    <properties>\n";
  const auto property = [&](std::string_view name, std::string_view value) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml_escape(value));
  };
  property("rocm-doctor.version", report.tool_version);
  property("source", report.source);
  property("os", report.host.os);
  property("kernel", report.host.kernel);
  property("fail-on", to_string(fail_on));
  out += "    </properties>\n" + cases + "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace rocm_doctor
