// The kernel-log check on large logs: pattern matching per line over the real start-up corpus,
// and a whole run on /dev/kmsg of 1 to 16 MiB (the check's read limit) of real lines.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "../checks/kernel_log.h"
#include "support/snapshot_builder.h"

namespace rocm_doctor {
namespace {

// The corpus's messages and the patterns' real samples: what a busy node's log holds.
std::vector<std::string> real_messages() {
  std::vector<std::string> messages;
  std::ifstream in(std::string(ROCM_DOCTOR_SOURCE_DIR) + "/tests/checks/data/amdgpu_boot_lines.txt");
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#') continue;
    messages.push_back(line.front() == '[' ? line.substr(line.find(']') + 2) : line);
  }
  for (const auto& pattern : kernel_log::patterns()) {
    if (pattern.sample) messages.push_back(*pattern.sample);
  }
  return messages;
}

void BM_KernelLogMatch(benchmark::State& state) {
  const auto messages = real_messages();
  std::size_t matched = 0;
  for (auto _ : state) {
    for (const auto& message : messages) matched += kernel_log::match(message, kernel_log::patterns()) != nullptr;
  }
  benchmark::DoNotOptimize(matched);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * messages.size()));
}
BENCHMARK(BM_KernelLogMatch);

void BM_KernelLogCheck(benchmark::State& state) {
  const auto messages = real_messages();
  const auto bytes = static_cast<std::size_t>(state.range(0)) << 20;
  std::string kmsg;
  for (std::size_t i = 0; kmsg.size() < bytes; ++i) {
    kmsg += "6," + std::to_string(i) + "," + std::to_string(1000000 + i * 1000) + ",-;" +
            messages[i % messages.size()] + "\n";
  }
  testing::SnapshotBuilder builder;
  builder.os_release("ubuntu", "22.04", "Ubuntu 22.04.5 LTS").kernel("6.8.0-48-generic");
  builder.file("/dev/kmsg", kmsg);
  auto host = builder.open();
  for (auto _ : state) {
    auto report = testing::run_on(*host, {"kernel-log"});
    benchmark::DoNotOptimize(report);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kmsg.size()));
}
BENCHMARK(BM_KernelLogCheck)->Arg(1)->Arg(4)->Arg(16)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rocm_doctor
