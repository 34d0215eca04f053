// `env`: the ROCm / HIP / HSA / PyTorch / RCCL variables of this environment:
// GPU visibility lists, debugging switches left on, the PyTorch allocator
// config, build target lists, misspelled or invented names, install paths.
#include "env.h"

#include <fmt/format.h>

#include <algorithm>

#include "env_lint.h"
#include "env_variables_table.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::env_check {
namespace {

using env_lint::looks_like_rocm;

Environment read_environment(const Host& host) {
  // The names that do not look like ROCm's but the env check judges (env_variables.json).
  static const std::vector<std::string> others = [] {
    const auto& table = env_lint::env_variables_table();
    std::vector<std::string> names = {"PATH", "LD_LIBRARY_PATH"};
    for (const auto* list : {&table.visibility_variables, &table.alloc_conf_variables, &table.arch_list_variables,
                             &table.path_variables}) {
      names.insert(names.end(), list->begin(), list->end());
    }
    return names;
  }();
  Environment env;
  for (const auto& name : host.env_names()) {
    const bool wanted = looks_like_rocm(name) || std::find(others.begin(), others.end(), name) != others.end();
    if (!wanted) continue;  // never read (so never recorded) an unrelated value
    if (auto value = host.env(name)) env.values[name] = *value;
  }
  return env;
}

class EnvCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "ROCm environment variables"; }
  int order() const override { return 80; }
  std::vector<std::string_view> finding_ids() const override {
    return {"env.visible-devices-invalid",
            "env.visible-devices-conflict",
            "env.launch-blocking",
            "env.serialize",
            "env.debug-logging",
            "env.alloc-conf-invalid",
            "env.rocm-arch-mismatch",
            "env.unknown-variable",
            "env.path-invalid",
            "env.mixed-releases",
            "env.ok"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto env = read_environment(ctx.host());
    std::vector<Finding> findings;
    visibility_findings(ctx, env, findings);
    debug_switch_findings(env, findings);
    alloc_conf_findings(env, findings);
    arch_findings(ctx, env, findings);
    name_findings(env, findings);
    path_findings(ctx, env, findings);
    mixed_release_findings(ctx, env, findings);
    if (std::none_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return f.severity >= Severity::warning; })) {
      std::vector<std::string> names;
      for (const auto& [name, value] : env.values) {
        if (looks_like_rocm(name) || name.starts_with("PYTORCH_") || name.find("VISIBLE") != std::string::npos)
          names.push_back(name);
      }
      findings.push_back(make_finding("env.ok", Severity::ok,
                                      names.empty() ? std::string("No ROCm variables are set (the defaults apply)")
                                                    : fmt::format("ROCm variables look right: {}", join(names, ", ")))
                             .because("Visibility lists, debugging switches, allocator config, target lists, "
                                      "names and install paths were checked."));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::env_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::env_check::EnvCheck)
