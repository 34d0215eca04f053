// The AMD GPUs of this machine: KFD topology joined with DRM and PCI sysfs.
// Shared by the gpu-arch and libraries checks and rendered as the report's `gpus`.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"
#include "rocm_doctor/kb.h"

namespace rocm_doctor {

// Where a KFD GPU sits on its physical GPU: MI300-series GPUs in DPX/QPX/CPX compute-partition mode
// show as several KFD nodes sharing one unique_id; each is a device of its own to ROCm.
struct GpuPartition {
  std::size_t physical = 0;  // index into GpuInventory::physical
  unsigned number = 0;       // partition number: the function bits of its KFD location_id
  unsigned count = 1;        // KFD GPUs its physical GPU shows as
  std::string mode;          // the physical GPU's compute-partition mode, "" when unknown
};

struct Gpu {
  int index = -1;              // ROCm device index (KFD GPU node order); -1 when not in KFD
  std::optional<int> node_id;  // KFD topology node number
  std::string bdf;             // "0000:03:00.0"
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::optional<std::uint32_t> subsystem_vendor_id;
  std::optional<std::uint32_t> subsystem_device_id;
  std::optional<std::uint32_t> revision;
  std::string name;  // marketing name, or "unknown AMD GPU (device 0x74ff)"
  bool name_known = false;
  std::string gfx;  // "gfx1031"; empty when unknown
  std::optional<GfxVersion> gfx_version;
  std::string gfx_source;                 // "kfd" or "pci-id table"
  bool gfx_known = false;                 // gfx is in the knowledge base
  std::string family;                     // "RDNA2"; empty when unknown
  bool apu = false;                       // integrated with the CPU (an APU)
  bool unified_memory = false;            // an APU whose GPU has the node's HBM (MI300A): never an iGPU to hide
  std::optional<GpuPartition> partition;  // set when its physical GPU is partitioned
  // From its KFD node, for grouping partitions: unique_id (0 when absent), location_id, domain, num_xcc.
  std::uint64_t kfd_unique_id = 0;
  std::uint64_t kfd_location = 0;
  std::uint64_t kfd_domain = 0;
  std::optional<unsigned> xcc_count;
  std::optional<std::uint64_t> vram_total;  // bytes
  std::optional<std::uint64_t> vram_used;
  std::optional<unsigned> compute_units;
  std::optional<unsigned> render_minor;
  std::string card;  // "card0"
  std::optional<int> numa_node;
  std::optional<std::uint64_t> hive_id;  // XGMI hive; nullopt when 0/absent
  std::string driver;                    // PCI driver bound ("amdgpu")
  // On this machine but closed to this process by its device cgroup (a Slurm
  // job's, a container's or a pod's): another job's GPU, not a broken one.
  bool closed = false;

  [[nodiscard]] std::string render_node() const;  // "/dev/dri/renderD128" or ""
  [[nodiscard]] std::string label() const;        // "GPU 0 AMD Radeon RX 6700 XT (gfx1031)"
  // A desktop-style integrated GPU that is better hidden behind a discrete one (not MI300A).
  [[nodiscard]] bool hideable_igpu() const { return apu && !unified_memory; }
};

// One physical GPU and the KFD GPUs (partitions) it shows as. Every KFD GPU belongs to one;
// an unpartitioned GPU has one partition.
struct PhysicalGpu {
  std::string bdf;  // its PCI function (that of its first partition; later ones have none)
  std::uint32_t device_id = 0;
  std::uint64_t unique_id = 0;  // KFD unique_id, 0 when KFD writes none
  std::string name;
  std::string gfx;
  std::string compute_mode;  // current_compute_partition ("CPX"), "" when the file is absent
  std::vector<std::string> available_compute_modes;
  std::string memory_mode;  // current_memory_partition ("NPS1"), "" when absent
  std::vector<std::string> available_memory_modes;
  std::vector<std::size_t> partitions;          // indices into GpuInventory::gpus, in partition order
  std::optional<unsigned> expected_partitions;  // what the mode (or the XCDs per partition) implies
  std::string expected_because;                 // "CPX mode, 8 XCDs (knowledge base)"
  std::optional<unsigned> xcds;                 // knowledge base
  std::optional<std::uint64_t> vram_total;      // the whole GPU's, from its DRM card
  std::optional<std::uint64_t> vram_used;
  // Partition numbers that appear more than once, or KFD nodes sharing the unique_id at another address.
  std::vector<std::string> inconsistencies;

