// `container`: the pure parsers behind the container check (tested with tables).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor::container {

// The size= option of the /dev/shm mount in /proc/mounts ("size=65536k" -> 67108864 bytes).
// nullopt when /dev/shm is not a separate mount or carries no size (tmpfs default: half of RAM).
std::optional<std::uint64_t> parse_shm_size(std::string_view proc_mounts);
// "Seccomp:\t2" of /proc/self/status: 0 disabled, 1 strict, 2 filter.
std::optional<int> parse_seccomp_mode(std::string_view proc_status);
// /proc/self/uid_map (or gid_map): true when it is not the initial namespace's "0 0 4294967295".
bool in_user_namespace(std::string_view id_map);
// How many releases apart two ROCm releases are on `releases` (oldest first); nullopt if either is unknown.
std::optional<int> release_distance(const std::vector<std::string>& releases, std::string_view a, std::string_view b);
// "109" -> "host gid 109"; helper for the --group-add flags, deduplicated in order.
std::string group_add_flags(const std::vector<std::uint32_t>& gids);

}  // namespace rocm_doctor::container
