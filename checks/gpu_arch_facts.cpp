// What the `gpu-arch` check reads (gpu_arch.h): the gfx targets the installed
// release carries, and the profile files that set the override.
#include <fmt/format.h>

#include "gpu_arch.h"
#include "rocm_doctor/facts/math_libraries.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::gpu_arch {
namespace {

// Lines of a shell/env file that assign the override (any per-device form too).
std::vector<std::pair<int, std::string>> override_assignments(std::string_view text) {
  std::vector<std::pair<int, std::string>> found;
  int number = 0;
  for (const auto raw : lines(text)) {
    ++number;
    auto line = trim(raw);
    if (line.starts_with("export ")) line = trim(line.substr(7));
    if (!line.starts_with(kVariable)) continue;
    auto rest = line.substr(kVariable.size());
    if (rest.starts_with('_')) {
      rest.remove_prefix(1);
      while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest.remove_prefix(1);
    }
    if (trim(rest).starts_with('=')) found.emplace_back(number, std::string(trim(raw)));
  }
  return found;
}

}  // namespace

std::string home_of(const Host& host) {
  const auto identity = host.identity();
  if (auto user = host.user_by_name(identity.user)) return user->home;
  return "";
}

std::vector<Location> override_locations(const Host& host) {
  std::vector<std::pair<std::string, bool>> files = {{"/etc/environment", true}, {"/etc/profile", true}};
  if (auto entries = host.list_dir("/etc/profile.d")) {
    for (const auto& entry : *entries) files.emplace_back("/etc/profile.d/" + entry.name, true);
  }
  if (const auto home = home_of(host); !home.empty()) {
    for (const auto* name : {".profile", ".bash_profile", ".bashrc", ".zshrc", ".zprofile"}) {
      files.emplace_back(home + "/" + name, false);
    }
  }
  std::vector<Location> found;
  for (const auto& [path, system] : files) {
    auto text = host.read_file(path);
    if (!text) continue;
    for (auto& [line, content] : override_assignments(*text)) found.push_back({path, line, content, system});
  }
  return found;
}

BuiltIn built_in(const CheckContext& ctx) {
  const auto& kb = kb::knowledge_base();
  const auto& install = ctx.fact<RocmInstallation>();
  BuiltIn result;
  if (install.active) {
    result.version = install.active->version;
    result.release = "ROCm " + (result.version.empty() ? install.active->prefix : result.version);
    const auto& libraries = ctx.fact<MathLibraries>();
    if (const auto* rocblas = libraries.find("rocBLAS"); rocblas != nullptr && !rocblas->gfx_targets().empty()) {
      result.gfx = rocblas->gfx_targets();
      result.evidence_source = rocblas->kernel_dir;
      result.evidence = "rocBLAS Tensile files for " + join({result.gfx.begin(), result.gfx.end()}, ", ");
      return result;
    }
  }
  const kb::Release* row = result.version.empty() ? &kb.newest_release() : kb.release(result.version);
  std::string note;
  if (row == nullptr) {
    const bool older = kb::version_less(result.version, kb.releases().front().release);
    row = older ? &kb.releases().front() : &kb.newest_release();
    note = fmt::format(" (closest release this doctor knows for {})", result.release);
    result.unknown_newer = !older;
  }
  if (result.release.empty()) {
    result.release = "ROCm " + row->release;
    note = " (no ROCm installed: judged against the newest release this doctor knows)";
  }
  for (const auto& name : row->target_names(result.version)) result.gfx.insert(name);
  result.evidence_source = "official support list of ROCm " + row->release + note;
  result.evidence = join({result.gfx.begin(), result.gfx.end()}, ", ");
  return result;
}

std::string evidence_word(const BuiltIn& built) {
  return built.evidence_source.starts_with("official") ? "its official support list" : "the installed rocBLAS files";
}

void add_locations(Finding& finding, const std::vector<Location>& locations) {
  for (const auto& location : locations) {
    finding.with_evidence(fmt::format("{}:{}", location.path, location.line), location.text);
  }
  if (locations.empty()) {
    finding.with_evidence("where it is set",
                          "not in /etc/environment, /etc/profile, /etc/profile.d/* or the user's ~/.profile, "
                          "~/.bashrc, ~/.zshrc: it comes from the launching service, container or command line");
  }
}

}  // namespace rocm_doctor::gpu_arch
