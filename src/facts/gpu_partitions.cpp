// Compute partitions of MI300-series GPUs. In DPX/QPX/CPX mode (TPX on MI300A) one physical GPU
// shows up as several KFD nodes: they share its unique_id, the function bits of their location_id
// number the partitions (1280, 1281, ...), and each has a render node, those after the first owned
// by amdgpu_xcp platform devices rather than PCI functions. The mode files sit in the PCI device
// folder of the physical GPU. Facts: Linux amdgpu_xcp.c / amdgpu_dev_attr (current_compute_partition,
// available_compute_partition, current_memory_partition, available_memory_partition) and the
// captures in ROCm/k8s-device-plugin testdata (topo-mi300-cpx, topology-parsing-mi308).
#include "gpu_partitions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

constexpr std::string_view kPciDevices = "/sys/bus/pci/devices/";

// What makes KFD nodes partitions of one GPU. A node without unique_id (older kernels) is a GPU of its own.
using GroupKey = std::tuple<std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t, int>;

GroupKey group_key(const Gpu& gpu) {
  if (gpu.kfd_unique_id == 0) return {0, gpu.device_id, gpu.kfd_domain, gpu.kfd_location, *gpu.node_id};
  return {gpu.kfd_unique_id, gpu.device_id, gpu.kfd_domain, gpu.kfd_location >> 3, -1};
}

std::string ascii_upper(std::string_view text) {
  std::string out(trim(text));
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

// A mode file holds a short upper-case word; anything else is not trusted as a mode.
std::string read_mode(const Host& host, const std::string& path) {
  auto text = host.read_trimmed(path);
  if (!text || text->empty() || text->size() > 16) return "";
  const auto mode = ascii_upper(*text);
  const bool word = std::all_of(mode.begin(), mode.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
  return word ? mode : "";
}

void note_shared_unique_ids(GpuInventory& inventory) {
  std::map<std::uint64_t, std::vector<std::size_t>> by_unique_id;
  for (std::size_t i = 0; i < inventory.physical.size(); ++i) {
    if (inventory.physical[i].unique_id != 0) by_unique_id[inventory.physical[i].unique_id].push_back(i);
  }
  for (const auto& [unique_id, physicals] : by_unique_id) {
    if (physicals.size() < 2) continue;
    for (const auto i : physicals) {
      std::vector<std::string> others;
      for (const auto j : physicals) {
        if (j != i) others.push_back(inventory.physical[j].bdf);
      }
      inventory.physical[i].inconsistencies.push_back(
          fmt::format("KFD unique_id {} is also that of the GPU(s) at {}", unique_id, join(others, ", ")));
    }
  }
}

void note_repeated_numbers(PhysicalGpu& physical, const std::vector<Gpu>& gpus) {
  std::map<unsigned, int> seen;
  for (const auto member : physical.partitions) ++seen[gpus[member].partition->number];
  for (const auto& [number, times] : seen) {
    if (times > 1) physical.inconsistencies.push_back(fmt::format("partition {} appears {} times", number, times));
  }
}

// The count the mode implies, else the count the XCDs per partition imply.
void expect_partitions(PhysicalGpu& physical, const std::vector<Gpu>& gpus) {
  if (!physical.compute_mode.empty()) {
    physical.expected_partitions = partitions_for_mode(physical.compute_mode, physical.xcds);
    if (physical.expected_partitions) {
      physical.expected_because = physical.compute_mode == "CPX"
                                      ? fmt::format("CPX mode, one partition per XCD ({} XCDs)", *physical.xcds)
                                      : physical.compute_mode + " mode";
    }
    return;
  }
  if (!physical.xcds || physical.partitions.empty()) return;
  const auto& first = gpus[physical.partitions.front()];
  if (!first.xcc_count || *physical.xcds % *first.xcc_count != 0) return;
  const bool same = std::all_of(physical.partitions.begin(), physical.partitions.end(),
                                [&](std::size_t i) { return gpus[i].xcc_count == first.xcc_count; });
  if (!same) return;
  physical.expected_partitions = *physical.xcds / *first.xcc_count;
  physical.expected_because = fmt::format("{} XCDs, {} per partition (KFD num_xcc)", *physical.xcds, *first.xcc_count);
}

}  // namespace

void group_partitions(GpuInventory& inventory) {
  std::map<GroupKey, std::size_t> physical_of;
  auto& gpus = inventory.gpus;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto key = group_key(gpus[i]);
    auto [it, added] = physical_of.emplace(key, inventory.physical.size());
    if (added) {
      PhysicalGpu physical;
      physical.device_id = gpus[i].device_id;
      physical.unique_id = gpus[i].kfd_unique_id;
      physical.bdf = gpus[i].bdf;
      inventory.physical.push_back(std::move(physical));
    }
    inventory.physical[it->second].partitions.push_back(i);
  }
  for (std::size_t p = 0; p < inventory.physical.size(); ++p) {
    auto& physical = inventory.physical[p];
    if (physical.partitions.size() < 2) continue;
    const auto& first = gpus[physical.partitions.front()];
    physical.bdf = bdf_from_location(first.kfd_location & ~std::uint64_t{7}, first.kfd_domain);
    for (const auto member : physical.partitions) {
      auto& gpu = gpus[member];
      gpu.bdf = physical.bdf;
      gpu.partition = GpuPartition{p, static_cast<unsigned>(gpu.kfd_location & 7),
                                   static_cast<unsigned>(physical.partitions.size()), ""};
    }
    std::stable_sort(physical.partitions.begin(), physical.partitions.end(), [&](std::size_t a, std::size_t b) {
      return gpus[a].partition->number < gpus[b].partition->number;
    });
    note_repeated_numbers(physical, gpus);
  }
  note_shared_unique_ids(inventory);
}

