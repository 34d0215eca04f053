// Pure parsers of the `ras` and `pcie-aer` checks: amdgpu's RAS sysfs files (ras/features,
// ras/<block>_err_count, ras/gpu_vram_bad_pages), the PCIe AER counters and the thresholds
// of checks/data/ras.json.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor::ras {

inline constexpr std::string_view kCheckId = "ras";

// "ue: 3\nce: 10\n" (and "de: 0" on newer kernels): nullopt without a ue and a ce line.
struct ErrorCount {
  std::uint64_t ue = 0;
  std::uint64_t ce = 0;
  std::optional<std::uint64_t> de;
};
std::optional<ErrorCount> parse_error_count(std::string_view text);

// "feature mask: 0x1abf877" -> 0x1abf877.
std::optional<std::uint64_t> parse_feature_mask(std::string_view text);

// gpu_vram_bad_pages: "0x027f5d43 : 0x00001000 : R" lines; counts by flag.
struct BadPages {
  std::uint64_t reserved = 0;  // R
  std::uint64_t pending = 0;   // P
  std::uint64_t failed = 0;    // F
  std::uint64_t malformed = 0;
  [[nodiscard]] std::uint64_t total() const { return reserved + pending + failed; }
};
BadPages parse_bad_pages(std::string_view text);

// "RxErr 0\n...\nTOTAL_ERR_COR 5\n": every counter by name; nullopt when no line parses.
std::optional<std::map<std::string, std::uint64_t>> parse_aer_counters(std::string_view text);

struct Thresholds {
  std::uint64_t uncorrectable_above = 0;
  std::uint64_t deferred_above = 0;
  std::uint64_t correctable_above = 0;
  std::uint64_t bad_page_fallback = 128;
  double bad_page_warn_fraction = 0.9;
  std::uint64_t aer_fatal_above = 0;
  std::uint64_t aer_nonfatal_above = 0;
  std::uint64_t aer_correctable_above = 0;
  std::map<std::string, std::string> fixes;
};
Thresholds parse_thresholds(std::string_view json_text);
const Thresholds& thresholds();  // compiled in, parsed once

// The retired-page count that makes the GPU an RMA case: amdgpu.bad_page_threshold when it sets
// one (> 0), else the fallback; nullopt when retirement is off (0).
struct PageThreshold {
  std::optional<std::uint64_t> pages;
  std::string because;  // "amdgpu.bad_page_threshold=200" or "fallback 128 (amdgpu.bad_page_threshold=-1)"
};
PageThreshold page_threshold(std::optional<std::string_view> module_parameter, std::uint64_t fallback);

}  // namespace rocm_doctor::ras
