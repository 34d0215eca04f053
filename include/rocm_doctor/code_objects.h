// Which GPU code a binary carries, read from its bytes without running it:
// the HIP fat binary of an ELF shared object (its `.hip_fatbin` section), a
// clang offload bundle file (`__CLANG_OFFLOAD_BUNDLE__`, e.g. rocBLAS/Tensile
// .co files) and the compressed bundles of newer ROCm (`CCOB`, zlib or zstd).
// Format: LLVM's ClangOffloadBundler documentation (clang/docs/ClangOffloadBundler.rst)
// and its compressed-bundle header (clang/include/clang/Driver/OffloadBundler.h).
// Every read goes through the Host (pread-sized ranges) and is bounded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "rocm_doctor/host.h"

namespace rocm_doctor::code_objects {

inline constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
inline constexpr std::string_view kCompressedMagic = "CCOB";

// One entry of a bundle: "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" and where its code object is.
struct BundleEntry {
  std::string id;
  std::uint64_t offset = 0;  // from the start of the bundle
  std::uint64_t size = 0;
};

struct BundleHeader {
  std::vector<BundleEntry> entries;
  std::uint64_t header_size = 0;  // bytes of the header itself
  std::uint64_t end = 0;          // the end of its last code object (from the bundle start)
};

struct Limits {
  std::size_t max_entries = 4096;               // per bundle
  std::size_t max_id_bytes = 1024;              // per entry id
  std::size_t max_bundles = 200'000;            // per file
  std::uint64_t max_bytes_read = 256ULL << 20;  // per file: headers, section tables, compressed prefixes
  std::size_t max_decompressed = 1U << 20;      // per compressed bundle: only its header is decompressed
};

// ---- pure parsers (fuzz/targets/code_objects.cpp) ----

// A bundle header at the start of `bytes`; `bundle_size` bounds the entries'
// offsets (the section's or the decompressed size). An error says what is wrong.
tl::expected<BundleHeader, std::string> parse_bundle_header(std::string_view bytes, std::uint64_t bundle_size,
                                                            const Limits& limits = {});

// The header of a compressed bundle ("CCOB", version 1 to 3).
struct CompressedHeader {
  unsigned version = 0;
  unsigned method = 0;           // llvm::compression::Format: 0 zlib, 1 zstd
  std::uint64_t total_size = 0;  // header + compressed data (versions 2 and 3); 0 in version 1
  std::uint64_t uncompressed_size = 0;
  std::size_t header_size = 0;
};
tl::expected<CompressedHeader, std::string> parse_compressed_header(std::string_view bytes);

// The first `max_output` bytes (at most) of zlib or zstd data, through the libraries.
tl::expected<std::string, std::string> decompress_prefix(unsigned method, std::string_view compressed,
                                                         std::size_t max_output);

// "gfx90a:xnack-" of "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" (and of the older
// "hip-amdgcn-amd-amdhsa-gfx906"); "" for host entries and other devices.
std::string target_of_entry(std::string_view id);
// "gfx90a" of "gfx90a:xnack-".
std::string processor_of(std::string_view target);

// ---- the scan of one file through the Host ----

struct Scan {
  std::string path;
  std::string container;             // "ELF .hip_fatbin", "offload bundle", "compressed offload bundle", "ELF" (none)
  std::vector<std::string> targets;  // target ids, sorted, unique ("gfx1030", "gfx90a:xnack-")
  std::size_t bundles = 0;
  std::size_t compressed_bundles = 0;
  std::uint64_t file_size = 0;
  std::uint64_t bytes_read = 0;
  // Non-empty: the file is malformed or hostile (a truncated ELF, offsets past
  // the end, a bomb): what and where. Targets found before it are kept.
  std::string problem;

  // Whether code for `processor` ("gfx90a") is carried, under any feature setting.
  [[nodiscard]] bool carries(std::string_view processor) const;
};

// Errors are the Host's (missing, unreadable); a malformed file is a Scan with `problem`.
HostResult<Scan> scan_file(const Host& host, std::string_view path, const Limits& limits = {});

}  // namespace rocm_doctor::code_objects
