#include <fmt/format.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "render/formats.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

struct FormatName {
  Format format;
  std::string_view name;
};

constexpr FormatName kFormats[] = {
    {Format::text, "text"},
    {Format::json, "json"},
    {Format::markdown, "markdown"},
    {Format::junit, "junit"},
    {Format::prometheus, "prometheus"},
    {Format::npd, "npd"},
    {Format::html, "html"},
};

}  // namespace

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const auto& entry : kFormats) result.emplace_back(entry.name);
    return result;
  }();
  return names;
}

std::optional<Format> parse_format(std::string_view name) {
  for (const auto& entry : kFormats) {
    if (entry.name == name) return entry.format;
  }
  return std::nullopt;
}

std::string_view to_string(Format format) {
  for (const auto& entry : kFormats) {
    if (entry.format == format) return entry.name;
  }
  return "text";
}

std::string render_report(const Report& report, Format format, const RenderOptions& options) {
  switch (format) {
    case Format::text: return render_text(report, options.color, options.verbosity);
    case Format::json: return render_json(report);
    case Format::markdown: return render_markdown(report, options);
    case Format::junit: return render_junit(report, options.fail_on);
    case Format::prometheus: return render_prometheus(report);
    case Format::npd: return render_npd(report, options.fail_on);
    case Format::html: return render_html(report);
  }
  return render_text(report, options.color, options.verbosity);
}

namespace render_support {

std::vector<GpuRow> gpu_rows(const Report& report) {
  std::vector<GpuRow> rows;
  const auto it = report.sections.find("gpus");
  if (it == report.sections.end() || !it->second.is_array()) return rows;
  for (const auto& gpu : it->second) {
    if (!gpu.is_object()) continue;
    const auto text = [&](const char* key) {
      const auto field = gpu.find(key);
      if (field == gpu.end()) return std::string();
      if (field->is_string()) return field->get<std::string>();
      if (field->is_number_integer()) return std::to_string(field->get<long long>());
      return std::string();
    };
    GpuRow row;
    row.index = text("index");
    row.pci_address = text("pci_address");
    row.name = text("name");
    row.gfx = text("gfx");
    row.family = text("family");
    row.numa_node = text("numa_node");
    row.hive = text("xgmi_hive_id");
    row.render_node = text("render_node");
    row.driver = text("driver");
    row.integrated = gpu.value("integrated", false);
    if (const auto partition = gpu.find("partition"); partition != gpu.end() && partition->is_object()) {
      const auto physical = partition->find("physical_gpu");
      if (physical != partition->end() && physical->is_number_unsigned())
        row.physical = std::to_string(physical->get<unsigned>());
    }
    if (const auto vram = gpu.find("vram_total_bytes"); vram != gpu.end() && vram->is_number()) {
      row.vram = fmt::format("{:.0f} GiB", vram->get<double>() / (1024.0 * 1024 * 1024));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n': out += "&#10;"; break;
      case '\t': out += "&#9;"; break;
      case '\r': out += "&#13;"; break;
      default:
        // XML 1.0 forbids the other C0 controls even as references.
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\xEF\xBF\xBD";  // U+FFFD
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string acceptance_note(const Finding& finding) {
  if (!finding.accepted) return "";
  const auto& accepted = *finding.accepted;
  return "Accepted by policy '" + accepted.policy + "' (was " + std::string(to_string(accepted.original_severity)) +
         "): " + accepted.reason;
}

std::string worth_tidying(std::size_t count) {
  return fmt::format("{} {} worth tidying", count, count == 1 ? "thing" : "things");
}

namespace {

std::string counted(std::size_t count, std::string_view word) {
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

// Causes and consequences apart: "1 problem (2 consequences)".
std::string problems_phrase(const Report& report) {
  std::size_t consequences = 0;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      if (finding.severity >= Severity::warning && !finding.caused_by.empty()) ++consequences;
    }
  }
  auto phrase = counted(report.root_causes.size(), "problem");
  if (consequences > 0) phrase += " (" + counted(consequences, "consequence") + ")";
  return phrase;
}

}  // namespace

std::string summary_line(const Report& report) {
  const auto counts = count_findings(report);
  std::vector<std::string> parts;
  if (!report.root_causes.empty()) parts.push_back(problems_phrase(report));
  if (!report.also.empty()) parts.push_back(worth_tidying(report.also.size()));
  if (counts.internal_error > 0) parts.push_back(counted(counts.internal_error, "check") + " failed internally");
  if (parts.empty())
    parts.emplace_back(counts.error + counts.warning == 0 ? "No problems found" : "Nothing stops ROCm here");
  std::vector<std::string> severities = {counted(counts.error, "error"), counted(counts.warning, "warning"),
                                         fmt::format("{} info", counts.info)};
  if (counts.skipped > 0) severities.push_back(fmt::format("{} skipped", counts.skipped));
  return join(parts, ", ") + " · " + join(severities, ", ") + ".";
}

std::vector<std::string> version_phrases(const Report& report) {
  const auto value = [&report](std::string_view key) -> std::string {
    for (const auto& [name, text] : report.versions) {
      if (name == key) return text;
    }
    return "";
  };
  std::vector<std::string> phrases;
  if (const auto rocm = value("rocm"); !rocm.empty()) {
    const auto packaging = value("rocm_packaging");
    phrases.push_back("ROCm " + rocm +
                      (packaging == "distribution" || packaging == "pip" ? " (" + packaging + ")" : ""));
  }
  const auto hip = value("hip");
  if (const auto shown = hip.empty() ? value("hip_runtime") : hip; !shown.empty()) phrases.push_back("HIP " + shown);
  // The dkms package's version when no out-of-tree module is loaded: say which.
  if (const auto amdgpu = value("amdgpu"); !amdgpu.empty()) {
    phrases.push_back((value("amdgpu_source") == "module" ? "amdgpu " : "amdgpu-dkms ") + amdgpu);
  }
  if (const auto torch = value("torch"); !torch.empty()) phrases.push_back("torch " + torch);
  return phrases;
}

std::optional<long long> parse_rfc3339(std::string_view text) {
  std::tm tm{};
  int year = 0;
  int month = 0;
  if (text.size() < 20) return std::nullopt;
  const std::string copy(text.substr(0, 19));
  if (std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &year, &month, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec) != 6) {
    return std::nullopt;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  return static_cast<long long>(::timegm(&tm));
}

}  // namespace render_support

}  // namespace rocm_doctor
