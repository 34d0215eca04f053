#include "rocm_doctor/facts/torch_view.h"

#include <fmt/format.h>

#include <set>

#include "rocm_doctor/code_objects.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/python_env.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {

namespace {

using nlohmann::json;

json optional_text(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

bool ok_outcome(const std::optional<json>& outcome) {
  return outcome && outcome->value("status", std::string()) == "ok" && outcome->contains("result") &&
         (*outcome)["result"].is_object();
}

// The import's outcome, marked as such (a failed probe is kept as it is: the torch check reports it).
json imported(json outcome) {
  if (ok_outcome(outcome)) outcome["result"]["source"] = "import";
  return outcome;
}

}  // namespace

json files_result(const PythonEnvironment& env) {
  json result = {{"source", "files"},
                 {"executable", env.interpreter.empty() ? json(nullptr) : json(env.interpreter)},
                 {"version", env.python_version.empty() ? json(nullptr) : json(env.python_version)},
                 {"torch", nullptr}};
  if (env.interpreter.empty()) {
    result["error"] = env.error;
    return result;
  }
  result["environment"] = {{"kind", env.kind}, {"prefix", env.prefix}, {"found_by", env.found_by}};
  if (env.resolved != env.interpreter) result["environment"]["resolved"] = env.resolved;
  if (!env.undecided.empty()) result["undecided"] = env.undecided;
  if (env.torch) {
    const auto& torch = *env.torch;
    result["torch"] = {{"version", torch.version},
                       {"hip", optional_text(torch.hip)},
                       {"cuda", optional_text(torch.cuda)},
                       {"rocm", optional_text(torch.rocm)},
                       {"git_version", optional_text(torch.git_version)},
                       {"build", std::string(to_string(build_of(torch)))},
                       {"folder", torch.folder},
                       {"version_file", torch.version_file},
                       {"error", nullptr}};
    if (!torch.metadata_file.empty()) {
      result["torch"]["metadata_file"] = torch.metadata_file;
      result["torch"]["metadata_version"] = torch.metadata_version;
    }
  }
  return result;
}

bool TorchView::from_files() const {
  return outcome && outcome->contains("result") && (*outcome)["result"].is_object() &&
         (*outcome)["result"].value("source", std::string()) == "files";
}

std::vector<std::pair<std::string, std::string>> torch_needed_targets(const CheckContext& ctx) {
  std::vector<std::pair<std::string, std::string>> targets;  // target, what needs it
  if (ctx.options().image_mode) {
    for (const auto& gfx : ctx.options().target_gfx) targets.emplace_back(gfx, "--target-gfx");
    return targets;
  }
  std::optional<std::string> global;
  if (auto value = ctx.host().env("HSA_OVERRIDE_GFX_VERSION")) {
    if (auto version = parse_override_value(trim(*value))) global = gfx_name(*version);
  }
  for (const auto* gpu : ctx.fact<GpuInventory>().kfd_gpus()) {
    std::optional<std::string> target = global;
    std::string why = "override of " + gpu->label();
    if (gpu->node_id) {
      if (auto value = ctx.host().env(fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *gpu->node_id))) {
        if (auto version = parse_override_value(trim(*value))) target = gfx_name(*version);
      }
    }
    if (!target) {
      target = gpu->gfx;
      why = gpu->label();
    }
    if (!target->empty()) targets.emplace_back(*target, why);
  }
  return targets;
}

TorchView TorchView::collect(const CheckContext& ctx) {
  using Import = RunOptions::PythonImport;
  TorchView view;
  const auto mode = ctx.options().python_import;
  const auto& host = ctx.host();
  if (mode == Import::always) {
    if (auto outcome = host.probe("python")) {
      view.outcome = imported(std::move(*outcome));
      return view;
    }
  }
  const auto& env = ctx.fact<PythonEnvironment>();
  std::string undecided = env.undecided;
  json arch_list;
  std::string arch_source;
  if (undecided.empty() && env.torch && build_of(*env.torch) == TorchBuild::rocm &&
      !torch_needed_targets(ctx).empty()) {
    // The wheel's GPU code is in its bundled libtorch_hip.so: its offload bundles name the targets.
    arch_source = env.torch->folder + "/lib/libtorch_hip.so";
    auto scan = code_objects::scan_file(host, arch_source);
    if (scan && scan->problem.empty() && !scan->targets.empty()) {
      std::set<std::string> processors;
      for (const auto& target : scan->targets) processors.insert(code_objects::processor_of(target));
      arch_list = json(std::vector<std::string>(processors.begin(), processors.end()));
    } else {
      undecided = "the gfx targets of " + arch_source + " are unknown (" +
                  (!scan                    ? scan.error().message
                   : !scan->problem.empty() ? scan->problem
                                            : std::string("no code objects found")) +
                  ")";
    }
  }
  if (!undecided.empty() && mode == Import::when_undecided) {
    if (auto outcome = host.probe("python")) {
      view.import_reason = undecided;
      view.outcome = imported(std::move(*outcome));
      return view;
    }
  }
  view.undecided = undecided;
  auto result = files_result(env);
  if (arch_list.is_array() && result["torch"].is_object()) {
    result["torch"]["arch_list"] = std::move(arch_list);
    result["torch"]["arch_list_source"] = arch_source;
  }
  view.outcome = json{{"status", "ok"}, {"elapsed_ms", 0}, {"result", std::move(result)}};
  return view;
}

}  // namespace rocm_doctor
