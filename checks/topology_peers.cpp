// The `topology` check's findings on links between GPUs: XGMI hives, peer-to-peer
// links between KFD nodes, and RCCL on a multi-GPU machine.
#include <fmt/format.h>

#include <map>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "topology.h"

namespace rocm_doctor::topology {

namespace {

std::string hex_id(std::uint64_t value) {
  return fmt::format("0x{:x}", value);
}

struct PeerLinks {
  std::map<std::pair<int, int>, std::string> kind;  // GPU index pair (low, high) -> "XGMI" / "PCIe"
  std::vector<Evidence> evidence;
};

PeerLinks read_peer_links(const Host& host, const std::vector<const Gpu*>& gpus) {
  PeerLinks links;
  std::map<int, int> index_of_node;
  for (const auto* gpu : gpus) {
    if (gpu->node_id) index_of_node[*gpu->node_id] = gpu->index;
  }
  for (const auto* gpu : gpus) {
    if (!gpu->node_id) continue;
    for (const char* folder : {"io_links", "p2p_links"}) {
      const auto base = fmt::format("/sys/class/kfd/kfd/topology/nodes/{}/{}", *gpu->node_id, folder);
      const auto entries = host.list_dir(base);
      if (!entries) continue;
      for (const auto& entry : *entries) {
        const auto path = base + "/" + entry.name + "/properties";
        const auto text = host.read_file(path);
        if (!text) continue;
        const auto link = parse_io_link(*text);
        if (!link) continue;
        const auto peer = index_of_node.find(link->node_to);
        if (peer == index_of_node.end() || peer->second == gpu->index) continue;
        const auto type = topology_data().link_types.find(link->type);
        const auto name = type == topology_data().link_types.end() ? fmt::format("type {}", link->type) : type->second;
        const auto key = std::minmax(gpu->index, peer->second);
        auto& slot = links.kind[{key.first, key.second}];
        if (slot.empty() || name == "XGMI") slot = name;
        if (links.evidence.size() < 4)
          links.evidence.push_back(
              {path, fmt::format("type {} node_from {} node_to {}", link->type, link->node_from, link->node_to)});
      }
    }
  }
  return links;
}

}  // namespace

std::optional<Finding> xgmi_finding(const std::vector<const Gpu*>& gpus) {
  std::map<std::uint64_t, std::vector<int>> hives;
  std::vector<int> outside;
  for (const auto* gpu : gpus) {
    if (gpu->hive_id) {
      hives[*gpu->hive_id].push_back(gpu->index);
    } else {
      outside.push_back(gpu->index);
    }
  }
  if (hives.empty()) return std::nullopt;
  std::vector<std::string> rows;
  auto finding = make_finding("topology.xgmi", Severity::info, "");
  for (const auto& [hive, members] : hives) {
    std::vector<std::string> ids;
    for (const auto index : members) ids.push_back(std::to_string(index));
    rows.push_back(fmt::format("hive {} with GPUs {}", hex_id(hive), join(ids, ", ")));
    finding.with_evidence("KFD hive_id", fmt::format("{}: GPUs {}", hex_id(hive), join(ids, ", ")));
  }
  if (!outside.empty()) {
    std::vector<std::string> ids;
    for (const auto index : outside) ids.push_back(std::to_string(index));
    rows.push_back("not in a hive: GPUs " + join(ids, ", "));
  }
  finding.summary = "XGMI: " + join(rows, "; ");
  finding.because(
      "GPUs of one XGMI hive exchange data over AMD's GPU-to-GPU links instead of PCIe; collective "
      "operations (RCCL) are fastest among GPUs of the same hive.");
  return finding;
}

std::optional<Finding> p2p_finding(const Host& host, const std::vector<const Gpu*>& gpus) {
  if (gpus.size() < 2) return std::nullopt;
  const auto links = read_peer_links(host, gpus);
  std::map<std::string, std::vector<std::string>> by_kind;
  std::size_t pairs = 0;
  for (std::size_t a = 0; a < gpus.size(); ++a) {
    for (std::size_t b = a + 1; b < gpus.size(); ++b) {
      ++pairs;
      const auto key = std::minmax(gpus[a]->index, gpus[b]->index);
      const auto it = links.kind.find({key.first, key.second});
      const auto kind = it == links.kind.end() ? std::string("through the host (no direct link)") : it->second;
      by_kind[kind].push_back(fmt::format("{}-{}", key.first, key.second));
    }
  }
  std::vector<std::string> parts;
  for (const auto& [kind, list] : by_kind) parts.push_back(fmt::format("{} {}", list.size(), kind));
  auto finding = make_finding("topology.p2p", Severity::info, fmt::format("{} GPU pairs: {}", pairs, join(parts, ", ")))
                     .because(
                         "KFD lists a direct link per GPU pair: XGMI (type 11) or PCIe peer-to-peer (type 2). "
                         "Pairs without one copy through host memory, which halves the bandwidth of "
                         "collective operations between them.");
  for (const auto& [kind, list] : by_kind) finding.with_evidence(kind, join(list, " "));
  for (const auto& evidence : links.evidence) finding.evidence.push_back(evidence);
  return finding;
}

std::optional<Finding> rccl_finding(const CheckContext& ctx, std::size_t gpu_count) {
  const auto& install = ctx.fact<RocmInstallation>();
  if (!install.installed()) return std::nullopt;  // rocm-install reports the missing ROCm
  std::vector<std::string> dirs;
  if (install.active) dirs.push_back(install.active->lib_dir);
  for (const auto& dir : install.loader_dirs) {
    if (std::find(dirs.begin(), dirs.end(), dir.path) == dirs.end()) dirs.push_back(dir.path);
  }
  for (const auto& dir : dirs) {
    const auto entries = ctx.host().list_dir(dir);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      if (entry.name.starts_with("librccl.so")) return std::nullopt;
    }
  }
  const auto& facts = ctx.fact<SystemFacts>();
  const auto like = facts.os_id + " " + facts.os_id_like;
  std::string install_command = "sudo dnf install rccl";
  if (like.find("debian") != std::string::npos || like.find("ubuntu") != std::string::npos) {
    install_command = "sudo apt install rccl";
  } else if (like.find("suse") != std::string::npos) {
    install_command = "sudo zypper install rccl";
  }
  const auto fix =
      make_fix(kCheckId, "Install RCCL from the same ROCm repository as the rest of ROCm:", {install_command},
               FixNeeds{.root = true});
  return make_finding("rccl.missing", Severity::warning,
                      fmt::format("{} GPUs but no RCCL library (librccl.so)", gpu_count))
      .because(
          "PyTorch distributed (backend 'nccl'), DeepSpeed and other multi-GPU frameworks use RCCL, ROCm's "
          "collective communication library, for all-reduce between GPUs; without it multi-GPU training fails "
          "to start.")
      .with_evidence("librccl.so*", "not found in " + join(dirs, ", "))
      .with_fix(fix);
}

}  // namespace rocm_doctor::topology
