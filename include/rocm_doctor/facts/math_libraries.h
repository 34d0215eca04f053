// The ROCm math libraries of the active release (rocBLAS, hipBLASLt, MIOpen, ...)
// and, for those with per-gfx kernel files, which gfx targets they carry.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"
#include "rocm_doctor/kb.h"

namespace rocm_doctor {

struct InstalledLibrary {
  std::string name;     // "rocBLAS"
  std::string file;     // "/opt/rocm-6.0.2/lib/librocblas.so.4.0.60002"
  std::string version;  // "4.0.60002" (the file's version suffix), may be empty
  std::optional<kb::KernelLayout> layout;
  std::string kernel_dir;                 // where its kernel files were found; empty when none
  std::vector<std::string> kernel_files;  // names in kernel_dir
  // Whether the kernel files carry `gfx`; nullopt when there is no kernel folder to judge.
  [[nodiscard]] std::optional<bool> carries(std::string_view gfx) const;
  // Every gfx the kernel files name (token layouts only).
  [[nodiscard]] std::set<std::string> gfx_targets() const;
};

struct MathLibraries {
  std::string release_label;  // "ROCm 6.0.2" ("" when no release is installed)
  std::string lib_dir;
  std::vector<InstalledLibrary> libraries;

  [[nodiscard]] const InstalledLibrary* find(std::string_view name) const;
  static MathLibraries collect(const CheckContext& ctx);
};

// Pure helpers: every "gfx..." token in a file name ("Kernels.so-000-gfx90a-xnack+.hsaco" -> gfx90a).
std::set<std::string> gfx_tokens(std::string_view file_name);
// "librocblas.so.4.0.60002" with soname "librocblas.so" -> "4.0.60002"; nullopt when it is another file.
std::optional<std::string> soname_version(std::string_view file_name, std::string_view soname);

}  // namespace rocm_doctor