unsigned first_partition_number(const GpuInventory& inventory, const Gpu& gpu) {
  if (!gpu.partition) return 0;
  const auto& physical = inventory.physical[gpu.partition->physical];
  return inventory.gpus[physical.partitions.front()].partition->number;
}

void describe_physical_gpus(GpuInventory& inventory, const Host& host) {
  const auto& kb = kb::knowledge_base();
  for (std::size_t p = 0; p < inventory.physical.size(); ++p) {
    auto& physical = inventory.physical[p];
    const auto& first = inventory.gpus[physical.partitions.front()];
    physical.name = first.name;
    physical.gfx = first.gfx;
    physical.vram_total = first.vram_total;
    physical.vram_used = first.vram_used;
    if (const auto* row = kb.pci_device(physical.device_id, first.revision)) physical.xcds = row->xcds;
    const std::string base = std::string(kPciDevices) + physical.bdf + "/";
    physical.compute_mode = read_mode(host, base + "current_compute_partition");
    physical.memory_mode = read_mode(host, base + "current_memory_partition");
    if (auto text = host.read_trimmed(base + "available_compute_partition")) {
      physical.available_compute_modes = parse_partition_modes(*text);
    }
    if (auto text = host.read_trimmed(base + "available_memory_partition")) {
      physical.available_memory_modes = parse_partition_modes(*text);
    }
    expect_partitions(physical, inventory.gpus);
    if (!physical.partitioned()) continue;
    for (const auto member : physical.partitions) {
      auto& gpu = inventory.gpus[member];
      if (!gpu.partition) gpu.partition = GpuPartition{p, static_cast<unsigned>(gpu.kfd_location & 7), 1, ""};
      gpu.partition->mode = physical.compute_mode;
    }
  }
}

std::optional<unsigned> partitions_for_mode(std::string_view mode, std::optional<unsigned> xcds) {
  if (mode == "SPX") return 1;
  if (mode == "DPX") return 2;
  if (mode == "TPX") return 3;
  if (mode == "QPX") return 4;
  if (mode == "CPX") return xcds;
  return std::nullopt;
}

std::vector<std::string> parse_partition_modes(std::string_view text) {
  std::vector<std::string> modes;
  std::string current;
  const auto flush = [&] {
    if (!current.empty() && current.size() <= 16) modes.push_back(ascii_upper(current));
    current.clear();
  };
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      current += c;
    } else {
      flush();
    }
  }
  flush();
  return modes;
}

nlohmann::ordered_json partition_json(const Gpu& gpu) {
  if (!gpu.partition) return nullptr;
  return {{"physical_gpu", gpu.partition->physical},
          {"number", gpu.partition->number},
          {"count", gpu.partition->count},
          {"mode", gpu.partition->mode.empty() ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(gpu.partition->mode)}};
}

nlohmann::ordered_json GpuInventory::physical_json() const {
  auto list = nlohmann::ordered_json::array();
  for (const auto& physical : physical) {
    auto partitions = nlohmann::ordered_json::array();
    for (const auto member : physical.partitions) {
      const auto& gpu = gpus[member];
      partitions.push_back(
          {{"number", gpu.partition ? gpu.partition->number : 0u},
           {"index", gpu.index},
           {"kfd_node", gpu.node_id ? nlohmann::ordered_json(*gpu.node_id) : nlohmann::ordered_json(nullptr)},
           {"render_node",
            gpu.render_node().empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.render_node())},
           {"compute_units",
            gpu.compute_units ? nlohmann::ordered_json(*gpu.compute_units) : nlohmann::ordered_json(nullptr)}});
    }
    const auto text_or_null = [](const std::string& text) {
      return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
    };
    const auto optional = [](const auto& value) {
      return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
    };
    list.push_back(
        {{"pci_address", physical.bdf},
         {"device_id", fmt::format("0x{:04x}", physical.device_id)},
         {"name", physical.name},
         {"gfx", text_or_null(physical.gfx)},
         {"unique_id", physical.unique_id != 0 ? nlohmann::ordered_json(fmt::format("0x{:x}", physical.unique_id))
                                               : nlohmann::ordered_json(nullptr)},
         {"compute_partition", text_or_null(physical.compute_mode)},
         {"available_compute_partitions", physical.available_compute_modes},
         {"memory_partition", text_or_null(physical.memory_mode)},
         {"available_memory_partitions", physical.available_memory_modes},
         {"partition_count", physical.partitions.size()},
         {"expected_partition_count", optional(physical.expected_partitions)},
         {"vram_total_bytes", optional(physical.vram_total)},
         {"vram_used_bytes", optional(physical.vram_used)},
         {"partitions", std::move(partitions)}});
  }
  return list;
}

}  // namespace rocm_doctor
