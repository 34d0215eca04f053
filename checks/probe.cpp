// `probe`: did the isolated runtime probes themselves work? A vendor library
// that crashes or hangs inside its child becomes a finding here, and every
// other check still runs.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "probe_support.h"
#include "rocm_doctor/check.h"

namespace rocm_doctor::probe_check {
namespace {

constexpr std::string_view kCheckId = "probe";

Fix rerun_fix(const std::string& name) {
  const std::string tool = name == "smi" ? "rocm-smi" : "rocminfo";
  return make_fix(kCheckId,
                  fmt::format("Reproduce outside the doctor with the vendor tool ({}), with the runtime's own logging "
                              "on; `--level quick` skips the runtime probes meanwhile.",
                              tool),
                  {tool, fmt::format("AMD_LOG_LEVEL=4 rocm-doctor --only {} -v", name)});
}

std::string where(const nlohmann::json& outcome) {
  const auto step = outcome.value("last_step", std::string());
  return step.empty() || step == "done" ? std::string() : " in " + step;
}

std::optional<Finding> judge(const std::string& name, const nlohmann::json& outcome) {
  const auto status = outcome.value("status", std::string());
  const auto elapsed = outcome.value("elapsed_ms", 0LL);
  std::optional<Finding> finding;
  if (status == "crashed") {
    const auto signal = outcome.value("signal_name", std::string());
    const auto how = signal.empty()
                         ? fmt::format("exited with code {} without a result", outcome.value("exit_code", -1))
                         : "crashed with " + signal;
    finding =
        make_finding("probe.crashed", Severity::error, fmt::format("The {} probe {}{}", name, how, where(outcome)))
            .because(
                "The vendor library crashed the process that loaded it; an application loading it the "
                "same way will crash too. The doctor ran it in a child process, so the other checks "
                "still ran.")
            .with_fix(rerun_fix(name));
    if (!signal.empty()) finding->with_evidence("probe " + name + " signal", signal);
  } else if (status == "timeout") {
    finding = make_finding("probe.timeout", Severity::error,
                           fmt::format("The {} probe hung{} and was killed after {} ms", name, where(outcome),
                                       outcome.value("timeout_ms", elapsed)))
                  .because(
                      "The vendor library did not return: applications using it will hang the same way "
                      "(often a stuck GPU, a driver waiting on firmware, or a lock held by another process). "
                      "Raise --probe-timeout if the machine is just slow.")
                  .with_fix(rerun_fix(name));
  } else if (status == "invalid-output") {
    finding = make_finding("probe.invalid-output", Severity::warning,
                           fmt::format("The {} probe ended without a readable result", name))
                  .because(
                      "The probe child printed something that is not its JSON result, so the checks that "
                      "depend on it are skipped.")
                  .with_evidence("probe " + name + " stdout", outcome.value("stdout_head", std::string()))
                  .with_fix(rerun_fix(name));
  } else if (status == "exec-failed") {
    finding =
        make_finding("probe.exec-failed", Severity::warning, fmt::format("The {} probe could not be started", name))
            .because(
                "The doctor runs its probes by starting itself again; that failed, so the runtime "
                "checks are skipped.")
            .with_evidence("probe " + name, outcome.value("error", std::string()));
  }
  if (!finding) return std::nullopt;
  finding->with_evidence("probe " + name + " elapsed", fmt::format("{} ms", elapsed));
  if (outcome.contains("last_step"))
    finding->with_evidence("probe " + name + " last step", outcome["last_step"].get<std::string>());
  probe_support::with_stderr(*finding, outcome, name);
  return finding;
}

class ProbeCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Runtime probes"; }
  int order() const override { return 65; }
  std::vector<std::string_view> finding_ids() const override {
    return {"probe.crashed", "probe.timeout", "probe.invalid-output", "probe.exec-failed", "probe.ok"};
  }
  std::vector<std::string_view> probes() const override { return {"hip", "smi", "dxcore"}; }

  CheckOutcome run(const CheckContext& ctx) const override {
    std::vector<Finding> findings;
    std::vector<std::string> fine;
    for (const auto& name : probe_support::probe_names()) {
      const auto outcome = ctx.host().probe(name);
      if (!outcome) continue;
      if (auto finding = judge(name, *outcome)) {
        findings.push_back(std::move(*finding));
      } else {
        fine.push_back(fmt::format("{} {} ms", name, outcome->value("elapsed_ms", 0LL)));
      }
    }
    if (findings.empty() && fine.empty()) {
      return CheckOutcome::skipped("no runtime probe ran (--level quick, or a snapshot without probe results)");
    }
    if (!fine.empty()) {
      findings.push_back(
          make_finding("probe.ok", Severity::ok, fmt::format("Runtime probes finished: {}", fmt::join(fine, ", ")))
              .because("Each probe loaded its vendor library in a child process and returned a "
                       "result within the time limit.")
              .with_evidence("probes", fmt::format("{}", fmt::join(fine, ", "))));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::probe_check

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::probe_check::ProbeCheck)
