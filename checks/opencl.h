// Pure parts of the `opencl` check: ICD files and the implementations they name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocm_doctor::opencl {

struct Implementation {
  std::string library;     // "libamdocl64.so": an ICD names it, or a versioned file of it
  std::string name;        // "ROCm OpenCL"
  std::string drives_amd;  // "always", "never", or the variable that turns it on ("RUSTICL_ENABLE")
  bool rocm = false;
};
const std::vector<Implementation>& implementations();  // checks/data/opencl.json
std::string_view vendor_dir();
std::string_view amd_runtime();

// The library an .icd file names: its first non-empty line, trimmed. nullopt when empty
// or not one plausible file name (binary junk, several words).
std::optional<std::string> parse_icd(std::string_view text);

// The implementation a library path or name belongs to ("/opt/rocm-6.2.4/lib/libamdocl64.so",
// "libRusticlOpenCL.so.1"), if known.
const Implementation* classify(std::string_view library);

// RUSTICL_ENABLE="radeonsi,iris" names radeonsi.
bool rusticl_enables_radeonsi(std::string_view value);

}  // namespace rocm_doctor::opencl
