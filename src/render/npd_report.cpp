// node-problem-detector custom plugin: an exit code and one short line.
// NPD cuts stdout at max_output_length bytes (80 by default) and uses it as
// the node condition's message: the line is ASCII and never longer than that.
#include <fmt/format.h>

#include <algorithm>

#include "render/formats.h"
#include "rocm_doctor/diagnosis.h"

namespace rocm_doctor {

namespace {

constexpr int kOk = 0;
constexpr int kNonOk = 1;
constexpr int kUnknown = 2;

std::string ascii_line(std::string text) {
  for (char& c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) c = '?';
  }
  if (text.size() > kNpdMaxOutput) text = text.substr(0, kNpdMaxOutput - 3) + "...";
  return text;
}

struct GpuCounts {
  std::size_t gpus = 0;
  std::size_t partitions = 0;  // of partitioned GPUs; 0 when none is
};

// Physical GPUs, as the text report lists them: a GPU in CPX mode is one GPU of several
// partitions, not several GPUs (issue 22).
GpuCounts gpu_counts(const Report& report) {
  GpuCounts counts{render_support::gpu_rows(report).size(), 0};
  for (const auto& gpu : render_support::physical_gpu_rows(report)) {
    if (!gpu.partitioned() || gpu.partitions.empty()) continue;
    counts.partitions += gpu.partitions.size();
    counts.gpus -= std::min(counts.gpus, gpu.partitions.size() - 1);
  }
  return counts;
}

}  // namespace

int npd_exit_code(const Report& report, Severity fail_on) {
  if (exit_code_for(report, fail_on) == ExitCode::findings) return kNonOk;
  if (count_findings(report).internal_error > 0) return kUnknown;
  return kOk;
}

std::string render_npd(const Report& report, Severity fail_on) {
  const auto counts = count_findings(report);
  const int code = npd_exit_code(report, fail_on);
  std::string line;
  if (code == kNonOk) {
    // The first root cause names the problem (else the worst finding); the counts say how much more there is.
    const Finding* worst = nullptr;
    const auto roots = root_causes(report);
    if (!roots.empty()) worst = roots.front().finding;
    for (const auto& check : report.checks) {
      for (const auto& finding : check.findings) {
        if (worst == nullptr || finding.severity > worst->severity) worst = &finding;
      }
    }
    line = fmt::format("{}E {}W {}: {}", counts.error, counts.warning, worst->id, worst->summary);
  } else if (code == kUnknown) {
    line = fmt::format("rocm-doctor: {} check(s) failed internally", counts.internal_error);
  } else {
    const auto [gpus, partitions] = gpu_counts(report);
    const auto partition_words = partitions == 0 ? std::string() : fmt::format(", {} partitions", partitions);
    line = fmt::format("ROCm OK ({} GPU{}{}, {} warning{})", gpus, gpus == 1 ? "" : "s", partition_words,
                       counts.warning, counts.warning == 1 ? "" : "s");
  }
  return ascii_line(std::move(line)) + "\n";
}

}  // namespace rocm_doctor
