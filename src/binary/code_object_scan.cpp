// Scans one file for GPU code objects through the Host (rocm_doctor/code_objects.h):
// the ELF header and section table (<elf.h> structures), the `.hip_fatbin`
// section's bundles one header at a time, and of a compressed bundle only the
// prefix that holds its bundle header. Nothing is read whole.
#include <elf.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>

#include "rocm_doctor/code_objects.h"

namespace rocm_doctor::code_objects {

namespace {

// Bundles are read a header at a time: 16 KiB holds a bundle header or a compressed bundle's
// first bytes; the padding between bundles (to 4 KiB) is read through in such chunks too.
constexpr std::size_t kChunk = 16 * 1024;
constexpr std::size_t kEnoughHead = 4 * 1024;
constexpr std::size_t kMaxSections = 1U << 16;
constexpr std::size_t kMaxNameTable = 16U << 20;

struct Region {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

class Scanner {
 public:
  Scanner(const Host& host, std::string_view path, const Limits& limits, Scan& scan)
      : host_(host), path_(path), limits_(limits), scan_(scan) {}

  // The bytes [offset, offset + length) clipped to the file; counted against the read budget.
  HostResult<std::string> read(std::uint64_t offset, std::size_t length) {
    if (scan_.bytes_read + length > limits_.max_bytes_read) {
      return tl::unexpected(HostError{HostErrorKind::too_large, "read budget"});
    }
    auto bytes = host_.read_range(path_, offset, length);
    if (bytes) scan_.bytes_read += bytes->size();
    return bytes;
  }

  void fail(std::string problem) {
    if (scan_.problem.empty()) scan_.problem = std::move(problem);
  }

  // Where the code objects are: the whole file for a bundle, the .hip_fatbin section of an ELF.
  std::optional<Region> locate() {
    auto head = read(0, sizeof(Elf64_Ehdr));
    if (!head) {
      fail("cannot read the file's header: " + head.error().message);
      return std::nullopt;
    }
    if (head->starts_with(kBundleMagic)) {
      scan_.container = "offload bundle";
      return Region{0, scan_.file_size};
    }
    if (head->starts_with(kCompressedMagic)) {
      scan_.container = "compressed offload bundle";
      return Region{0, scan_.file_size};
    }
    if (!head->starts_with(ELFMAG)) {
      fail("neither an ELF file nor an offload bundle");
      return std::nullopt;
    }
    scan_.container = "ELF";
    if (head->size() < sizeof(Elf64_Ehdr)) {
      fail("the ELF header is cut off (" + std::to_string(head->size()) + " bytes)");
      return std::nullopt;
    }
    if ((*head)[EI_CLASS] != ELFCLASS64 || (*head)[EI_DATA] != ELFDATA2LSB) {
      return std::nullopt;  // 32-bit or big-endian: no HIP code here
    }
    Elf64_Ehdr header{};
    std::memcpy(&header, head->data(), sizeof header);
    return fatbin_section(header);
  }

  // Each bundle of the region, one header at a time.
  void walk(const Region& region) {
    std::uint64_t position = region.begin;
    while (position < region.end && scan_.problem.empty()) {
      if (scan_.bundles >= limits_.max_bundles) {
        fail("more than " + std::to_string(limits_.max_bundles) + " bundles: stopped");
        return;
      }
      auto found = next_magic(position, region.end);
      if (!found) return;
      position = found->first;
      std::string head = std::move(found->second);
      if (head.size() < kEnoughHead && position + head.size() < region.end) {
        auto again = read(position, static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, region.end - position)));
        if (!again) return fail("cannot read at offset " + std::to_string(position) + ": " + again.error().message);
        head = std::move(*again);
      }
      std::optional<std::uint64_t> length;
      if (head.starts_with(kBundleMagic)) {
        length = plain_bundle(head, position, region.end - position);
      } else {
        length = compressed_bundle(head, position, region.end - position);
      }
      if (!length && after_v1_) {
        // A version-1 compressed bundle gives no size: the magic found after it may lie inside
        // its compressed data (zstd keeps literals as they are). Not a bundle: search on.
        scan_.problem.clear();
        position += 1;
        continue;
      }
      if (!length) return;
      position += std::max<std::uint64_t>(*length, 1);
    }
  }

