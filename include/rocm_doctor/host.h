// The Host seam: everything rocm-doctor learns about a machine passes
// through this interface, so every check can run against the live machine,
// a recorded snapshot, or a fake built in a test.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

namespace rocm_doctor {

enum class HostErrorKind {
  not_found,          // the path does not exist
  permission_denied,  // it exists but this process may not read it
  not_a_directory,
  not_a_link,
  too_large,  // larger than the caller's bound
  loop,       // too many symbolic links
  io,         // anything else the OS said
};

struct HostError {
  HostErrorKind kind = HostErrorKind::io;
  std::string message;  // human-readable, names the path
};

template <typename T>
using HostResult = tl::expected<T, HostError>;

enum class EntryType { file, directory, symlink, char_device, block_device, other };

struct DirEntry {
  std::string name;
  EntryType type = EntryType::other;
};

// What stat(2) says about a device node (or whatever sits at that path).
struct NodeInfo {
  EntryType type = EntryType::other;
  std::uint32_t mode = 0;  // permission bits only, e.g. 0660
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  bool has_acl = false;               // ls -l shows a '+'
  std::optional<std::string> access;  // measured: "rw", "r", "w" or "none"
  // false: mode, uid and gid are not the machine's (a replayed file whose
  // capture did not record them); judge ownership and permissions only live.
  bool permissions_known = true;
  // With a measured access other than "rw": the errno name access(2) answered for
  // read/write, "EACCES" (permission bits, ACL, security module) or "EPERM" (the
  // device cgroup of a Slurm job, container or Kubernetes pod closed the device).
  std::optional<std::string> access_error = std::nullopt;
};

struct Identity {
  std::string user;  // may be empty when the uid has no passwd entry
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::vector<std::uint32_t> groups;  // supplementary + primary gids of the process
};

struct GroupEntry {
  std::string name;
  std::uint32_t gid = 0;
  std::vector<std::string> members;  // as configured (/etc/group or NSS)
};

struct UserEntry {
  std::string name;
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;  // primary group
  std::string home;
  std::string shell;
};

// Default bound for read_file: sysfs and /proc files are a few KiB at most.
inline constexpr std::size_t kDefaultReadLimit = 1024 * 1024;

class Host {
 public:
  virtual ~Host() = default;

  // "live" or "snapshot": shown in reports.
  [[nodiscard]] virtual std::string_view source() const = 0;

  // Reads a whole (small) file, following symbolic links.
  [[nodiscard]] virtual HostResult<std::string> read_file(std::string_view path,
                                                          std::size_t max_bytes = kDefaultReadLimit) const = 0;
  // Lists a directory (following links to it), without "." and "..", sorted by name.
  [[nodiscard]] virtual HostResult<std::vector<DirEntry>> list_dir(std::string_view path) const = 0;
  // The target of a symbolic link, as stored (not resolved).
  [[nodiscard]] virtual HostResult<std::string> read_link(std::string_view path) const = 0;
  // Up to `length` bytes of a regular file from `offset` (pread(2), following
  // links): how large binaries are read, a header or a section at a time.
  // Fewer bytes at the end of the file, none past it. The default reads the
  // whole file (bounded) and cuts: hosts over real files override it.
  [[nodiscard]] virtual HostResult<std::string> read_range(std::string_view path, std::uint64_t offset,
                                                           std::size_t length) const;
  // The size in bytes of a regular file (following links).
  [[nodiscard]] virtual HostResult<std::uint64_t> file_size(std::string_view path) const;
  // stat(2) of a path (following links): device nodes under /dev, and the
  // owner and mode of folders and files.
  [[nodiscard]] virtual HostResult<NodeInfo> stat_node(std::string_view path) const = 0;

  [[nodiscard]] virtual std::optional<std::string> env(std::string_view name) const = 0;
  // Names of every variable in the environment (values via env()).
  [[nodiscard]] virtual std::vector<std::string> env_names() const = 0;

  [[nodiscard]] virtual Identity identity() const = 0;
  [[nodiscard]] virtual std::optional<GroupEntry> group_by_gid(std::uint32_t gid) const = 0;
  [[nodiscard]] virtual std::optional<GroupEntry> group_by_name(std::string_view name) const = 0;
  [[nodiscard]] virtual std::optional<UserEntry> user_by_name(std::string_view name) const = 0;

  // The result of an isolated runtime probe (see docs/snapshot-format.md).
  // nullopt means "not captured / not run": unknown, never a failure.
  [[nodiscard]] virtual std::optional<nlohmann::json> probe(std::string_view name) const = 0;

  // The site check plugins (docs/plugins.md): a live host finds and runs them,
  // each with `facts` on its stdin, and answers with the plugin stage's record
  // (probes.plugins in docs/snapshot-format.md). Every other host answers with
  // what a capture recorded, and never runs anything. nullopt: not run.
  [[nodiscard]] virtual std::optional<nlohmann::json> run_plugins(const nlohmann::json& facts) const;

  // Convenience built on the primitives above.
  [[nodiscard]] bool exists(std::string_view path) const;
  // read_file with surrounding whitespace removed (sysfs values end in '\n').
  [[nodiscard]] HostResult<std::string> read_trimmed(std::string_view path) const;
};

// Human-readable text for an error kind ("not found", ...).
std::string_view to_string(HostErrorKind kind);
std::string_view to_string(EntryType type);

}  // namespace rocm_doctor
