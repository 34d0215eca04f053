// The parts of the `gpu-arch` check that stand on their own: where the gfx
// override is set and what the release carries (gpu_arch_facts.cpp), the fixes
// that set or remove the override (gpu_arch_fixes.cpp), and the judgement of one
// GPU against the release (gpu_arch_judge.cpp). The check itself is gpu_arch.cpp.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"

namespace rocm_doctor::gpu_arch {

inline constexpr std::string_view kCheckId = "gpu-arch";
inline constexpr std::string_view kVariable = "HSA_OVERRIDE_GFX_VERSION";

// What the installed release carries, and how we know.
struct BuiltIn {
  std::set<std::string> gfx;
  std::string release;  // "ROCm 6.0.2"
  std::string version;  // "6.0.2", empty when nothing is installed
  std::string evidence_source;
  std::string evidence;  // "rocBLAS Tensile files ..." / "official support list of ROCm 6.0"
  // The installed release is newer than the knowledge base and no rocBLAS files say what it
  // carries: absence from the (older) list proves nothing.
  bool unknown_newer = false;
  [[nodiscard]] bool has(const std::string& name) const { return gfx.contains(name); }
};

// A place a shell or PAM would pick the variable up from.
struct Location {
  std::string path;
  int line = 0;
  std::string text;
  bool system = false;  // needs root to edit
};

// One GPU (or --target-gfx entry) to judge, with the override that applies to it.
struct Subject {
  std::string label;
  std::string gfx;
  const Gpu* gpu = nullptr;
  std::string variable;  // the override variable that applies ("" when none)
  std::optional<std::string> value;
};

// --- Facts (gpu_arch_facts.cpp) ---

// The gfx targets the installed release carries: rocBLAS's kernel files when
// present, else the official support list of the release (or the newest known).
BuiltIn built_in(const CheckContext& ctx);
// "its official support list" or "the installed rocBLAS files", for the because-text.
std::string evidence_word(const BuiltIn& built);
// The user's home folder from the passwd entry; empty when there is none.
std::string home_of(const Host& host);
// Every line of the system and user profile files that sets the override.
std::vector<Location> override_locations(const Host& host);
// Evidence naming each location, or saying the variable comes from elsewhere.
void add_locations(Finding& finding, const std::vector<Location>& locations);

// --- Fixes (gpu_arch_fixes.cpp) ---

// The user's ~/.profile, ready for a command line: its path when the passwd entry names the
// home folder, else "$HOME"/.profile for the shell to expand (a quoted '~' is not).
std::string profile_path(const Host& host);

// Commands that comment out every line setting the variable; `needs_root` turns
// true when one of them is a system file.
std::vector<std::string> removal_commands(const std::vector<Location>& locations, bool& needs_root);
// Set `variable`=`value` now and in ~/.profile, commenting out the `locations` that set it otherwise.
Fix set_override_fix(const Host& host, const std::string& variable, const std::string& value,
                     const std::vector<Location>& locations);
// The same for every user, through a profile.d file.
Fix system_wide_fix(const std::string& variable, const std::string& value);
// Unset the subject's variable and comment out the `locations` that set it.
Fix remove_override_fix(const Subject& subject, const std::vector<Location>& locations);

// --- Judgement (gpu_arch_judge.cpp) ---

// One finding per subject: supported, override needed, invalid, unneeded or unsupported.
void judge_subjects(const CheckContext& ctx, const BuiltIn& built, const std::vector<Location>& locations,
                    const std::vector<Subject>& subjects, std::vector<Finding>& out);

// --- Compute partitions (gpu_arch_partitions.cpp) ---

// gpu.partition-count-mismatch for each physical GPU whose KFD partitions do not number what its
// mode (or its XCDs per partition) implies, or that are inconsistent; gpu.partition-mode-mixed when
// GPUs of one model run different compute or memory partition modes.
std::vector<Finding> partition_findings(const GpuInventory& inventory);

}  // namespace rocm_doctor::gpu_arch
