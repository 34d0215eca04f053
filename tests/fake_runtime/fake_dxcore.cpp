// A fake WSL libdxcore.so for tests only: exports DXCoreCreateAdapterFactory
// and answers through the documented IDXCoreAdapterFactory / IDXCoreAdapterList /
// IDXCoreAdapter vtables (dxcore_interface.h method order, IUnknown first, no
// virtual destructor), and misbehaves as ROCM_DOCTOR_FAKE_DXCORE asks:
//   rx9070 (default: an RX 9070 XT and Microsoft's software adapter), none (no
//   adapter), factory-fails, segv (in GetAdapterCount), hang (in CreateAdapterList).
// The adapter values are invented for the tests (the PCI ids are the real
// RX 9070 XT's, checks/data/pci_ids.json).
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

std::string_view mode() {
  const char* value = std::getenv("ROCM_DOCTOR_FAKE_DXCORE");
  return value != nullptr ? value : "rx9070";
}

using HResult = std::int32_t;
constexpr HResult kOk = 0;
constexpr HResult kInvalidArgument = static_cast<HResult>(0x80070057U);
constexpr HResult kNoInterface = static_cast<HResult>(0x80004002U);
constexpr HResult kNotFound = static_cast<HResult>(0x80070490U);

struct Guid {
  std::uint32_t a;
  std::uint16_t b;
  std::uint16_t c;
  std::uint8_t d[8];
};

bool same(const Guid& x, std::uint32_t first) {
  return x.a == first;
}
constexpr std::uint32_t kFactory = 0x78ee5945;
constexpr std::uint32_t kList = 0x526c7776;
constexpr std::uint32_t kAdapter = 0xf0db4c7f;

struct FakeAdapter {
  const char* description;
  std::uint32_t vendor, device, subsystem_device, subsystem_vendor, revision;
  std::uint64_t driver_version, dedicated, dedicated_system, shared;
  bool hardware, integrated;
};
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr FakeAdapter kAdapters[] = {
    {"AMD Radeon RX 9070 XT", 0x1002, 0x7550, 0x2410, 0x1002, 0xc0,
     (32ULL << 48) | (0ULL << 32) | (21013ULL << 16) | 1000ULL, 16 * kGiB - (80ULL << 20), 0, 16 * kGiB, true, false},
    {"Microsoft Basic Render Driver", 0x1414, 0x008c, 0x0000, 0x0000, 0x00,
     (10ULL << 48) | (0ULL << 32) | (26100ULL << 16) | 1ULL, 0, 0, 16 * kGiB, false, false},
};
constexpr std::uint32_t kAdapterCount = sizeof kAdapters / sizeof kAdapters[0];

// The documented vtable orders; unused methods answer as an idle adapter would.
struct Adapter {
  virtual HResult QueryInterface(const Guid&, void**) { return kNoInterface; }
  virtual std::uint32_t AddRef() { return 1; }
  virtual std::uint32_t Release() { return 0; }
  virtual bool IsValid() { return true; }
  virtual bool IsAttributeSupported(const Guid&) { return true; }
  virtual bool IsPropertySupported(std::uint32_t property) { return property <= 14; }
  virtual HResult GetProperty(std::uint32_t property, std::size_t size, void* data) {
    const auto& a = *info;
    const auto put = [&](const void* value, std::size_t bytes) {
      if (size < bytes) return kInvalidArgument;
      std::memcpy(data, value, bytes);
      return kOk;
    };
    switch (property) {
      case 1: return put(&a.driver_version, sizeof a.driver_version);
      case 2: return put(a.description, std::strlen(a.description) + 1);
      case 3: {
        const std::uint32_t id[4] = {a.vendor, a.device, (a.subsystem_device << 16) | a.subsystem_vendor, a.revision};
        return put(id, sizeof id);
      }
      case 7: return put(&a.dedicated, sizeof a.dedicated);
      case 8: return put(&a.dedicated_system, sizeof a.dedicated_system);
      case 9: return put(&a.shared, sizeof a.shared);
      case 11: return put(&a.hardware, sizeof a.hardware);
      case 12: return put(&a.integrated, sizeof a.integrated);
      case 14: {
        const std::uint32_t parts[5] = {a.vendor, a.device, a.subsystem_device, a.subsystem_vendor, a.revision};
        return put(parts, sizeof parts);
      }
      default: return kInvalidArgument;
    }
  }
  virtual HResult GetPropertySize(std::uint32_t property, std::size_t* size) {
    if (property != 2) return kInvalidArgument;
    *size = std::strlen(info->description) + 1;
    return kOk;
  }
  virtual bool IsQueryStateSupported(std::uint32_t) { return false; }
  virtual HResult QueryState(std::uint32_t, std::size_t, const void*, std::size_t, void*) { return kInvalidArgument; }
  virtual bool IsSetStateSupported(std::uint32_t) { return false; }
  virtual HResult SetState(std::uint32_t, std::size_t, const void*, std::size_t, const void*) {
    return kInvalidArgument;
  }
  virtual HResult GetFactory(const Guid&, void**) { return kNoInterface; }

  const FakeAdapter* info = nullptr;
};

Adapter g_adapters[kAdapterCount];

struct AdapterList {
  virtual HResult QueryInterface(const Guid&, void**) { return kNoInterface; }
  virtual std::uint32_t AddRef() { return 1; }
  virtual std::uint32_t Release() { return 0; }
  virtual HResult GetAdapter(std::uint32_t index, const Guid& iid, void** adapter) {
    if (!same(iid, kAdapter)) return kNoInterface;
    if (index >= GetAdapterCount()) return kInvalidArgument;
    g_adapters[index].info = &kAdapters[index];
    *adapter = &g_adapters[index];
    return kOk;
  }
  virtual std::uint32_t GetAdapterCount() {
    if (mode() == "segv") std::raise(SIGSEGV);
    return mode() == "none" ? 0 : kAdapterCount;
  }
  virtual bool IsStale() { return false; }
  virtual HResult GetFactory(const Guid&, void**) { return kNoInterface; }
  virtual HResult Sort(std::uint32_t, const std::uint32_t*) { return kOk; }
  virtual bool IsAdapterPreferenceSupported(std::uint32_t) { return true; }
};

AdapterList g_list;

struct AdapterFactory {
  virtual HResult QueryInterface(const Guid&, void**) { return kNoInterface; }
  virtual std::uint32_t AddRef() { return 1; }
  virtual std::uint32_t Release() { return 0; }
  virtual HResult CreateAdapterList(std::uint32_t count, const Guid* attributes, const Guid& iid, void** list) {
    if (mode() == "hang") {
      for (;;) ::pause();
    }
    if (count == 0 || attributes == nullptr) return kInvalidArgument;
    if (!same(iid, kList)) return kNoInterface;
    *list = &g_list;
    return kOk;
  }
  virtual HResult GetAdapterByLuid(const void*, const Guid&, void**) { return kNotFound; }
  virtual bool IsNotificationTypeSupported(std::uint32_t) { return false; }
  virtual HResult RegisterEventNotification(void*, std::uint32_t, void*, void*, std::uint32_t*) {
    return kInvalidArgument;
  }
  virtual HResult UnregisterEventNotification(std::uint32_t) { return kInvalidArgument; }
};

AdapterFactory g_factory;

}  // namespace

extern "C" __attribute__((visibility("default"))) HResult DXCoreCreateAdapterFactory(const Guid& iid, void** factory) {
  if (mode() == "factory-fails") return static_cast<HResult>(0x80004005U);  // E_FAIL
  if (!same(iid, kFactory)) return kNoInterface;
  *factory = &g_factory;
  return kOk;
}