 private:
  std::optional<Region> fatbin_section(const Elf64_Ehdr& header) {
    if (header.e_shoff == 0) return std::nullopt;  // no section table (a stripped-down object)
    if (header.e_shentsize != sizeof(Elf64_Shdr)) {
      fail("ELF section headers of " + std::to_string(header.e_shentsize) + " bytes (expected 64)");
      return std::nullopt;
    }
    std::uint64_t count = header.e_shnum;
    std::uint64_t names_index = header.e_shstrndx;
    if (count == 0 || names_index == SHN_XINDEX) {
      // More than 0xff00 sections: the real numbers are in section 0.
      auto first = section_table(header.e_shoff, 1);
      if (first.empty()) return std::nullopt;
      if (count == 0) count = first[0].sh_size;
      if (names_index == SHN_XINDEX) names_index = first[0].sh_link;
    }
    if (count > kMaxSections) {
      fail("the ELF claims " + std::to_string(count) + " sections");
      return std::nullopt;
    }
    const auto sections = section_table(header.e_shoff, static_cast<std::size_t>(count));
    if (sections.empty()) return std::nullopt;
    if (names_index >= sections.size()) {
      fail("the ELF section-name table index " + std::to_string(names_index) + " is out of range");
      return std::nullopt;
    }
    const auto& names_section = sections[names_index];
    if (!inside_file(names_section.sh_offset, names_section.sh_size) || names_section.sh_size > kMaxNameTable) {
      fail("the ELF section-name table lies outside the file");
      return std::nullopt;
    }
    auto names = read(names_section.sh_offset, static_cast<std::size_t>(names_section.sh_size));
    if (!names) {
      fail("cannot read the ELF section names: " + names.error().message);
      return std::nullopt;
    }
    for (const auto& section : sections) {
      if (section.sh_name >= names->size()) continue;
      const char* name = names->data() + section.sh_name;
      const auto length = strnlen(name, names->size() - section.sh_name);
      if (std::string_view(name, length) != ".hip_fatbin") continue;
      scan_.container = "ELF .hip_fatbin";
      if (section.sh_type == SHT_NOBITS || !inside_file(section.sh_offset, section.sh_size)) {
        fail(".hip_fatbin lies outside the file (offset " + std::to_string(section.sh_offset) + ", size " +
             std::to_string(section.sh_size) + ", file " + std::to_string(scan_.file_size) + " bytes): truncated?");
        return std::nullopt;
      }
      return Region{section.sh_offset, section.sh_offset + section.sh_size};
    }
    return std::nullopt;
  }

  std::vector<Elf64_Shdr> section_table(std::uint64_t offset, std::size_t count) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(count) * sizeof(Elf64_Shdr);
    if (!inside_file(offset, bytes)) {
      fail("the ELF section table (offset " + std::to_string(offset) + ", " + std::to_string(count) +
           " entries) lies outside the file (" + std::to_string(scan_.file_size) + " bytes): truncated?");
      return {};
    }
    auto table = read(offset, static_cast<std::size_t>(bytes));
    if (!table || table->size() != bytes) {
      fail("cannot read the ELF section table");
      return {};
    }
    std::vector<Elf64_Shdr> sections(count);
    // An ELF with no sections: memcpy of nothing to a null data() is still undefined.
    if (bytes > 0) std::memcpy(sections.data(), table->data(), static_cast<std::size_t>(bytes));
    return sections;
  }

  [[nodiscard]] bool inside_file(std::uint64_t offset, std::uint64_t size) const {
    return offset <= scan_.file_size && size <= scan_.file_size - offset;
  }

