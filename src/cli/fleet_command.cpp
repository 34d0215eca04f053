// `rocm-doctor fleet REPORTS...`: many nodes' JSON reports at once (collected by
// srun, pdsh, Ansible or a DaemonSet): root causes and how many nodes each fix
// repairs, the nodes to drain first, nodes grouped by identical problem sets, and
// the spread of versions and GPUs. Each report is folded into the summary as it is
// read (report/fleet_summary.h), so memory does not grow with the number of nodes.
// `--baseline` adds the nodes whose configuration differs (report/fleet_baseline.h).
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "cli/cli.h"
#include "report/fleet_baseline.h"
#include "report/fleet_baseline_render.h"
#include "report/fleet_summary.h"
#include "report/report_digest.h"
#include "rocm_doctor/text.h"
#include "util/atomic_file.h"

namespace rocm_doctor {

namespace fs = std::filesystem;

namespace {

// Hands out the report files of the inputs one at a time, to any worker: files
// as given, folders searched recursively for *.json, never listed in full.
class ReportFiles {
 public:
  explicit ReportFiles(const std::vector<std::string>& inputs) : inputs_(inputs) {}

  // The next file, or nothing when all are handed out; inputs that cannot be
  // read go to `unreadable`.
  std::optional<fs::path> next(FleetSummary& unreadable) {
    const std::lock_guard lock(mutex_);
    while (true) {
      if (in_folder_) {
        if (auto file = next_in_folder(unreadable)) return file;
        in_folder_ = false;
      }
      if (input_ == inputs_.size()) return std::nullopt;
      const std::string& input = inputs_[input_++];
      std::error_code error;
      if (fs::is_directory(input, error)) {
        folder_ = input;
        it_ = fs::recursive_directory_iterator(input, error);
        if (error) {
          unreadable.add_unreadable(input, error.message());
          continue;
        }
        in_folder_ = true;
        first_ = true;
      } else if (fs::exists(input, error)) {
        return fs::path(input);
      } else {
        unreadable.add_unreadable(input, "no such file or folder");
      }
    }
  }

 private:
  std::optional<fs::path> next_in_folder(FleetSummary& unreadable) {
    std::error_code error;
    const fs::recursive_directory_iterator end;
    while (true) {
      if (!first_) it_.increment(error);
      first_ = false;
      if (error) {
        unreadable.add_unreadable(folder_, error.message());
        return std::nullopt;
      }
      if (it_ == end) return std::nullopt;
      if (it_->path().extension() == ".json" && it_->is_regular_file(error)) return it_->path();
    }
  }

  std::mutex mutex_;
  const std::vector<std::string>& inputs_;
  std::size_t input_ = 0;
  bool in_folder_ = false;
  bool first_ = false;  // the iterator stands on an entry not yet looked at
  std::string folder_;
  fs::recursive_directory_iterator it_;
};

// What one pass over the reports folds, per worker: the summary, and with --baseline
// the fleet's configurations (auto) or each node compared with the baseline.
struct FleetPass {
  bool summarize = true;
  FleetSummary summary;
  std::optional<BaselineTally> tally;
  std::optional<FleetDrift> drift;

