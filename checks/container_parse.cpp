// `container`: the pure parsers of the container check (declared in container.h).
#include <fmt/format.h>

#include <algorithm>

#include "container.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::container {

std::optional<std::uint64_t> parse_shm_size(std::string_view proc_mounts) {
  std::optional<std::uint64_t> size;
  bool mounted = false;
  for (const auto line : lines(proc_mounts)) {
    const auto fields = split_words(line);
    if (fields.size() < 4 || fields[1] != "/dev/shm") continue;
    mounted = true;  // the last mount of /dev/shm is the one in effect
    size.reset();
    for (const auto option : split(fields[3], ',')) {
      if (!option.starts_with("size=")) continue;
      auto value = option.substr(5);
      std::uint64_t unit = 1;
      if (!value.empty()) {
        switch (value.back()) {
          case 'k':
          case 'K': unit = 1024ULL; break;
          case 'm':
          case 'M': unit = 1024ULL * 1024; break;
          case 'g':
          case 'G': unit = 1024ULL * 1024 * 1024; break;
          default: break;
        }
        if (unit != 1) value.remove_suffix(1);
      }
      if (const auto number = parse_uint(value)) size = *number * unit;
    }
  }
  return mounted ? size : std::nullopt;
}

std::optional<int> parse_seccomp_mode(std::string_view proc_status) {
  for (const auto line : lines(proc_status)) {
    if (!line.starts_with("Seccomp:")) continue;
    if (const auto value = parse_uint(trim(line.substr(8)))) return static_cast<int>(*value);
    return std::nullopt;
  }
  return std::nullopt;
}

bool in_user_namespace(std::string_view id_map) {
  const auto rows = lines(id_map);
  std::vector<std::vector<std::string_view>> parsed;
  for (const auto row : rows) {
    auto words = split_words(row);
    if (!words.empty()) parsed.push_back(std::move(words));
  }
  if (parsed.empty()) return false;  // unreadable or empty: assume the initial namespace
  return !(parsed.size() == 1 && parsed[0].size() == 3 && parsed[0][0] == "0" && parsed[0][1] == "0" &&
           parsed[0][2] == "4294967295");
}

std::optional<int> release_distance(const std::vector<std::string>& releases, std::string_view a, std::string_view b) {
  const auto index_of = [&](std::string_view version) -> std::optional<int> {
    const auto numbers = kb::version_numbers(version);
    if (numbers.size() < 2) return std::nullopt;
    const auto key = fmt::format("{}.{}", numbers[0], numbers[1]);
    const auto it = std::find(releases.begin(), releases.end(), key);
    if (it == releases.end()) return std::nullopt;
    return static_cast<int>(it - releases.begin());
  };
  const auto ia = index_of(a);
  const auto ib = index_of(b);
  if (!ia || !ib) return std::nullopt;
  return *ia > *ib ? *ia - *ib : *ib - *ia;
}

std::string group_add_flags(const std::vector<std::uint32_t>& gids) {
  std::vector<std::uint32_t> seen;
  std::string flags;
  for (const auto gid : gids) {
    if (std::find(seen.begin(), seen.end(), gid) != seen.end()) continue;
    seen.push_back(gid);
    flags += (flags.empty() ? "" : " ") + fmt::format("--group-add {}", gid);
  }
  return flags;
}

}  // namespace rocm_doctor::container
