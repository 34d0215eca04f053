// `wsl`: pure helpers behind the WSL check (tested with tables).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor::wsl {

// WSL1 kernels read "4.4.0-19041-Microsoft"; WSL2 ones "5.15.153.1-microsoft-standard-WSL2".
bool is_wsl1_kernel(std::string_view kernel_release);

// One row of checks/data/wsl.json `supported`.
struct SupportRow {
  std::string gfx;
  std::vector<std::string> products;
};
// The row's gfx when `gfx` is on the WSL list.
std::optional<std::string> supported_entry(const std::vector<SupportRow>& rows, std::string_view gfx);

}  // namespace rocm_doctor::wsl