  void add(const ReportDigest& report) {
    if (summarize) summary.add(report);
    if (!tally && !drift) return;
    const auto profile = node_profile(report);
    const auto node = fleet_node_name(report);
    if (tally) tally->add(profile, node);
    if (drift) drift->add(profile, node);
  }
  void merge(FleetPass&& other) {
    summary.merge(std::move(other.summary));
    if (tally) tally->merge(std::move(*other.tally));
    if (drift) drift->merge(std::move(*other.drift));
  }
};

// Reads every report in parallel (parsing dominates), each worker folding into a
// pass of its own (a copy of `start`); the passes merge at the end.
FleetPass load(const std::vector<std::string>& inputs, const FleetPass& start) {
  ReportFiles files(inputs);
  const unsigned workers = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
  std::vector<FleetPass> partial(workers, start);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&files, &pass = partial[w]] {
      while (const auto file = files.next(pass.summary)) {
        if (auto report = load_report_digest(*file)) {
          pass.add(*report);
        } else {
          pass.summary.add_unreadable(file->string(), std::move(report.error()));
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (unsigned w = 1; w < workers; ++w) partial[0].merge(std::move(partial[w]));
  return std::move(partial[0]);
}

template <typename Map>
std::vector<typename Map::const_pointer> by_nodes(const Map& map) {
  std::vector<typename Map::const_pointer> list;
  for (const auto& entry : map) list.push_back(&entry);
  std::stable_sort(list.begin(), list.end(),
                   [](const auto* a, const auto* b) { return a->second.nodes.count() > b->second.nodes.count(); });
  return list;
}

std::vector<const std::pair<const std::vector<std::string>, HostSample>*> groups(const FleetSummary& fleet) {
  std::vector<const std::pair<const std::vector<std::string>, HostSample>*> list;
  for (const auto& entry : fleet.groups()) list.push_back(&entry);
  std::stable_sort(list.begin(), list.end(),
                   [](const auto* a, const auto* b) { return a->second.count() > b->second.count(); });
  return list;
}

std::string some_hosts(const HostSample& sample) {
  return host_list(sample);
}

std::string cell(std::string_view text) {
  return markdown_cell(text);
}

std::string code_cell(std::string_view text) {
  return "`" + cell(text) + "`";
}

std::string stack_name(const std::pair<std::string, std::string>& stack) {
  return fmt::format("ROCm {}, amdgpu {}", stack.first.empty() ? "unknown" : stack.first,
                     stack.second.empty() ? "unknown" : stack.second);
}

std::string headline(const FleetSummary& fleet) {
  std::string out = fmt::format("{} nodes: {} with errors, {} with warnings only, {} without problems", fleet.nodes(),
                                fleet.worst_count("error"), fleet.worst_count("warning"),
                                fleet.worst_count("ok") + fleet.worst_count("info"));
  if (fleet.unreadable_total() > 0) out += fmt::format("; {} unreadable", fleet.unreadable_total());
  return out + ".\n\n";
}

std::string drain_more(const FleetSummary& fleet) {
  const auto shown = fleet.drain_first().size();
  return fleet.drain_total() > shown ? fmt::format("and {} more\n", fleet.drain_total() - shown) : "";
}

// `drift`: the --baseline part, first after the headline (what the operator asked for).
std::string render_fleet_markdown(const FleetSummary& fleet, const std::string& drift) {
  std::string out = "## rocm-doctor fleet\n\n" + headline(fleet) + drift;
  out += "### Root causes\n\n| Root cause | Severity | Nodes | Fixing it repairs |\n|---|---|---|---|\n";
  for (const auto* entry : by_nodes(fleet.root_causes())) {
    const auto& [id, tally] = *entry;
    out +=
        fmt::format("| {} | {} | {} | {} |\n", code_cell(id), cell(tally.severity), tally.nodes.count(), tally.repairs);
  }
  out += fmt::format("\n### Drain first ({} nodes with errors)\n\n| Node | Root causes | Errors |\n|---|---|---|\n",
                     fleet.drain_total());
  for (const auto& node : fleet.drain_first())
    out += fmt::format("| {} | {} | {} |\n", cell(node.host), cell(join(node.root_causes, ", ")), node.errors);
  if (!drain_more(fleet).empty()) out += "\n" + drain_more(fleet);
  out += "\n### Findings\n\n| Finding | Severity | Nodes |\n|---|---|---|\n";
  for (const auto* entry : by_nodes(fleet.findings()))
    out += fmt::format("| {} | {} | {} |\n", code_cell(entry->first), cell(entry->second.severity),
                       entry->second.nodes.count());
  out += "\n### Nodes grouped by problems\n\n| Nodes | Problems | Hosts |\n|---|---|---|\n";
  for (const auto* entry : groups(fleet)) {
    const auto& [problems, nodes] = *entry;
    out += fmt::format("| {} | {} | {} |\n", nodes.count(), problems.empty() ? "none" : cell(join(problems, ", ")),
                       cell(some_hosts(nodes)));
  }
  out += "\n### ROCm and driver\n\n| ROCm | amdgpu | Nodes |\n|---|---|---|\n";
  for (const auto& [stack, count] : fleet.stacks())
    out += fmt::format("| {} | {} | {} |\n", cell(stack.first.empty() ? "unknown" : stack.first),
                       cell(stack.second.empty() ? "unknown" : stack.second), count);
  out += "\n### Versions\n\n| Component | Value | Nodes |\n|---|---|---|\n";
  for (const auto& [key, values] : fleet.versions()) {
    for (const auto& [value, count] : values) out += fmt::format("| {} | {} | {} |\n", cell(key), cell(value), count);
  }
  out += "\n### GPUs\n\n| Model | GPUs | Nodes |\n|---|---|---|\n";
  for (const auto& [model, tally] : fleet.gpu_models())
    out += fmt::format("| {} | {} | {} |\n", cell(model), tally.gpus, tally.nodes);
  if (!fleet.partition_modes().empty()) {
    out += "\n### Partition modes\n\n| GPU and mode | GPUs | Nodes |\n|---|---|---|\n";
    for (const auto& [mode, tally] : fleet.partition_modes())
      out += fmt::format("| {} | {} | {} |\n", cell(mode), tally.gpus, tally.nodes);
  }
  return out;
}

std::string render_fleet_text(const FleetSummary& fleet, const std::string& drift) {
  std::string out = headline(fleet) + drift;
  out += "Root causes (nodes, nodes that fixing it alone repairs):\n";
  for (const auto* entry : by_nodes(fleet.root_causes())) {
    const auto& [id, tally] = *entry;
    out += fmt::format("  {:>6} {:>6}  {:<8} {}\n", tally.nodes.count(), tally.repairs, tally.severity, id);
  }
  out += fmt::format("\nDrain first ({} nodes with errors):\n", fleet.drain_total());
  for (const auto& node : fleet.drain_first())
    out += fmt::format("  {:<24} {} ({} error{})\n", node.host, join(node.root_causes, ", "), node.errors,
                       node.errors == 1 ? "" : "s");
  if (!drain_more(fleet).empty()) out += "  " + drain_more(fleet);
  out += "\nFindings (nodes):\n";
  for (const auto* entry : by_nodes(fleet.findings()))
    out += fmt::format("  {:>6}  {:<8} {}\n", entry->second.nodes.count(), entry->second.severity, entry->first);
  out += "\nNodes grouped by problems:\n";
  for (const auto* entry : groups(fleet)) {
    const auto& [problems, nodes] = *entry;
    out += fmt::format("  {:>6}  {}\n          {}\n", nodes.count(),
                       problems.empty() ? "(no problems)" : join(problems, ", "), some_hosts(nodes));
  }
  out += "\nROCm and driver (nodes):\n";
  for (const auto& [stack, count] : fleet.stacks()) out += fmt::format("  {:>6}  {}\n", count, stack_name(stack));
  out += "\nVersions (nodes):\n";
  for (const auto& [key, values] : fleet.versions()) {
    std::vector<std::string> parts;
    for (const auto& [value, count] : values) parts.push_back(fmt::format("{} ({})", value, count));
    out += fmt::format("  {:<14} {}\n", key, join(parts, ", "));
  }
  if (!fleet.gpu_models().empty()) {
    out += "\nGPUs (GPUs, nodes):\n";
    for (const auto& [model, tally] : fleet.gpu_models())
      out += fmt::format("  {:>6} {:>6}  {}\n", tally.gpus, tally.nodes, model);
  }
  if (!fleet.partition_modes().empty()) {
    out += "\nPartition modes (GPUs, nodes):\n";
    for (const auto& [mode, tally] : fleet.partition_modes())
      out += fmt::format("  {:>6} {:>6}  {}\n", tally.gpus, tally.nodes, mode);
  }
  return out;
}

std::string unreadable_list(const FleetSummary& fleet, bool markdown) {
  if (fleet.unreadable_total() == 0) return "";
  std::string out = markdown ? "\n### Unreadable reports\n\n" : "\nUnreadable reports:\n";
  for (const auto& [file, why] : fleet.unreadable())
    out += fmt::format("{}{}\n", markdown ? "- " : "  ", why.starts_with(file) ? why : file + ": " + why);
  if (fleet.unreadable_total() > fleet.unreadable().size())
    out += fmt::format("{}and {} more\n", markdown ? "- " : "  ", fleet.unreadable_total() - fleet.unreadable().size());
  return out;
}

nlohmann::ordered_json fleet_json(const FleetSummary& fleet) {
  using Json = nlohmann::ordered_json;
  Json root_causes = Json::array();
  for (const auto* entry : by_nodes(fleet.root_causes())) {
    const auto& [id, tally] = *entry;
    root_causes.push_back({{"id", id},
                           {"severity", tally.severity},
                           {"nodes", tally.nodes.count()},
                           {"repairs", tally.repairs},
                           {"hosts", tally.nodes.hosts()}});
  }
  Json drain = Json::array();
  for (const auto& node : fleet.drain_first())
    drain.push_back({{"host", node.host}, {"root_causes", node.root_causes}, {"errors", node.errors}});
  Json findings = Json::array();
  for (const auto* entry : by_nodes(fleet.findings())) {
    const auto& [id, tally] = *entry;
    findings.push_back(
        {{"id", id}, {"severity", tally.severity}, {"nodes", tally.nodes.count()}, {"hosts", tally.nodes.hosts()}});
  }
  Json grouped = Json::array();
  for (const auto* entry : groups(fleet))
    grouped.push_back({{"problems", entry->first}, {"nodes", entry->second.count()}, {"hosts", entry->second.hosts()}});
  Json stacks = Json::array();
  for (const auto& [stack, count] : fleet.stacks())
    stacks.push_back({{"rocm", stack.first}, {"amdgpu", stack.second}, {"nodes", count}});
  Json gpus = Json::object();
  Json models = Json::array();
  for (const auto& [model, tally] : fleet.gpu_models()) {
    gpus[model] = tally.gpus;
    models.push_back({{"model", model}, {"gpus", tally.gpus}, {"nodes", tally.nodes}});
  }
  Json partitions = Json::array();
  for (const auto& [mode, tally] : fleet.partition_modes())
    partitions.push_back({{"mode", mode}, {"gpus", tally.gpus}, {"nodes", tally.nodes}});
  Json unreadable = Json::array();
  for (const auto& [file, why] : fleet.unreadable()) unreadable.push_back({{"file", file}, {"error", why}});
  return {{"schema", "rocm-doctor/fleet"},
          {"schema_version", 2},
          {"nodes", fleet.nodes()},
          {"worst", fleet.worst()},
          {"root_causes", root_causes},
          {"drain_first", {{"nodes", fleet.drain_total()}, {"hosts", drain}}},
          {"findings", findings},
          {"groups", grouped},
          {"stacks", stacks},
          {"versions", fleet.versions()},
          {"gpus", gpus},
          {"gpu_models", models},
          {"partition_modes", partitions},
          {"unreadable", unreadable},
          {"unreadable_total", fleet.unreadable_total()}};
}

// The baseline a fleet is compared with: a report's profile, or the fleet's own
// majority (--baseline auto), which needs the whole fleet first.
struct Baseline {
  BaselineSource source;
  std::optional<NodeProfile> profile;  // nullopt: auto
};

tl::expected<Baseline, std::string> read_baseline(const std::string& option) {
  if (option == "auto") return Baseline{};
  auto report = load_report_digest(option);
  if (!report) return tl::unexpected("fleet: --baseline " + report.error());
  return Baseline{{option, fleet_node_name(*report)}, node_profile(*report)};
}

// One pass with the summary; with --baseline auto the grouping comes from the fleet's
// distinct profiles, or from a second pass when there were too many to keep.
FleetPass summarize(const std::vector<std::string>& inputs, const std::optional<Baseline>& baseline) {
  FleetPass start;
  if (baseline && baseline->profile) start.drift.emplace(*baseline->profile);
  if (baseline && !baseline->profile) start.tally.emplace();
  FleetPass pass = load(inputs, start);
  if (!pass.tally) return pass;
  FleetDrift drift(pass.tally->majority());
  if (pass.tally->overflowed()) {
    FleetPass again{.summarize = false, .summary = {}, .tally = std::nullopt, .drift = std::move(drift)};
    pass.drift = std::move(load(inputs, again).drift);
  } else {
    for (const auto& [profile, hosts] : pass.tally->profiles()) drift.add(profile, hosts);
    pass.drift = std::move(drift);
  }
  pass.tally.reset();
  return pass;
}

}  // namespace

int fleet_command(const std::vector<std::string>& inputs, const std::string& format, const std::string& output,
                  const std::string& baseline_option) {
  std::optional<Baseline> baseline;
  if (!baseline_option.empty()) {
    auto read = read_baseline(baseline_option);
    if (!read) return usage_error(read.error());
    baseline = std::move(*read);
  }
  const FleetPass pass = summarize(inputs, baseline);
  const FleetSummary& fleet = pass.summary;
  if (fleet.nodes() == 0) {
    for (const auto& [file, why] : fleet.unreadable())
      fmt::print(stderr, "rocm-doctor: {}\n", why.starts_with(file) ? why : file + ": " + why);
    return usage_error("fleet: no readable report");
  }
  std::string out;
  if (format == "json") {
    auto json = fleet_json(fleet);
    if (pass.drift) json["baseline"] = baseline_to_json(*pass.drift, baseline->source);
    out = json.dump(2) + "\n";
  } else if (format == "markdown") {
    out = render_fleet_markdown(fleet, pass.drift ? render_baseline_markdown(*pass.drift, baseline->source) : "") +
          unreadable_list(fleet, true);
  } else {
    out = render_fleet_text(fleet, pass.drift ? render_baseline_text(*pass.drift, baseline->source) : "") +
          unreadable_list(fleet, false);
  }
  if (output.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else if (auto written = write_file_atomically(output, out); !written) {
    fmt::print(stderr, "rocm-doctor: cannot write the fleet summary: {}\n", written.error());
    return static_cast<int>(ExitCode::internal);
  }
  return 0;
}

}  // namespace rocm_doctor
