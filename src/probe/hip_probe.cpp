#include "probe/hip_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "probe/dl_library.h"
#include "probe/probe_steps.h"

namespace rocm_doctor::probe {

namespace {

// The HIP C ABI, declared here: the doctor never includes or links HIP.
using HipError = int;  // hipError_t
constexpr HipError kHipSuccess = 0;
// hipDeviceAttributeMultiprocessorCount: 63 in Debian's libamdhip64-dev 5.2.3
// and in ROCm/rocm-systems HEAD (7.x) hip_runtime_api.h (same enum order).
constexpr int kAttributeMultiprocessorCount = 63;
constexpr int kMemcpyHostToDevice = 1;
constexpr int kMemcpyDeviceToHost = 2;

struct HipApi {
  HipError (*runtime_get_version)(int*) = nullptr;
  HipError (*driver_get_version)(int*) = nullptr;
  HipError (*get_device_count)(int*) = nullptr;
  HipError (*set_device)(int) = nullptr;
  HipError (*device_get_attribute)(int*, int, int) = nullptr;
  HipError (*device_get_name)(char*, int, int) = nullptr;
  HipError (*device_get_pci_bus_id)(char*, int, int) = nullptr;
  const char* (*get_error_name)(HipError) = nullptr;
  const char* (*get_error_string)(HipError) = nullptr;
  HipError (*mem_get_info)(std::size_t*, std::size_t*) = nullptr;
  HipError (*malloc)(void**, std::size_t) = nullptr;
  HipError (*memcpy)(void*, const void*, std::size_t, int) = nullptr;
  HipError (*free)(void*) = nullptr;

  // The calls without which the probe says nothing useful.
  bool bind(DlLibrary& library) {
    const bool required = library.bind(runtime_get_version, "hipRuntimeGetVersion") &&
                          library.bind(get_device_count, "hipGetDeviceCount");
    library.bind(driver_get_version, "hipDriverGetVersion");
    library.bind(set_device, "hipSetDevice");
    library.bind(device_get_attribute, "hipDeviceGetAttribute");
    library.bind(device_get_name, "hipDeviceGetName");
    library.bind(device_get_pci_bus_id, "hipDeviceGetPCIBusId");
    library.bind(get_error_name, "hipGetErrorName");
    library.bind(get_error_string, "hipGetErrorString");
    library.bind(mem_get_info, "hipMemGetInfo");
    library.bind(malloc, "hipMalloc");
    library.bind(memcpy, "hipMemcpy");
    library.bind(free, "hipFree");
    return required;
  }

