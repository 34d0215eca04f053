// `ras`: the GPUs' own RAS counters from sysfs, without loading a vendor library: uncorrectable,
// deferred and correctable ECC counts per block (ras/<block>_err_count), retired VRAM pages
// (ras/gpu_vram_bad_pages) against the bad-page threshold, the RAS feature mask and the VRAM
// in use (mem_info_*). Thresholds: checks/data/ras.json.
#include "ras.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::ras {

namespace {

constexpr std::string_view kSuffix = "_err_count";

struct GpuRas {
  std::string name;    // "GPU 0 (0000:c1:00.0)"
  std::string folder;  // /sys/bus/pci/devices/<bdf>
  std::optional<std::uint64_t> features;
  std::map<std::string, ErrorCount> blocks;
  std::optional<BadPages> bad_pages;
  std::vector<std::pair<std::string, std::string>> evidence;  // every file read and what it said
  std::vector<std::string> unreadable;                        // "path: why"
};

std::string counts_text(const ErrorCount& count) {
  auto text = fmt::format("ue {}, ce {}", count.ue, count.ce);
  if (count.de) text += fmt::format(", de {}", *count.de);
  return text;
}

std::optional<GpuRas> read_gpu(const Host& host, const Gpu& gpu) {
  GpuRas ras;
  ras.name = gpu.index >= 0 ? fmt::format("GPU {} ({})", gpu.index, gpu.bdf) : gpu.bdf;
  ras.folder = "/sys/bus/pci/devices/" + gpu.bdf;
  const auto entries = host.list_dir(ras.folder + "/ras");
  if (!entries) return std::nullopt;  // this GPU has no RAS (consumer GPUs)
  auto read = [&](const std::string& path) -> std::optional<std::string> {
    auto text = host.read_file(path, 1U << 20);
    if (!text) {
      ras.unreadable.push_back(text.error().message);
      return std::nullopt;
    }
    return *text;
  };
  std::vector<std::string> names;
  for (const auto& entry : *entries) names.push_back(entry.name);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    const auto path = ras.folder + "/ras/" + name;
    if (name == "features") {
      const auto text = read(path);
      if (!text) continue;
      ras.features = parse_feature_mask(*text);
      ras.evidence.emplace_back(path, ras.features ? fmt::format("feature mask: {:#x}", *ras.features)
                                                   : "unparsable: " + std::string(trim(*text)).substr(0, 80));
    } else if (name.size() > kSuffix.size() && name.ends_with(kSuffix)) {
      const auto text = read(path);
      if (!text) continue;
      const auto count = parse_error_count(*text);
      if (!count) {
        ras.unreadable.push_back(path + ": no 'ue: N' and 'ce: N' lines");
        continue;
      }
      ras.blocks[name.substr(0, name.size() - kSuffix.size())] = *count;
      ras.evidence.emplace_back(path, counts_text(*count));
    } else if (name == "gpu_vram_bad_pages") {
      const auto text = read(path);
      if (!text) continue;
      ras.bad_pages = parse_bad_pages(*text);
      ras.evidence.emplace_back(
          path, fmt::format("{} retired page(s): {} reserved, {} pending, {} failed", ras.bad_pages->total(),
                            ras.bad_pages->reserved, ras.bad_pages->pending, ras.bad_pages->failed));
      if (ras.bad_pages->malformed > 0)
        ras.unreadable.push_back(fmt::format("{}: {} malformed line(s)", path, ras.bad_pages->malformed));
    }
  }
  for (const std::string file : {"mem_info_vram_total", "mem_info_vram_used"}) {
    if (const auto text = host.read_trimmed(ras.folder + "/" + file); text && parse_uint(*text))
      ras.evidence.emplace_back(ras.folder + "/" + file, *text);
  }
  return ras;
}

using Pick = std::function<std::uint64_t(const ErrorCount&)>;

// "umc 2, gfx 1" for the blocks whose picked count is above `above`.
std::string blocks_above(const GpuRas& gpu, const Pick& pick, std::uint64_t above) {
  std::vector<std::string> parts;
  for (const auto& [block, count] : gpu.blocks) {
    if (pick(count) > above) parts.push_back(fmt::format("{} {}", block, pick(count)));
  }
  return join(parts, ", ");
}

void error_finding(std::vector<Finding>& out, const std::vector<GpuRas>& gpus, const std::string& id, Severity severity,
                   const std::string& what, const Pick& pick, std::uint64_t above, const std::string& fix,
                   const std::string& because) {
  std::vector<std::string> parts;
  std::vector<std::pair<std::string, std::string>> evidence;
  for (const auto& gpu : gpus) {
    const auto blocks = blocks_above(gpu, pick, above);
    if (blocks.empty()) continue;
    parts.push_back(gpu.name + ": " + blocks);
    for (const auto& [block, count] : gpu.blocks) {
      if (pick(count) > above) evidence.emplace_back(gpu.folder + "/ras/" + block + "_err_count", counts_text(count));
    }
  }
  if (parts.empty()) return;
  auto finding = make_finding(id, severity, what + " on " + join(parts, "; ")).because(because);
  for (const auto& [source, value] : evidence) finding.with_evidence(source, value);
  finding.with_fix(make_fix(kCheckId, thresholds().fixes.at(fix),
                            {"sudo dmesg --ctime | grep -iE 'amdgpu.*(hardware error|poison|bad page)'"},
                            {.root = true}));
  out.push_back(std::move(finding));
}

