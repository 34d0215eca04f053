// `container`: the pure parsers behind the container check (container_parse.cpp, tested
// with tables), and what the check knows of the runtime it is in and how to pass the GPU
// in with that runtime (container_runtime.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"
#include "rocm_doctor/host.h"

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

inline constexpr std::string_view kCheckId = "container";
// The host's render gid, for a command run on the host.
inline constexpr std::string_view kHostRenderGid = "\"$(getent group render | cut -d: -f3)\"";

// checks/data/container.json.
struct Data {
  std::uint64_t shm_min = 0;
  std::uint32_t overflow_gid = 65534;
  std::string plugin_manifest;
};
const Data& data();

// What the runtime left behind, beyond SystemFacts::container.
struct Runtime {
  std::string kind;  // "docker", "podman", "kubernetes", "apptainer", "lxc"
  std::vector<Evidence> evidence;
  bool rootless = false;        // podman rootless=1, or a user namespace
  bool user_namespace = false;  // /proc/self/uid_map is not the initial one
  std::string image;            // podman image= or the Apptainer image path
  std::string apptainer_command = "apptainer";
};
Runtime describe_runtime(const Host& host, const std::string& kind);

// The run flags that pass the GPU in, per runtime. `group_flags` is the --group-add part.
Fix pass_devices_fix(const Runtime& runtime, const std::string& group_flags, bool only_groups);

}  // namespace rocm_doctor::container
