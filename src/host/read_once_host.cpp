#include "host/read_once_host.h"

#include <nlohmann/json.hpp>

#include "host/posix_files.h"

namespace rocm_doctor {

template <typename T, typename Ask, typename Keep>
HostResult<T> ReadOnceHost::remembered(std::unordered_map<std::string, HostResult<T>>& answers, std::string_view path,
                                       Ask ask, Keep keep) const {
  std::string key(path);
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = answers.find(key); it != answers.end()) return it->second;
  }
  auto answer = ask();  // outside the lock: a slow read must not hold up other threads' lookups
  if (keep(answer)) {
    const std::lock_guard lock(mutex_);
    answers.emplace(std::move(key), answer);
  }
  return answer;
}

HostResult<std::string> ReadOnceHost::read_file(std::string_view path, std::size_t max_bytes) const {
  // A kept file is at most kKeptFileLimit bytes; a smaller bound than the
  // first reader's makes it too large, as a fresh read would.
  auto answer = remembered(
      files_, path, [&] { return inner_.read_file(path, max_bytes); },
      [](const HostResult<std::string>& result) {
        if (result) return result->size() <= kKeptFileLimit;
        return result.error().kind != HostErrorKind::too_large;  // depends on the bound
      });
  if (answer && answer->size() > max_bytes) return tl::unexpected(too_large_error(path, max_bytes));
  return answer;
}

HostResult<std::vector<DirEntry>> ReadOnceHost::list_dir(std::string_view path) const {
  return remembered(
      folders_, path, [&] { return inner_.list_dir(path); }, [](const auto&) { return true; });
}

HostResult<std::string> ReadOnceHost::read_link(std::string_view path) const {
  return remembered(
      links_, path, [&] { return inner_.read_link(path); }, [](const auto&) { return true; });
}

HostResult<NodeInfo> ReadOnceHost::stat_node(std::string_view path) const {
  return remembered(
      nodes_, path, [&] { return inner_.stat_node(path); }, [](const auto&) { return true; });
}

std::optional<nlohmann::json> ReadOnceHost::probe(std::string_view name) const {
  return inner_.probe(name);
}

std::optional<nlohmann::json> ReadOnceHost::run_plugins(const nlohmann::json& facts) const {
  return inner_.run_plugins(facts);
}

// Ranges of big binaries are read once by the one fact that scans them: not kept.
HostResult<std::string> ReadOnceHost::read_range(std::string_view path, std::uint64_t offset,
                                                 std::size_t length) const {
  return inner_.read_range(path, offset, length);
}

HostResult<std::uint64_t> ReadOnceHost::file_size(std::string_view path) const {
  return inner_.file_size(path);
}

}  // namespace rocm_doctor