void bad_page_findings(std::vector<Finding>& out, const std::vector<GpuRas>& gpus, const PageThreshold& limit) {
  for (const auto& gpu : gpus) {
    if (!gpu.bad_pages || gpu.bad_pages->total() == 0 || !limit.pages) continue;
    const auto retired = gpu.bad_pages->total();
    const auto warn_at =
        static_cast<std::uint64_t>(static_cast<double>(*limit.pages) * thresholds().bad_page_warn_fraction);
    const bool reached = retired >= *limit.pages;
    if (!reached && retired < warn_at) continue;
    auto finding =
        make_finding(reached ? "ras.bad-page-threshold" : "ras.bad-pages",
                     reached ? Severity::error : Severity::warning,
                     fmt::format("{} retired {} VRAM page(s), {} the bad-page threshold of {}", gpu.name, retired,
                                 reached ? "reaching" : "near", *limit.pages))
            .because(reached ? "At the threshold AMD treats the GPU as an RMA case; amdgpu may refuse to initialise it "
                               "at the next boot."
                             : "amdgpu warns from 90% of the threshold on: the GPU is close to an RMA case.")
            .with_evidence(gpu.folder + "/ras/gpu_vram_bad_pages", fmt::format("{} page(s)", retired))
            .with_evidence("threshold", limit.because);
    finding.with_fix(make_fix(kCheckId, thresholds().fixes.at("bad-pages"), {"amd-smi bad-pages"}, {}));
    out.push_back(std::move(finding));
  }
}

Finding counters_finding(const std::vector<GpuRas>& gpus, const PageThreshold& limit) {
  auto finding = make_finding("ras.counters", Severity::ok, fmt::format("RAS counters of {} GPU(s) read", gpus.size()))
                     .because(
                         "amdgpu's RAS counters in sysfs: errors per block since the driver loaded, and the VRAM "
                         "pages retired over the GPU's life (kept in its EEPROM).");
  for (const auto& gpu : gpus) {
    for (const auto& [source, value] : gpu.evidence) finding.with_evidence(source, value);
    for (const auto& why : gpu.unreadable) finding.with_evidence("unreadable", why);
    if (gpu.features && *gpu.features == 0)
      finding.with_evidence(gpu.folder + "/ras/features", "RAS is off on this GPU: no errors are counted");
  }
  finding.with_evidence("bad page threshold", limit.because);
  if (std::any_of(gpus.begin(), gpus.end(), [](const GpuRas& gpu) { return !gpu.unreadable.empty(); }))
    finding.severity = Severity::info;
  return finding;
}

class RasCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "GPU RAS counters"; }
  int order() const override { return 23; }
  std::vector<std::string_view> finding_ids() const override {
    return {"ras.uncorrectable", "ras.correctable", "ras.bad-page-threshold", "ras.bad-pages", "ras.counters"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode) return CheckOutcome::skipped("--image: no GPU is attached to an image build");
    if (ctx.fact<SystemFacts>().wsl) return CheckOutcome::skipped("WSL: the Windows driver keeps the RAS counters");
    std::vector<GpuRas> gpus;
    for (const auto* gpu : ctx.fact<GpuInventory>().pci_gpus()) {
      if (gpu->bdf.empty()) continue;
      if (auto ras = read_gpu(ctx.host(), *gpu)) gpus.push_back(std::move(*ras));
    }
    if (gpus.empty()) return CheckOutcome::skipped("no GPU has amdgpu RAS counters (ras/ in its sysfs folder)");
    const auto parameter = ctx.host().read_trimmed("/sys/module/amdgpu/parameters/bad_page_threshold");
    const auto limit = page_threshold(parameter ? std::optional<std::string_view>(*parameter) : std::nullopt,
                                      thresholds().bad_page_fallback);
    const auto& t = thresholds();
    std::vector<Finding> findings;
    error_finding(
        findings, gpus, "ras.uncorrectable", Severity::error, "Uncorrectable RAS errors",
        [](const ErrorCount& c) { return c.ue; }, t.uncorrectable_above, "uncorrectable",
        "Uncorrectable (ue) errors corrupted data the GPU computed or held; the jobs on it failed or "
        "produced wrong results, and the driver reset the GPU.");
    error_finding(
        findings, gpus, "ras.uncorrectable", Severity::warning, "Deferred RAS errors",
        [](const ErrorCount& c) { return c.de.value_or(0); }, t.deferred_above, "uncorrectable",
        "Deferred (de) errors are uncorrectable errors the hardware marked (poisoned) before a job read "
        "them.");
    error_finding(
        findings, gpus, "ras.correctable", Severity::warning, "Correctable RAS errors",
        [](const ErrorCount& c) { return c.ce; }, t.correctable_above, "correctable",
        "ECC corrected these (ce) errors, so no job was harmed, but they come from failing memory or "
        "logic and predict uncorrectable ones.");
    bad_page_findings(findings, gpus, limit);
    findings.push_back(counters_finding(gpus, limit));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::ras

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::ras::RasCheck)
