// The GPU inventory: KFD topology nodes (what ROCm sees, in ROCm's order)
// joined with the DRM cards and PCI functions (what the kernel sees).
#include "rocm_doctor/facts/gpu_inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "gpu_partitions.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

constexpr std::string_view kTopology = "/sys/class/kfd/kfd/topology/nodes";

// What the PCI and DRM sysfs say about one function.
struct PciFunction {
  std::string bdf;
  std::uint32_t vendor = 0;
  std::uint32_t device = 0;
  std::optional<std::uint32_t> subsystem_vendor;
  std::optional<std::uint32_t> subsystem_device;
  std::optional<std::uint32_t> revision;
  std::string driver;
};

struct DrmCard {
  std::string card;  // "card0"
  std::string bdf;
  std::optional<std::uint32_t> device;
  std::optional<std::uint32_t> revision;
  std::optional<std::uint32_t> subsystem_vendor;
  std::optional<std::uint32_t> subsystem_device;
  std::optional<std::uint64_t> vram_total;
  std::optional<std::uint64_t> vram_used;
  std::optional<int> numa_node;
};

std::optional<std::uint32_t> read_hex(const Host& host, const std::string& path) {
  auto text = host.read_trimmed(path);
  return text ? parse_hex_id(*text) : std::nullopt;
}

std::optional<std::uint64_t> read_dec(const Host& host, const std::string& path) {
  auto text = host.read_trimmed(path);
  return text ? parse_uint(*text) : std::nullopt;
}

std::vector<PciFunction> scan_pci(const Host& host) {
  std::vector<PciFunction> functions;
  auto entries = host.list_dir("/sys/bus/pci/devices");
  if (!entries) return functions;
  for (const auto& entry : *entries) {
    const std::string base = "/sys/bus/pci/devices/" + entry.name;
    PciFunction function;
    function.bdf = entry.name;
    function.vendor = read_hex(host, base + "/vendor").value_or(0);
    if (function.vendor != kb::kAmdPciVendor) continue;
    if (!is_gpu_class(host.read_trimmed(base + "/class").value_or(""))) continue;
    function.device = read_hex(host, base + "/device").value_or(0);
    function.subsystem_vendor = read_hex(host, base + "/subsystem_vendor");
    function.subsystem_device = read_hex(host, base + "/subsystem_device");
    function.revision = read_hex(host, base + "/revision");
    if (auto link = host.read_link(base + "/driver")) function.driver = std::string(link_basename(*link));
    functions.push_back(std::move(function));
  }
  return functions;
}

std::string card_bdf(const Host& host, const std::string& base) {
  if (auto link = host.read_link(base + "/device")) return std::string(link_basename(*link));
  if (auto uevent = host.read_file(base + "/device/uevent")) {
    const auto values = parse_env_file(*uevent);
    if (const auto it = values.find("PCI_SLOT_NAME"); it != values.end()) return it->second;
  }
  return "";
}

