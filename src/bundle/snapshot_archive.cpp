#include "bundle/snapshot_archive.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <vector>

#include "rocm_doctor/text.h"
#include "util/atomic_file.h"

namespace rocm_doctor {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBlock = 512;
constexpr std::size_t kMaxCompressed = 256u << 20;  // a snapshot is a few MiB at most
constexpr std::size_t kMaxUnpacked = 1024u << 20;
constexpr std::size_t kMaxEntries = 200000;

// ---- Writing ----------------------------------------------------------------

void put_octal(char* field, std::size_t width, std::uint64_t value) {
  const auto text = fmt::format("{:0{}o}", value, width - 1);
  std::memcpy(field, text.data(), std::min(text.size(), width - 1));
}

void put_text(char* field, std::size_t width, std::string_view text) {
  std::memcpy(field, text.data(), std::min(text.size(), width));
}

std::string tar_header(std::string_view name, char type, std::uint64_t size, std::string_view link, unsigned mode) {
  std::string block(kBlock, '\0');
  put_text(&block[0], 100, name);
  put_octal(&block[100], 8, mode);
  put_octal(&block[108], 8, 0);
  put_octal(&block[116], 8, 0);
  put_octal(&block[124], 12, size);
  put_octal(&block[136], 12, 0);
  block[156] = type;
  put_text(&block[157], 100, link);
  put_text(&block[257], 6, "ustar");
  put_text(&block[263], 2, "00");
  std::memset(&block[148], ' ', 8);
  unsigned sum = 0;
  for (const char c : block) sum += static_cast<unsigned char>(c);
  const auto checksum = fmt::format("{:06o}", sum);
  std::memcpy(&block[148], checksum.data(), 6);
  block[154] = '\0';
  return block;
}

void pad(std::string& out) {
  out.append((kBlock - out.size() % kBlock) % kBlock, '\0');
}

// A pax record "LEN key=value\n", LEN counting the whole record.
std::string pax_record(std::string_view key, std::string_view value) {
  const std::size_t body = key.size() + value.size() + 3;  // ' ', '=', '\n'
  std::size_t length = body + 1;
  while (std::to_string(length).size() + body != length) ++length;
  return fmt::format("{} {}={}\n", length, key, value);
}

void add_entry(std::string& out, const std::string& name, char type, const std::string& data, const std::string& link,
               unsigned mode) {
  if (name.size() > 99 || link.size() > 99) {
    std::string records;
    if (name.size() > 99) records += pax_record("path", name);
    if (link.size() > 99) records += pax_record("linkpath", link);
    out += tar_header("PaxHeaders/entry", 'x', records.size(), "", 0644);
    out += records;
    pad(out);
  }
  out += tar_header(name.substr(0, 99), type, data.size(), link.substr(0, 99), mode);
  out += data;
  pad(out);
}

tl::expected<std::string, std::string> gzip(const std::string& data) {
  z_stream stream{};
  if (deflateInit2(&stream, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return tl::unexpected(std::string("zlib: cannot start compression"));
  }
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) return tl::unexpected(std::string("zlib: compression failed"));
  return out;
}

// ---- Reading ----------------------------------------------------------------

tl::expected<std::string, std::string> gunzip(const std::string& data) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 32) != Z_OK) return tl::unexpected(std::string("zlib: cannot start"));
  std::string out;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  char buffer[1 << 16];
  while (rc != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    rc = inflate(&stream, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&stream);
      return tl::unexpected(std::string("not a gzip-compressed archive, or it is damaged"));
    }
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (out.size() > kMaxUnpacked) {
      inflateEnd(&stream);
      return tl::unexpected(std::string("unpacks to more than 1 GiB: not a snapshot"));
    }
    if (rc != Z_STREAM_END && stream.avail_in == 0 && stream.avail_out != 0) {
      inflateEnd(&stream);
      return tl::unexpected(std::string("the archive is truncated"));
    }
  }
  inflateEnd(&stream);
  return out;
}

std::string field(const char* data, std::size_t width) {
  std::size_t length = 0;
  while (length < width && data[length] != '\0') ++length;
  return std::string(data, length);
}

std::optional<std::uint64_t> octal(const char* data, std::size_t width) {
  const std::string raw = field(data, width);  // named: trim() returns a view into it
  const auto text = trim(raw);
  if (text.empty()) return 0;
  return parse_uint(text, 8);
}

