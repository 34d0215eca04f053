// `wsl`: pure helpers behind the WSL check (tested with tables), shared by the check's
// files; its data (checks/data/wsl.json) is rocm_doctor/wsl_table.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"
#include "rocm_doctor/wsl_table.h"

namespace rocm_doctor::wsl {

// The check's id, shared by its files (their findings' fixes re-run it).
inline constexpr std::string_view kCheckId = "wsl";

// WSL1 kernels read "4.4.0-19041-Microsoft"; WSL2 ones "5.15.153.1-microsoft-standard-WSL2".
bool is_wsl1_kernel(std::string_view kernel_release);

// The row's gfx when `gfx` is on the WSL list.
std::optional<std::string> supported_entry(const std::vector<SupportRow>& rows, std::string_view gfx);

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
