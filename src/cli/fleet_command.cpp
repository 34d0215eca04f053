// `rocm-doctor fleet REPORTS...`: many nodes' JSON reports at once (collected by
// srun, pdsh, Ansible or a DaemonSet): how many nodes have each finding, nodes
// grouped by identical problem sets, and the spread of versions.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cli/cli.h"
#include "report/report_digest.h"
#include "rocm_doctor/text.h"
#include "util/atomic_file.h"

namespace rocm_doctor {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kHostsShown = 20;

struct FindingCount {
  std::string severity;  // the worst seen
  std::set<std::string> nodes;
};

struct Fleet {
  std::vector<ReportDigest> reports;
  std::vector<std::pair<std::string, std::string>> unreadable;  // file, why
  std::map<std::string, FindingCount> findings;
  std::map<std::vector<std::string>, std::vector<std::string>> groups;  // problem set -> nodes
  std::map<std::string, std::map<std::string, int>> versions;           // key -> value -> nodes
  std::map<std::string, int> gpus;                                      // model -> GPUs
  std::map<std::string, int> worst;                                     // severity -> nodes
};

std::string node_name(const ReportDigest& report) {
  return report.hostname.empty() ? fs::path(report.file).stem().string() : report.hostname;
}

std::vector<fs::path> report_files(const std::vector<std::string>& inputs,
                                   std::vector<std::pair<std::string, std::string>>& bad) {
  std::vector<fs::path> files;
  for (const auto& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input, error)) {
      for (fs::recursive_directory_iterator it(input, error), end; !error && it != end; it.increment(error)) {
        if (it->is_regular_file(error) && it->path().extension() == ".json") files.push_back(it->path());
      }
      if (error) bad.emplace_back(input, error.message());
    } else if (fs::exists(input, error)) {
      files.emplace_back(input);
    } else {
      bad.emplace_back(input, "no such file or folder");
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Reads every report, in parallel: parsing dominates at 10,000 nodes.
Fleet load(const std::vector<std::string>& inputs) {
  Fleet fleet;
  const auto files = report_files(inputs, fleet.unreadable);
  std::vector<tl::expected<ReportDigest, std::string>> results(files.size(), tl::unexpected(std::string()));
  std::atomic<std::size_t> next{0};
  const unsigned workers = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < files.size(); i = next++) results[i] = load_report_digest(files[i]);
    });
  }
  for (auto& thread : threads) thread.join();
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (results[i]) {
      fleet.reports.push_back(std::move(*results[i]));
    } else {
      fleet.unreadable.emplace_back(files[i].string(), results[i].error());
    }
  }
  for (const auto& report : fleet.reports) {
    const auto node = node_name(report);
    std::set<std::string> problems;
    for (const auto& finding : report.findings) {
      if (severity_rank(finding.severity) < severity_rank("warning")) continue;
      auto& count = fleet.findings[finding.id];
      if (severity_rank(finding.severity) > severity_rank(count.severity)) count.severity = finding.severity;
      count.nodes.insert(node);
      problems.insert(finding.id);
    }
    fleet.groups[{problems.begin(), problems.end()}].push_back(node);
    for (const auto& [key, value] : report.versions) ++fleet.versions[key][value];
    for (const auto& gpu : report.gpus) {
      const auto space = gpu.find(' ');
      ++fleet.gpus[space == std::string::npos ? gpu : gpu.substr(space + 1)];
    }
    ++fleet.worst[report.worst];
  }
  return fleet;
}

std::vector<std::pair<std::string, const FindingCount*>> by_nodes(const Fleet& fleet) {
  std::vector<std::pair<std::string, const FindingCount*>> list;
  for (const auto& [id, count] : fleet.findings) list.emplace_back(id, &count);
  std::stable_sort(list.begin(), list.end(),
                   [](const auto& a, const auto& b) { return a.second->nodes.size() > b.second->nodes.size(); });
  return list;
}

std::vector<std::pair<const std::vector<std::string>*, const std::vector<std::string>*>> groups(const Fleet& fleet) {
  std::vector<std::pair<const std::vector<std::string>*, const std::vector<std::string>*>> list;
  for (const auto& [problems, nodes] : fleet.groups) list.emplace_back(&problems, &nodes);
  std::stable_sort(list.begin(), list.end(),
                   [](const auto& a, const auto& b) { return a.second->size() > b.second->size(); });
  return list;
}

std::string some_hosts(const std::vector<std::string>& hosts) {
  std::vector<std::string> shown(hosts.begin(), hosts.begin() + static_cast<long>(std::min(hosts.size(), kHostsShown)));
  std::string out = join(shown, ", ");
  if (hosts.size() > kHostsShown) out += fmt::format(" and {} more", hosts.size() - kHostsShown);
  return out;
}

