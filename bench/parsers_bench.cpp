// The parsers every run goes through, on realistic inputs of growing size.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "host/account_files.h"
#include "host/snapshot_manifest.h"
#include "report/report_digest.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor {
namespace {

// A gfx942 node's KFD properties file, as kfd_topology.c writes it (38 lines).
std::string kfd_properties(int node) {
  std::string text;
  const std::pair<const char*, long long> fields[] = {{"cpu_cores_count", 0},
                                                      {"simd_count", 1216},
                                                      {"mem_banks_count", 1},
                                                      {"caches_count", 3},
                                                      {"io_links_count", 8},
                                                      {"p2p_links_count", 7},
                                                      {"cpu_core_id_base", 0},
                                                      {"simd_id_base", 2147487744},
                                                      {"max_waves_per_simd", 8},
                                                      {"lds_size_in_kb", 64},
                                                      {"gds_size_in_kb", 0},
                                                      {"num_gws", 64},
                                                      {"wave_front_size", 64},
                                                      {"array_count", 64},
                                                      {"simd_arrays_per_engine", 1},
                                                      {"cu_per_simd_array", 38},
                                                      {"simd_per_cu", 4},
                                                      {"max_slots_scratch_cu", 32},
                                                      {"gfx_target_version", 90402},
                                                      {"vendor_id", 4098},
                                                      {"device_id", 29857},
                                                      {"location_id", 1280 + node},
                                                      {"domain", 0},
                                                      {"drm_render_minor", 128 + node},
                                                      {"hive_id", 7305312497823907712LL},
                                                      {"num_sdma_engines", 16},
                                                      {"num_sdma_xgmi_engines", 14},
                                                      {"num_sdma_queues_per_engine", 8},
                                                      {"num_cp_queues", 120},
                                                      {"max_engine_clk_fcompute", 2100},
                                                      {"local_mem_size", 206158430208},
                                                      {"fw_version", 78},
                                                      {"capability", 1015065216},
                                                      {"debug_prop", 1511},
                                                      {"sdma_fw_version", 9},
                                                      {"unique_id", 1037646359883453 + node},
                                                      {"num_xcc", 8},
                                                      {"max_engine_clk_ccompute", 3800}};
  for (const auto& [key, value] : fields) text += fmt::format("{} {}\n", key, value);
  return text;
}

void BM_KfdProperties(benchmark::State& state) {
  const auto text = kfd_properties(3);
  for (auto _ : state) benchmark::DoNotOptimize(parse_kfd_properties(3, text));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_KfdProperties);

// /etc/group with N groups of a few members each (a directory-service-sized file at the top).
void BM_GroupFile(benchmark::State& state) {
  std::string text = "root:x:0:\nvideo:x:44:alice\nrender:x:110:alice\n";
  for (int n = 0; n < state.range(0); ++n)
    text += fmt::format("project{:05}:x:{}:alice,bob{},carol\n", n, 20000 + n, n % 97);
  for (auto _ : state) benchmark::DoNotOptimize(parse_group_file(text));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_GroupFile)->RangeMultiplier(8)->Range(8, 32768)->Complexity(benchmark::oN);

void BM_OsRelease(benchmark::State& state) {
  const std::string text =
      "PRETTY_NAME=\"Ubuntu 22.04.4 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\n"
      "VERSION=\"22.04.4 LTS (Jammy Jellyfish)\"\nVERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\n"
      "HOME_URL=\"https://www.ubuntu.com/\"\nSUPPORT_URL=\"https://help.ubuntu.com/\"\n"
      "BUG_REPORT_URL=\"https://bugs.launchpad.net/ubuntu/\"\nUBUNTU_CODENAME=jammy\n";
  for (auto _ : state) benchmark::DoNotOptimize(parse_env_file(text));
}
BENCHMARK(BM_OsRelease);

// snapshot.json with N GPUs' device nodes, an environment and probe results.
std::string manifest(int gpus) {
  nlohmann::json nodes = {{"/dev/kfd", {{"type", "char"}, {"mode", "0660"}, {"uid", 0}, {"gid", 110}}}};
  for (int i = 0; i < gpus; ++i) {
    nodes[fmt::format("/dev/dri/renderD{}", 128 + i)] = {{"type", "char"}, {"mode", "0660"}, {"uid", 0}, {"gid", 110}};
    nodes[fmt::format("/dev/dri/card{}", i)] = {{"type", "char"}, {"mode", "0660"}, {"uid", 0}, {"gid", 44}};
  }
  nlohmann::json devices = nlohmann::json::array();
  for (int i = 0; i < gpus; ++i) {
    devices.push_back({{"index", i},
                       {"name", "AMD Instinct MI300X"},
                       {"pci_bus_id", fmt::format("0000:{:02x}:00.0", i)},
                       {"gfx", "gfx942"},
                       {"compute_units", 304},
                       {"memory_total", 206158430208}});
  }
  nlohmann::json env = {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm/bin"},
                        {"HOME", "/home/alice"},
                        {"USER", "alice"},
                        {"LANG", "en_US.UTF-8"}};
  return nlohmann::json{{"format", "rocm-doctor-snapshot"},
                        {"version", 1},
                        {"captured_at", "2026-11-30T07:00:00Z"},
                        {"captured_by", "bench"},
                        {"env", env},
                        {"identity", {{"user", "alice"}, {"uid", 1000}, {"gid", 1000}, {"groups", {44, 110, 1000}}}},
                        {"nodes", nodes},
                        {"probes", {{"hip", {{"status", "ok"}, {"result", {{"devices", devices}}}}}}}}
      .dump(2);
}

void BM_SnapshotManifest(benchmark::State& state) {
  const auto text = manifest(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(parse_snapshot_manifest(text));
  state.SetComplexityN(state.range(0));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_SnapshotManifest)->RangeMultiplier(8)->Range(1, 512)->Complexity(benchmark::oN);

// A JSON report as `fleet` reads it: N checks with two findings each, free text included.
std::string report(int checks) {
  nlohmann::json list = nlohmann::json::array();
  for (int c = 0; c < checks; ++c) {
    nlohmann::json findings = nlohmann::json::array();
    for (int f = 0; f < 2; ++f) {
      findings.push_back({{"id", fmt::format("check{}.finding{}", c, f)},
                          {"severity", f == 0 ? "info" : "warning"},
                          {"summary", "A one-line summary of what was found on this node"},
                          {"detail", std::string(600, 'd')},
                          {"evidence", {{{"label", "/sys/module/amdgpu/version"}, {"value", "6.3.6"}}}},
                          {"fix", {{"description", std::string(200, 'f')}, {"commands", {"sudo modprobe amdgpu"}}}}});
    }
    list.push_back(
        {{"id", fmt::format("check{}", c)}, {"title", "A check"}, {"status", "warning"}, {"findings", findings}});
  }
  return nlohmann::json{
      {"schema", "rocm-doctor/report"},
      {"schema_version", 1},
      {"tool", {{"name", "rocm-doctor"}, {"version", "0.1.0"}}},
      {"generated_at", "2026-11-30T07:00:00Z"},
      {"host", {{"hostname", "node0001"}, {"os", "Ubuntu 22.04.4 LTS"}, {"kernel", "5.15.0-119-generic"}}},
      {"summary", {{"worst", "warning"}}},
      {"checks", list}}
      .dump(2);
}

void BM_ReportDigest(benchmark::State& state) {
  const auto text = report(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(parse_report_digest(text));
  state.SetComplexityN(state.range(0));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReportDigest)->RangeMultiplier(4)->Range(4, 256)->Complexity(benchmark::oN);

}  // namespace
}  // namespace rocm_doctor
