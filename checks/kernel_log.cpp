// `kernel-log`: what the kernel said about the GPUs since boot (or --since): RAS errors and
// retired pages, resets, PCIe AER/DPC events, firmware and init failures, overheating, KFD
// queue trouble, page faults. Patterns live in checks/data/kernel_log.json.
#include "kernel_log.h"

#include <algorithm>
#include <map>

#include "kernel_log_findings.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/log_window.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "rocm_doctor/text_case.h"

namespace rocm_doctor::kernel_log {

namespace {

struct LogSource {
  std::string path;
  Format format = Format::syslog;
  std::size_t limit = 0;
};

struct LogRead {
  std::string path;
  std::vector<LogLine> lines;
  std::vector<std::string> failures;  // "path: why" for sources that could not be read
  bool ok = false;
};

LogRead read_kernel_log(const Host& host) {
  static const LogSource kSources[] = {{"/dev/kmsg", Format::kmsg, 16U << 20},
                                       {"/var/log/kern.log", Format::syslog, 32U << 20},
                                       {"/var/log/messages", Format::syslog, 32U << 20}};
  LogRead read;
  for (const auto& source : kSources) {
    const auto text = host.read_file(source.path, source.limit);
    if (!text) {
      if (text.error().kind != HostErrorKind::not_found) read.failures.push_back(text.error().message);
      continue;
    }
    read.path = source.path;
    read.lines = parse_log(*text, source.format);
    read.ok = true;
    return read;
  }
  return read;
}

Finding unreadable(const LogRead& read) {
  auto finding = make_finding("driver.kernel-log", Severity::info, "The kernel log could not be read")
                     .because(
                         "The kernel log says why amdgpu failed (firmware, init errors, hangs). Reading it "
                         "needs root on most systems (kernel.dmesg_restrict=1), or the adm group for "
                         "/var/log/kern.log on Debian and Ubuntu.");
  if (read.failures.empty()) finding.with_evidence("/dev/kmsg, /var/log/kern.log, /var/log/messages", "not found");
  for (const auto& failure : read.failures) finding.with_evidence("kernel log", failure);
  return finding.with_fix(make_fix(
      kCheckId, "Read it as root, or run the doctor with sudo.",
      {"sudo dmesg --ctime | grep -iE 'amdgpu|kfd|drm'", "sudo rocm-doctor --only kernel-log"}, {.root = true}));
}

// The --since window in seconds since boot, from the machine's own clocks (a replay uses the
// captured /proc/uptime and /proc/stat, so the window is the capture's).
struct Window {
  std::optional<double> start;
  std::string words = "since boot";
  std::optional<std::string> note;  // why the window could not be applied
};

Window window_of(const Host& host, const std::string& text) {
  Window window;
  const auto parsed = parse_log_window(text);
  if (!parsed) {
    window.note = "--since '" + text + "' is not a window; every line since boot counts";
    return window;
  }
  if (parsed->kind == LogWindow::Kind::boot) return window;
  std::optional<double> uptime, btime;
  if (const auto up = host.read_trimmed("/proc/uptime")) {
    const auto words = split_words(*up);
    if (!words.empty()) {
      if (const auto whole = parse_uint(words[0].substr(0, words[0].find('.')))) uptime = static_cast<double>(*whole);
    }
  }
  if (const auto stat = host.read_file("/proc/stat", 1U << 20)) {
    for (const auto line : lines(*stat)) {
      if (!line.starts_with("btime ")) continue;
      if (const auto value = parse_uint(trim(line.substr(6)))) btime = static_cast<double>(*value);
    }
  }
  window.start = window_start(*parsed, uptime, btime);
  if (!window.start) {
    window.note = "--since " + text + ": the machine's uptime or boot time is unreadable; every line since boot counts";
    return window;
  }
  window.words = describe(*parsed, text);
  return window;
}

// "GPU 0 (0000:c1:00.0)" for an address of a GPU, or of a PCIe port above exactly the GPUs it
// names; the address itself when no GPU is there.
class DeviceNames {
 public:
  DeviceNames(const Host& host, const GpuInventory& inventory) {
    for (const auto* gpu : inventory.pci_gpus()) {
      const auto name = gpu->index >= 0 ? "GPU " + std::to_string(gpu->index) + " (" + gpu->bdf + ")" : gpu->bdf;
      names_[lower(gpu->bdf)] = name;
      const auto target = host.read_link("/sys/bus/pci/devices/" + gpu->bdf);
      paths_.emplace_back(target ? *target : std::string(), name);
    }
  }

