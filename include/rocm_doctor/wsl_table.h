// checks/data/wsl.json, read once through its typed loader (checks/wsl_data.cpp): what the
// `wsl` check knows of ROCm on WSL, and the interop facts the WSL interop probe
// (src/probe/wsl_interop_probe.cpp) needs, so both read the one table the one way.
#pragma once

#include <string>
#include <vector>

#include "rocm_doctor/data_table.h"

namespace rocm_doctor::wsl {

// One row of checks/data/wsl.json `supported`.
struct SupportRow {
  std::string gfx;
  std::vector<std::string> products;
  std::string since;  // first ROCm release whose WSL matrix lists it
  std::string note;
};

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
  std::vector<std::string> interop_binfmt;  // WSL's binfmt_misc entries: interop is on
  std::string interop_windows_folder;       // where cmd.exe and wsl.exe are when PATH lacks them
};

// The table or its error ("wsl.json: KEY: what"), for callers outside a check (the probe).
const data_table::LoadResult<Data>& load_table();
// The table; throws std::runtime_error with the error (a check that throws is reported failed).
const Data& data();

}  // namespace rocm_doctor::wsl
