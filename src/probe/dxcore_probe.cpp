#include "probe/dxcore_probe.h"

#include <fmt/format.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "probe/dl_library.h"
#include "probe/probe_steps.h"

namespace rocm_doctor::probe {

namespace {

// The DXCore ABI as Microsoft documents it (dxcore_interface.h), declared
// here: the doctor never includes Windows headers. A COM object is, as C sees
// it (dxcore's CINTERFACE), a pointer to a table of functions that take the
// object first: IUnknown's three, then the interface's in declared order
// (winadapter.h declares no virtual destructor). The probe calls through that
// table instead of declaring C++ classes for objects libdxcore made: their
// dynamic type is none of ours, which UBSan's vptr check rightly reports.
using HResult = std::int32_t;
struct Guid {
  std::uint32_t data1;
  std::uint16_t data2;
  std::uint16_t data3;
  std::uint8_t data4[8];
};

constexpr Guid kFactoryIid = {0x78ee5945, 0xc36e, 0x4b13, {0xa6, 0x69, 0x00, 0x5d, 0xd1, 0x1c, 0x0f, 0x06}};
constexpr Guid kListIid = {0x526c7776, 0x40e9, 0x459b, {0xb7, 0x11, 0xf3, 0x2a, 0xd7, 0x6d, 0xfc, 0x28}};
constexpr Guid kAdapterIid = {0xf0db4c7f, 0xfe5a, 0x42a2, {0xbd, 0x62, 0xf2, 0xa6, 0xcf, 0x6f, 0xc8, 0x3e}};
// DXCORE_ADAPTER_ATTRIBUTE_D3D12_CORE_COMPUTE: adapters that can run compute (what ROCm needs).
constexpr Guid kCoreCompute = {0x248e2800, 0xa793, 0x4724, {0xab, 0xaa, 0x23, 0xa6, 0xde, 0x1b, 0xe0, 0x90}};

enum class Property : std::uint32_t {
  driver_version = 1,
  driver_description = 2,
  hardware_id = 3,
  dedicated_adapter_memory = 7,
  dedicated_system_memory = 8,
  shared_system_memory = 9,
  is_hardware = 11,
  is_integrated = 12,
  hardware_id_parts = 14,
};

struct UnknownSlots {
  HResult (*query_interface)(void* self, const Guid* iid, void** object);
  std::uint32_t (*add_ref)(void* self);
  std::uint32_t (*release)(void* self);
};

struct AdapterSlots {
  UnknownSlots unknown;
  bool (*is_valid)(void* self);
  bool (*is_attribute_supported)(void* self, const Guid* attribute);
  bool (*is_property_supported)(void* self, Property property);
  HResult (*get_property)(void* self, Property property, std::size_t size, void* data);
  HResult (*get_property_size)(void* self, Property property, std::size_t* size);
};

struct AdapterListSlots {
  UnknownSlots unknown;
  HResult (*get_adapter)(void* self, std::uint32_t index, const Guid* iid, void** adapter);
  std::uint32_t (*get_adapter_count)(void* self);
};

struct AdapterFactorySlots {
  UnknownSlots unknown;
  HResult (*create_adapter_list)(void* self, std::uint32_t count, const Guid* attributes, const Guid* iid, void** list);
};

// One COM object the probe holds: released when it goes out of scope.
template <typename Slots>
class ComObject {
 public:
  explicit ComObject(void* object) : object_(object) {}
  ComObject(const ComObject&) = delete;
  ComObject& operator=(const ComObject&) = delete;
  ~ComObject() { slots().unknown.release(object_); }

  [[nodiscard]] const Slots& slots() const { return **static_cast<const Slots* const*>(object_); }
  [[nodiscard]] void* self() const { return object_; }

