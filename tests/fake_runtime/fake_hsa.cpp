// A fake HSA runtime for tests only: one CPU agent and the two GPU agents of
// the fake HIP runtime, with their gfx names and PCI locations.
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

struct Agent {
  std::uint32_t device_type;  // 0 CPU, 1 GPU
  const char* name;
  std::uint32_t bdfid;
  const char* isa;
};
constexpr Agent kAgents[] = {{0, "AMD Ryzen 9 7950X", 0, nullptr},
                             {1, "gfx1100", 0x03 << 8, "amdgcn-amd-amdhsa--gfx1100"},
                             {1, "gfx90a", 0x83 << 8, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"}};

struct Handle {
  std::uint64_t handle;
};

}  // namespace

extern "C" {

int hsa_init() {
  return 0;
}
int hsa_shut_down() {
  return 0;
}

int hsa_iterate_agents(int (*callback)(Handle, void*), void* data) {
  for (std::uint64_t i = 0; i < 3; ++i) {
    if (const int status = callback(Handle{i}, data); status != 0) return status == 1 ? 0 : status;
  }
  return 0;
}

int hsa_agent_get_info(Handle agent, int attribute, void* value) {
  const Agent& info = kAgents[agent.handle];
  switch (attribute) {
    case 0: std::snprintf(static_cast<char*>(value), 64, "%s", info.name); return 0;
    case 17: std::memcpy(value, &info.device_type, sizeof info.device_type); return 0;
    case 0xA006: std::memcpy(value, &info.bdfid, sizeof info.bdfid); return 0;
    default: return 0x1001;  // HSA_STATUS_ERROR_INVALID_ARGUMENT
  }
}

int hsa_agent_iterate_isas(Handle agent, int (*callback)(Handle, void*), void* data) {
  if (kAgents[agent.handle].isa == nullptr) return 0;
  return callback(Handle{agent.handle}, data) == 1 ? 0 : 0;
}

int hsa_isa_get_info_alt(Handle isa, int attribute, void* value) {
  const char* name = kAgents[isa.handle].isa;
  if (attribute == 0) {
    const auto length = static_cast<std::uint32_t>(std::strlen(name) + 1);
    std::memcpy(value, &length, sizeof length);
    return 0;
  }
  if (attribute == 1) {
    std::memcpy(value, name, std::strlen(name) + 1);
    return 0;
  }
  return 0x1001;
}

}  // extern "C"
