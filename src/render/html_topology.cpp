// The HTML report's topology picture: NUMA nodes as boxes, each GPU below its node with its PCIe
// link, and one bar per XGMI hive joining its members. A partitioned GPU (issue 22) is one box
// holding a grid of its partitions, so that 8 GPUs in CPX mode stay 8 boxes wide.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "render/formats.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::render_support {

namespace {

constexpr int kGpuWidth = 130;
constexpr int kGap = 14;
constexpr int kGpuTop = 100;
constexpr int kGpuHeight = 56;
constexpr int kColumns = 4;  // partitions per row of the grid: CPX on 8 XCDs is 2 rows
constexpr int kCellWidth = 28;
constexpr int kCellHeight = 20;
constexpr int kCellGap = 3;
constexpr int kGridTop = 44;  // below the GPU's two lines of text

// One box under a NUMA node: a GPU, or a partitioned GPU with the rows of its partitions.
struct Box {
  std::vector<std::size_t> rows;
  const PhysicalGpuRow* physical = nullptr;  // set when partitioned
};

// The members of a NUMA node as boxes: consecutive partitions of one partitioned GPU share one.
std::vector<Box> boxes_of(const std::vector<std::size_t>& members, const std::vector<GpuRow>& rows,
                          const std::vector<PhysicalGpuRow>& physical) {
  std::vector<Box> boxes;
  for (const auto index : members) {
    const auto& row = rows[index];
    const PhysicalGpuRow* gpu = nullptr;
    const auto number = parse_uint(row.physical);
    if (number && *number < physical.size() && physical[*number].partitioned()) gpu = &physical[*number];
    if (gpu != nullptr && !boxes.empty() && boxes.back().physical == gpu) {
      boxes.back().rows.push_back(index);
      continue;
    }
    boxes.push_back({{index}, gpu});
  }
  return boxes;
}

int box_height(const Box& box) {
  if (box.physical == nullptr) return kGpuHeight;
  const int grid_rows = (static_cast<int>(box.rows.size()) + kColumns - 1) / kColumns;
  return kGridTop + grid_rows * (kCellHeight + kCellGap) + kCellGap;
}

std::string text_at(int x, int y, std::string_view text) {
  return fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, y, xml_escape(text));
}

// Each partition a small cell labelled with its HIP index; its title says the rest.
std::string partition_cells(const Box& box, const std::vector<GpuRow>& rows, int x) {
  std::string out;
  const int left = x + (kGpuWidth - (kColumns * (kCellWidth + kCellGap) - kCellGap)) / 2;
  for (std::size_t i = 0; i < box.rows.size(); ++i) {
    const auto& row = rows[box.rows[i]];
    const int cx = left + static_cast<int>(i % kColumns) * (kCellWidth + kCellGap);
    const int cy = kGpuTop + kGridTop + static_cast<int>(i / kColumns) * (kCellHeight + kCellGap);
    const std::string title = "GPU " + (row.index.empty() ? std::string("-") : row.index) + " · " +
                              (row.render_node.empty() ? std::string("no render node") : row.render_node);
    out += fmt::format(
        "<g class=\"partition\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" "
        "fill=\"{}\" stroke=\"#a33\"/>",
        xml_escape(title), cx, cy, kCellWidth, kCellHeight, row.index.empty() ? "#eee" : "#fff");
    out += text_at(cx + kCellWidth / 2, cy + 14, row.index.empty() ? "-" : row.index);
    out += "</g>\n";
  }
  return out;
}

std::string box_svg(const Box& box, const std::vector<GpuRow>& rows, int x) {
  const auto& first = rows[box.rows.front()];
  const int centre = x + kGpuWidth / 2;
  std::string out = fmt::format(
      "<line x1=\"{0}\" y1=\"50\" x2=\"{0}\" y2=\"{1}\" stroke=\"#5b7fa6\" stroke-width=\"2\"/>"
      "<text x=\"{2}\" y=\"78\">PCIe</text>\n",
      centre, kGpuTop, centre + 4);
  if (box.physical == nullptr) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\" fill=\"{}\" stroke=\"#a33\"/>\n", x,
                       kGpuTop, kGpuWidth, kGpuHeight, first.index.empty() ? "#eee" : "#fbe9e7");
    out += text_at(centre, kGpuTop + 18,
                   "GPU " + (first.index.empty() ? std::string("-") : first.index) + " " + first.gfx);
    out += text_at(centre, kGpuTop + 34, first.pci_address);
    return out + text_at(centre, kGpuTop + 50, first.vram);
  }
  const auto& gpu = *box.physical;
  const auto mode = gpu.mode();
  out += fmt::format(
      "<g class=\"physical-gpu\" data-pci-address=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\" "
      "fill=\"#fbe9e7\" stroke=\"#a33\"/>\n",
      xml_escape(gpu.pci_address), x, kGpuTop, kGpuWidth, box_height(box));
  out += fmt::format("<title>{}</title>\n", xml_escape(gpu.name + " " + gpu.gfx + " at " + gpu.pci_address));
  out += text_at(centre, kGpuTop + 16, gpu.pci_address);
  out += text_at(centre, kGpuTop + 32,
                 fmt::format("{} × {}", mode.empty() ? std::string("partitions") : mode, box.rows.size()));
  return out + partition_cells(box, rows, x) + "</g>\n";
}

}  // namespace

std::string topology_svg(const std::vector<GpuRow>& rows, const std::vector<PhysicalGpuRow>& physical) {
  std::map<std::string, std::vector<std::size_t>> by_numa;  // "" = unknown
  for (std::size_t i = 0; i < rows.size(); ++i) by_numa[rows[i].numa_node].push_back(i);
  std::map<std::string, std::vector<int>> hives;  // hive id -> GPU centre x
  std::string body;
  int x = kGap;
  int bottom = kGpuTop + kGpuHeight;
  for (const auto& [numa, members] : by_numa) {
    const auto boxes = boxes_of(members, rows, physical);
    const int width = static_cast<int>(boxes.size()) * (kGpuWidth + kGap) - kGap;
    body += fmt::format(
        "<rect x=\"{}\" y=\"10\" width=\"{}\" height=\"40\" rx=\"6\" fill=\"#e3ecf7\" stroke=\"#5b7fa6\"/>"
        "<text x=\"{}\" y=\"35\" text-anchor=\"middle\">{}</text>\n",
        x, width, x + width / 2,
        numa.empty() ? std::string("NUMA node unknown (CPU)") : "NUMA node " + xml_escape(numa) + " (CPU)");
    for (const auto& box : boxes) {
      body += box_svg(box, rows, x);
      bottom = std::max(bottom, kGpuTop + box_height(box));
      const auto& hive = rows[box.rows.front()].hive;
      if (!hive.empty()) hives[hive].push_back(x + kGpuWidth / 2);
      x += kGpuWidth + kGap;
    }
    x += kGap * 2;
  }
  int y = bottom + 30;
  for (const auto& [hive, centres] : hives) {
    for (const int centre : centres) {
      body += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#2e7d32\" stroke-width=\"3\"/>\n",
                          centre, bottom, y);
    }
    body += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#2e7d32\" stroke-width=\"3\"/>"
        "<text x=\"{}\" y=\"{}\">XGMI hive {} ({} GPUs, all-to-all)</text>\n",
        centres.front(), y, centres.back(), y, centres.front(), y + 16, xml_escape(hive), centres.size());
    y += 34;
  }
  const int width = std::max(x, 300);
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"GPU topology\" "
      "viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" style=\"max-width:100%;height:auto\">\n{2}</svg>\n",
      width, y + 4, body);
}

}  // namespace rocm_doctor::render_support
