// The pure parsers under the GPU inventory (gpu_inventory.h): KFD node
// properties, PCI ids and classes, link targets, and the printable excerpt of a
// hostile file, each tested with tables of cases.
#include <fmt/format.h>

#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

std::optional<std::uint64_t> KfdNode::get(std::string_view key) const {
  const auto it = values.find(std::string(key));
  return it == values.end() ? std::nullopt : std::optional(it->second);
}

bool KfdNode::is_gpu() const {
  // Kernels before 5.x write no gfx_target_version: such a node is a GPU (simd_count says so) whose
  // gfx comes from the PCI id table; a written 0 is a broken node (describe_kfd_node_problem).
  if (get("simd_count").value_or(0) == 0) return false;
  const auto version = get("gfx_target_version");
  // Without the line, only a clean file is an old kernel's: a truncated one is not half-used.
  return version ? decode_gfx_target_version(*version).has_value() : malformed_count == 0;
}

std::optional<KfdNode> parse_kfd_properties(int node_id, std::string_view text) {
  KfdNode node;
  node.node_id = node_id;
  for (const auto line : lines(text)) {
    if (trim(line).empty()) continue;
    const auto words = split_words(trim(line));
    const auto number = words.size() == 2 ? parse_uint(words[1]) : std::nullopt;
    if (number) {
      node.values.insert_or_assign(std::string(words[0]), *number);
      continue;
    }
    ++node.malformed_count;
    if (node.malformed.size() < KfdNode::kMaxMalformedKept) node.malformed.emplace_back(trim(line));
  }
  if (node.values.empty()) return std::nullopt;
  return node;
}

std::string describe_kfd_node_problem(const KfdNode& node) {
  if (node.malformed_count > 0) {
    return fmt::format("{} line(s) are not \"name number\" (KFD writes unsigned decimal numbers only)",
                       node.malformed_count);
  }
  const auto version = node.get("gfx_target_version");
  if (node.get("simd_count").value_or(0) > 0 && version && !decode_gfx_target_version(*version)) {
    return fmt::format("a GPU node (simd_count {}) with gfx_target_version {}, which is not a gfx version",
                       *node.get("simd_count"), *version);
  }
  return "";
}

std::string printable_excerpt(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (const char c : text) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", byte);
    }
  }
  return out;
}

std::string bdf_from_location(std::uint64_t location_id, std::uint64_t domain) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, (location_id >> 8) & 0xff, (location_id >> 3) & 0x1f,
                     location_id & 0x7);
}

std::optional<std::uint32_t> parse_hex_id(std::string_view text) {
  text = trim(text);
  if (!text.starts_with("0x") && !text.starts_with("0X")) return std::nullopt;
  auto value = parse_uint(text, 16);
  if (!value || *value > 0xffffffffULL) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

std::string_view link_basename(std::string_view target) {
  while (target.ends_with('/')) target.remove_suffix(1);
  const auto slash = target.rfind('/');
  return slash == std::string_view::npos ? target : target.substr(slash + 1);
}

bool is_gpu_class(std::string_view pci_class) {
  const auto value = parse_hex_id(pci_class);
  if (!value) return false;
  const auto base = (*value >> 16) & 0xff;
  return base == 0x03 || base == 0x12;
}

}  // namespace rocm_doctor