std::string render_text(const Fleet& fleet, bool markdown) {
  std::string out = markdown ? "## rocm-doctor fleet\n\n" : "";
  const auto worst = [&](const char* key) { return fleet.worst.contains(key) ? fleet.worst.at(key) : 0; };
  out += fmt::format("{} nodes: {} with errors, {} with warnings only, {} without problems", fleet.reports.size(),
                     worst("error"), worst("warning"), worst("ok") + worst("info"));
  if (!fleet.unreadable.empty()) out += fmt::format("; {} unreadable", fleet.unreadable.size());
  out += ".\n\n";
  if (markdown) {
    out += "### Findings\n\n| Finding | Severity | Nodes |\n|---|---|---|\n";
    for (const auto& [id, count] : by_nodes(fleet))
      out += fmt::format("| `{}` | {} | {} |\n", id, count->severity, count->nodes.size());
    out += "\n### Nodes grouped by problems\n\n| Nodes | Problems | Hosts |\n|---|---|---|\n";
    for (const auto& [problems, nodes] : groups(fleet)) {
      out += fmt::format("| {} | {} | {} |\n", nodes->size(), problems->empty() ? "none" : join(*problems, ", "),
                         some_hosts(*nodes));
    }
    out += "\n### Versions\n\n| Component | Value | Nodes |\n|---|---|---|\n";
    for (const auto& [key, values] : fleet.versions) {
      for (const auto& [value, count] : values) out += fmt::format("| {} | {} | {} |\n", key, value, count);
    }
    out += "\n### GPUs\n\n| Model | GPUs |\n|---|---|\n";
    for (const auto& [model, count] : fleet.gpus) out += fmt::format("| {} | {} |\n", model, count);
  } else {
    out += "Findings (nodes):\n";
    for (const auto& [id, count] : by_nodes(fleet))
      out += fmt::format("  {:>6}  {:<8} {}\n", count->nodes.size(), count->severity, id);
    out += "\nNodes grouped by problems:\n";
    for (const auto& [problems, nodes] : groups(fleet)) {
      out += fmt::format("  {:>6}  {}\n          {}\n", nodes->size(),
                         problems->empty() ? "(no problems)" : join(*problems, ", "), some_hosts(*nodes));
    }
    out += "\nVersions (nodes):\n";
    for (const auto& [key, values] : fleet.versions) {
      std::vector<std::string> parts;
      for (const auto& [value, count] : values) parts.push_back(fmt::format("{} ({})", value, count));
      out += fmt::format("  {:<14} {}\n", key, join(parts, ", "));
    }
    if (!fleet.gpus.empty()) {
      out += "\nGPUs:\n";
      for (const auto& [model, count] : fleet.gpus) out += fmt::format("  {:>6}  {}\n", count, model);
    }
  }
  if (!fleet.unreadable.empty()) {
    out += markdown ? "\n### Unreadable reports\n\n" : "\nUnreadable reports:\n";
    for (const auto& [file, why] : fleet.unreadable) out += fmt::format("{}{}\n", markdown ? "- " : "  ", why);
  }
  return out;
}

nlohmann::ordered_json to_json(const Fleet& fleet) {
  using Json = nlohmann::ordered_json;
  Json findings = Json::array();
  for (const auto& [id, count] : by_nodes(fleet)) {
    const std::vector<std::string> nodes(count->nodes.begin(), count->nodes.end());
    findings.push_back({{"id", id}, {"severity", count->severity}, {"nodes", nodes.size()}, {"hosts", nodes}});
  }
  Json grouped = Json::array();
  for (const auto& [problems, nodes] : groups(fleet))
    grouped.push_back({{"problems", *problems}, {"nodes", nodes->size()}, {"hosts", *nodes}});
  Json unreadable = Json::array();
  for (const auto& [file, why] : fleet.unreadable) unreadable.push_back({{"file", file}, {"error", why}});
  return {{"schema", "rocm-doctor/fleet"}, {"schema_version", 1},  {"nodes", fleet.reports.size()},
          {"worst", fleet.worst},          {"findings", findings}, {"groups", grouped},
          {"versions", fleet.versions},    {"gpus", fleet.gpus},   {"unreadable", unreadable}};
}

}  // namespace

int fleet_command(const std::vector<std::string>& inputs, const std::string& format, const std::string& output) {
  const Fleet fleet = load(inputs);
  if (fleet.reports.empty()) {
    for (const auto& [file, why] : fleet.unreadable)
      fmt::print(stderr, "rocm-doctor: {}\n", why.starts_with(file) ? why : file + ": " + why);
    return usage_error("fleet: no readable report");
  }
  const std::string out = format == "json" ? to_json(fleet).dump(2) + "\n" : render_text(fleet, format == "markdown");
  if (output.empty()) {
    std::fwrite(out.data(), 1, out.size(), stdout);
  } else if (auto written = write_file_atomically(output, out); !written) {
    fmt::print(stderr, "rocm-doctor: cannot write the fleet summary: {}\n", written.error());
    return static_cast<int>(ExitCode::internal);
  }
  return 0;
}

}  // namespace rocm_doctor