  // The next bundle magic at or after `from` and the bytes read from there on,
  // reading forward in chunks (the padding between bundles).
  std::optional<std::pair<std::uint64_t, std::string>> next_magic(std::uint64_t from, std::uint64_t end) {
    constexpr std::size_t kOverlap = kBundleMagic.size() - 1;
    while (from < end) {
      auto chunk = read(from, static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, end - from)));
      if (!chunk) {
        fail("cannot read at offset " + std::to_string(from) + ": " + chunk.error().message);
        return std::nullopt;
      }
      if (chunk->empty()) return std::nullopt;
      const auto plain = chunk->find(kBundleMagic);
      const auto packed = chunk->find(kCompressedMagic);
      const auto hit = std::min(plain, packed);
      if (hit != std::string::npos) return std::pair{from + hit, chunk->substr(hit)};
      if (chunk->size() <= kOverlap) return std::nullopt;
      from += chunk->size() - kOverlap;
    }
    return std::nullopt;
  }

  void add_targets(const BundleHeader& header) {
    for (const auto& entry : header.entries) {
      if (auto target = target_of_entry(entry.id); !target.empty()) targets_.insert(std::move(target));
    }
  }

  // An uncompressed bundle at `position`; its length, or nullopt after a problem.
  std::optional<std::uint64_t> plain_bundle(std::string head, std::uint64_t position, std::uint64_t room) {
    auto header = parse_bundle_header(head, room, limits_);
    if (!header && head.size() < room && head.size() >= kBundleMagic.size() + 8) {
      // A header longer than the first chunk (many entries): read exactly what it can need.
      const std::uint64_t most = kBundleMagic.size() + 8 + limits_.max_entries * (24 + limits_.max_id_bytes);
      auto longer = read(position, static_cast<std::size_t>(std::min(room, most)));
      if (longer) header = parse_bundle_header(*longer, room, limits_);
    }
    if (!header) {
      fail("bundle at offset " + std::to_string(position) + ": " + header.error());
      return std::nullopt;
    }
    ++scan_.bundles;
    add_targets(*header);
    after_v1_ = false;
    return header->end;
  }

  std::optional<std::uint64_t> compressed_bundle(const std::string& head, std::uint64_t position, std::uint64_t room) {
    auto header = parse_compressed_header(head);
    if (!header) {
      fail("compressed bundle at offset " + std::to_string(position) + ": " + header.error());
      return std::nullopt;
    }
    if (header->total_size > room) {
      fail("compressed bundle at offset " + std::to_string(position) + " claims " + std::to_string(header->total_size) +
           " bytes, past the end (" + std::to_string(room) + " left)");
      return std::nullopt;
    }
    const std::uint64_t data_size = header->total_size != 0 ? header->total_size - header->header_size
                                                            : room - std::min<std::uint64_t>(room, header->header_size);
    // Only the bundle header is wanted: decompress a small prefix from the bytes at hand,
    // and more (up to the limits) only when the header goes on beyond it.
    std::string_view at_hand = std::string_view(head).substr(std::min(head.size(), header->header_size));
    at_hand = at_hand.substr(0, static_cast<std::size_t>(std::min<std::uint64_t>(at_hand.size(), data_size)));
    // Grow input and output together until the header parses: the header sits in the first
    // zstd block (at most 128 KiB compressed) or the first bytes of the zlib stream.
    constexpr std::array<std::uint64_t, 4> kInput = {0, 64 * 1024, 256 * 1024, 1024 * 1024};
    constexpr std::array<std::uint64_t, 4> kOutput = {16 * 1024, 128 * 1024, 256 * 1024, 1024 * 1024};
    const auto output_cap = std::min<std::uint64_t>(header->uncompressed_size, limits_.max_decompressed);
    std::string more;
    tl::expected<BundleHeader, std::string> bundle = tl::unexpected(std::string("not decompressed"));
    for (std::size_t step = 0; step < kInput.size(); ++step) {
      const auto input = std::min(kInput[step], data_size);
      if (input > at_hand.size()) {
        auto data = read(position + header->header_size, static_cast<std::size_t>(input));
        if (!data) {
          fail("compressed bundle at offset " + std::to_string(position) + ": " + data.error().message);
          return std::nullopt;
        }
        more = std::move(*data);
        at_hand = more;
      } else if (step > 0 && kOutput[step - 1] >= output_cap) {
        break;  // neither more input nor more output to try
      }
      const auto wanted = static_cast<std::size_t>(std::min(kOutput[step], output_cap));
      auto prefix = decompress_prefix(header->method, at_hand, wanted);
      if (prefix) {
        bundle = parse_bundle_header(*prefix, header->uncompressed_size, limits_);
        if (bundle) break;
      } else {
        bundle = tl::unexpected(prefix.error());
      }
    }
    if (!bundle) {
      fail("compressed bundle at offset " + std::to_string(position) + ", once decompressed: " + bundle.error());
      return std::nullopt;
    }
    ++scan_.bundles;
    ++scan_.compressed_bundles;
    add_targets(*bundle);
    // Version 1 gives no total size: the next magic is searched for after the header.
    after_v1_ = header->total_size == 0;
    return header->total_size != 0 ? header->total_size : header->header_size;
  }

 public:
  std::set<std::string> targets_;

 private:
  const Host& host_;
  std::string path_;
  const Limits& limits_;
  Scan& scan_;
  bool after_v1_ = false;  // the last bundle was a version-1 compressed one
};

}  // namespace

bool Scan::carries(std::string_view processor) const {
  return std::any_of(targets.begin(), targets.end(),
                     [&](const std::string& target) { return processor_of(target) == processor; });
}

HostResult<Scan> scan_file(const Host& host, std::string_view path, const Limits& limits) {
  Scan scan;
  scan.path = std::string(path);
  auto size = host.file_size(path);
  if (!size) return tl::unexpected(size.error());
  scan.file_size = *size;
  Scanner scanner(host, path, limits, scan);
  if (const auto region = scanner.locate()) scanner.walk(*region);
  scan.targets.assign(scanner.targets_.begin(), scanner.targets_.end());
  return scan;
}

}  // namespace rocm_doctor::code_objects
