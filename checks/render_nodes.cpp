// `render-nodes`: inside a container, which of the host's GPUs were passed in. KFD's
// topology in sysfs lists every GPU of the host, but ROCm opens only GPUs whose render
// node exists in the container's /dev/dri, and numbers those from 0. A
// HIP_VISIBLE_DEVICES=1 written for the host (or for `--device /dev/dri/renderD129`)
// then names a GPU the container does not have: "no ROCm-capable device is detected".
#include <algorithm>

#include "env_lint.h"
#include "env_variables_table.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::render_nodes_check {
namespace {

constexpr std::string_view kCheckId = "render-nodes";

std::vector<const Gpu*> passed_in(const Host& host, const std::vector<const Gpu*>& gpus) {
  std::vector<const Gpu*> passed;
  for (const auto* gpu : gpus) {
    const auto node = gpu->render_node();
    if (node.empty()) continue;
    const auto info = host.stat_node(node);
    if (info && info->type == EntryType::char_device) passed.push_back(gpu);
  }
  return passed;
}

Finding subset(const std::vector<const Gpu*>& gpus, const std::vector<const Gpu*>& passed) {
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < passed.size(); ++i) {
    labels.push_back(std::to_string(i) + ": " + passed[i]->name + " " + passed[i]->bdf + " (" +
                     passed[i]->render_node() + ")");
  }
  auto finding = make_finding("container.gpus-subset", Severity::info,
                              std::to_string(passed.size()) + " of the host's " + std::to_string(gpus.size()) +
                                  " GPUs are passed into this container; ROCm numbers them " + join(labels, ", "))
                     .because(
                         "Sysfs shows the host's KFD topology, but ROCm uses only GPUs whose render node the "
                         "container has, and numbers them from 0 in KFD order: indices in *_VISIBLE_DEVICES "
                         "count the passed GPUs, not the host's.");
  for (const auto* gpu : gpus) {
    const bool in = std::find(passed.begin(), passed.end(), gpu) != passed.end();
    finding.with_evidence(gpu->render_node().empty() ? "KFD GPU " + gpu->bdf : gpu->render_node(),
                          gpu->bdf + (in ? " passed" : " not passed"));
  }
  return finding;
}

std::optional<Finding> index_out_of_range(const Host& host, std::size_t passed) {
  for (const auto& name : env_lint::env_variables_table().visibility_variables) {
    const auto value = host.env(name);
    if (!value) continue;
    const auto list = env_lint::parse_device_list(*value, name == "ROCR_VISIBLE_DEVICES");
    if (!list.error.empty() || list.hides_all) continue;  // the env check reports malformed lists
    for (const auto& token : list.tokens) {
      if (!token.index || *token.index < passed) continue;
      std::vector<std::string> valid;
      for (std::size_t i = 0; i < passed; ++i) valid.push_back(std::to_string(i));
      return make_finding("container.visible-index-out-of-range", Severity::error,
                          name + "=" + *value + " names GPU " + token.text + ", but this container has " +
                              std::to_string(passed) + " GPU(s) (" + join(valid, ",") + ")")
          .because(
              "Inside the container ROCm numbers only the GPUs passed in, from 0. An index chosen on the host "
              "(or for the host's renderD number) selects nothing: 'no ROCm-capable device is detected', "
              "hipErrorNoDevice, ollama on the CPU.")
          .with_evidence("env " + name, *value)
          .with_evidence("/dev/dri", std::to_string(passed) + " render node(s) of the host's GPUs")
          .with_fix(make_fix(kCheckId,
                             "Choose GPUs with the container's --device flags and leave " + name +
                                 " unset, or use indices of the passed GPUs.",
                             {"unset " + name, "export " + name + "=" + shell_quote(join(valid, ","))}));
    }
  }
  return std::nullopt;
}

class RenderNodesCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "GPUs passed into the container"; }
  int order() const override { return 36; }
  std::vector<std::string_view> finding_ids() const override {
    return {"container.gpus-subset", "container.visible-index-out-of-range"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode) return CheckOutcome::skipped("no GPU while building an image");
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.container.empty()) return CheckOutcome::skipped("not in a container");
    const auto gpus = ctx.fact<GpuInventory>().kfd_gpus();
    const auto passed = passed_in(ctx.host(), gpus);
    // None passed is container.kfd-not-passed; all passed needs no renumbering.
    if (passed.empty() || passed.size() == gpus.size()) return CheckOutcome{};
    std::vector<Finding> findings = {subset(gpus, passed)};
    if (auto finding = index_out_of_range(ctx.host(), passed.size())) findings.push_back(std::move(*finding));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::render_nodes_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::render_nodes_check::RenderNodesCheck)
