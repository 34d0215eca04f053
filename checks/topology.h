// `topology`: pure parsers and judgements behind the topology check (topology_parse.cpp,
// tested with tables), its data (checks/data/topology.json) and the findings on links
// between GPUs (topology_peers.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor::topology {

// The check's id, shared by its files (their findings' fixes re-run it).
inline constexpr std::string_view kCheckId = "topology";

// "16.0 GT/s PCIe" / "8 GT/s" -> GT/s; "Unknown" or garbage -> nullopt.
std::optional<double> parse_link_speed(std::string_view text);
// "16" -> 16; "0" (unknown) or garbage -> nullopt.
std::optional<unsigned> parse_link_width(std::string_view text);

struct LinkState {
  std::optional<double> speed, max_speed, upstream_max_speed;
  std::optional<unsigned> width, max_width, upstream_max_width;
};
struct LinkVerdict {
  bool width_degraded = false;    // below its own max and the upstream port's max
  bool speed_degraded = false;    // same, for the speed
  bool speed_maybe_idle = false;  // the speed is the idle (lowest) one: power saving can explain it
};
// Width strictly; speed below both capabilities, flagged as possibly idle at `idle_speed`.
LinkVerdict judge_link(const LinkState& link, double idle_speed);

// KFD io_links/<n>/properties or p2p_links/<n>/properties.
struct IoLink {
  unsigned type = 0;  // 2 = PCIe, 11 = XGMI
  int node_from = -1;
  int node_to = -1;
};
std::optional<IoLink> parse_io_link(std::string_view properties);

// Size of BAR 0 from a PCI `resource` file ("0x... 0x... 0x..." per BAR); nullopt when unset.
std::optional<std::uint64_t> parse_bar0_size(std::string_view resource);

enum class IommuMode { unknown, off, passthrough, translated };
// /sys/kernel/iommu_groups/<n>/type: "identity" -> passthrough, "DMA"/"DMA-FQ" -> translated.
IommuMode iommu_mode_from_group_type(std::string_view type);
// The last IOMMU switch on the kernel command line among `passthrough_args` (iommu=pt, amd_iommu=off, ...).
std::optional<std::string> cmdline_iommu_arg(std::string_view cmdline,
                                             const std::vector<std::string>& passthrough_args);

// Resolves a relative sysfs link target against the folder holding the link:
// ("/sys/bus/pci/devices", "../../../devices/pci0000:00/0000:00:01.1/0000:03:00.0") -> "/sys/devices/...".
std::string resolve_link(std::string_view folder, std::string_view target);
// "/sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0" -> "/sys/devices/pci0000:00/0000:00:01.1".
std::string parent_path(std::string_view path);

// checks/data/topology.json, parsed once.
struct TopologyData {
  std::map<unsigned, std::string> link_types;  // KFD io_link type -> "PCIe", "XGMI", ...
  double idle_speed = 2.5;                     // GT/s a link may idle at
  std::vector<std::string> passthrough_args;
  std::map<std::string, std::string> generations;  // "16.0" -> "PCIe 4.0"
};
const TopologyData& topology_data();

}  // namespace rocm_doctor::topology

// The findings on links between GPUs (topology_peers.cpp).
namespace rocm_doctor {
class CheckContext;
class Host;
struct Finding;
struct Gpu;
namespace topology {
std::optional<Finding> xgmi_finding(const std::vector<const Gpu*>& gpus);
std::optional<Finding> p2p_finding(const Host& host, const std::vector<const Gpu*>& gpus);
std::optional<Finding> rccl_finding(const CheckContext& ctx, std::size_t gpu_count);
}  // namespace topology
}  // namespace rocm_doctor
