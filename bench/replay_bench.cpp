// Whole replays of synthetic nodes (tests/scenarios/gen_synthetic_node.py): open
// the snapshot, run every check, render the JSON report, as `--replay DIR --json`
// does. At 1, 8 and 64 GPUs, and with growing group files, to show linear growth.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <utility>

#include "core/runner.h"
#include "host/snapshot_host.h"
#include "render/render.h"
#include "support/snapshot_builder.h"
#include "support/synthetic_node.h"

namespace rocm_doctor {
namespace {

// One folder per (gpus, groups), written on first use and kept for the process.
const std::filesystem::path& node(int gpus, int groups) {
  static testing::TempDir dir;
  static std::map<std::pair<int, int>, std::filesystem::path> folders;
  const auto key = std::make_pair(gpus, groups);
  if (const auto it = folders.find(key); it != folders.end()) return it->second;
  auto folder = dir.path() / ("node-" + std::to_string(gpus) + "-" + std::to_string(groups));
  if (auto written = testing::write_synthetic_node(folder, gpus, groups); !written) {
    std::fprintf(stderr, "rocm_doctor_bench: %s\n", written.error().c_str());
    std::exit(2);
  }
  return folders.emplace(key, std::move(folder)).first->second;
}

void replay(benchmark::State& state, int gpus, int groups) {
  const auto& folder = node(gpus, groups);
  const auto& checks = registered_checks();
  for (auto _ : state) {
    auto host = SnapshotHost::open(folder);
    if (!host) {
      state.SkipWithError(host.error().c_str());
      return;
    }
    const Report report = run_checks(**host, RunOptions{}, checks);
    benchmark::DoNotOptimize(render_json(report));
  }
}

void BM_ReplayGpus(benchmark::State& state) {
  replay(state, static_cast<int>(state.range(0)), 0);
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_ReplayGpus)->Arg(1)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond)->Complexity(benchmark::oN);

void BM_ReplayGroups(benchmark::State& state) {
  replay(state, 8, static_cast<int>(state.range(0)));
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_ReplayGroups)->Arg(10)->Arg(1000)->Arg(8000)->Unit(benchmark::kMillisecond)->Complexity(benchmark::oN);

}  // namespace
}  // namespace rocm_doctor