  [[nodiscard]] nlohmann::json error(const char* call, HipError code) const {
    nlohmann::json result = {{"call", call}, {"code", code}};
    if (get_error_name != nullptr) {
      if (const char* name = get_error_name(code)) result["name"] = name;
    }
    if (get_error_string != nullptr) {
      if (const char* text = get_error_string(code)) result["text"] = text;
    }
    return result;
  }
};

// The HSA runtime: the stable source of gfx names (with feature flags).
using HsaStatus = int;
struct HsaAgent {
  std::uint64_t handle;
};
struct HsaIsa {
  std::uint64_t handle;
};
constexpr int kHsaAgentInfoName = 0;           // HSA_AGENT_INFO_NAME, char[64]
constexpr int kHsaAgentInfoDevice = 17;        // HSA_AGENT_INFO_DEVICE
constexpr int kHsaDeviceTypeGpu = 1;           // HSA_DEVICE_TYPE_GPU
constexpr int kHsaAmdAgentInfoBdfid = 0xA006;  // HSA_AMD_AGENT_INFO_BDFID (hsa_ext_amd.h)
constexpr int kHsaIsaInfoNameLength = 0;
constexpr int kHsaIsaInfoName = 1;

struct HsaApi {
  HsaStatus (*init)() = nullptr;
  HsaStatus (*iterate_agents)(HsaStatus (*)(HsaAgent, void*), void*) = nullptr;
  HsaStatus (*agent_get_info)(HsaAgent, int, void*) = nullptr;
  HsaStatus (*agent_iterate_isas)(HsaAgent, HsaStatus (*)(HsaIsa, void*), void*) = nullptr;
  HsaStatus (*isa_get_info_alt)(HsaIsa, int, void*) = nullptr;
};

struct AgentScan {
  const HsaApi* api;
  nlohmann::json agents = nlohmann::json::array();
};

HsaStatus collect_isa(HsaIsa isa, void* data) {
  auto& scan = *static_cast<std::pair<const HsaApi*, std::vector<std::string>>*>(data);
  std::uint32_t length = 0;
  if (scan.first->isa_get_info_alt(isa, kHsaIsaInfoNameLength, &length) != 0 || length == 0 || length > 4096) return 0;
  std::string name(length + 1, '\0');
  if (scan.first->isa_get_info_alt(isa, kHsaIsaInfoName, name.data()) != 0) return 0;
  name.resize(std::strlen(name.c_str()));
  scan.second.push_back(name);
  return 0;
}

HsaStatus collect_agent(HsaAgent agent, void* data) {
  auto& scan = *static_cast<AgentScan*>(data);
  std::uint64_t device_type = 0;  // wide buffers: an enum is 4 bytes, never more
  if (scan.api->agent_get_info(agent, kHsaAgentInfoDevice, &device_type) != 0) return 0;
  if ((device_type & 0xffffffffU) != kHsaDeviceTypeGpu) return 0;
  char name[128] = {};
  scan.api->agent_get_info(agent, kHsaAgentInfoName, name);
  nlohmann::json entry = {{"name", std::string(name, strnlen(name, sizeof name))}};
  std::uint64_t bdf = 0;
  if (scan.api->agent_get_info(agent, kHsaAmdAgentInfoBdfid, &bdf) == 0) {
    const auto id = static_cast<std::uint32_t>(bdf);
    entry["pci_bus_id"] = fmt::format("{:02x}:{:02x}.{:x}", (id >> 8) & 0xff, (id >> 3) & 0x1f, id & 0x7);
  }
  if (scan.api->agent_iterate_isas != nullptr && scan.api->isa_get_info_alt != nullptr) {
    std::pair<const HsaApi*, std::vector<std::string>> isas{scan.api, {}};
    scan.api->agent_iterate_isas(agent, collect_isa, &isas);
    if (!isas.second.empty()) entry["isa"] = isas.second.front();
  }
  scan.agents.push_back(std::move(entry));
  return 0;
}

nlohmann::json probe_hsa() {
  mark_step("dlopen libhsa-runtime64");
  auto library = DlLibrary::load({"libhsa-runtime64.so.1", "libhsa-runtime64.so"}, rocm_library_folders());
  nlohmann::json result = {{"library", library.describe()}};
  HsaApi api;
  if (!library.loaded() || !library.bind(api.init, "hsa_init") ||
      !library.bind(api.iterate_agents, "hsa_iterate_agents") ||
      !library.bind(api.agent_get_info, "hsa_agent_get_info")) {
    result["library"] = library.describe();
    return result;
  }
  library.bind(api.agent_iterate_isas, "hsa_agent_iterate_isas");
  library.bind(api.isa_get_info_alt, "hsa_isa_get_info_alt");
  mark_step("hsa_init");
  if (const HsaStatus status = api.init(); status != 0) {
    result["init_status"] = fmt::format("0x{:x}", status);
    return result;
  }
  mark_step("hsa_iterate_agents");
  AgentScan scan{&api};
  api.iterate_agents(collect_agent, &scan);
  result["gpu_agents"] = std::move(scan.agents);
  return result;
}

nlohmann::json smoke_test(const HipApi& hip, int device, std::size_t bytes) {
  nlohmann::json result = {{"bytes", bytes}};
  if (hip.malloc == nullptr || hip.memcpy == nullptr || hip.free == nullptr || hip.set_device == nullptr) {
    result["ok"] = false;
    result["error"] = {{"call", "dlsym"}, {"text", "hipMalloc/hipMemcpy/hipFree/hipSetDevice missing"}};
    return result;
  }
  // A pattern that differs in every 8-byte word (catches swapped or dropped pages).
  std::vector<std::uint64_t> words(bytes / sizeof(std::uint64_t));
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = (i * 0x9E3779B97F4A7C15ULL) ^ 0xA5A5A5A5A5A5A5A5ULL;
  bytes = words.size() * sizeof(std::uint64_t);
  result["bytes"] = bytes;
  const auto* source = reinterpret_cast<const unsigned char*>(words.data());
  std::unique_ptr<unsigned char[]> back_buffer(new unsigned char[bytes]);
  auto* back = back_buffer.get();
  std::memset(back, 0, bytes);
  void* buffer = nullptr;
  const auto fail = [&](const char* call, HipError code) {
    result["ok"] = false;
    result["error"] = hip.error(call, code);
    if (buffer != nullptr) hip.free(buffer);
    return result;
  };
  mark_step("smoke hipSetDevice");
  if (const auto code = hip.set_device(device); code != kHipSuccess) return fail("hipSetDevice", code);
  mark_step("smoke hipMalloc");
  if (const auto code = hip.malloc(&buffer, bytes); code != kHipSuccess) return fail("hipMalloc", code);
  mark_step("smoke hipMemcpy host-to-device");
  if (const auto code = hip.memcpy(buffer, source, bytes, kMemcpyHostToDevice); code != kHipSuccess) {
    return fail("hipMemcpy(HostToDevice)", code);
  }
  mark_step("smoke hipMemcpy device-to-host");
  if (const auto code = hip.memcpy(back, buffer, bytes, kMemcpyDeviceToHost); code != kHipSuccess) {
    return fail("hipMemcpy(DeviceToHost)", code);
  }
  mark_step("smoke hipFree");
  hip.free(buffer);
  mark_step("smoke compare");
  if (std::memcmp(source, back, bytes) == 0) {
    result["ok"] = true;
    return result;
  }
  // Count differing bytes a 4 KiB block at a time (memcmp is fast even unoptimised).
  std::size_t mismatches = 0;
  std::optional<std::size_t> first;
  constexpr std::size_t kBlock = 4096;
  for (std::size_t block = 0; block < bytes; block += kBlock) {
    const auto size = std::min(kBlock, bytes - block);
    if (std::memcmp(source + block, back + block, size) == 0) continue;
    for (std::size_t i = block; i < block + size; ++i) {
      if (source[i] == back[i]) continue;
      ++mismatches;
      if (!first) first = i;
    }
  }
  result["ok"] = false;
  result["mismatched_bytes"] = mismatches;
  result["first_mismatch"] = first.value_or(0);
  return result;
}

nlohmann::json describe_hip_device(const HipApi& hip, int device) {
  nlohmann::json entry = {{"index", device}};
  char text[256] = {};
  mark_step(fmt::format("hipDeviceGetName({})", device));
  if (hip.device_get_name != nullptr && hip.device_get_name(text, sizeof text - 1, device) == kHipSuccess) {
    entry["name"] = std::string(text, strnlen(text, sizeof text));
  }
  std::memset(text, 0, sizeof text);
  mark_step(fmt::format("hipDeviceGetPCIBusId({})", device));
  if (hip.device_get_pci_bus_id != nullptr && hip.device_get_pci_bus_id(text, sizeof text - 1, device) == kHipSuccess) {
    entry["pci_bus_id"] = std::string(text, strnlen(text, sizeof text));
  }
  int units = 0;
  mark_step(fmt::format("hipDeviceGetAttribute({})", device));
  if (hip.device_get_attribute != nullptr &&
      hip.device_get_attribute(&units, kAttributeMultiprocessorCount, device) == kHipSuccess) {
    entry["compute_units"] = units;
  }
  mark_step(fmt::format("hipMemGetInfo({})", device));
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (hip.set_device != nullptr && hip.mem_get_info != nullptr && hip.set_device(device) == kHipSuccess &&
      hip.mem_get_info(&free_bytes, &total_bytes) == kHipSuccess) {
    entry["memory_total"] = total_bytes;
    entry["memory_free"] = free_bytes;
  }
  return entry;
}

// Gives each HIP device the gfx name of the HSA agent on the same PCI bus
// (else in order: HIP numbers the visible HSA GPU agents in order).
void attach_gfx(nlohmann::json& devices, const nlohmann::json& agents) {
  for (std::size_t i = 0; i < devices.size(); ++i) {
    auto& device = devices[i];
    const nlohmann::json* match = nullptr;
    const auto bus = device.value("pci_bus_id", std::string());
    for (const auto& agent : agents) {
      const auto agent_bus = agent.value("pci_bus_id", std::string());
      if (!bus.empty() && !agent_bus.empty() && bus.find(agent_bus) != std::string::npos) match = &agent;
    }
    if (match == nullptr && i < agents.size()) match = &agents[i];
    if (match == nullptr) continue;
    device["gfx"] = match->value("name", std::string());
    if (match->contains("isa")) device["isa"] = (*match)["isa"];
  }
}

}  // namespace

std::string hip_version_text(int version) {
  return fmt::format("{}.{}.{}", version / 10000000, (version / 100000) % 100, version % 100000);
}

nlohmann::json run_hip_probe(const HipProbeOptions& options) {
  mark_step("dlopen libamdhip64");
  auto library = DlLibrary::load({"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"},
                                 rocm_library_folders());
  HipApi hip;
  const bool usable = library.loaded() && hip.bind(library);
  nlohmann::json result = {{"library", library.describe()}, {"smoke_requested", options.smoke}};
  if (!usable) return result;

  int version = 0;
  mark_step("hipRuntimeGetVersion");
  if (const auto code = hip.runtime_get_version(&version); code == kHipSuccess) {
    result["runtime_version"] = version;
    result["runtime_version_text"] = hip_version_text(version);
  } else {
    result["runtime_version_error"] = hip.error("hipRuntimeGetVersion", code);
  }
  mark_step("hipDriverGetVersion");
  if (hip.driver_get_version != nullptr && hip.driver_get_version(&version) == kHipSuccess) {
    result["driver_version"] = version;
  }
  int count = 0;
  mark_step("hipGetDeviceCount");
  if (const auto code = hip.get_device_count(&count); code != kHipSuccess) {
    result["device_count_error"] = hip.error("hipGetDeviceCount", code);
    return result;
  }
  result["device_count"] = count;
  auto& devices = result["devices"] = nlohmann::json::array();
  for (int device = 0; device < count && device < 64; ++device) devices.push_back(describe_hip_device(hip, device));
  if (count > 0) {
    result["hsa"] = probe_hsa();
    if (result["hsa"].contains("gpu_agents")) attach_gfx(devices, result["hsa"]["gpu_agents"]);
  }
  if (options.smoke) {
    for (auto& device : devices) device["smoke"] = smoke_test(hip, device["index"].get<int>(), options.smoke_bytes);
  }
  mark_step("done");
  return result;
}

}  // namespace rocm_doctor::probe
