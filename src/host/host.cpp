#include "rocm_doctor/host.h"

#include <nlohmann/json.hpp>

#include "rocm_doctor/text.h"

namespace rocm_doctor {

// A snapshot's answer: what its capture recorded; nothing is ever run.
std::optional<nlohmann::json> Host::run_plugins(const nlohmann::json& facts) const {
  (void)facts;
  return probe("plugins");
}

namespace {
// What the default read_range may read whole: hosts over real files read ranges instead.
constexpr std::size_t kWholeFileRangeLimit = 64 * 1024 * 1024;
}  // namespace

HostResult<std::string> Host::read_range(std::string_view path, std::uint64_t offset, std::size_t length) const {
  auto content = read_file(path, kWholeFileRangeLimit);
  if (!content) return tl::unexpected(content.error());
  if (offset >= content->size()) return std::string();
  return content->substr(static_cast<std::size_t>(offset), length);
}

HostResult<std::uint64_t> Host::file_size(std::string_view path) const {
  auto content = read_file(path, kWholeFileRangeLimit);
  if (!content) return tl::unexpected(content.error());
  return static_cast<std::uint64_t>(content->size());
}

bool Host::exists(std::string_view path) const {
  return stat_node(path).has_value();
}

HostResult<std::string> Host::read_trimmed(std::string_view path) const {
  return read_file(path, kDefaultReadLimit).map([](const std::string& text) { return std::string(trim(text)); });
}

std::string_view to_string(HostErrorKind kind) {
  switch (kind) {
    case HostErrorKind::not_found: return "not found";
    case HostErrorKind::permission_denied: return "permission denied";
    case HostErrorKind::not_a_directory: return "not a directory";
    case HostErrorKind::not_a_link: return "not a symbolic link";
    case HostErrorKind::too_large: return "too large";
    case HostErrorKind::loop: return "too many levels of symbolic links";
    case HostErrorKind::io: return "I/O error";
  }
  return "unknown error";
}

std::string_view to_string(EntryType type) {
  switch (type) {
    case EntryType::file: return "file";
    case EntryType::directory: return "dir";
    case EntryType::symlink: return "symlink";
    case EntryType::char_device: return "char";
    case EntryType::block_device: return "block";
    case EntryType::other: return "other";
  }
  return "other";
}

}  // namespace rocm_doctor