 private:
  void* object_;
};

using Adapter = ComObject<AdapterSlots>;

struct HardwareId {
  std::uint32_t vendor;
  std::uint32_t device;
  std::uint32_t subsystem;  // subsystem device << 16 | subsystem vendor
  std::uint32_t revision;
};
struct HardwareIdParts {
  std::uint32_t vendor;
  std::uint32_t device;
  std::uint32_t subsystem_device;
  std::uint32_t subsystem_vendor;
  std::uint32_t revision;
};

std::string hresult_text(HResult code) {
  return fmt::format("0x{:08x}", static_cast<std::uint32_t>(code));
}

std::string hex(std::uint32_t value, int width) {
  return fmt::format("0x{:0{}x}", value, width);
}

template <typename T>
bool read_property(const Adapter& adapter, Property property, T& value) {
  if (!adapter.slots().is_property_supported(adapter.self(), property)) return false;
  return adapter.slots().get_property(adapter.self(), property, sizeof value, &value) >= 0;
}

void read_ids(const Adapter& adapter, nlohmann::json& entry) {
  HardwareIdParts parts{};
  if (read_property(adapter, Property::hardware_id_parts, parts)) {
    entry["vendor_id"] = hex(parts.vendor, 4);
    entry["device_id"] = hex(parts.device, 4);
    entry["subsystem_vendor_id"] = hex(parts.subsystem_vendor, 4);
    entry["subsystem_device_id"] = hex(parts.subsystem_device, 4);
    entry["revision_id"] = hex(parts.revision, 2);
    return;
  }
  HardwareId id{};
  if (!read_property(adapter, Property::hardware_id, id)) return;
  entry["vendor_id"] = hex(id.vendor, 4);
  entry["device_id"] = hex(id.device, 4);
  entry["subsystem_vendor_id"] = hex(id.subsystem & 0xffffU, 4);
  entry["subsystem_device_id"] = hex(id.subsystem >> 16, 4);
  entry["revision_id"] = hex(id.revision, 2);
}

void read_description(const Adapter& adapter, nlohmann::json& entry) {
  std::size_t size = 0;
  const auto& slots = adapter.slots();
  if (!slots.is_property_supported(adapter.self(), Property::driver_description) ||
      slots.get_property_size(adapter.self(), Property::driver_description, &size) < 0 || size == 0 || size > 4096) {
    return;
  }
  std::vector<char> text(size + 1, '\0');
  if (slots.get_property(adapter.self(), Property::driver_description, size, text.data()) < 0) return;
  entry["description"] = std::string(text.data(), strnlen(text.data(), size));
}

nlohmann::json describe_adapter(const Adapter& adapter, std::uint32_t index) {
  nlohmann::json entry = {{"index", index}};
  mark_step(fmt::format("IDXCoreAdapter::GetProperty({})", index));
  read_ids(adapter, entry);
  read_description(adapter, entry);
  std::uint64_t version = 0;
  if (read_property(adapter, Property::driver_version, version)) {
    entry["driver_version"] = windows_driver_version_text(version);
  }
  const std::pair<Property, const char*> sizes[] = {{Property::dedicated_adapter_memory, "dedicated_adapter_memory"},
                                                    {Property::dedicated_system_memory, "dedicated_system_memory"},
                                                    {Property::shared_system_memory, "shared_system_memory"}};
  for (const auto& [property, key] : sizes) {
    std::uint64_t bytes = 0;
    if (read_property(adapter, property, bytes)) entry[key] = bytes;
  }
  bool flag = false;
  if (read_property(adapter, Property::is_hardware, flag)) entry["is_hardware"] = flag;
  if (read_property(adapter, Property::is_integrated, flag)) entry["is_integrated"] = flag;
  return entry;
}

}  // namespace

std::string windows_driver_version_text(std::uint64_t version) {
  return fmt::format("{}.{}.{}.{}", (version >> 48) & 0xffff, (version >> 32) & 0xffff, (version >> 16) & 0xffff,
                     version & 0xffff);
}

nlohmann::json run_dxcore_probe() {
  mark_step("dlopen libdxcore");
  // WSL's ld.so.conf.d names /usr/lib/wsl/lib; the folder is the fallback when it does not.
  auto library = DlLibrary::load({"libdxcore.so"}, {"/usr/lib/wsl/lib"});
  nlohmann::json result = {{"library", nullptr}};
  HResult (*create_factory)(const Guid*, void**) = nullptr;
  if (!library.loaded() || !library.bind(create_factory, "DXCoreCreateAdapterFactory")) {
    result["library"] = library.describe();
    return result;
  }
  result["library"] = library.describe();
  void* raw = nullptr;
  mark_step("DXCoreCreateAdapterFactory");
  if (const auto code = create_factory(&kFactoryIid, &raw); code < 0 || raw == nullptr) {
    result["factory_status"] = hresult_text(code);
    return result;
  }
  const ComObject<AdapterFactorySlots> factory(raw);
  raw = nullptr;
  mark_step("IDXCoreAdapterFactory::CreateAdapterList");
  const auto code = factory.slots().create_adapter_list(factory.self(), 1, &kCoreCompute, &kListIid, &raw);
  if (code < 0 || raw == nullptr) {
    result["list_status"] = hresult_text(code);
    return result;
  }
  const ComObject<AdapterListSlots> list(raw);
  mark_step("IDXCoreAdapterList::GetAdapterCount");
  const auto count = list.slots().get_adapter_count(list.self());
  result["adapter_count"] = count;
  auto& adapters = result["adapters"] = nlohmann::json::array();
  for (std::uint32_t index = 0; index < count && index < 64; ++index) {
    void* item = nullptr;
    mark_step(fmt::format("IDXCoreAdapterList::GetAdapter({})", index));
    if (list.slots().get_adapter(list.self(), index, &kAdapterIid, &item) < 0 || item == nullptr) continue;
    const Adapter adapter(item);
    adapters.push_back(describe_adapter(adapter, index));
  }
  mark_step("done");
  return result;
}

}  // namespace rocm_doctor::probe
