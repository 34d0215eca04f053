// Pure parts of the `apu-memory` check: the GTT/TTM limits a machine configures
// (kernel command line, modprobe.d) and the KFD memory pool of an APU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor::apu_memory {

// The check's id, shared by its files (their findings' fixes re-run it).
inline constexpr std::string_view kCheckId = "apu-memory";

// One memory limit as configured: "ttm.pages_limit=25165824" on the command line,
// "options amdttm pages_limit=25165824" in a modprobe.d file.
struct Setting {
  std::string module;  // "ttm", "amdttm", "amdgpu" (dashes as underscores)
  std::string param;   // "pages_limit", "page_pool_size", "gttsize"
  std::string value;   // as written
  std::string source;  // "/proc/cmdline" or the modprobe.d file
  int line = 0;        // 1-based line in a modprobe.d file, 0 on the command line
};

// The parameters this check knows: ttm/amdttm pages_limit and page_pool_size, amdgpu gttsize.
bool is_memory_param(std::string_view module, std::string_view param);

// `module.param=value` words of a kernel command line, for the known parameters.
std::vector<Setting> parse_cmdline_settings(std::string_view cmdline);
// `options MODULE key=value ...` lines of a modprobe.d file ('#' comments, '\' joins lines).
std::vector<Setting> parse_modprobe_settings(std::string_view text, std::string_view source);

// The value the kernel accepts: pages_limit/page_pool_size an unsigned count of
// pages, gttsize a signed MiB count (-1 = default). nullopt for anything the
// kernel's parameter parser refuses ("96G", "", "0x").
std::optional<std::int64_t> parse_param_value(std::string_view param, std::string_view value);

// "MemTotal:  131072000 kB" in /proc/meminfo, in bytes.
std::optional<std::uint64_t> parse_mem_total(std::string_view meminfo);

// A KFD mem_banks/N/properties file: heap_type and size_in_bytes.
struct MemBank {
  std::uint64_t heap_type = 0;  // 0 system, 1 frame buffer public, 2 frame buffer private
  std::uint64_t size = 0;
};
std::optional<MemBank> parse_mem_bank(std::string_view properties);

// The facts of checks/data/apu_memory.json.
struct CappedPoolFix {
  std::string gfx;     // "gfx1151"
  std::string kernel;  // first kernel without the cap
  std::string source;
};
struct Data {
  std::uint64_t page_size = 4096;
  std::string small_apu_gtt_kernel;  // "6.10": KFD allocates from GTT on small APUs since
  std::uint64_t pool_too_small = 0;  // bytes
  double pool_capped_ratio = 0.9;
  std::vector<std::string> modprobe_dirs;
  std::vector<std::string> ttm_modules;
  std::vector<std::string> ttm_params;
  std::vector<CappedPoolFix> capped_pool_fixed_in;
};
const Data& data();

// "6.8.0-48-generic" < "6.10": true; nullopt when either is not a version.
std::optional<bool> kernel_older_than(std::string_view kernel_release, std::string_view version);

// 103079215104 -> "96.0 GiB", 536870912 -> "512 MiB".
std::string human_bytes(std::uint64_t bytes);

}  // namespace rocm_doctor::apu_memory
