// The report's `physical_gpus` section as rows for the formats that show partitions
// (text, Markdown, HTML, Prometheus): read from the JSON, so every format shows what the
// JSON report says and a hostile or older report only loses fields.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "render/formats.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::render_support {

namespace {

// A field as text: strings as they are, integers in decimal, anything else "".
std::string field_text(const nlohmann::json& object, const char* key) {
  const auto field = object.find(key);
  if (field == object.end()) return "";
  if (field->is_string()) return field->get<std::string>();
  if (field->is_number_integer()) return std::to_string(field->get<long long>());
  return "";
}

PartitionRow partition_row(const nlohmann::json& partition) {
  return {field_text(partition, "number"), field_text(partition, "index"), field_text(partition, "kfd_node"),
          field_text(partition, "render_node"), field_text(partition, "compute_units")};
}

PhysicalGpuRow physical_row(const nlohmann::json& gpu) {
  PhysicalGpuRow row;
  row.pci_address = field_text(gpu, "pci_address");
  row.name = field_text(gpu, "name");
  row.gfx = field_text(gpu, "gfx");
  row.compute_mode = field_text(gpu, "compute_partition");
  row.memory_mode = field_text(gpu, "memory_partition");
  row.expected_count = field_text(gpu, "expected_partition_count");
  if (const auto vram = gpu.find("vram_total_bytes"); vram != gpu.end() && vram->is_number()) {
    row.vram = fmt::format("{:.0f} GiB", vram->get<double>() / (1024.0 * 1024 * 1024));
  }
  if (const auto partitions = gpu.find("partitions"); partitions != gpu.end() && partitions->is_array()) {
    for (const auto& partition : *partitions) {
      if (partition.is_object()) row.partitions.push_back(partition_row(partition));
    }
  }
  return row;
}

}  // namespace

std::string PhysicalGpuRow::mode() const {
  if (compute_mode.empty() || memory_mode.empty()) return compute_mode + memory_mode;
  return compute_mode + "/" + memory_mode;
}

std::string PhysicalGpuRow::indices() const {
  std::vector<std::string> ranges;
  std::optional<std::int64_t> first;
  std::optional<std::int64_t> last;
  const auto close = [&] {
    if (first) ranges.push_back(*first == *last ? std::to_string(*first) : fmt::format("{}-{}", *first, *last));
  };
  for (const auto& partition : partitions) {
    const auto index = parse_int(partition.index);
    if (!index) continue;  // a partition ROCm does not number
    if (last && *index == *last + 1) {
      last = index;
      continue;
    }
    close();
    first = last = index;
  }
  close();
  return join(ranges, ",");
}

std::string PhysicalGpuRow::compute_units() const {
  if (partitions.empty()) return "";
  for (const auto& partition : partitions) {
    if (partition.compute_units != partitions.front().compute_units) return "";
  }
  return partitions.front().compute_units;
}

std::vector<PhysicalGpuRow> physical_gpu_rows(const Report& report) {
  std::vector<PhysicalGpuRow> rows;
  const auto it = report.sections.find("physical_gpus");
  if (it == report.sections.end() || !it->second.is_array()) return rows;
  for (const auto& gpu : it->second) {
    if (gpu.is_object()) rows.push_back(physical_row(gpu));
  }
  return rows;
}

bool any_partitioned(const std::vector<PhysicalGpuRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const auto& row) { return row.partitioned(); });
}

}  // namespace rocm_doctor::render_support
