// GPU code objects (rocm_doctor/code_objects.h): the whole scan of one file
// held in memory (ELF header and section table, .hip_fatbin, plain and
// compressed offload bundles through zlib/zstd), the bundle and CCOB header
// parsers on the raw input, and the torch version.py / METADATA parsers.
#include "rocm_doctor/code_objects.h"

#include <nlohmann/json.hpp>

#include "fuzz_input.h"
#include "rocm_doctor/facts/python_env.h"

namespace {

using namespace rocm_doctor;

// One file, /lib/libfuzz.so, is the input; everything else is missing.
class OneFileHost final : public Host {
 public:
  explicit OneFileHost(std::string_view bytes) : bytes_(bytes) {}
  std::string_view source() const override { return "fuzz"; }
  HostResult<std::string> read_file(std::string_view path, std::size_t max_bytes) const override {
    if (path != kPath) return missing(path);
    if (bytes_.size() > max_bytes) return tl::unexpected(HostError{HostErrorKind::too_large, "too large"});
    return std::string(bytes_);
  }
  HostResult<std::string> read_range(std::string_view path, std::uint64_t offset, std::size_t length) const override {
    if (path != kPath) return missing(path);
    fuzz::require(length <= (512U << 20), "a read stays bounded");
    if (offset >= bytes_.size()) return std::string();
    return std::string(bytes_.substr(static_cast<std::size_t>(offset), length));
  }
  HostResult<std::uint64_t> file_size(std::string_view path) const override {
    if (path != kPath) return missing(path);
    return bytes_.size();
  }
  HostResult<std::vector<DirEntry>> list_dir(std::string_view path) const override { return missing(path); }
  HostResult<std::string> read_link(std::string_view path) const override { return missing(path); }
  HostResult<NodeInfo> stat_node(std::string_view path) const override { return missing(path); }
  std::optional<std::string> env(std::string_view) const override { return std::nullopt; }
  std::vector<std::string> env_names() const override { return {}; }
  Identity identity() const override { return {}; }
  std::optional<GroupEntry> group_by_gid(std::uint32_t) const override { return std::nullopt; }
  std::optional<GroupEntry> group_by_name(std::string_view) const override { return std::nullopt; }
  std::optional<UserEntry> user_by_name(std::string_view) const override { return std::nullopt; }
  std::optional<nlohmann::json> probe(std::string_view) const override { return std::nullopt; }

  static constexpr std::string_view kPath = "/lib/libfuzz.so";

 private:
  static tl::unexpected<HostError> missing(std::string_view path) {
    return tl::unexpected(HostError{HostErrorKind::not_found, std::string(path)});
  }
  std::string_view bytes_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto bytes = fuzz::as_text(data, size);
  const OneFileHost host(bytes);
  code_objects::Limits limits;
  limits.max_bytes_read = 64U << 20;
  const auto scan = code_objects::scan_file(host, OneFileHost::kPath, limits);
  fuzz::require(scan.has_value(), "an existing file always scans (problems are findings)");
  fuzz::require(scan->bytes_read <= limits.max_bytes_read, "the read budget holds");
  for (const auto& target : scan->targets) fuzz::require(target.starts_with("gfx"), "targets are gfx ids");
  if (auto header = code_objects::parse_bundle_header(bytes, size)) {
    fuzz::require(header->end <= size, "entries stay inside the bundle");
  }
  if (auto header = code_objects::parse_compressed_header(bytes)) {
    (void)code_objects::decompress_prefix(header->method, bytes.substr(std::min(bytes.size(), header->header_size)),
                                          4096);
  }
  (void)parse_version_py(bytes);
  (void)parse_metadata_version(bytes);
  (void)parse_pyvenv_cfg(bytes);
  (void)python_major_minor(bytes);
  return 0;
}