bool is_card_name(std::string_view name) {
  if (!name.starts_with("card") || name.size() == 4) return false;
  return std::all_of(name.begin() + 4, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<DrmCard> scan_drm(const Host& host) {
  std::vector<DrmCard> cards;
  auto entries = host.list_dir("/sys/class/drm");
  if (!entries) return cards;
  for (const auto& entry : *entries) {
    if (!is_card_name(entry.name)) continue;
    const std::string base = "/sys/class/drm/" + entry.name;
    if (read_hex(host, base + "/device/vendor").value_or(0) != kb::kAmdPciVendor) continue;
    DrmCard card;
    card.card = entry.name;
    card.bdf = card_bdf(host, base);
    card.device = read_hex(host, base + "/device/device");
    card.revision = read_hex(host, base + "/device/revision");
    card.subsystem_vendor = read_hex(host, base + "/device/subsystem_vendor");
    card.subsystem_device = read_hex(host, base + "/device/subsystem_device");
    card.vram_total = read_dec(host, base + "/device/mem_info_vram_total");
    card.vram_used = read_dec(host, base + "/device/mem_info_vram_used");
    if (auto numa = host.read_trimmed(base + "/device/numa_node")) {
      if (auto value = parse_int(*numa); value && *value >= 0) card.numa_node = static_cast<int>(*value);
    }
    cards.push_back(std::move(card));
  }
  return cards;
}

// One node's `properties`; a problem (unreadable, oversized, malformed) goes to
// `problems` rather than silently dropping or half-using the node.
std::optional<KfdNode> read_kfd_node(const Host& host, const std::string& name, int id,
                                     std::vector<InventoryIssue>& problems, std::vector<int>& closed) {
  const auto path = std::string(kTopology) + "/" + name + "/properties";
  auto text = host.read_file(path, kKfdPropertiesLimit);
  if (!text && text.error().kind == HostErrorKind::permission_denied) {
    closed.push_back(
        id);  // a GPU of another job: the device cgroup hides it (0444 files answer EPERM for nothing else)
    return std::nullopt;
  }
  if (!text) {
    // A node folder without properties is not something to report; anything else is.
    if (text.error().kind != HostErrorKind::not_found) {
      problems.push_back({fmt::format("KFD node {} properties cannot be read ({})", name, to_string(text.error().kind)),
                          path, text.error().message});
    }
    return std::nullopt;
  }
  auto node = parse_kfd_properties(id, *text);
  if (!node) {
    problems.push_back({fmt::format("KFD node {} properties hold no \"name number\" lines", name), path,
                        text->empty() ? std::string("empty") : "\"" + printable_excerpt(*text) + "\""});
    return std::nullopt;
  }
  if (auto problem = describe_kfd_node_problem(*node); !problem.empty()) {
    problems.push_back({fmt::format("KFD node {} properties: {}", name, problem), path,
                        node->malformed.empty()
                            ? fmt::format("gfx_target_version {}", node->get("gfx_target_version").value_or(0))
                            : "\"" + printable_excerpt(node->malformed.front()) + "\""});
  }
  return node;
}

std::vector<KfdNode> scan_kfd(const Host& host, bool& present, std::vector<InventoryIssue>& problems,
                              std::vector<int>& closed) {
  std::vector<KfdNode> nodes;
  auto entries = host.list_dir(kTopology);
  present = entries.has_value();
  if (!entries) return nodes;
  for (const auto& entry : *entries) {
    const auto id = parse_uint(entry.name);
    if (!id || *id > 0xffff) continue;  // KFD numbers nodes 0, 1, ...
    if (auto node = read_kfd_node(host, entry.name, static_cast<int>(*id), problems, closed)) {
      nodes.push_back(std::move(*node));
    }
  }
  std::sort(nodes.begin(), nodes.end(), [](const KfdNode& a, const KfdNode& b) { return a.node_id < b.node_id; });
  return nodes;
}

// Name, gfx facts and family from the knowledge base.
void describe_gpu(Gpu& gpu) {
  const auto& kb = kb::knowledge_base();
  if (const auto* row = kb.pci_device(gpu.device_id, gpu.revision)) {
    gpu.name = row->name;
    gpu.name_known = true;
    gpu.unified_memory = row->unified_memory;
    if (gpu.gfx.empty() && !row->gfx.empty()) {
      gpu.gfx = row->gfx;
      gpu.gfx_version = parse_gfx_name(row->gfx);
      gpu.gfx_source = "pci-id table";
    }
  } else {
    gpu.name = fmt::format("unknown AMD GPU (device 0x{:04x})", gpu.device_id);
  }
  if (const auto* target = gpu.gfx.empty() ? nullptr : kb.target(gpu.gfx)) {
    gpu.gfx_known = true;
    gpu.family = target->family;
    gpu.apu = target->apu;
  }
  if (gpu.unified_memory) gpu.apu = true;  // MI300A reports gfx942, as the discrete MI300X does
}

void apply_card(Gpu& gpu, const DrmCard& card) {
  gpu.card = card.card;
  gpu.vram_total = card.vram_total;
  gpu.vram_used = card.vram_used;
  gpu.numa_node = card.numa_node;
  if (!gpu.revision) gpu.revision = card.revision;
  if (!gpu.subsystem_vendor_id) gpu.subsystem_vendor_id = card.subsystem_vendor;
  if (!gpu.subsystem_device_id) gpu.subsystem_device_id = card.subsystem_device;
}

void apply_pci(Gpu& gpu, const PciFunction& function) {
  gpu.revision = function.revision;
  gpu.subsystem_vendor_id = function.subsystem_vendor;
  gpu.subsystem_device_id = function.subsystem_device;
  gpu.driver = function.driver;
}

Gpu gpu_from_node(const KfdNode& node, int index) {
  Gpu gpu;
  gpu.index = index;
  gpu.node_id = node.node_id;
  gpu.vendor_id = static_cast<std::uint32_t>(node.get("vendor_id").value_or(0));
  gpu.device_id = static_cast<std::uint32_t>(node.get("device_id").value_or(0));
  gpu.bdf = bdf_from_location(node.get("location_id").value_or(0), node.get("domain").value_or(0));
  if (const auto version = decode_gfx_target_version(node.get("gfx_target_version").value_or(0))) {
    gpu.gfx_version = version;
    gpu.gfx = gfx_name(*version);
    gpu.gfx_source = "kfd";
  }
  const auto simd = node.get("simd_count").value_or(0);
  const auto per_cu = node.get("simd_per_cu").value_or(0);
  if (simd > 0 && per_cu > 0) gpu.compute_units = static_cast<unsigned>(simd / per_cu);
  if (const auto minor = node.get("drm_render_minor"); minor && *minor > 0) {
    gpu.render_minor = static_cast<unsigned>(*minor);
  }
  if (const auto hive = node.get("hive_id"); hive && *hive != 0) gpu.hive_id = hive;
  gpu.kfd_unique_id = node.get("unique_id").value_or(0);
  gpu.kfd_location = node.get("location_id").value_or(0);
  gpu.kfd_domain = node.get("domain").value_or(0);
  if (const auto xcc = node.get("num_xcc"); xcc && *xcc > 0 && *xcc <= 64) gpu.xcc_count = static_cast<unsigned>(*xcc);
  return gpu;
}

std::string hex_id(std::uint32_t value) {
  return fmt::format("0x{:04x}", value);
}

void join_kfd(GpuInventory& inventory, const std::vector<KfdNode>& nodes, const std::vector<PciFunction>& pci,
              const std::vector<DrmCard>& cards) {
  int index = 0;
  for (const auto& node : nodes) {
    if (node.is_gpu()) inventory.gpus.push_back(gpu_from_node(node, index++));
  }
  // Partitions of one physical GPU take its PCI address before anything is matched by address.
  group_partitions(inventory);
  for (auto& gpu : inventory.gpus) {
    const std::string where = fmt::format("{}/{}/properties", kTopology, *gpu.node_id);
    if (const auto it = std::find_if(pci.begin(), pci.end(), [&](const auto& f) { return f.bdf == gpu.bdf; });
        it != pci.end()) {
      apply_pci(gpu, *it);
    }
    const auto card = std::find_if(cards.begin(), cards.end(), [&](const auto& c) { return c.bdf == gpu.bdf; });
    if (card == cards.end()) {
      if (!cards.empty()) {
        inventory.issues.push_back(
            {fmt::format("KFD node {} ({}) has no DRM card at that PCI address", *gpu.node_id, gpu.bdf), where,
             fmt::format("location_id {}", gpu.kfd_location)});
      }
    } else {
      apply_card(gpu, *card);
      // The card's memory is the whole GPU's: its first partition carries it, the physical GPU reports it.
      if (gpu.partition && gpu.partition->number != first_partition_number(inventory, gpu)) {
        gpu.vram_total.reset();
        gpu.vram_used.reset();
      }
      if (card->device && *card->device != gpu.device_id) {
        inventory.issues.push_back({fmt::format("KFD node {} says device {} but DRM {} at {} says {}", *gpu.node_id,
                                                hex_id(gpu.device_id), card->card, gpu.bdf, hex_id(*card->device)),
                                    where, fmt::format("device_id {} (decimal)", gpu.device_id)});
      }
    }
    describe_gpu(gpu);
  }
}

void add_pci_only(const Host& host, GpuInventory& inventory, const std::vector<PciFunction>& pci,
                  const std::vector<DrmCard>& cards) {
  const bool kfd_has_gpus = !inventory.gpus.empty();
  const auto pci_only = static_cast<std::size_t>(std::count_if(pci.begin(), pci.end(), [&](const PciFunction& f) {
    return std::none_of(inventory.gpus.begin(), inventory.gpus.end(), [&](const Gpu& gpu) { return gpu.bdf == f.bdf; });
  }));
  for (const auto& function : pci) {
    const bool in_kfd = std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                                    [&](const Gpu& gpu) { return gpu.index >= 0 && gpu.bdf == function.bdf; });
    if (in_kfd) continue;
    Gpu gpu;
    gpu.bdf = function.bdf;
    gpu.vendor_id = function.vendor;
    gpu.device_id = function.device;
    apply_pci(gpu, function);
    if (const auto card = std::find_if(cards.begin(), cards.end(), [&](const auto& c) { return c.bdf == gpu.bdf; });
        card != cards.end()) {
      apply_card(gpu, *card);
    }
    describe_gpu(gpu);
    const bool ours = function.driver.empty() || function.driver == "amdgpu";
    gpu.closed = ours && closed_by_device_cgroup(host, inventory, gpu.bdf, pci_only);
    if (kfd_has_gpus && ours && !gpu.closed) {
      inventory.issues.push_back(
          {fmt::format("{} at {} is on PCI but not in the KFD topology: ROCm cannot use it", gpu.name, gpu.bdf),
           "/sys/bus/pci/devices/" + gpu.bdf,
           "driver " + (function.driver.empty() ? std::string("none") : function.driver)});
    }
    inventory.gpus.push_back(std::move(gpu));
  }
}

nlohmann::ordered_json optional_json(const auto& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json optional_hex(const std::optional<std::uint32_t>& value) {
  return value ? nlohmann::ordered_json(hex_id(*value)) : nlohmann::ordered_json(nullptr);
}

}  // namespace

std::string Gpu::render_node() const {
  return render_minor ? fmt::format("/dev/dri/renderD{}", *render_minor) : std::string();
}

std::string Gpu::label() const {
  std::string text = index >= 0 ? fmt::format("GPU {} {}", index, name) : fmt::format("{} at {}", name, bdf);
  if (partition) text += fmt::format(" partition {} of {}", partition->number, partition->count);
  return text + " (" + (gfx.empty() ? std::string("unknown gfx") : gfx) + ")";
}

std::vector<const Gpu*> GpuInventory::kfd_gpus() const {
  std::vector<const Gpu*> out;
  for (const auto& gpu : gpus) {
    if (gpu.index >= 0) out.push_back(&gpu);
  }
  return out;
}

std::vector<const Gpu*> GpuInventory::pci_gpus() const {
  std::vector<const Gpu*> out;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto& gpu = gpus[i];
    // A partitioned GPU is one PCI function: its first partition stands for it.
    if (gpu.partition && physical[gpu.partition->physical].partitions.front() != i) continue;
    if (!gpu.driver.empty() || gpu.index < 0 || !gpu.card.empty()) out.push_back(&gpu);
  }
  return out;
}

