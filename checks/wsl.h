// `wsl`: pure helpers behind the WSL check (tested with tables) and its data
// (checks/data/wsl.json), shared by the check's files.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"

namespace rocm_doctor::wsl {

// The check's id, shared by its files (their findings' fixes re-run it).
inline constexpr std::string_view kCheckId = "wsl";

// WSL1 kernels read "4.4.0-19041-Microsoft"; WSL2 ones "5.15.153.1-microsoft-standard-WSL2".
bool is_wsl1_kernel(std::string_view kernel_release);

// One row of checks/data/wsl.json `supported`.
struct SupportRow {
  std::string gfx;
  std::vector<std::string> products;
  std::string since;  // first ROCm release whose WSL matrix lists it
  std::string note;
};
// The row's gfx when `gfx` is on the WSL list.
std::optional<std::string> supported_entry(const std::vector<SupportRow>& rows, std::string_view gfx);

// One ROCm release AMD shipped for WSL and the Windows driver it was paired with.
struct ReleaseRow {
  std::string rocm;
  std::string runtime;
  std::string adrenalin;
  std::string source;
};

struct Data {
  std::vector<std::string> libraries;
  std::string legacy_package;
  std::string enable_variable;
  std::string lib_dir;
  std::string dxcore;
  std::string driver_requirement;
  std::string driver_source;
  std::vector<SupportRow> supported;
  std::vector<ReleaseRow> releases;
  std::string dxg_required_before;
  std::string dxg_disable_value;
  std::string dxg_source;
  unsigned windows_min_build = 0;
  std::string windows_name;
  std::string windows_source;
  std::vector<std::string> inbox_kernels;
  std::string inbox_kernels_source;
  std::string min_kernel;
  std::string min_kernel_note;
  std::string driver_store_dir;
  std::string amd_package_prefix;
  std::vector<std::string> interop_binfmt;
};
const Data& data();

// What `HSA_ENABLE_DXG_DETECTION` does on a release: "" (the release finds the
// WSL GPU), else why it does not. `release` empty: unknown.
struct DxgVerdict {
  bool blocks = false;  // the runtime will not look for the WSL GPU
  bool certain = true;  // false when the release is unknown
  std::string reason;
};
DxgVerdict judge_dxg_variable(const std::optional<std::string>& value, std::string_view release,
                              std::string_view required_before, std::string_view disable_value);

// "10.0.19045.6456" from `cmd.exe /c ver` or `wsl --version` text (any language).
std::optional<std::string> windows_build_in(std::string_view text);
// The build number (19045) of "10.0.19045.6456".
std::optional<unsigned> windows_build_number(std::string_view version);
// `wsl --version` fields by position (the labels are translated): WSL, kernel, and
// the Windows version (the line holding 10.0.x).
struct WslVersionText {
  std::string wsl;
  std::string kernel;
  std::string windows;
};
WslVersionText parse_wsl_version(std::string_view text);

// The Windows/WSL-version finding (wsl.windows-too-old), or nullopt.
std::optional<Finding> windows_finding(const CheckContext& ctx, std::vector<Evidence>& ok_evidence);
// The runtime finding (wsl.runtime-missing), or nullopt.
std::optional<Finding> runtime_finding(const CheckContext& ctx, std::vector<Evidence>& ok_evidence);
// The active ROCm release ("7.2.0"), empty when unknown.
std::string active_release(const CheckContext& ctx);

}  // namespace rocm_doctor::wsl
