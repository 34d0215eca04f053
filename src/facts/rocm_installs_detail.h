// Shared by the source files of the ROCm inventory (rocm_doctor/facts/rocm_installs.h) only:
// its data table and the finders of each place ROCm lives.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rocm_doctor/facts/rocm_installs.h"

namespace rocm_doctor::installs_detail {

// One row of `bundles` in checks/data/rocm_installs.json.
struct BundlePlace {
  std::string kind;  // "ollama", "lemonade", "lm-studio", "llama.cpp"
  std::string app;
  std::vector<std::string> folders;  // "~" is each user's home
  std::string match;                 // glob of bundle subfolders; "" = the folder itself
  std::string kernels;               // the library whose GPU code says what the bundle runs
  std::vector<std::string> programs;
  std::string service;
};

struct InstallData {
  std::vector<std::string> suffixes;
  std::map<std::string, std::vector<std::string>> families;
  std::vector<std::string> rocblas_patterns;
  std::vector<BundlePlace> bundles;
};
// The table (overlays included), through its typed loader (rocm_installs_table.cpp); throws
// with "rocm_installs.json: KEY: ..." when it is broken.
const InstallData& install_data();

// Bounds: folders listed per place, entries per folder looked at.
inline constexpr std::size_t kMaxHomes = 64;
inline constexpr std::size_t kMaxEntries = 4096;

std::string join_path(std::string_view folder, std::string_view name);
// The homes of the machine's users (from /etc/passwd through the Host) and $HOME, bounded.
std::vector<std::string> user_homes(const Host& host);
// The libamdhip64.so* file in a folder: the versioned one when there is one; "" when none.
std::string hip_library_in(const Host& host, const std::string& folder);
// gfx targets and where they came from: the kernels library's code objects, else rocBLAS's
// per-target files under lib_dir/rocblas/library.
void read_targets(const Host& host, RocmInstall& install, const std::string& kernels_library);

// Finders, each appending to `out`.
void add_system_installs(const CheckContext& ctx, std::vector<RocmInstall>& out);
void add_python_installs(const CheckContext& ctx, std::vector<RocmInstall>& out, std::vector<TheRockFamilies>& therock);
void add_bundles(const CheckContext& ctx, std::vector<RocmInstall>& out);
// A TheRock tarball or any tree with a HIP runtime at `prefix` (--rocm-root, ROCM_PATH, ~/rocm, ...).
std::optional<RocmInstall> standalone_tree(const Host& host, const std::string& prefix);
void add_standalone_trees(const CheckContext& ctx, std::vector<RocmInstall>& out);

}  // namespace rocm_doctor::installs_detail
