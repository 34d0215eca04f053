// The pure parsers of the `driver` check (driver.h): the kernel command line,
// sysfs hex ids, and the PCI vendor knowledge (checks/data/pci_vendors.json),
// each tested with tables of cases.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "driver.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"
#include "table_loader.h"

namespace rocm_doctor::driver {

KernelCmdline parse_kernel_cmdline(std::string_view text) {
  KernelCmdline result;
  std::vector<std::string> words;
  std::string word;
  bool quoted = false;
  for (const char c : text) {
    if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && (c == ' ' || c == '\t' || c == '\n')) {
      if (!word.empty()) words.push_back(std::exchange(word, {}));
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  for (const auto& raw : words) {
    if (raw == "--") break;  // the rest belongs to init
    const auto equals = raw.find('=');
    std::string name = raw.substr(0, equals);
    std::replace(name.begin(), name.end(), '-', '_');  // the kernel treats them alike in names
    const std::string value = equals == std::string::npos ? "" : raw.substr(equals + 1);
    if (name == "nomodeset") {
      result.nomodeset = true;
      result.amdgpu_words.push_back(raw);
    } else if (name == "amdgpu.modeset") {
      if (const auto number = parse_int(value)) result.amdgpu_modeset = static_cast<int>(*number);
      result.amdgpu_words.push_back(raw);
    } else if (name == "modprobe.blacklist" || name == "module_blacklist") {
      for (const auto module : split(value, ',')) {
        if (module == "amdgpu") {
          result.amdgpu_blacklisted = true;
          result.amdgpu_words.push_back(raw);
        }
      }
    }
  }
  return result;
}

std::optional<std::uint32_t> parse_sysfs_hex(std::string_view text) {
  auto value = trim(text);
  if (value.starts_with("0x") || value.starts_with("0X")) value.remove_prefix(2);
  if (value.empty() || value.size() > 8) return std::nullopt;
  const auto number = parse_uint(value, 16);
  if (!number) return std::nullopt;
  return static_cast<std::uint32_t>(*number);
}

std::string hex4(std::uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%04x", value);
  return buffer;
}

std::string PciKnowledge::vendor_name(std::uint32_t vendor) const {
  const auto it = vendor_names.find(vendor);
  return it == vendor_names.end() ? "vendor 0x" + hex4(vendor) : it->second;
}

bool PciKnowledge::is_amd_gpu(std::uint32_t vendor, std::uint32_t pci_class) const {
  return vendor == kb::kAmdPciVendor && (is_display(pci_class) || amd_compute_classes.contains(pci_class >> 8));
}

namespace {

// {"0x1002": "AMD", ...} by id; a key that is no sysfs hex id throws (read_key names the key).
std::map<std::uint32_t, std::string> pci_names_by_id(const nlohmann::json& names) {
  std::map<std::uint32_t, std::string> result;
  for (const auto& [key, name] : names.items()) {
    const auto id = parse_sysfs_hex(key);
    if (!id) throw std::invalid_argument("\"" + key + "\" is no hex id");
    result[*id] = name.get<std::string>();
  }
  return result;
}

// Throws "pci_vendors.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
PciKnowledge pci_knowledge_from(data_table::TableReader& reader) {
  PciKnowledge knowledge;
  knowledge.vendor_names = check_tables::read_key(reader, "vendors", pci_names_by_id);
  const auto base = check_tables::value_of<std::string>(reader, "display_base_class");
  const auto base_class = parse_sysfs_hex(base);
  if (!base_class) throw std::invalid_argument(reader.error("display_base_class", "\"" + base + "\" is no hex id"));
  knowledge.display_base_class = *base_class;
  knowledge.amd_compute_classes = check_tables::read_key(reader, "amd_compute_classes", pci_names_by_id);
  return knowledge;
}

const check_tables::TableLoader<PciKnowledge, &pci_knowledge_from> kPciVendorsTable("pci_vendors.json");

}  // namespace

const PciKnowledge& pci_knowledge() {
  return kPciVendorsTable.get();
}

}  // namespace rocm_doctor::driver
