// Symptom matching (issue 17) over generated logs of 5, 25 and 50 MB: mostly
// benign lines of healthy runs (rocminfo, amdgpu init, NCCL INFO, training
// progress) with a real error every 20,000 lines. The matcher's prefilter keeps
// the time linear in the log, and under 1 s at 50 MB.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <array>
#include <string>
#include <utility>

#include "rocm_doctor/symptom.h"

namespace rocm_doctor {
namespace {

constexpr std::array<const char*, 8> kBenign = {
    "[    5.178359] [drm] Initialized amdgpu 3.27.0 20150101 for 0000:44:00.0 on minor 2",
    "amdgpu 0000:04:00.0: amdgpu: ring comp_1.0.0 uses VM inv eng 1 on hub 0",
    "node1:101707:101889 [0] NCCL INFO Channel 00/32 :    0",
    "node1:101707:101889 [0] NCCL INFO comm 0x558ef922a470 rank 0 nranks 8 cudaDev 0 busId 30 - Init START",
    "  Marketing Name:          AMD Instinct MI300X",
    "  Compute Unit:            304",
    "epoch 3 step 1200/5000 loss 2.3145 lr 3.0e-04 tokens/s 51234",
    "INFO:root:saving checkpoint to /scratch/run-17/ckpt-1200.pt",
};

constexpr std::array<const char*, 3> kErrors = {
    "RuntimeError: HIP error: hipErrorNoBinaryForGpu",
    "Memory access fault by GPU node-2 (Agent handle: 0x55c2) on address 0x7f00.\n"
    "Reason: Page not present or supervisor privilege.",
    "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory",
};

std::string generated_log(std::size_t bytes) {
  std::string log;
  log.reserve(bytes + 256);
  for (std::size_t line = 0; log.size() < bytes; ++line) {
    log += line % 20'000 == 19'999 ? kErrors[(line / 20'000) % kErrors.size()] : kBenign[line % kBenign.size()];
    log += '\n';
  }
  return log;
}

// Times matcher.scan over `log`, with the bytes and the matches as counters.
void scan_repeatedly(benchmark::State& state, const std::string& log) {
  const auto& matcher = symptom::default_matcher();
  std::size_t matches = 0;
  for (auto _ : state) {
    const auto found = matcher.scan(log);
    matches = found.size();
    benchmark::DoNotOptimize(found.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * log.size()));
  state.counters["matches"] = static_cast<double>(matches);
}

void SymptomScanLog(benchmark::State& state) {
  const auto megabytes = static_cast<std::size_t>(state.range(0));
  scan_repeatedly(state, generated_log(megabytes * 1000 * 1000));
  state.SetComplexityN(static_cast<std::int64_t>(megabytes));
}
BENCHMARK(SymptomScanLog)->Arg(5)->Arg(25)->Arg(50)->Unit(benchmark::kMillisecond)->Complexity(benchmark::oN);

// The worst case for locating matches: every signature's first sample at the
// very end of a 50 MB benign log, so each one's first match is as far as it gets.
void SymptomScanEveryErrorAtTheEnd(benchmark::State& state) {
  auto log = generated_log(50U * 1000 * 1000);
  for (const auto& signature : symptom::signatures()) log += signature.samples.front() + "\n";
  scan_repeatedly(state, log);
}
BENCHMARK(SymptomScanEveryErrorAtTheEnd)->Unit(benchmark::kMillisecond);

// A user's `why --log` is the first scan of a fresh matcher, whose regular
// expressions have built no DFA state yet: each iteration builds a new matcher
// (not timed) and scans once.
void scan_once_fresh(benchmark::State& state, const std::string& log) {
  std::size_t matches = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto matcher = symptom::Matcher::build(symptom::signatures(), symptom::families(), symptom::word_settings());
    if (!matcher) {
      state.SkipWithError(matcher.error().c_str());
      return;
    }
    state.ResumeTiming();
    const auto found = matcher->scan(log);
    matches = found.size();
    benchmark::DoNotOptimize(found.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * log.size()));
  state.counters["matches"] = static_cast<double>(matches);
}

void SymptomFirstScanEveryErrorAtTheEnd(benchmark::State& state) {
  auto log = generated_log(50U * 1000 * 1000);
  for (const auto& signature : symptom::signatures()) log += signature.samples.front() + "\n";
  scan_once_fresh(state, log);
}
BENCHMARK(SymptomFirstScanEveryErrorAtTheEnd)->Unit(benchmark::kMillisecond)->Iterations(3);

// Text the matcher has never seen, all of it different: every real sample of
// the catalogue once (~140 KB), the worst case for a first scan.
void SymptomFirstScanEverySample(benchmark::State& state) {
  std::string log;
  for (const auto& signature : symptom::signatures()) {
    for (const auto& sample : signature.samples) log += sample + "\n";
  }
  scan_once_fresh(state, log);
}
BENCHMARK(SymptomFirstScanEverySample)->Unit(benchmark::kMillisecond)->Iterations(3);

// An AMD_LOG_LEVEL=3 API trace of a HIP program's loop, the real lines of
// https://github.com/ROCm/legacy-rocm-build/issues/2804 (tests/symptom/benign_lines.txt)
// with their microsecond clock running on, so that no line ever repeats: the
// prefilter's worst real case, every stretch new and full of HIP words.
// Each line: where the runtime logged it, and what.
constexpr std::array<std::pair<const char*, const char*>, 6> kTraceLoop = {{
    {"hip_device_runtime.cpp   :561", " hipSetDevice ( 0 ) "},
    {"hip_device_runtime.cpp   :565", "hipSetDevice: Returned hipSuccess : "},
    {"hip_module.cpp           :679", "hipLaunchKernel: Returned hipSuccess : "},
    {"hip_error.cpp            :27 ", " hipGetLastError (  ) "},
    {"hip_device_runtime.cpp   :531", " hipGetDevice ( 0x7ffc77275c6c ) "},
    {"hip_device_runtime.cpp   :539", "hipGetDevice: Returned hipSuccess : "},
}};

void SymptomFirstScanHipTrace(benchmark::State& state) {
  std::string log;
  log.reserve(50U * 1000 * 1000 + 256);
  for (std::size_t line = 0, clock = 893897958; log.size() < 50U * 1000 * 1000; ++line, clock += 3) {
    const auto& [where, what] = kTraceLoop[line % kTraceLoop.size()];
    log += fmt::format(":3:{} : {:010} us: [pid:110   tid:0x7f5fe9669740] {}\n", where, clock, what);
  }
  scan_once_fresh(state, log);
}
BENCHMARK(SymptomFirstScanHipTrace)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace rocm_doctor
