// `smi`: GPU health from rocm-smi (librocm_smi64), read by the isolated smi
// probe: ECC/RAS error counters, temperatures against their limits, throttling.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "probe_support.h"
#include "rocm_doctor/check.h"

namespace rocm_doctor::smi_check {
namespace {

constexpr std::string_view kCheckId = "smi";

using nlohmann::json;

// A sensor this close to its critical limit is overheating (millidegrees C).
constexpr long long kCriticalMarginMc = 5000;
// Without a critical limit from the driver: conservative absolute limits.
constexpr long long kEdgeLimitMc = 95000;
constexpr long long kJunctionLimitMc = 105000;
constexpr long long kMemoryLimitMc = 100000;

std::string gpu_label(const json& device) {
  auto label = fmt::format("GPU {}", device.value("index", 0));
  if (device.contains("name")) label += " " + device.value("name", std::string());
  if (device.contains("pci_bus_id")) label += " (" + device.value("pci_bus_id", std::string()) + ")";
  return label;
}

std::optional<Finding> ecc_finding(const json& device) {
  unsigned long long uncorrectable = 0;
  unsigned long long correctable = 0;
  std::vector<std::string> blocks;
  const auto ecc = device.value("ecc", json::object());
  for (const auto& [block, counts] : ecc.items()) {
    const auto u = counts.value("uncorrectable", 0ULL);
    const auto c = counts.value("correctable", 0ULL);
    if (u == 0 && c == 0) continue;
    uncorrectable += u;
    correctable += c;
    blocks.push_back(fmt::format("{}: {} uncorrectable, {} correctable", block, u, c));
  }
  if (blocks.empty()) return std::nullopt;
  auto finding =
      make_finding("smi.ecc-errors", uncorrectable > 0 ? Severity::error : Severity::info,
                   fmt::format("{}: {} uncorrectable and {} correctable memory errors", gpu_label(device),
                               uncorrectable, correctable))
          .because(uncorrectable > 0
                       ? "Uncorrectable ECC/RAS errors mean data was corrupted on the GPU: jobs crash or silently "
                         "compute wrong results. Retired pages or a failing board are likely."
                       : "Correctable errors were fixed by ECC; a steadily rising count is an early sign of failing "
                         "memory.");
  for (const auto& block : blocks) finding.with_evidence("rocm-smi ECC counters", block);
  if (uncorrectable > 0) {
    finding.with_fix(
        make_fix(kCheckId,
                 "Look at the driver's RAS log and the retired pages; report the board to its vendor if "
                 "the count keeps rising.",
                 {"sudo dmesg | grep -iE 'amdgpu.*(ras|ecc|uncorrect)' | tail -n 30", "rocm-smi --showrasinfo all"},
                 FixNeeds{.root = true}));
  }
  return finding;
}

std::optional<Finding> heat_finding(const json& device) {
  std::vector<std::string> hot;
  const std::array<std::pair<const char*, long long>, 3> sensors = {
      {{"edge", kEdgeLimitMc}, {"junction", kJunctionLimitMc}, {"memory", kMemoryLimitMc}}};
  const auto temperatures = device.value("temperature", json::object());
  for (const auto& [sensor, fallback] : sensors) {
    if (!temperatures.contains(sensor)) continue;
    const auto& reading = temperatures[sensor];
    const auto current = reading.value("current_mc", 0LL);
    const auto critical = reading.value("critical_mc", 0LL);
    const auto limit = critical > 0 ? critical - kCriticalMarginMc : fallback;
    if (current >= limit) {
      hot.push_back(fmt::format("{} {} °C (limit {} °C)", sensor, current / 1000,
                                critical > 0 ? critical / 1000 : fallback / 1000));
    }
  }
  if (hot.empty()) return std::nullopt;
  auto finding =
      make_finding("smi.overheating", Severity::warning,
                   fmt::format("{} is at its temperature limit: {}", gpu_label(device), fmt::join(hot, ", ")))
          .because(
              "A GPU at its temperature limit throttles its clocks and, past the critical limit, "
              "shuts down: check airflow, fans and the cooler.");
  for (const auto& line : hot) finding.with_evidence("rocm-smi temperature", line);
  finding.with_fix(make_fix(kCheckId,
                            "Watch temperatures and fan speed while idle; clean the cooler and check the case airflow.",
                            {"rocm-smi --showtemp --showfan"}));
  return finding;
}

std::optional<Finding> throttle_finding(const json& device) {
  const auto status = device.value("throttle_status", 0ULL);
  if (status == 0) return std::nullopt;
  auto finding = make_finding("smi.throttled", Severity::warning,
                              fmt::format("{} is throttling (status 0x{:x})", gpu_label(device), status))
                     .because(
                         "The firmware is holding the clocks down (power, current or temperature limit). At "
                         "idle that points at cooling or a power cap set too low; under load it costs speed.")
                     .with_evidence("rocm-smi gpu_metrics throttle_status", fmt::format("0x{:x}", status));
  finding.with_fix(make_fix(kCheckId, "See which limit is active and compare the power cap with the board's default.",
                            {"rocm-smi --showpower --showmaxpower --showtemp"}));
  return finding;
}

Finding init_finding(const CheckContext& ctx, const json& outcome, const json& result) {
  const auto& error =
      result.contains("init_error") ? result["init_error"] : result.value("device_count_error", json::object());
  // Without the driver, rsmi_init failing is a consequence the driver check reports.
  const bool expected = ctx.options().image_mode || !ctx.host().exists("/sys/module/amdgpu");
  auto finding =
      make_finding("smi.init-failed", expected ? Severity::info : Severity::warning,
                   fmt::format("rocm-smi could not initialise: {}", error.value("text", std::string("unknown error"))))
          .because(expected ? "No amdgpu driver is loaded here (or this is an image build), so rocm-smi has nothing "
                              "to monitor; the driver check says why."
                            : "rocm-smi reads the amdgpu driver's sysfs files; when it cannot start, monitoring tools "
                              "and schedulers (Slurm, Kubernetes device plugins) see no GPUs.")
          .with_evidence("probe smi " + error.value("call", std::string("rsmi_init")),
                         fmt::format("status {}", error.value("code", -1)));
  probe_support::with_stderr(finding, outcome, "smi");
  if (!expected) {
    finding.with_fix(make_fix(
        kCheckId, "Run rocm-smi to see the full error, then fix the driver or permissions it names.", {"rocm-smi"}));
  }
  return finding;
}

class SmiCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "GPU health (rocm-smi)"; }
  int order() const override { return 75; }
  std::vector<std::string_view> finding_ids() const override {
    return {"smi.not-found", "smi.init-failed", "smi.ecc-errors", "smi.overheating", "smi.throttled", "smi.ok"};
  }
  std::vector<std::string_view> probes() const override { return {"smi"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto outcome = ctx.host().probe("smi");
    if (auto reason = probe_support::unavailable_reason(outcome, "smi")) return CheckOutcome::skipped(*reason);
    const auto& result = (*outcome)["result"];
    const auto library = result.value("library", json::object());
    if (library.value("status", "") != "loaded") {
      auto finding = make_finding("smi.not-found", Severity::info,
                                  "The rocm-smi library (librocm_smi64) is not "
                                  "available: no GPU health telemetry")
                         .because(
                             "Without rocm-smi the doctor cannot read ECC counters, temperatures or "
                             "throttling; HIP applications do not need it.")
                         .with_evidence("dlopen librocm_smi64", library.value("error", std::string("not found")));
      return {{finding}};
    }
    if (result.contains("init_error") || result.contains("device_count_error")) {
      if (ctx.options().image_mode) return CheckOutcome::skipped("no GPU while building an image");
      return {{init_finding(ctx, *outcome, result)}};
    }
    const auto devices = result.value("devices", json::array());
    if (devices.empty() && ctx.options().image_mode) return CheckOutcome::skipped("no GPU while building an image");
    std::vector<Finding> findings;
    for (const auto& device : devices) {
      for (auto finding : {ecc_finding(device), heat_finding(device), throttle_finding(device)}) {
        if (finding) findings.push_back(std::move(*finding));
      }
    }
    std::vector<std::string> labels;
    for (const auto& device : devices) labels.push_back(gpu_label(device));
    auto ok = make_finding("smi.ok", Severity::ok,
                           fmt::format("rocm-smi reads {} GPU(s), driver {}", devices.size(),
                                       result.value("driver_version", std::string("unknown"))))
                  .because("ECC counters, temperatures and throttling were read for every GPU.")
                  .with_evidence("probe smi library", library.value("real_path", library.value("path", std::string())));
    if (!labels.empty()) ok.with_evidence("probe smi devices", fmt::format("{}", fmt::join(labels, "; ")));
    findings.push_back(std::move(ok));
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::smi_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::smi_check::SmiCheck)
