// The pure parts of the code-object reader (rocm_doctor/code_objects.h):
// bundle and compressed-bundle headers, and decompression through zlib/zstd.
//
// Uncompressed bundle (ClangOffloadBundler.rst): the 24-byte magic, the entry
// count (u64), then per entry: code object offset (u64, from the bundle
// start), size (u64), id length (u64) and the id, all little-endian.
// Compressed bundle (OffloadBundler.h): "CCOB", version (u16), method (u16),
// then v1: uncompressed size (u32), hash (u64); v2: total size (u32),
// uncompressed size (u32), hash (u64); v3: the same sizes as u64; then the data.
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

#include "rocm_doctor/code_objects.h"

namespace rocm_doctor::code_objects {

namespace {

std::uint64_t little_endian(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return value;
}

tl::unexpected<std::string> bad(std::string message) {
  return tl::unexpected(std::move(message));
}

bool printable_id(std::string_view id) {
  return std::all_of(id.begin(), id.end(), [](char c) { return c > ' ' && c < 127; });
}

}  // namespace

tl::expected<BundleHeader, std::string> parse_bundle_header(std::string_view bytes, std::uint64_t bundle_size,
                                                            const Limits& limits) {
  if (!bytes.starts_with(kBundleMagic)) return bad("no __CLANG_OFFLOAD_BUNDLE__ magic");
  std::size_t at = kBundleMagic.size();
  if (bytes.size() < at + 8) return bad("the bundle header is cut off before its entry count");
  const auto count = little_endian(bytes, at, 8);
  at += 8;
  if (count == 0) return bad("the bundle has no entries");
  if (count > limits.max_entries) {
    return bad("the bundle claims " + std::to_string(count) + " entries (more than " +
               std::to_string(limits.max_entries) + ")");
  }
  BundleHeader header;
  header.entries.reserve(static_cast<std::size_t>(count));
  for (std::uint64_t i = 0; i < count; ++i) {
    if (bytes.size() < at + 24) return bad("the bundle header is cut off in entry " + std::to_string(i));
    BundleEntry entry;
    entry.offset = little_endian(bytes, at, 8);
    entry.size = little_endian(bytes, at + 8, 8);
    const auto id_size = little_endian(bytes, at + 16, 8);
    at += 24;
    if (id_size == 0 || id_size > limits.max_id_bytes) {
      return bad("entry " + std::to_string(i) + " has an id of " + std::to_string(id_size) + " bytes");
    }
    if (bytes.size() - at < id_size) return bad("the bundle header is cut off in the id of entry " + std::to_string(i));
    entry.id = std::string(bytes.substr(at, static_cast<std::size_t>(id_size)));
    at += static_cast<std::size_t>(id_size);
    if (!printable_id(entry.id)) return bad("entry " + std::to_string(i) + " has an unprintable id");
    // Offsets and sizes must stay inside the bundle (no overflow on the way).
    if (entry.offset > bundle_size || entry.size > bundle_size - entry.offset) {
      return bad("entry " + std::to_string(i) + " (" + entry.id + ") points past the end of the bundle (offset " +
                 std::to_string(entry.offset) + ", size " + std::to_string(entry.size) + ", bundle " +
                 std::to_string(bundle_size) + " bytes)");
    }
    header.end = std::max(header.end, entry.offset + entry.size);
    header.entries.push_back(std::move(entry));
  }
  header.header_size = at;
  header.end = std::max<std::uint64_t>(header.end, at);
  return header;
}

tl::expected<CompressedHeader, std::string> parse_compressed_header(std::string_view bytes) {
  if (!bytes.starts_with(kCompressedMagic)) return bad("no CCOB magic");
  if (bytes.size() < 8) return bad("the compressed bundle header is cut off");
  CompressedHeader header;
  header.version = static_cast<unsigned>(little_endian(bytes, 4, 2));
  header.method = static_cast<unsigned>(little_endian(bytes, 6, 2));
  switch (header.version) {
    case 1:
      header.header_size = 20;
      if (bytes.size() < header.header_size) return bad("the compressed bundle header is cut off");
      header.uncompressed_size = little_endian(bytes, 8, 4);
      break;
    case 2:
      header.header_size = 24;
      if (bytes.size() < header.header_size) return bad("the compressed bundle header is cut off");
      header.total_size = little_endian(bytes, 8, 4);
      header.uncompressed_size = little_endian(bytes, 12, 4);
      break;
    case 3:
      header.header_size = 32;
      if (bytes.size() < header.header_size) return bad("the compressed bundle header is cut off");
      header.total_size = little_endian(bytes, 8, 8);
      header.uncompressed_size = little_endian(bytes, 16, 8);
      break;
    default: return bad("compressed bundle version " + std::to_string(header.version) + " is unknown");
  }
  if (header.method > 1) return bad("compression method " + std::to_string(header.method) + " is unknown");
  if (header.version >= 2 && header.total_size < header.header_size) {
    return bad("the compressed bundle's total size " + std::to_string(header.total_size) + " is below its header's");
  }
  return header;
}

namespace {

tl::expected<std::string, std::string> inflate_prefix(std::string_view compressed, std::size_t max_output) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) return bad("zlib: cannot initialise");
  std::string output(max_output, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(std::min<std::size_t>(compressed.size(), UINT32_MAX));
  stream.next_out = reinterpret_cast<Bytef*>(output.data());
  stream.avail_out = static_cast<uInt>(max_output);
  int status = Z_OK;
  while (stream.avail_out > 0 && status == Z_OK) status = inflate(&stream, Z_NO_FLUSH);
  const auto produced = max_output - stream.avail_out;
  const char* message = stream.msg;
  inflateEnd(&stream);
  if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
    return bad(std::string("zlib: ") + (message != nullptr ? message : "corrupt data"));
  }
  output.resize(produced);
  return output;
}

