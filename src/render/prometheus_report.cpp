// The report as node_exporter textfile-collector metrics (text exposition format 0.0.4).
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/node_config.h"
#include "render/formats.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

// Label values: backslash, double quote and line feed are escaped.
std::string label_value(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

using Labels = std::vector<std::pair<std::string_view, std::string>>;

std::string labels(const Labels& pairs) {
  if (pairs.empty()) return "";
  std::string out = "{";
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i > 0) out += ',';
    out += fmt::format("{}=\"{}\"", pairs[i].first, label_value(pairs[i].second));
  }
  return out + "}";
}

class Writer {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(std::string_view name, const Labels& pairs, double value) {
    out_ += fmt::format("{}{} {}\n", name, labels(pairs), value);
  }
  [[nodiscard]] std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

constexpr std::array<CheckStatus, 6> kStatuses = {CheckStatus::ok,      CheckStatus::info,
                                                  CheckStatus::warning, CheckStatus::error,
                                                  CheckStatus::skipped, CheckStatus::internal_error};

// Partition modes of the physical GPUs that have them (MI300-series; also SPX ones, so that the
// fleet's RocmDoctorPartitionModeDrift alert sees every mode). One series per PCI address: a
// repeated address (a corrupt snapshot) would be a duplicate series node_exporter rejects.
void partition_metrics(Writer& w, const Report& report) {
  std::vector<const render_support::PhysicalGpuRow*> gpus;
  std::set<std::string> addresses;
  const auto rows = render_support::physical_gpu_rows(report);
  for (const auto& row : rows) {
    if ((row.compute_mode.empty() && row.memory_mode.empty()) || !addresses.insert(row.pci_address).second) continue;
    gpus.push_back(&row);
  }
  if (gpus.empty()) return;
  w.family("rocm_doctor_gpu_partition_info", "gauge",
           "Compute and memory partition mode of one physical GPU (always 1).");
  for (const auto* gpu : gpus) {
    w.sample("rocm_doctor_gpu_partition_info",
             {{"pci_address", gpu->pci_address},
              {"name", gpu->name},
              {"gfx", gpu->gfx},
              {"compute_partition", gpu->compute_mode},
              {"memory_partition", gpu->memory_mode}},
             1);
  }
  w.family("rocm_doctor_gpu_partitions", "gauge", "Partitions (KFD GPUs) one physical GPU shows as to ROCm.");
  for (const auto* gpu : gpus) {
    w.sample("rocm_doctor_gpu_partitions", {{"pci_address", gpu->pci_address}, {"name", gpu->name}},
             static_cast<double>(gpu->partitions.size()));
  }
}

// The GPU health counters the `ras` and `pcie-aer` checks read from sysfs, taken back out of their
// counters findings' evidence (source: the sysfs file, value: what it said), so that a replayed
// report gives the same series (docs/report-format.md#prometheus).
const Finding* counters_finding(const Report& report, std::string_view check, std::string_view id) {
  for (const auto& result : report.checks) {
    if (result.id != check) continue;
    for (const auto& finding : result.findings) {
      if (finding.id == id) return &finding;
    }
  }
  return nullptr;
}

// ".../0000:c1:00.0/ras/umc_err_count" -> ("0000:c1:00.0", "ras/umc_err_count"): the last path
// component shaped like a PCI address, and what follows it.
std::optional<std::pair<std::string, std::string>> device_file(std::string_view path) {
  const auto parts = split(path, '/');
  for (std::size_t i = parts.size(); i-- > 0;) {
    const auto part = parts[i];
    if (part.size() == 12 && part[4] == ':' && part[7] == ':' && part[10] == '.') {
      std::string rest;
      for (std::size_t j = i + 1; j < parts.size(); ++j) rest += (rest.empty() ? "" : "/") + std::string(parts[j]);
      return std::pair{std::string(part), rest};
    }
  }
  return std::nullopt;
}

std::optional<double> parse_double(std::string_view text) {
  double value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> first_number(std::string_view text) {
  const auto start = text.find_first_of("0123456789");
  if (start == std::string_view::npos) return std::nullopt;
  auto end = text.find_first_not_of("0123456789.", start);
  return parse_double(text.substr(start, end == std::string_view::npos ? text.size() - start : end - start));
}

struct Series {
  std::string name;
  Labels labels;
  double value;
};

void ras_series(const Finding& finding, std::vector<Series>& out) {
  for (const auto& evidence : finding.evidence) {
    const auto file = device_file(evidence.source);
    if (!file) continue;
    const auto& [address, rest] = *file;
    if (rest.starts_with("ras/") && rest.ends_with("_err_count")) {
      const auto block = rest.substr(4, rest.size() - 4 - 10);
      for (const auto part : split(evidence.value, ',')) {
        const auto words = split_words(part);
        if (words.size() != 2) continue;
        if (const auto value = parse_double(words[1]))
          out.push_back({"rocm_doctor_gpu_ras_errors",
                         {{"pci_address", address}, {"block", block}, {"type", std::string(words[0])}},
                         *value});
      }
    } else if (rest == "ras/gpu_vram_bad_pages") {
      if (const auto value = first_number(evidence.value))
        out.push_back({"rocm_doctor_gpu_retired_pages", {{"pci_address", address}}, *value});
    } else if (rest == "mem_info_vram_total" || rest == "mem_info_vram_used") {
      if (const auto value = parse_double(evidence.value))
        out.push_back({"rocm_doctor_gpu_vram_bytes",
                       {{"pci_address", address}, {"kind", rest == "mem_info_vram_total" ? "total" : "used"}},
                       *value});
    }
  }
}

void aer_series(const Finding& finding, std::vector<Series>& out) {
  static const std::map<std::string, std::string> kAer = {
      {"aer_dev_fatal", "fatal"}, {"aer_dev_nonfatal", "nonfatal"}, {"aer_dev_correctable", "correctable"}};
  for (const auto& evidence : finding.evidence) {
    const auto file = device_file(evidence.source);
    if (!file) continue;
    const auto& [address, rest] = *file;
    if (const auto it = kAer.find(rest); it != kAer.end()) {
      const auto words = split_words(evidence.value);
      if (words.size() >= 2 && words[0].starts_with("TOTAL_ERR_")) {
        if (const auto value = parse_double(words[1]))
          out.push_back({"rocm_doctor_pcie_aer_errors", {{"pci_address", address}, {"severity", it->second}}, *value});
      }
    } else if (rest == "current_link_width" || rest == "max_link_width" || rest == "current_link_speed" ||
               rest == "max_link_speed") {
      const auto value = first_number(evidence.value);
      if (!value) continue;  // "Unknown" on a link that never trained
      const bool width = rest.ends_with("width");
      out.push_back({width ? "rocm_doctor_pcie_link_width" : "rocm_doctor_pcie_link_speed_gts",
                     {{"pci_address", address}, {"link", rest.starts_with("current") ? "current" : "max"}},
                     *value});
    }
  }
}

void health_metrics(Writer& w, const Report& report) {
  std::vector<Series> series;
  if (const auto* ras = counters_finding(report, "ras", "ras.counters")) ras_series(*ras, series);
  if (const auto* aer = counters_finding(report, "pcie-aer", "pcie.aer-counters")) aer_series(*aer, series);
  static const std::vector<std::pair<std::string_view, std::string_view>> kFamilies = {
      {"rocm_doctor_gpu_ras_errors", "RAS error count of one GPU block since the driver loaded (type ue, ce, de)."},
      {"rocm_doctor_gpu_retired_pages", "VRAM pages the GPU retired after memory errors (ras/gpu_vram_bad_pages)."},
      {"rocm_doctor_gpu_vram_bytes", "VRAM of one GPU (mem_info_vram_total, mem_info_vram_used)."},
      {"rocm_doctor_pcie_aer_errors", "PCIe AER errors of a GPU or the port above it since boot (TOTAL_ERR_*)."},
      {"rocm_doctor_pcie_link_width", "PCIe link width of a GPU, current or max (lanes)."},
      {"rocm_doctor_pcie_link_speed_gts", "PCIe link speed of a GPU, current or max (GT/s)."}};
  std::set<std::string> written;  // one series per label set (a repeated file would be a duplicate)
  for (const auto& [family, help] : kFamilies) {
    bool declared = false;
    for (const auto& one : series) {
      if (one.name != family || !written.insert(one.name + labels(one.labels)).second) continue;
      if (!declared) w.family(family, "gauge", help);
      declared = true;
      w.sample(family, one.labels, one.value);
    }
  }
}

// What the drift alerts compare across nodes, from the report's node_config
// (docs/fleet.md#prometheus): the kernel command line without the node's own
// parameters, and per GPU model each firmware version and PCIe link with how many GPUs have it.
void node_config_metrics(Writer& w, const Report& report) {
  const auto it = report.sections.find("node_config");
  if (it == report.sections.end() || !it->second.is_object()) return;
  const auto& config = it->second;
  if (const auto cmdline = config.find("kernel_cmdline"); cmdline != config.end() && cmdline->is_string()) {
    w.family("rocm_doctor_kernel_cmdline_info", "gauge",
             "The kernel command line without the node's own root, boot image and address parameters (always 1).");
    w.sample("rocm_doctor_kernel_cmdline_info",
             {{"cmdline", join(comparable_cmdline(cmdline->get<std::string>()), " ")}}, 1);
  }
  std::map<std::tuple<std::string, std::string, std::string>, int> firmware, links;
  const auto text = [](const nlohmann::ordered_json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
  };
  for (const auto& gpu : config.value("gpus", nlohmann::ordered_json::array())) {
    if (!gpu.is_object()) continue;
    const auto name = text(gpu, "name");
    if (auto vbios = text(gpu, "vbios_version"); !vbios.empty()) ++firmware[{name, "vbios", vbios}];
    const auto blocks = gpu.value("firmware", nlohmann::ordered_json::object());
    for (auto block = blocks.begin(); blocks.is_object() && block != blocks.end(); ++block)
      if (block->is_string()) ++firmware[{name, block.key(), block->get<std::string>()}];
    const auto pcie = gpu.value("pcie", nlohmann::ordered_json::object());
    if (pcie.is_object() && !text(pcie, "current_link_width").empty())
      ++links[{name, link_speed_label(text(pcie, "current_link_speed")),
               link_width_label(text(pcie, "current_link_width"))}];
  }
  if (!firmware.empty()) w.family("rocm_doctor_gpu_firmware", "gauge", "GPUs of a model running a firmware version.");
  for (const auto& [key, count] : firmware) {
    const auto& [name, component, version] = key;
    w.sample("rocm_doctor_gpu_firmware", {{"name", name}, {"component", component}, {"version", version}}, count);
  }
  if (!links.empty())
    w.family("rocm_doctor_gpu_pcie_links", "gauge", "GPUs of a model whose PCIe link runs at a speed and width.");
  for (const auto& [key, count] : links) {
    const auto& [name, speed, width] = key;
    w.sample("rocm_doctor_gpu_pcie_links", {{"name", name}, {"speed", speed}, {"width", width}}, count);
  }
}

}  // namespace

std::string render_prometheus(const Report& report) {
  Writer w;
  w.family("rocm_doctor_last_run_timestamp_seconds", "gauge", "Unix time of the rocm-doctor run.");
  w.sample("rocm_doctor_last_run_timestamp_seconds", {},
           static_cast<double>(render_support::parse_rfc3339(report.generated_at).value_or(0)));

  w.family("rocm_doctor_info", "gauge", "The rocm-doctor run: tool version, source and host facts (always 1).");
  w.sample("rocm_doctor_info",
           {{"version", report.tool_version},
            {"source", report.source},
            {"os", report.host.os},
            {"kernel", report.host.kernel}},
           1);

  if (!report.versions.empty()) {
    w.family("rocm_doctor_versions_info", "gauge",
             "Versions of the ROCm stack: the report's versions section as labels (always 1).");
    Labels versions;
    for (const auto& [key, value] : report.versions) versions.emplace_back(key, value);
    w.sample("rocm_doctor_versions_info", versions, 1);
  }

  const auto rows = render_support::gpu_rows(report);
  w.family("rocm_doctor_gpus", "gauge", "AMD GPUs found on PCI.");
  w.sample("rocm_doctor_gpus", {}, static_cast<double>(rows.size()));
  w.family("rocm_doctor_gpus_visible", "gauge", "AMD GPUs ROCm sees (listed by the KFD topology).");
  w.sample(
      "rocm_doctor_gpus_visible", {},
      static_cast<double>(std::count_if(rows.begin(), rows.end(), [](const auto& row) { return !row.index.empty(); })));
  if (!rows.empty()) {
    w.family("rocm_doctor_gpu_info", "gauge", "One AMD GPU (always 1).");
    for (const auto& row : rows) {
      w.sample("rocm_doctor_gpu_info",
               {{"pci_address", row.pci_address},
                {"index", row.index},
                {"name", row.name},
                {"gfx", row.gfx},
                {"numa_node", row.numa_node},
                {"xgmi_hive", row.hive}},
               1);
    }
  }

  partition_metrics(w, report);
  health_metrics(w, report);
  node_config_metrics(w, report);

  const auto counts = count_findings(report);
  w.family("rocm_doctor_findings", "gauge", "Findings of the run by severity.");
  w.sample("rocm_doctor_findings", {{"severity", "error"}}, counts.error);
  w.sample("rocm_doctor_findings", {{"severity", "warning"}}, counts.warning);
  w.sample("rocm_doctor_findings", {{"severity", "info"}}, counts.info);
  w.sample("rocm_doctor_findings", {{"severity", "ok"}}, counts.ok);
  w.family("rocm_doctor_worst_severity", "gauge", "Worst finding severity: 0 ok, 1 info, 2 warning, 3 error.");
  w.sample("rocm_doctor_worst_severity", {}, static_cast<int>(worst_severity(report)));

  // One series per distinct finding; the value counts repeats (e.g. one per GPU).
  std::map<std::tuple<std::string, std::string, std::string>, int> findings;
  for (const auto& check : report.checks) {
    for (const auto& finding : check.findings) {
      ++findings[{check.id, finding.id, std::string(to_string(finding.severity))}];
    }
  }
  w.family("rocm_doctor_finding", "gauge", "A finding of the run (value: how many times it was reported).");
  for (const auto& [key, count] : findings) {
    w.sample("rocm_doctor_finding",
             {{"check", std::get<0>(key)}, {"id", std::get<1>(key)}, {"severity", std::get<2>(key)}}, count);
  }

  // What is wrong, most likely first (docs/architecture.md#root-causes): 1 is the first root cause.
  w.family("rocm_doctor_root_cause", "gauge",
           "A root cause of the run: a warning or error no other finding explains (value: its rank, 1 first).");
  for (std::size_t rank = 0; rank < report.root_causes.size(); ++rank) {
    w.sample("rocm_doctor_root_cause", {{"id", report.root_causes[rank]}}, static_cast<double>(rank + 1));
  }

  w.family("rocm_doctor_check_status", "gauge", "Status of each check: 1 for its status, 0 for the others.");
  for (const auto& check : report.checks) {
    for (const auto status : kStatuses) {
      w.sample("rocm_doctor_check_status", {{"check", check.id}, {"status", std::string(to_string(status))}},
               check.status == status ? 1 : 0);
    }
  }
  w.family("rocm_doctor_check_duration_seconds", "gauge", "Wall time of each check.");
  for (const auto& check : report.checks) {
    w.sample("rocm_doctor_check_duration_seconds", {{"check", check.id}}, check.duration_ms / 1000.0);
  }
  return w.take();
}

}  // namespace rocm_doctor
