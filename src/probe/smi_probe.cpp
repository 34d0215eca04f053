#include "probe/smi_probe.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "probe/dl_library.h"
#include "probe/probe_steps.h"

namespace rocm_doctor::probe {

namespace {

// The rocm_smi C ABI, declared here (values from Debian's librocm-smi-dev 5.2.3
// rocm_smi.h; these enums are append-only in later releases).
using RsmiStatus = int;
constexpr int kTempTypeEdge = 0;       // RSMI_TEMP_TYPE_EDGE
constexpr int kTempTypeJunction = 1;   // RSMI_TEMP_TYPE_JUNCTION
constexpr int kTempTypeMemory = 2;     // RSMI_TEMP_TYPE_MEMORY
constexpr int kTempCurrent = 0;        // RSMI_TEMP_CURRENT
constexpr int kTempCritical = 5;       // RSMI_TEMP_CRITICAL
constexpr int kMemTypeVram = 0;        // RSMI_MEM_TYPE_VRAM
constexpr int kSwComponentDriver = 0;  // RSMI_SW_COMP_DRIVER
// RSMI_GPU_BLOCK_UMC (0x1) ... RSMI_GPU_BLOCK_FUSE (0x2000), one bit each.
constexpr std::array<std::pair<std::uint64_t, const char*>, 14> kEccBlocks = {{{0x1, "umc"},
                                                                               {0x2, "sdma"},
                                                                               {0x4, "gfx"},
                                                                               {0x8, "mmhub"},
                                                                               {0x10, "athub"},
                                                                               {0x20, "pcie_bif"},
                                                                               {0x40, "hdp"},
                                                                               {0x80, "xgmi_wafl"},
                                                                               {0x100, "df"},
                                                                               {0x200, "smn"},
                                                                               {0x400, "sem"},
                                                                               {0x800, "mp0"},
                                                                               {0x1000, "mp1"},
                                                                               {0x2000, "fuse"}}};

// The start of rsmi_gpu_metrics_t (metrics_table_header_t + the v1 fields up to the
// PCIe link); later releases only append. Read into a large zeroed buffer.
struct GpuMetricsPrefix {
  std::uint16_t structure_size;
  std::uint8_t format_revision;
  std::uint8_t content_revision;
  std::uint16_t temperatures[6];
  std::uint16_t activity[3];
  std::uint16_t average_socket_power;
  std::uint64_t energy_accumulator;
  std::uint64_t system_clock_counter;
  std::uint16_t average_clocks[7];
  std::uint16_t current_clocks[7];
  std::uint32_t throttle_status;
  std::uint16_t current_fan_speed;
  std::uint16_t pcie_link_width;
  std::uint16_t pcie_link_speed;  // 0.1 GT/s
};
static_assert(offsetof(GpuMetricsPrefix, throttle_status) == 68);

struct SmiApi {
  RsmiStatus (*init)(std::uint64_t) = nullptr;
  RsmiStatus (*num_devices)(std::uint32_t*) = nullptr;
  RsmiStatus (*status_string)(RsmiStatus, const char**) = nullptr;
  RsmiStatus (*version_str)(int, char*, std::uint32_t) = nullptr;
  RsmiStatus (*dev_name)(std::uint32_t, char*, std::size_t) = nullptr;
  RsmiStatus (*pci_id)(std::uint32_t, std::uint64_t*) = nullptr;
  RsmiStatus (*temp_metric)(std::uint32_t, std::uint32_t, int, std::int64_t*) = nullptr;
  RsmiStatus (*power_ave)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  RsmiStatus (*power_cap)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  RsmiStatus (*memory_total)(std::uint32_t, int, std::uint64_t*) = nullptr;
  RsmiStatus (*memory_usage)(std::uint32_t, int, std::uint64_t*) = nullptr;
  RsmiStatus (*ecc_count)(std::uint32_t, std::uint64_t, void*) = nullptr;
  RsmiStatus (*gpu_metrics)(std::uint32_t, void*) = nullptr;

  bool bind(DlLibrary& library) {
    const bool required = library.bind(init, "rsmi_init") && library.bind(num_devices, "rsmi_num_monitor_devices");
    library.bind(status_string, "rsmi_status_string");
    library.bind(version_str, "rsmi_version_str_get");
    library.bind(dev_name, "rsmi_dev_name_get");
    library.bind(pci_id, "rsmi_dev_pci_id_get");
    library.bind(temp_metric, "rsmi_dev_temp_metric_get");
    library.bind(power_ave, "rsmi_dev_power_ave_get");
    library.bind(power_cap, "rsmi_dev_power_cap_get");
    library.bind(memory_total, "rsmi_dev_memory_total_get");
    library.bind(memory_usage, "rsmi_dev_memory_usage_get");
    library.bind(ecc_count, "rsmi_dev_ecc_count_get");
    library.bind(gpu_metrics, "rsmi_dev_gpu_metrics_info_get");
    return required;
  }