tl::expected<std::string, std::string> zstd_prefix(std::string_view compressed, std::size_t max_output) {
  ZSTD_DStream* stream = ZSTD_createDStream();
  if (stream == nullptr) return bad("zstd: cannot initialise");
  std::string output(max_output, '\0');
  ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
  ZSTD_outBuffer out{output.data(), output.size(), 0};
  std::string error;
  while (out.pos < out.size && in.pos < in.size) {
    const auto before = in.pos + out.pos;
    const std::size_t result = ZSTD_decompressStream(stream, &out, &in);
    if (ZSTD_isError(result) != 0U) {
      error = std::string("zstd: ") + ZSTD_getErrorName(result);
      break;
    }
    if (result == 0 || in.pos + out.pos == before) break;  // frame done, or no progress
  }
  ZSTD_freeDStream(stream);
  if (!error.empty() && out.pos == 0) return bad(error);
  output.resize(out.pos);
  return output;
}

}  // namespace

tl::expected<std::string, std::string> decompress_prefix(unsigned method, std::string_view compressed,
                                                         std::size_t max_output) {
  if (method == 0) return inflate_prefix(compressed, max_output);
  if (method == 1) return zstd_prefix(compressed, max_output);
  return bad("compression method " + std::to_string(method) + " is unknown");
}

std::string target_of_entry(std::string_view id) {
  // <kind>-<arch>-<vendor>-<os>-[<environment>]-<target id>, e.g. hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-.
  constexpr std::string_view kTriple = "-amdgcn-amd-amdhsa-";
  const auto at = id.find(kTriple);
  if (at == std::string_view::npos) return {};
  auto rest = id.substr(at + kTriple.size());
  const auto gfx = rest.find("gfx");
  if (gfx == std::string_view::npos) return {};
  rest = rest.substr(gfx);
  return std::string(rest);
}

std::string processor_of(std::string_view target) {
  return std::string(target.substr(0, target.find(':')));
}

}  // namespace rocm_doctor::code_objects
