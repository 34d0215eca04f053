// The pure parsers and judgements of the `topology` check (topology.h): sysfs
// link speeds and widths, KFD io_links, BAR sizes, IOMMU modes and the GRUB
// command line, each tested with tables of cases.
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "rocm_doctor/text.h"
#include "table_loader.h"
#include "topology.h"

namespace rocm_doctor::topology {

namespace {

// "2" -> 2 (an io_link_types key); throws on anything else.
unsigned topology_link_type_number(const std::string& key) {
  const auto number = parse_uint(key);
  if (!number || *number > 0xffffffffU) throw std::invalid_argument("\"" + key + "\" is no link type number");
  return static_cast<unsigned>(*number);
}

// Throws "topology.json: KEY: what" on a missing or mistyped key or row field: the
// TableLoader makes it the error value.
TopologyData topology_data_from(data_table::TableReader& reader) {
  TopologyData d;
  d.link_types = check_tables::read_key(reader, "io_link_types", [](const nlohmann::json& types) {
    std::map<unsigned, std::string> names;
    for (const auto& [key, value] : types.items()) names[topology_link_type_number(key)] = value.get<std::string>();
    return names;
  });
  d.idle_speed = check_tables::value_of<double>(reader, "idle_link_speed_gts");
  d.passthrough_args = check_tables::value_of<std::vector<std::string>>(reader, "passthrough_args");
  d.generations = check_tables::value_of<std::map<std::string, std::string>>(reader, "pcie_generations");
  return d;
}

const check_tables::TableLoader<TopologyData, &topology_data_from> kTopologyTable("topology.json");

}  // namespace

const TopologyData& topology_data() {
  return kTopologyTable.get();
}

std::optional<double> parse_link_speed(std::string_view text) {
  const auto words = split_words(trim(text));
  if (words.size() < 2 || words[1] != "GT/s") return std::nullopt;
  const std::string number(words[0]);
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end == number.c_str() || *end != '\0' || !(value > 0)) return std::nullopt;
  return value;
}

std::optional<unsigned> parse_link_width(std::string_view text) {
  const auto value = parse_uint(trim(text));
  if (!value || *value == 0 || *value > 32) return std::nullopt;
  return static_cast<unsigned>(*value);
}

namespace {
bool below(std::optional<double> value, std::optional<double> limit) {
  return value && limit && *value + 0.01 < *limit;
}
bool below(std::optional<unsigned> value, std::optional<unsigned> limit) {
  return value && limit && *value < *limit;
}
}  // namespace

LinkVerdict judge_link(const LinkState& link, double idle_speed) {
  LinkVerdict verdict;
  // Below its own maximum, and below what the port above it offers (when that is readable):
  // a x16 card in a x4 slot is degraded only if the slot could do more.
  verdict.width_degraded =
      below(link.width, link.max_width) && (!link.upstream_max_width || below(link.width, link.upstream_max_width));
  verdict.speed_degraded =
      below(link.speed, link.max_speed) && (!link.upstream_max_speed || below(link.speed, link.upstream_max_speed));
  verdict.speed_maybe_idle = verdict.speed_degraded && link.speed && std::fabs(*link.speed - idle_speed) < 0.01;
  return verdict;
}

std::optional<IoLink> parse_io_link(std::string_view properties) {
  const auto values = parse_key_value_lines(properties);
  const auto get = [&](const char* key) -> std::optional<std::uint64_t> {
    const auto it = values.find(key);
    return it == values.end() ? std::nullopt : parse_uint(it->second);
  };
  const auto type = get("type");
  const auto from = get("node_from");
  const auto to = get("node_to");
  if (!type || !from || !to) return std::nullopt;
  return IoLink{static_cast<unsigned>(*type), static_cast<int>(*from), static_cast<int>(*to)};
}

std::optional<std::uint64_t> parse_bar0_size(std::string_view resource) {
  const auto rows = lines(resource);
  if (rows.empty()) return std::nullopt;
  const auto fields = split_words(rows.front());
  if (fields.size() < 2) return std::nullopt;
  const auto strip = [](std::string_view text) { return text.starts_with("0x") ? text.substr(2) : text; };
  const auto start = parse_uint(strip(fields[0]), 16);
  const auto end = parse_uint(strip(fields[1]), 16);
  if (!start || !end || *end <= *start) return std::nullopt;
  return *end - *start + 1;
}

IommuMode iommu_mode_from_group_type(std::string_view type) {
  const auto text = trim(type);
  if (text == "identity") return IommuMode::passthrough;
  if (text.starts_with("DMA")) return IommuMode::translated;
  return IommuMode::unknown;
}

std::optional<std::string> cmdline_iommu_arg(std::string_view cmdline,
                                             const std::vector<std::string>& passthrough_args) {
  std::optional<std::string> last;
  for (const auto word : split_words(trim(cmdline))) {
    for (const auto& arg : passthrough_args) {
      if (word == arg) last = arg;
    }
  }
  return last;
}

std::string resolve_link(std::string_view folder, std::string_view target) {
  std::vector<std::string> parts;
  const auto push = [&](std::string_view path) {
    for (const auto part : split(path, '/')) {
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (!parts.empty()) parts.pop_back();
      } else {
        parts.emplace_back(part);
      }
    }
  };
  if (!target.starts_with('/')) push(folder);
  push(target);
  return "/" + join(parts, "/");
}

std::string parent_path(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

}  // namespace rocm_doctor::topology