  std::string name(const std::string& message) const {
    const auto addresses = pci_addresses(message);
    for (const auto& address : addresses) {
      if (const auto it = names_.find(address); it != names_.end()) return it->second;
    }
    for (const auto& address : addresses) {
      std::vector<std::string> below;
      for (const auto& [path, name] : paths_) {
        if (path.find("/" + address + "/") != std::string::npos) below.push_back(name);
      }
      if (!below.empty()) return "PCIe port " + address + " above " + join(below, ", ");
    }
    return addresses.empty() ? "" : addresses.front();
  }

 private:
  std::map<std::string, std::string> names_;
  std::vector<std::pair<std::string, std::string>> paths_;  // sysfs link target, GPU name
};

class KernelLogCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Kernel log"; }
  int order() const override { return 22; }
  std::vector<std::string_view> finding_ids() const override {
    return {"driver.kernel-log",         "driver.firmware-missing",   "driver.ras-uncorrectable",
            "driver.ras-correctable",    "driver.bad-page-threshold", "driver.gpu-reset-failed",
            "driver.gpu-firmware-error", "driver.gpu-init-failed",    "driver.kfd-oversubscribed",
            "driver.gpu-overheat",       "driver.gpu-throttled",      "driver.pcie-uncorrectable",
            "driver.pcie-corrected"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode)
      return CheckOutcome::skipped("--image: the build host's kernel log is not the target's");
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.wsl) return CheckOutcome::skipped("WSL: the GPU is driven by the Windows driver");
    auto read = read_kernel_log(ctx.host());
    if (!read.ok) return {{unreadable(read)}};
    const auto window = window_of(ctx.host(), kernel_log_since());
    const auto total = read.lines.size();
    read.lines = since(std::move(read.lines), window.start);
    const DeviceNames devices(ctx.host(), ctx.fact<GpuInventory>());

    std::vector<LogLine> firmware_lines;
    std::vector<std::string> firmware_names;
    std::map<std::pair<const Pattern*, std::string>, std::vector<LogLine>> matched;
    std::vector<std::pair<const Pattern*, std::string>> order;
    std::size_t gpu_lines = 0;
    for (auto& line : read.lines) {
      if (line.message.find("amdgpu") != std::string::npos || line.message.find("kfd") != std::string::npos)
        ++gpu_lines;
      if (const auto name = missing_firmware(line.message)) {
        firmware_lines.push_back(line);
        if (std::find(firmware_names.begin(), firmware_names.end(), *name) == firmware_names.end())
          firmware_names.push_back(*name);
        continue;
      }
      const auto* pattern = match(line.message, patterns());
      if (!pattern || pattern->finding == "driver.firmware-missing") continue;
      const std::pair key{pattern, devices.name(line.message)};
      auto& bucket = matched[key];
      if (bucket.empty()) order.push_back(key);
      bucket.push_back(std::move(line));
    }
    std::vector<Finding> findings;
    if (!firmware_names.empty()) {
      findings.push_back(firmware_missing(ctx, read.path, group_lines(firmware_lines), firmware_names));
    }
    std::vector<Hit> hits;
    for (const auto& key : order) hits.push_back({key.first, key.second, collapse(matched.at(key))});
    for (auto& finding : hit_findings(read.path, window.words, hits)) findings.push_back(std::move(finding));
    if (findings.empty()) {
      auto clean = make_finding("driver.kernel-log", Severity::ok,
                                "No amdgpu errors in the kernel log " + window.words + " (" +
                                    std::to_string(gpu_lines) + " amdgpu/kfd line(s))")
                       .because(
                           "The driver reported no hardware errors, firmware failures, hangs, resets, PCIe "
                           "errors or page faults.")
                       .with_evidence(read.path, std::to_string(total) + " line(s) read, " +
                                                     std::to_string(read.lines.size()) + " in the window");
      findings.push_back(std::move(clean));
    }
    if (window.note) findings.back().with_evidence("--since", *window.note);
    return findings;
  }

 private:
  // One pattern's lines on one device: how often, first and last time, the first message.
  static Group collapse(const std::vector<LogLine>& lines) {
    Group group{lines.front().message, lines.size(), lines.front().seconds, lines.front().seconds};
    for (const auto& line : lines) {
      if (line.seconds) group.last_seconds = line.seconds;
    }
    return group;
  }
};

}  // namespace
}  // namespace rocm_doctor::kernel_log

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::kernel_log::KernelLogCheck)
