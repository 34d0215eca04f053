// `kernel-log`: what the kernel said about the GPU since boot. Firmware the driver
// could not load, GPU init failures, hangs and resets, PCIe atomics, page faults.
#include "kernel_log.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "driver_config.h"
#include "embedded_data.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::kernel_log {

std::optional<LogLine> parse_kmsg_record(std::string_view line) {
  if (line.empty() || line.front() == ' ') return std::nullopt;  // dictionary continuation
  const auto semicolon = line.find(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  const auto fields = split(line.substr(0, semicolon), ',');
  if (fields.size() < 3 || !parse_uint(fields[0]) || !parse_uint(fields[1])) return std::nullopt;
  const auto micros = parse_uint(fields[2]);
  if (!micros) return std::nullopt;
  LogLine result;
  result.seconds = static_cast<double>(*micros) / 1e6;
  result.message = std::string(trim(line.substr(semicolon + 1)));
  return result;
}

namespace {

// "[   12.345678] rest" -> seconds and rest.
std::optional<std::pair<double, std::string_view>> bracket_time(std::string_view text) {
  if (!text.starts_with('[')) return std::nullopt;
  const auto close = text.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  const auto stamp = trim(text.substr(1, close - 1));
  const auto dot = stamp.find('.');
  const auto whole = parse_uint(stamp.substr(0, dot));
  if (!whole) return std::nullopt;
  double seconds = static_cast<double>(*whole);
  if (dot != std::string_view::npos) {
    const auto fraction = stamp.substr(dot + 1);
    const auto digits = parse_uint(fraction);
    if (!digits) return std::nullopt;
    double scale = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) scale *= 10;
    seconds += static_cast<double>(*digits) / scale;
  }
  return std::pair{seconds, trim(text.substr(close + 1))};
}

}  // namespace

std::optional<LogLine> parse_syslog_line(std::string_view line) {
  auto text = trim(line);
  if (text.empty()) return std::nullopt;
  if (!text.starts_with('[')) {
    // syslog prefix: "<date> <host> kernel: " (traditional or ISO date)
    const auto marker = text.find(" kernel: ");
    if (marker == std::string_view::npos) return std::nullopt;
    text = trim(text.substr(marker + 9));
  }
  LogLine result;
  if (const auto timed = bracket_time(text)) {
    result.seconds = timed->first;
    text = timed->second;
  }
  result.message = std::string(text);
  return result;
}

std::vector<LogLine> parse_log(std::string_view text, Format format) {
  std::vector<LogLine> result;
  for (const auto line : lines(text)) {
    auto parsed = format == Format::kmsg ? parse_kmsg_record(line) : parse_syslog_line(line);
    if (!parsed) continue;
    if (format == Format::syslog && parsed->message.starts_with("Linux version ")) result.clear();
    result.push_back(std::move(*parsed));
  }
  return result;
}

std::vector<Pattern> parse_patterns(std::string_view json_text) {
  const auto json = nlohmann::json::parse(json_text);
  std::vector<Pattern> list;
  for (const auto& row : json.at("patterns")) {
    Pattern pattern;
    pattern.id = row.at("id").get<std::string>();
    pattern.all = row.at("all").get<std::vector<std::string>>();
    pattern.severity = parse_severity(row.at("severity").get<std::string>()).value_or(Severity::warning);
    pattern.meaning = row.value("meaning", "");
    list.push_back(std::move(pattern));
  }
  return list;
}

const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> list = parse_patterns(embedded::data_kernel_log());
  return list;
}

const Pattern* match(std::string_view message, const std::vector<Pattern>& list) {
  for (const auto& pattern : list) {
    if (std::all_of(pattern.all.begin(), pattern.all.end(),
                    [&](const std::string& part) { return message.find(part) != std::string_view::npos; })) {
      return &pattern;
    }
  }
  return nullptr;
}

std::optional<std::string> missing_firmware(std::string_view message) {
  constexpr std::string_view kPrefix = "Direct firmware load for ";
  const auto start = message.find(kPrefix);
  if (start == std::string_view::npos) return std::nullopt;
  const auto rest = message.substr(start + kPrefix.size());
  const auto end = rest.find(" failed with error");
  if (end == std::string_view::npos || end == 0) return std::nullopt;
  const auto name = rest.substr(0, end);
  if (!name.starts_with("amdgpu/") || name.find("..") != std::string_view::npos) return std::nullopt;
  return std::string(name);
}