  [[nodiscard]] nlohmann::json error(const char* call, RsmiStatus code) const {
    nlohmann::json result = {{"call", call}, {"code", code}};
    const char* text = nullptr;
    if (status_string != nullptr && status_string(code, &text) == 0 && text != nullptr) result["text"] = text;
    return result;
  }
};

nlohmann::json temperatures(const SmiApi& smi, std::uint32_t device) {
  nlohmann::json result = nlohmann::json::object();
  if (smi.temp_metric == nullptr) return result;
  const std::array<std::pair<int, const char*>, 3> sensors = {
      {{kTempTypeEdge, "edge"}, {kTempTypeJunction, "junction"}, {kTempTypeMemory, "memory"}}};
  for (const auto& [sensor, name] : sensors) {
    std::int64_t value = 0;
    if (smi.temp_metric(device, sensor, kTempCurrent, &value) != 0) continue;
    nlohmann::json entry = {{"current_mc", value}};
    if (smi.temp_metric(device, sensor, kTempCritical, &value) == 0) entry["critical_mc"] = value;
    result[name] = std::move(entry);
  }
  return result;
}

nlohmann::json ecc_counts(const SmiApi& smi, std::uint32_t device) {
  nlohmann::json result = nlohmann::json::object();
  if (smi.ecc_count == nullptr) return result;
  for (const auto& [block, name] : kEccBlocks) {
    // rsmi_error_count_t grew a field in later releases: a wide zeroed buffer.
    std::array<std::uint64_t, 8> counts{};
    if (smi.ecc_count(device, block, counts.data()) != 0) continue;
    result[name] = {{"correctable", counts[0]}, {"uncorrectable", counts[1]}};
  }
  return result;
}

void add_metrics(const SmiApi& smi, std::uint32_t device, nlohmann::json& entry) {
  if (smi.gpu_metrics == nullptr) return;
  alignas(8) std::array<unsigned char, 8192> buffer{};
  mark_step(fmt::format("rsmi_dev_gpu_metrics_info_get({})", device));
  if (smi.gpu_metrics(device, buffer.data()) != 0) return;
  GpuMetricsPrefix metrics{};
  std::memcpy(&metrics, buffer.data(), sizeof metrics);
  entry["metrics_format"] = fmt::format("{}.{}", metrics.format_revision, metrics.content_revision);
  entry["throttle_status"] = metrics.throttle_status;
  if (metrics.pcie_link_width != 0 && metrics.pcie_link_width != 0xffff) {
    entry["pcie"] = {{"width", metrics.pcie_link_width}, {"speed_gts", metrics.pcie_link_speed / 10.0}};
  }
}

nlohmann::json describe_smi_device(const SmiApi& smi, std::uint32_t device) {
  nlohmann::json entry = {{"index", device}};
  mark_step(fmt::format("rsmi device {}", device));
  char name[256] = {};
  if (smi.dev_name != nullptr && smi.dev_name(device, name, sizeof name - 1) == 0) entry["name"] = name;
  std::uint64_t value = 0;
  if (smi.pci_id != nullptr && smi.pci_id(device, &value) == 0) {
    entry["pci_bus_id"] = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", (value >> 32) & 0xffffffff, (value >> 8) & 0xff,
                                      (value >> 3) & 0x1f, value & 0x7);
  }
  entry["temperature"] = temperatures(smi, device);
  if (smi.power_ave != nullptr && smi.power_ave(device, 0, &value) == 0) entry["power_uw"] = value;
  if (smi.power_cap != nullptr && smi.power_cap(device, 0, &value) == 0) entry["power_cap_uw"] = value;
  if (smi.memory_total != nullptr && smi.memory_total(device, kMemTypeVram, &value) == 0) entry["vram_total"] = value;
  if (smi.memory_usage != nullptr && smi.memory_usage(device, kMemTypeVram, &value) == 0) entry["vram_used"] = value;
  mark_step(fmt::format("rsmi_dev_ecc_count_get({})", device));
  entry["ecc"] = ecc_counts(smi, device);
  add_metrics(smi, device, entry);
  return entry;
}

}  // namespace

nlohmann::json run_smi_probe() {
  nlohmann::json result = nlohmann::json::object();
  // amd-smi replaces rocm-smi from ROCm 6; its API is different, so it is only noted here.
  {
    auto amd_smi = DlLibrary::load({"libamd_smi.so"}, rocm_library_folders());
    if (amd_smi.loaded()) result["amd_smi_library"] = amd_smi.path();
  }
  mark_step("dlopen librocm_smi64");
  auto library = DlLibrary::load(
      {"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5", "librocm_smi64.so.1", "librocm_smi64.so"},
      rocm_library_folders());
  SmiApi smi;
  const bool usable = library.loaded() && smi.bind(library);
  result["library"] = library.describe();
  if (!usable) return result;

  mark_step("rsmi_init");
  if (const auto code = smi.init(0); code != 0) {
    result["init_error"] = smi.error("rsmi_init", code);
    return result;
  }
  char driver[256] = {};
  if (smi.version_str != nullptr && smi.version_str(kSwComponentDriver, driver, sizeof driver - 1) == 0) {
    result["driver_version"] = driver;
  }
  std::uint32_t count = 0;
  mark_step("rsmi_num_monitor_devices");
  if (const auto code = smi.num_devices(&count); code != 0) {
    result["device_count_error"] = smi.error("rsmi_num_monitor_devices", code);
    return result;
  }
  result["device_count"] = count;
  auto& devices = result["devices"] = nlohmann::json::array();
  for (std::uint32_t device = 0; device < count && device < 64; ++device)
    devices.push_back(describe_smi_device(smi, device));
  mark_step("done");
  return result;
}

}  // namespace rocm_doctor::probe