// "./a/b" -> {"a", "b"}; nullopt for absolute paths, "..", or empty names.
std::optional<std::vector<std::string>> safe_components(std::string_view name) {
  if (name.empty() || name.front() == '/') return std::nullopt;
  std::vector<std::string> parts;
  for (const auto part : split(name, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") return std::nullopt;
    parts.emplace_back(part);
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

// Lexically resolves a link target from the link's folder; nullopt when it
// climbs above the archive's top.
std::optional<std::vector<std::string>> resolve_target(std::vector<std::string> folder, std::string_view target) {
  for (const auto part : split(target, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (folder.empty()) return std::nullopt;
      folder.pop_back();
    } else {
      folder.emplace_back(part);
    }
  }
  return folder;
}

struct Entry {
  std::vector<std::string> parts;
  char type = '0';
  std::string data;
  std::string link;
};

class Extractor {
 public:
  explicit Extractor(fs::path into) : into_(std::move(into)) {}

  tl::expected<void, std::string> write(const Entry& entry) {
    // Every parent must be a real folder made by this extraction (never a link).
    fs::path path = into_;
    for (std::size_t i = 0; i + 1 < entry.parts.size(); ++i) {
      path /= entry.parts[i];
      struct stat info {};
      if (::lstat(path.c_str(), &info) != 0) {
        if (::mkdir(path.c_str(), 0755) != 0) return error(path);
      } else if (!S_ISDIR(info.st_mode)) {
        return tl::unexpected(fmt::format("'{}' goes through a link or a file", join_parts(entry.parts)));
      }
    }
    path /= entry.parts.back();
    if (entry.type == '5') {
      struct stat info {};
      if (::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return {};
      if (::mkdir(path.c_str(), 0755) != 0) return error(path);
      return {};
    }
    if (entry.type == '2') {
      if (::symlink(entry.link.c_str(), path.c_str()) != 0) return error(path);
      return {};
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return error(path);
    std::size_t written = 0;
    while (written < entry.data.size()) {
      const ssize_t got = ::write(fd, entry.data.data() + written, entry.data.size() - written);
      if (got <= 0) {
        ::close(fd);
        return error(path);
      }
      written += static_cast<std::size_t>(got);
    }
    ::close(fd);
    return {};
  }

  static std::string join_parts(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& part : parts) out += (out.empty() ? "" : "/") + part;
    return out;
  }

 private:
  static tl::unexpected<std::string> error(const fs::path& path) {
    return tl::unexpected(path.string() + ": " + std::strerror(errno));
  }
  fs::path into_;
};

// Checks one entry against the rules; fills `entry.parts` and, for links, a
// target that stays inside the extraction.
tl::expected<void, std::string> validate(Entry& entry, const std::string& name) {
  auto parts = safe_components(name);
  if (!parts) return tl::unexpected(fmt::format("'{}': absolute paths and '..' are not allowed", name));
  entry.parts = std::move(*parts);
  switch (entry.type) {
    case '0':
    case '\0':
    case '7': entry.type = '0'; return {};
    case '5': return {};
    case '1': return tl::unexpected(fmt::format("'{}': hard links are not allowed", name));
    case '3':
    case '4':
      return tl::unexpected(fmt::format("'{}': device files are not allowed (nodes live in snapshot.json)", name));
    case '6': return tl::unexpected(fmt::format("'{}': FIFOs are not allowed", name));
    case '2': break;
    default: return tl::unexpected(fmt::format("'{}': unsupported entry type '{}'", name, entry.type));
  }
  // A link: only under root/, and never leading out of it. An absolute target
  // means a path inside root/ (docs/snapshot-format.md) and is kept as it is:
  // the unpacked folder is private and only SnapshotHost, which resolves links
  // itself inside root/, ever reads it.
  if (entry.parts.size() < 2 || entry.parts.front() != "root") {
    return tl::unexpected(fmt::format("'{}': links are only allowed under root/", name));
  }
  if (entry.link.empty()) return tl::unexpected(fmt::format("'{}': empty link target", name));
  const std::vector<std::string> folder(entry.parts.begin(), entry.parts.end() - 1);
  const bool absolute = entry.link.front() == '/';
  const auto resolved = absolute ? resolve_target({"root"}, entry.link) : resolve_target(folder, entry.link);
  if (!resolved || resolved->empty() || resolved->front() != "root") {
    return tl::unexpected(fmt::format("'{}': link to '{}' points outside the snapshot", name, entry.link));
  }
  return {};
}

// Applies pax records ("path", "linkpath") to the next entry.
void parse_pax(std::string_view records, std::map<std::string, std::string>& out) {
  while (!records.empty()) {
    const auto space = records.find(' ');
    if (space == std::string_view::npos) return;
    const auto length = parse_uint(records.substr(0, space));
    if (!length || *length <= space || *length > records.size()) return;
    const auto record = records.substr(space + 1, *length - space - 2);  // without '\n'
    if (const auto equals = record.find('='); equals != std::string_view::npos) {
      out[std::string(record.substr(0, equals))] = std::string(record.substr(equals + 1));
    }
    records.remove_prefix(*length);
  }
}

}  // namespace

tl::expected<void, std::string> write_snapshot_archive(const fs::path& folder, const fs::path& archive) {
  std::vector<fs::path> paths;
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    paths.push_back(it->path());
  }
  if (error) return tl::unexpected(folder.string() + ": " + error.message());
  std::sort(paths.begin(), paths.end());
  std::string tar;
  for (const auto& path : paths) {
    const std::string name = path.lexically_relative(folder).generic_string();  // fs::relative would follow links
    const auto status = fs::symlink_status(path, error);
    if (fs::is_symlink(status)) {
      add_entry(tar, name, '2', "", fs::read_symlink(path, error).string(), 0777);
    } else if (fs::is_directory(status)) {
      add_entry(tar, name + "/", '5', "", "", 0755);
    } else if (fs::is_regular_file(status)) {
      std::ifstream stream(path, std::ios::binary);
      std::string data{std::istreambuf_iterator<char>(stream), {}};
      if (!stream.good() && !stream.eof()) return tl::unexpected(path.string() + ": cannot read");
      add_entry(tar, name, '0', data, "", 0644);
    }
  }
  tar.append(2 * kBlock, '\0');
  auto compressed = gzip(tar);
  if (!compressed) return tl::unexpected(compressed.error());
  return write_file_atomically(archive, *compressed);
}

tl::expected<void, std::string> extract_snapshot_archive(const fs::path& archive, const fs::path& into) {
  std::ifstream stream(archive, std::ios::binary);
  if (!stream) return tl::unexpected(archive.string() + ": cannot open");
  std::string compressed;
  compressed.resize(kMaxCompressed + 1);
  stream.read(compressed.data(), static_cast<std::streamsize>(compressed.size()));
  compressed.resize(static_cast<std::size_t>(stream.gcount()));
  if (compressed.size() > kMaxCompressed) return tl::unexpected(archive.string() + ": larger than 256 MiB");
  auto tar = gunzip(compressed);
  if (!tar) return tl::unexpected(archive.string() + ": " + tar.error());

  // First pass: read and check every entry; nothing is written unless all pass.
  std::vector<Entry> entries;
  std::map<std::string, std::string> pax;
  std::string long_name;
  std::string long_link;
  std::size_t at = 0;
  while (at + kBlock <= tar->size()) {
    const char* block = tar->data() + at;
    if (std::all_of(block, block + kBlock, [](char c) { return c == '\0'; })) break;
    unsigned sum = 0;
    for (std::size_t i = 0; i < kBlock; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(block[i]);
    const auto stored = octal(block + 148, 8);
    if (!stored || *stored != sum)
      return tl::unexpected(archive.string() + ": not a tar archive (bad tar_header checksum)");
    const auto size = octal(block + 124, 12);
    if (!size || at + kBlock + *size > tar->size()) return tl::unexpected(archive.string() + ": truncated tar entry");
    const std::string data = tar->substr(at + kBlock, *size);
    at += kBlock + (*size + kBlock - 1) / kBlock * kBlock;
    const char type = block[156];
    if (type == 'x') {
      parse_pax(data, pax);
      continue;
    }
    if (type == 'g') continue;
    if (type == 'L' || type == 'K') {
      (type == 'L' ? long_name : long_link) = field(data.data(), data.size());
      continue;
    }
    std::string name = field(block, 100);
    if (const std::string prefix = field(block + 345, 155);
        !prefix.empty() && std::string_view(block + 257, 5) == "ustar") {
      name = prefix + "/" + name;
    }
    Entry entry;
    entry.type = type;
    entry.link = field(block + 157, 100);
    if (!long_name.empty()) name = std::exchange(long_name, {});
    if (!long_link.empty()) entry.link = std::exchange(long_link, {});
    if (const auto it = pax.find("path"); it != pax.end()) name = it->second;
    if (const auto it = pax.find("linkpath"); it != pax.end()) entry.link = it->second;
    pax.clear();
    if (auto valid = validate(entry, name); !valid) return tl::unexpected(archive.string() + ": " + valid.error());
    entry.data = data;
    entries.push_back(std::move(entry));
    if (entries.size() > kMaxEntries) return tl::unexpected(archive.string() + ": too many entries");
  }
  if (entries.empty()) return tl::unexpected(archive.string() + ": empty archive");
  std::map<std::string, char> seen;
  for (const auto& entry : entries) {
    const auto [it, fresh] = seen.emplace(Extractor::join_parts(entry.parts), entry.type);
    if (!fresh && !(entry.type == '5' && it->second == '5')) {
      return tl::unexpected(archive.string() + ": '" + it->first + "' appears twice");
    }
  }
  Extractor extractor(into);
  for (const auto& entry : entries) {
    if (auto written = extractor.write(entry); !written)
      return tl::unexpected(archive.string() + ": " + written.error());
  }
  return {};
}

ReplayFolder::ReplayFolder(ReplayFolder&& other) noexcept
    : path_(std::move(other.path_)), temporary_(std::exchange(other.temporary_, false)) {}

ReplayFolder::~ReplayFolder() {
  if (!temporary_) return;
  std::error_code error;
  fs::remove_all(path_, error);
}

tl::expected<ReplayFolder, std::string> open_replay_folder(const std::string& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return ReplayFolder(path, false);
  std::string temp = (fs::temp_directory_path(error) / "rocm-doctor-replay-XXXXXX").string();
  if (::mkdtemp(temp.data()) == nullptr)
    return tl::unexpected(std::string("cannot create a temporary folder: ") + std::strerror(errno));
  ReplayFolder folder(temp, true);
  if (auto extracted = extract_snapshot_archive(path, temp); !extracted) return tl::unexpected(extracted.error());
  return folder;
}

}  // namespace rocm_doctor