std::vector<Group> group_lines(const std::vector<LogLine>& lines) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& line : lines) {
    const auto [it, inserted] = index.emplace(line.message, groups.size());
    if (inserted) groups.push_back({line.message, 0, line.seconds});
    ++groups[it->second].count;
  }
  return groups;
}

std::string quote(const Group& group, std::size_t max_chars) {
  std::string text;
  if (group.first_seconds) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%12.6f] ", *group.first_seconds);
    text = stamp;
  }
  text += group.message;
  if (text.size() > max_chars) text = text.substr(0, max_chars - 3) + "...";
  if (group.count > 1) text += " (x" + std::to_string(group.count) + ")";
  return text;
}

namespace {

constexpr std::string_view kCheckId = "kernel-log";
constexpr std::size_t kMaxQuoted = 8;

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

std::string firmware_package(const SystemFacts& facts, bool dkms) {
  const auto json = nlohmann::json::parse(embedded::data_amdgpu_driver()).at("firmware_packages");
  if (dkms) return json.at("amdgpu-dkms").get<std::string>();
  if (json.contains(facts.os_id)) return json.at(facts.os_id).get<std::string>();
  switch (driver_config::distro_family(facts)) {
    case driver_config::Family::debian: return json.at("debian").get<std::string>();
    case driver_config::Family::rhel: return json.at("rhel").get<std::string>();
    case driver_config::Family::suse: return json.at("suse").get<std::string>();
    case driver_config::Family::other: return "";
  }
  return "";
}

bool firmware_on_disk(const Host& host, const std::string& name) {
  for (const std::string suffix : {"", ".xz", ".zst"}) {
    if (host.exists("/lib/firmware/" + name + suffix)) return true;
  }
  return false;
}

Finding firmware_missing(const CheckContext& ctx, const std::string& source, const std::vector<Group>& groups,
                         const std::vector<std::string>& names) {
  const auto& host = ctx.host();
  const auto& facts = ctx.fact<SystemFacts>();
  std::vector<std::string> absent, present;
  for (const auto& name : names) (firmware_on_disk(host, name) ? present : absent).push_back(name);
  auto finding =
      make_finding("driver.firmware-missing", Severity::error, "amdgpu could not load firmware: " + join(names, ", "))
          .because(
              "Each GPU block (graphics, compute, SDMA, power management) runs firmware the driver "
              "loads at start-up. A missing file makes amdgpu fail the GPU or leave parts of it off: "
              "no /dev/kfd, hangs, or a GPU that ROCm does not list.");
  for (std::size_t i = 0; i < groups.size() && i < kMaxQuoted; ++i) finding.with_evidence(source, quote(groups[i]));
  for (const auto& name : absent) finding.with_evidence("/lib/firmware/" + name, "absent");
  for (const auto& name : present) finding.with_evidence("/lib/firmware/" + name, "present on disk now");
  const auto family = driver_config::distro_family(facts);
  const bool dkms = host.exists("/var/lib/dkms/amdgpu") || host.exists("/sys/module/amdgpu/version");
  if (!absent.empty()) {
    const auto package = firmware_package(facts, dkms);
    std::vector<std::string> commands;
    if (!package.empty()) commands.push_back(driver_config::install_command(family, {package}));
    commands.push_back("sudo reboot");
    finding.with_fix(
        make_fix(kCheckId,
                 "Install the firmware package that carries these files" +
                     (package.empty() ? std::string(" (linux-firmware on most distributions)") : " (" + package + ")") +
                     "; a GPU newer than the distribution's firmware also needs a newer package or "
                     "amdgpu-dkms-firmware from AMD's repository.",
                 commands, {.root = true, .reboot = true}));
  } else if (!facts.kernel_release.empty()) {
    const auto command = family == driver_config::Family::debian
                             ? shell_command({"sudo", "update-initramfs", "-u", "-k", facts.kernel_release})
                             : shell_command({"sudo", "dracut", "--force", "--kver", facts.kernel_release});
    finding.with_fix(make_fix(kCheckId,
                              "The files are on disk now but were not there when amdgpu loaded (it loads from the "
                              "initramfs): rebuild the initramfs and reboot.",
                              {command, "sudo reboot"}, {.root = true, .reboot = true}));
  }
  return finding;
}

Finding log_problems(const std::string& source, const std::vector<std::pair<const Pattern*, Group>>& hits) {
  Severity worst = Severity::warning;
  std::vector<std::string> kinds;
  for (const auto& [pattern, group] : hits) {
    worst = std::max(worst, pattern->severity);
    if (std::find(kinds.begin(), kinds.end(), pattern->id) == kinds.end()) kinds.push_back(pattern->id);
  }
  std::string detail = "The kernel log since boot shows the GPU in trouble:";
  std::vector<std::string> explained;
  for (const auto& [pattern, group] : hits) {
    if (std::find(explained.begin(), explained.end(), pattern->id) != explained.end()) continue;
    explained.push_back(pattern->id);
    detail += " " + pattern->meaning;
  }
  auto finding = make_finding("driver.kernel-log", worst, "Kernel log: " + join(kinds, ", ")).because(detail);
  for (std::size_t i = 0; i < hits.size() && i < kMaxQuoted; ++i) finding.with_evidence(source, quote(hits[i].second));
  if (hits.size() > kMaxQuoted) {
    finding.with_evidence(source, std::to_string(hits.size() - kMaxQuoted) + " more distinct line(s) not shown");
  }
  std::string advice =
      "Read the whole sequence around these lines. Ring timeouts, resets and page faults under load usually come "
      "from the program (or a wrong HSA_OVERRIDE_GFX_VERSION), from power or cooling, or from driver/firmware bugs "
      "fixed in newer releases; PCIe atomics need a CPU and slot that support them (AMD Zen / Intel Haswell or "
      "newer, GPU directly on CPU lanes).";
  return finding.with_fix(
      make_fix(kCheckId, advice, {"sudo dmesg --ctime | grep -iE 'amdgpu|kfd|drm'"}, {.root = true}));
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

class KernelLogCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Kernel log"; }
  int order() const override { return 22; }
  std::vector<std::string_view> finding_ids() const override {
    return {"driver.kernel-log", "driver.firmware-missing"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode)
      return CheckOutcome::skipped("--image: the build host's kernel log is not the target's");
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.wsl) return CheckOutcome::skipped("WSL: the GPU is driven by the Windows driver");
    const auto read = read_kernel_log(ctx.host());
    if (!read.ok) return {{unreadable(read)}};

    std::vector<LogLine> firmware_lines;
    std::vector<std::string> firmware_names;
    std::vector<LogLine> problem_lines;
    std::size_t gpu_lines = 0;
    for (const auto& line : read.lines) {
      if (line.message.find("amdgpu") != std::string::npos || line.message.find("kfd") != std::string::npos)
        ++gpu_lines;
      if (const auto name = missing_firmware(line.message)) {
        firmware_lines.push_back(line);
        if (std::find(firmware_names.begin(), firmware_names.end(), *name) == firmware_names.end()) {
          firmware_names.push_back(*name);
        }
      } else if (match(line.message, patterns())) {
        problem_lines.push_back(line);
      }
    }
    std::vector<Finding> findings;
    if (!firmware_names.empty()) {
      findings.push_back(firmware_missing(ctx, read.path, group_lines(firmware_lines), firmware_names));
    }
    std::vector<std::pair<const Pattern*, Group>> hits;
    for (auto& group : group_lines(problem_lines)) {
      const auto* pattern = match(group.message, patterns());
      hits.emplace_back(pattern, std::move(group));
    }
    if (!hits.empty()) findings.push_back(log_problems(read.path, hits));
    if (findings.empty()) {
      findings.push_back(make_finding("driver.kernel-log", Severity::ok,
                                      "No amdgpu errors in the kernel log since boot (" + std::to_string(gpu_lines) +
                                          " amdgpu/kfd line(s))")
                             .because("The driver reported no firmware failures, hangs, resets or page faults.")
                             .with_evidence(read.path, std::to_string(read.lines.size()) + " line(s) read"));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::kernel_log

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::kernel_log::KernelLogCheck)