nlohmann::ordered_json GpuInventory::to_json() const {
  auto list = nlohmann::ordered_json::array();
  for (const auto& gpu : gpus) {
    nlohmann::ordered_json row;
    row["index"] = gpu.index >= 0 ? nlohmann::ordered_json(gpu.index) : nlohmann::ordered_json(nullptr);
    row["kfd_node"] = optional_json(gpu.node_id);
    row["pci_address"] = gpu.bdf;
    row["vendor_id"] = hex_id(gpu.vendor_id);
    row["device_id"] = hex_id(gpu.device_id);
    row["subsystem_vendor_id"] = optional_hex(gpu.subsystem_vendor_id);
    row["subsystem_device_id"] = optional_hex(gpu.subsystem_device_id);
    row["revision_id"] = gpu.revision ? nlohmann::ordered_json(fmt::format("0x{:02x}", *gpu.revision)) : nullptr;
    row["name"] = gpu.name;
    row["name_known"] = gpu.name_known;
    row["gfx"] = gpu.gfx.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.gfx);
    row["gfx_source"] =
        gpu.gfx_source.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.gfx_source);
    row["gfx_known"] = gpu.gfx_known;
    row["family"] = gpu.family.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.family);
    row["integrated"] = gpu.apu;
    row["vram_total_bytes"] = optional_json(gpu.vram_total);
    row["vram_used_bytes"] = optional_json(gpu.vram_used);
    row["compute_units"] = optional_json(gpu.compute_units);
    row["render_node"] =
        gpu.render_node().empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.render_node());
    row["drm_card"] = gpu.card.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.card);
    row["numa_node"] = optional_json(gpu.numa_node);
    row["xgmi_hive_id"] = gpu.hive_id ? nlohmann::ordered_json(fmt::format("0x{:x}", *gpu.hive_id)) : nullptr;
    row["driver"] = gpu.driver.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(gpu.driver);
    row["partition"] = partition_json(gpu);
    row["closed"] = gpu.closed;
    list.push_back(std::move(row));
  }
  return list;
}

GpuInventory GpuInventory::collect(const CheckContext& ctx) {
  return collect(ctx.host());
}

GpuInventory GpuInventory::collect(const Host& host) {
  GpuInventory inventory;
  inventory.amdgpu_loaded = host.exists("/sys/module/amdgpu");
  const auto pci = scan_pci(host);
  const auto cards = scan_drm(host);
  const auto nodes = scan_kfd(host, inventory.kfd_present, inventory.kfd_problems, inventory.closed_kfd_nodes);
  inventory.kfd_node_count = static_cast<int>(nodes.size());
  join_kfd(inventory, nodes, pci, cards);
  describe_physical_gpus(inventory, host);
  add_pci_only(host, inventory, pci, cards);
  return inventory;
}

}  // namespace rocm_doctor
