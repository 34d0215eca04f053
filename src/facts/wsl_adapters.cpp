#include "rocm_doctor/facts/wsl_adapters.h"

#include <fmt/format.h>

#include <cstdlib>

#include "rocm_doctor/kb.h"

namespace rocm_doctor {

namespace {

std::optional<std::uint32_t> hex_field(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_string()) return std::nullopt;
  const auto text = it->get<std::string>();
  char* end = nullptr;
  const auto value = std::strtoul(text.c_str(), &end, 16);
  if (text.empty() || end == text.c_str() || *end != '\0' || value > 0xffffffffUL) return std::nullopt;
  return static_cast<std::uint32_t>(value);
}

std::optional<std::uint64_t> bytes_field(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::uint64_t>();
}

std::optional<bool> bool_field(const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

WslAdapter parse_adapter(const nlohmann::json& entry) {
  WslAdapter adapter;
  if (const auto it = entry.find("index"); it != entry.end() && it->is_number_integer()) adapter.index = it->get<int>();
  adapter.vendor_id = hex_field(entry, "vendor_id");
  adapter.device_id = hex_field(entry, "device_id");
  adapter.subsystem_vendor_id = hex_field(entry, "subsystem_vendor_id");
  adapter.subsystem_device_id = hex_field(entry, "subsystem_device_id");
  adapter.revision = hex_field(entry, "revision_id");
  if (const auto it = entry.find("description"); it != entry.end() && it->is_string())
    adapter.description = it->get<std::string>();
  if (const auto it = entry.find("driver_version"); it != entry.end() && it->is_string())
    adapter.driver_version = it->get<std::string>();
  adapter.dedicated_memory = bytes_field(entry, "dedicated_adapter_memory");
  adapter.dedicated_system_memory = bytes_field(entry, "dedicated_system_memory");
  adapter.shared_memory = bytes_field(entry, "shared_system_memory");
  adapter.hardware = bool_field(entry, "is_hardware");
  adapter.integrated = bool_field(entry, "is_integrated");
  if (adapter.amd() && adapter.device_id) {
    // The knowledge base throws only on a malformed compiled-in table (caught as the check's internal error).
    if (const auto* known = kb::knowledge_base().pci_device(*adapter.device_id, adapter.revision)) {
      adapter.name = known->name;
      adapter.gfx = known->gfx;
    }
  }
  return adapter;
}

nlohmann::ordered_json hex_or_null(const std::optional<std::uint32_t>& value, int width) {
  return value ? nlohmann::ordered_json(fmt::format("0x{:0{}x}", *value, width)) : nlohmann::ordered_json(nullptr);
}

template <typename T>
nlohmann::ordered_json json_or_null(const std::optional<T>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

bool WslAdapter::amd() const {
  return vendor_id == kb::kAmdPciVendor;
}

std::string WslAdapter::display_name() const {
  return name.empty() ? description : name;
}

std::optional<std::uint64_t> WslAdapter::usable_memory() const {
  if (!dedicated_memory && !shared_memory) return std::nullopt;
  return dedicated_memory.value_or(0) + dedicated_system_memory.value_or(0) + shared_memory.value_or(0);
}

WslAdapters parse_wsl_adapters(const std::optional<nlohmann::json>& outcome) {
  WslAdapters parsed;
  if (!outcome || !outcome->is_object()) {
    parsed.unavailable = "the dxcore probe did not run";
    return parsed;
  }
  const auto status = outcome->value("status", std::string("unknown"));
  const auto it = outcome->find("result");
  if (status != "ok" || it == outcome->end() || !it->is_object()) {
    parsed.unavailable = "the dxcore probe did not finish (" + status + ")";
    return parsed;
  }
  const auto& result = *it;
  const auto adapters = result.find("adapters");
  if (adapters == result.end() || !adapters->is_array()) {
    const auto library = result.value("library", nlohmann::json::object());
    if (library.is_object() && library.value("status", std::string()) != "loaded") {
      parsed.unavailable = "libdxcore.so did not load";
    } else if (result.contains("factory_status")) {
      parsed.unavailable = "DXCoreCreateAdapterFactory failed (" + result.value("factory_status", "") + ")";
    } else {
      parsed.unavailable = "DXCore listed no adapters (" + result.value("list_status", std::string("no list")) + ")";
    }
    return parsed;
  }
  for (const auto& entry : *adapters) {
    if (entry.is_object()) parsed.adapters.push_back(parse_adapter(entry));
  }
  return parsed;
}

WslAdapters WslAdapters::collect(const CheckContext& ctx) {
  return parse_wsl_adapters(ctx.host().probe("dxcore"));
}

nlohmann::ordered_json WslAdapters::gpu_rows() const {
  auto rows = nlohmann::ordered_json::array();
  for (const auto& adapter : adapters) {
    if (!adapter.amd()) continue;
    nlohmann::ordered_json row;
    row["index"] = nullptr;        // not a ROCm device number: DXCore's order is Windows'
    row["pci_address"] = nullptr;  // the VM has no PCI function for it
    row["vendor_id"] = hex_or_null(adapter.vendor_id, 4);
    row["device_id"] = hex_or_null(adapter.device_id, 4);
    row["subsystem_vendor_id"] = hex_or_null(adapter.subsystem_vendor_id, 4);
    row["subsystem_device_id"] = hex_or_null(adapter.subsystem_device_id, 4);
    row["revision_id"] = hex_or_null(adapter.revision, 2);
    row["name"] = adapter.display_name();
    row["name_known"] = !adapter.name.empty();
    row["gfx"] = adapter.gfx.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(adapter.gfx);
    row["gfx_source"] = adapter.gfx.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json("pci-id");
    row["integrated"] = json_or_null(adapter.integrated);
    row["vram_total_bytes"] = json_or_null(adapter.dedicated_memory);
    row["wsl"] = true;
    row["windows_adapter_index"] = adapter.index;
    row["windows_driver_version"] = adapter.driver_version.empty() ? nlohmann::ordered_json(nullptr)
                                                                   : nlohmann::ordered_json(adapter.driver_version);
    row["shared_memory_bytes"] = json_or_null(adapter.shared_memory);
    row["usable_memory_bytes"] = json_or_null(adapter.usable_memory());
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace rocm_doctor
