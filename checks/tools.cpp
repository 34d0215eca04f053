// `tools`: which ROCm command-line tools are installed, and whether PATH finds them.
#include <fmt/format.h>

#include <algorithm>

#include "env_variables_table.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::tools_check {
namespace {

constexpr std::string_view kCheckId = "tools";

class ToolsCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm tools"; }
  int order() const override { return 95; }
  std::vector<std::string_view> finding_ids() const override { return {"tools.installed", "tools.none"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& host = ctx.host();
    const auto& tools = env_lint::env_variables_table().tools;
    std::vector<std::string> path_dirs;
    for (const auto& dir : split_search_path(host.env("PATH").value_or(""))) {
      if (!dir.empty() && dir.front() == '/' && std::find(path_dirs.begin(), path_dirs.end(), dir) == path_dirs.end()) {
        path_dirs.push_back(normalize_path(dir));
      }
    }
    std::vector<std::string> rocm_dirs = {"/opt/rocm/bin"};
    for (const auto& release : ctx.fact<RocmInstallation>().releases) {
      if (!release.bin_dir.empty()) rocm_dirs.push_back(release.bin_dir);
    }
    // One listing per folder: no tool binary is read (or copied into a capture).
    std::map<std::string, std::vector<std::string>> listings;
    const auto listing = [&](const std::string& dir) -> const std::vector<std::string>& {
      auto it = listings.find(dir);
      if (it == listings.end()) {
        std::vector<std::string> names;
        if (auto entries = host.list_dir(dir)) {
          for (const auto& entry : *entries) {
            if (entry.type != EntryType::directory) names.push_back(entry.name);
          }
        }
        it = listings.emplace(dir, std::move(names)).first;
      }
      return it->second;
    };
    const auto found_in = [&](const std::string& dir, const std::string& tool) {
      const auto& names = listing(dir);
      return std::find(names.begin(), names.end(), tool) != names.end();
    };
    Finding finding = make_finding("tools.installed", Severity::info, "");
    std::vector<std::string> present;
    std::vector<std::string> missing;
    for (const auto& tool : tools) {
      std::string where;
      for (const auto& dir : path_dirs) {
        if (found_in(dir, tool)) {
          where = dir + "/" + tool;
          break;
        }
      }
      if (where.empty()) {
        for (const auto& dir : rocm_dirs) {
          if (found_in(dir, tool)) {
            where = dir + "/" + tool + " (not on PATH)";
            break;
          }
        }
      }
      if (where.empty()) {
        missing.push_back(tool);
      } else {
        present.push_back(tool);
        finding.with_evidence(tool, where);
      }
    }
    if (present.empty()) {
      return {{make_finding("tools.none", Severity::info, "No ROCm command-line tool is installed")
                   .because("rocminfo (lists the GPU agents ROCm sees) and rocm-smi/amd-smi (clocks, memory, "
                            "temperatures) are the first tools to reach for; they come with the rocminfo and "
                            "rocm-smi-lib/amd-smi-lib packages.")
                   .with_evidence("searched", join(path_dirs, ":") + " and " + join(rocm_dirs, ", "))}};
    }
    finding.summary = fmt::format("ROCm tools installed: {}", join(present, ", "));
    finding.because(missing.empty() ? std::string("Every common ROCm tool is installed.")
                                    : "Not installed: " + join(missing, ", ") +
                                          ". Verify the GPU with rocminfo (clinfo only shows OpenCL).");
    return {{finding}};
  }
};

}  // namespace
}  // namespace rocm_doctor::tools_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::tools_check::ToolsCheck)
