#include "core/node_config.h"

#include <algorithm>
#include <set>

#include "rocm_doctor/data_table.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

using OrderedJson = nlohmann::ordered_json;

// Values come from machine files: bounded and printable, like evidence.
constexpr std::size_t kMaxValueBytes = 120;
constexpr std::size_t kMaxCmdlineBytes = 4096;  // the kernel's COMMAND_LINE_SIZE on x86
constexpr std::size_t kMaxFirmwareFiles = 64;   // amdgpu has about 30 blocks

constexpr std::string_view kFleetBaselineFile = "fleet_baseline.json";

struct BaselineData {
  std::set<std::string, std::less<>> per_node_parameters;
  std::vector<std::string> key_environment;
};

tl::expected<BaselineData, std::string> read_fleet_baseline_table(data_table::TableReader& reader) {
  BaselineData data;
  auto parameters = reader.strings("per_node_cmdline_parameters");
  if (!parameters) return tl::unexpected(parameters.error());
  data.per_node_parameters.insert(parameters->begin(), parameters->end());
  auto environment = reader.at("key_environment");
  if (!environment) return tl::unexpected(environment.error());
  if (!environment->get().is_array()) return tl::unexpected(reader.error("key_environment", "must be a list"));
  for (const auto& row : environment->get()) {
    auto name = data_table::text_field(row, "name");
    if (name.empty()) return tl::unexpected(reader.error("key_environment", "a row has no name"));
    data.key_environment.push_back(std::move(name));
  }
  return data;
}

[[maybe_unused]] const bool kFleetBaselineLoaderRegistered =
    data_table::register_table_loader<BaselineData, &read_fleet_baseline_table>(kFleetBaselineFile);

// Parsed once per table text (overlays included).
const BaselineData& baseline_data() {
  return data_table::require(data_table::load<BaselineData, &read_fleet_baseline_table>(kFleetBaselineFile));
}

std::string shown_config_value(std::string_view text, std::size_t max_bytes = kMaxValueBytes) {
  return displayable(trim(text), max_bytes, false);
}

// A file's trimmed text, or null when it cannot be read or is empty.
OrderedJson file_value(const Host& host, const std::string& path) {
  const auto text = host.read_file(path, 4096);
  if (!text) return nullptr;
  auto value = shown_config_value(*text);
  return value.empty() ? OrderedJson(nullptr) : OrderedJson(std::move(value));
}

// fw_version/<block>_fw_version -> {"<block>": "0x..."}, in name order.
OrderedJson firmware_of(const Host& host, const std::string& device) {
  OrderedJson firmware = OrderedJson::object();
  const auto entries = host.list_dir(device + "/fw_version");
  if (!entries) return firmware;
  std::vector<std::string> names;
  for (const auto& entry : *entries) {
    if (entry.name.ends_with("_fw_version")) names.push_back(entry.name);
  }
  std::sort(names.begin(), names.end());
  if (names.size() > kMaxFirmwareFiles) names.resize(kMaxFirmwareFiles);
  for (const auto& name : names) {
    auto value = file_value(host, device + "/fw_version/" + name);
    if (!value.is_null()) firmware[name.substr(0, name.size() - std::string_view("_fw_version").size())] = value;
  }
  return firmware;
}

OrderedJson gpu_config(const Host& host, const Gpu& gpu) {
  const std::string device = "/sys/bus/pci/devices/" + gpu.bdf;
  OrderedJson pcie = OrderedJson::object();
  for (const char* file : {"current_link_speed", "current_link_width", "max_link_speed", "max_link_width"})
    pcie[file] = file_value(host, device + "/" + file);
  return {{"pci_address", gpu.bdf},
          {"name", gpu.name},
          {"vbios_version", file_value(host, device + "/vbios_version")},
          {"firmware", firmware_of(host, device)},
          {"pcie", pcie}};
}

OrderedJson environment_of(const Host& host) {
  OrderedJson environment = OrderedJson::object();
  for (const auto& name : key_environment_variables()) {
    if (auto value = host.env(name)) environment[name] = shown_config_value(*value);
  }
  return environment;
}

}  // namespace

const std::vector<std::string>& key_environment_variables() {
  return baseline_data().key_environment;
}

std::vector<std::string> comparable_cmdline(std::string_view cmdline) {
  std::set<std::string> parameters;
  std::string word;
  bool quoted = false;
  const auto flush = [&] {
    if (word.empty()) return;
    const auto name = std::string_view(word).substr(0, word.find('='));
    if (!baseline_data().per_node_parameters.contains(name)) parameters.insert(word);
    word.clear();
  };
  for (const char c : cmdline) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == ' ' || c == '\t' || c == '\n')) {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return {parameters.begin(), parameters.end()};
}

std::string link_speed_label(std::string_view text) {
  const auto words = split_words(trim(text));
  if (words.size() >= 2 && words[1] == "GT/s") return std::string(words[0]) + " GT/s";
  return std::string(trim(text));
}

std::string link_width_label(std::string_view text) {
  const auto width = trim(text);
  return width.empty() || width.starts_with('x') ? std::string(width) : "x" + std::string(width);
}

OrderedJson collect_node_config(const CheckContext& ctx) {
  const Host& host = ctx.host();
  OrderedJson gpus = OrderedJson::array();
  std::set<std::string> seen;
  // The GPUs of the inventory a check read: the report reads no GPU tree the checks
  // did not (so `--only os` lists none and its capture holds no PCI, DRM or KFD tree).
  if (const auto* inventory = ctx.computed_fact<GpuInventory>()) {
    for (const auto* gpu : inventory->pci_gpus()) {
      if (!gpu->bdf.empty() && seen.insert(gpu->bdf).second) gpus.push_back(gpu_config(host, *gpu));
    }
  }
  const auto cmdline = host.read_file("/proc/cmdline", kMaxCmdlineBytes);
  if (!cmdline && gpus.empty()) return nullptr;
  return {
      {"kernel_cmdline", cmdline ? OrderedJson(shown_config_value(*cmdline, kMaxCmdlineBytes)) : OrderedJson(nullptr)},
      {"environment", environment_of(host)},
      {"gpus", gpus}};
}

}  // namespace rocm_doctor
