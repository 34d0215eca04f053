// The text report's GPU table (issue 3): one line per GPU; a partitioned GPU (MI300-series in
// DPX/QPX/CPX mode, issue 22) on one line with its mode and partitions, so that 8 GPUs x 8
// partitions stay 8 lines; -v adds one line per partition.
#include <fmt/format.h>

#include <set>

#include "render/formats.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::render_support {

namespace {

// Machine text goes to a terminal: control characters become \xNN (as in text_report.cpp).
std::string shown(std::string_view text) {
  return displayable(text, std::string_view::npos, false);
}

std::string or_unknown(const std::string& text) {
  return text.empty() ? std::string("?") : shown(text);
}

// "  0  0000:03:00.0  gfx1031  AMD Radeon RX 6700 XT  12 GiB" (as before partitions were shown).
std::string gpu_line(const GpuRow& row) {
  std::string line = "  " + (row.index.empty() ? std::string("-") : shown(row.index)) + "  " +
                     or_unknown(row.pci_address) + "  " + or_unknown(row.gfx) + "  " + or_unknown(row.name);
  if (!row.vram.empty() && !row.integrated) line += "  " + row.vram;
  if (row.integrated) line += "  (integrated)";
  if (row.index.empty()) line += "  (not visible to ROCm)";
  return line + "\n";
}

// "7 partitions (the mode makes 8) of 38 CUs": what the mode implies only when it differs.
std::string partition_phrase(const PhysicalGpuRow& gpu) {
  const auto count = gpu.partitions.size();
  std::string phrase = fmt::format("{} partition{}", count, count == 1 ? "" : "s");
  if (!gpu.expected_count.empty() && gpu.expected_count != std::to_string(count)) {
    phrase += " (the mode makes " + shown(gpu.expected_count) + ")";
  }
  const auto cus = gpu.compute_units();
  if (!cus.empty()) phrase += " of " + shown(cus) + " CUs";
  return phrase;
}

// "  0-7  0000:05:00.0  gfx942  AMD Instinct MI300X  16 GiB  CPX/NPS1, 8 partitions of 38 CUs".
std::string physical_line(const PhysicalGpuRow& gpu) {
  const auto indices = gpu.indices();
  std::string line = "  " + (indices.empty() ? std::string("-") : indices) + "  " + or_unknown(gpu.pci_address) + "  " +
                     or_unknown(gpu.gfx) + "  " + or_unknown(gpu.name);
  if (!gpu.vram.empty()) line += "  " + gpu.vram;
  const auto mode = gpu.mode();
  return line + "  " + (mode.empty() ? std::string("partitioned") : shown(mode)) + ", " + partition_phrase(gpu) + "\n";
}

// "      partition 1: HIP 1  KFD node 3  /dev/dri/renderD129  38 CUs".
std::string partition_line(const PartitionRow& partition) {
  return "      partition " + or_unknown(partition.number) + ": HIP " +
         (partition.index.empty() ? std::string("-") : shown(partition.index)) + "  KFD node " +
         or_unknown(partition.kfd_node) + "  " + or_unknown(partition.render_node) + "  " +
         or_unknown(partition.compute_units) + " CUs\n";
}

}  // namespace

std::string text_gpu_table(const Report& report, Verbosity verbosity) {
  const auto rows = gpu_rows(report);
  if (rows.empty()) return "";
  const auto physical = physical_gpu_rows(report);
  std::set<std::string> shown_physical;  // a partitioned GPU is listed at its first partition
  std::string out = "GPUs:\n";
  for (const auto& row : rows) {
    const auto number = parse_uint(row.physical);
    if (!number || *number >= physical.size() || !physical[*number].partitioned()) {
      out += gpu_line(row);
      continue;
    }
    if (!shown_physical.insert(row.physical).second) continue;
    const auto& gpu = physical[*number];
    out += physical_line(gpu);
    if (verbosity != Verbosity::verbose) continue;
    for (const auto& partition : gpu.partitions) out += partition_line(partition);
  }
  return out + "\n";
}

}  // namespace rocm_doctor::render_support