  [[nodiscard]] bool partitioned() const {
    return partitions.size() > 1 || (!compute_mode.empty() && compute_mode != "SPX");
  }
};

// A disagreement between KFD, DRM and PCI.
struct InventoryIssue {
  std::string summary;
  std::string source;
  std::string value;
};

// KFD topology node `properties`, parsed.
struct KfdNode {
  int node_id = 0;
  std::map<std::string, std::uint64_t> values;
  // Lines that are not "name unsigned-number" (KFD writes nothing else), as
  // written, at most kMaxMalformedKept of them; malformed_count counts all.
  std::vector<std::string> malformed;
  std::size_t malformed_count = 0;
  static constexpr std::size_t kMaxMalformedKept = 3;
  [[nodiscard]] std::optional<std::uint64_t> get(std::string_view key) const;
  // simd_count > 0 and a gfx_target_version that decodes, or no such line in an otherwise clean
  // file (kernels before it existed write none: the gfx then comes from the PCI id table).
  [[nodiscard]] bool is_gpu() const;
};

struct GpuInventory {
  std::vector<Gpu> gpus;               // KFD GPUs in ROCm order, then GPUs only seen on PCI
  std::vector<PhysicalGpu> physical;   // the physical GPUs behind the KFD GPUs, in the order of their first node
  std::vector<InventoryIssue> issues;  // KFD/DRM/PCI disagreements
  // KFD node `properties` files that are unreadable, larger than
  // kKfdPropertiesLimit, or hold values KFD never writes (gpu.kfd-properties-invalid).
  std::vector<InventoryIssue> kfd_problems;
  bool kfd_present = false;    // /sys/class/kfd/kfd/topology/nodes readable
  bool amdgpu_loaded = false;  // /sys/module/amdgpu exists
  int kfd_node_count = 0;      // every node, CPU ones included
  // KFD nodes whose properties read EPERM: KFD hides a GPU whose render node the
  // process's device cgroup does not allow (drm/amdkfd "Check against device
  // cgroup", 2019); ROCm skips them and numbers the GPUs left from 0.
  std::vector<int> closed_kfd_nodes;

  [[nodiscard]] std::vector<const Gpu*> kfd_gpus() const;  // the GPUs ROCm sees
  [[nodiscard]] std::vector<const Gpu*> pci_gpus() const;  // every AMD GPU on PCI
  [[nodiscard]] nlohmann::ordered_json to_json() const;
  // The report's `physical_gpus`: each physical GPU with its partitions (docs/report-format.md).
  [[nodiscard]] nlohmann::ordered_json physical_json() const;

  static GpuInventory collect(const CheckContext& ctx);
  static GpuInventory collect(const Host& host);
};

// A KFD node `properties` file is about 1.5 KiB; reads stop at this bound, so a
// hostile or corrupt snapshot cannot make the doctor read megabytes.
inline constexpr std::size_t kKfdPropertiesLimit = 64 * 1024;

// Whether a GPU seen on PCI but not among the KFD nodes this process may read
// is one its device cgroup closes (device_confinement.cpp): its render node
// answers EPERM or is absent from /dev (a container given other GPUs), or, when
// its render node is unknown, there are at least as many closed KFD nodes as
// such GPUs.
bool closed_by_device_cgroup(const Host& host, const GpuInventory& inventory, const std::string& bdf,
                             std::size_t pci_only_gpus);

// Pure parsers (tested with tables).
std::optional<KfdNode> parse_kfd_properties(int node_id, std::string_view text);
// What is wrong with a parsed node, in words ("" when nothing): malformed lines,
// or a GPU node (SIMDs) whose gfx_target_version is 0 or not a gfx version.
std::string describe_kfd_node_problem(const KfdNode& node);
// Text safe to quote in a report: control and non-ASCII bytes as \xNN, at most max_chars.
std::string printable_excerpt(std::string_view text, std::size_t max_chars = 60);
// location_id + domain -> "0000:03:00.0" (bus = id >> 8, device = (id >> 3) & 0x1f, function = id & 7).
std::string bdf_from_location(std::uint64_t location_id, std::uint64_t domain);
// "0x744c\n" -> 0x744c.
std::optional<std::uint32_t> parse_hex_id(std::string_view text);
// Last path component of a sysfs link target ("../../../0000:03:00.0" -> "0000:03:00.0").
std::string_view link_basename(std::string_view target);
// PCI class display (0x03xxxx) or processing accelerator (0x12xxxx).
bool is_gpu_class(std::string_view pci_class);
// Partitions a compute-partition mode makes of a GPU with `xcds` accelerator dies: SPX 1, DPX 2,
// TPX 3, QPX 4, CPX one per XCD; nullopt for a mode it does not know or CPX without the XCD count.
std::optional<unsigned> partitions_for_mode(std::string_view mode, std::optional<unsigned> xcds);
// "SPX, DPX, QPX, CPX\n" -> {"SPX", "DPX", "QPX", "CPX"} (commas and/or spaces; upper-cased).
std::vector<std::string> parse_partition_modes(std::string_view text);

}  // namespace rocm_doctor
