#include "report/report_digest.h"

#include <fstream>

namespace rocm_doctor {

namespace {

std::string text(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

int severity_rank(std::string_view severity) {
  if (severity == "error") return 3;
  if (severity == "warning") return 2;
  if (severity == "info") return 1;
  return 0;
}

tl::expected<ReportDigest, std::string> digest_report(const nlohmann::json& report) {
  if (!report.is_object() || text(report, "schema") != "rocm-doctor/report") {
    return tl::unexpected(std::string("not a rocm-doctor JSON report (schema is not rocm-doctor/report)"));
  }
  ReportDigest digest;
  const auto& host = report.contains("host") ? report["host"] : nlohmann::json();
  digest.hostname = text(host, "hostname");
  digest.generated_at = text(report, "generated_at");
  digest.worst = report.contains("summary") ? text(report["summary"], "worst") : "";
  if (digest.worst.empty()) digest.worst = "ok";
  if (const auto os = text(host, "os"); !os.empty()) digest.versions["os"] = os;
  if (const auto kernel = text(host, "kernel"); !kernel.empty()) digest.versions["kernel"] = kernel;
  if (report.contains("tool")) digest.versions["rocm-doctor"] = text(report["tool"], "version");
  if (const auto it = report.find("versions"); it != report.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      if (value.is_string()) digest.versions[key] = value.get<std::string>();
    }
  }
  if (const auto it = report.find("checks"); it != report.end() && it->is_array()) {
    for (const auto& check : *it) {
      const auto id = text(check, "id");
      digest.check_status[id] = text(check, "status");
      if (!check.contains("findings") || !check["findings"].is_array()) continue;
      for (const auto& finding : check["findings"]) {
        digest.findings.push_back({text(finding, "id"), id, text(finding, "severity"), text(finding, "summary")});
      }
    }
  }
  if (const auto it = report.find("gpus"); it != report.end() && it->is_array()) {
    for (const auto& gpu : *it) {
      std::string line = text(gpu, "pci_address") + " " + text(gpu, "name");
      if (const auto gfx = text(gpu, "gfx"); !gfx.empty()) line += " (" + gfx + ")";
      digest.gpus.push_back(std::move(line));
    }
  }
  return digest;
}

tl::expected<ReportDigest, std::string> parse_report_digest(std::string_view text) {
  // The long free-text fields nobody here reads are dropped while parsing.
  const nlohmann::json::parser_callback_t skip_text = [](int, nlohmann::json::parse_event_t event, nlohmann::json& key) {
    return !(event == nlohmann::json::parse_event_t::key && key.is_string() &&
             (key == "detail" || key == "evidence" || key == "fix"));
  };
  const auto document = nlohmann::json::parse(text, skip_text, false);
  if (document.is_discarded()) return tl::unexpected(std::string("not valid JSON"));
  return digest_report(document);
}

tl::expected<ReportDigest, std::string> load_report_digest(const std::filesystem::path& file) {
  std::ifstream stream(file, std::ios::binary);
  if (!stream) return tl::unexpected(file.string() + ": cannot open");
  // Whole-file reads parse several times faster than nlohmann's stream input.
  const std::string text{std::istreambuf_iterator<char>(stream), {}};
  auto digest = parse_report_digest(text);
  if (!digest) return tl::unexpected(file.string() + ": " + digest.error());
  digest->file = file.string();
  return digest;
}

}  // namespace rocm_doctor
