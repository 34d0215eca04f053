// `platform`: the distribution and kernel against the installed ROCm release's support
// list, and whether this is a virtual machine (which changes what works).
#include "platform.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "distro_suite.h"
#include "driver.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/dpkg_database.h"
#include "rocm_doctor/facts/rocm_install.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"
#include "rocm_packages_table.h"

namespace rocm_doctor::platform {

namespace {

std::string without_parentheses(std::string_view text) {
  std::string result;
  int depth = 0;
  for (const char c : text) {
    if (c == '(')
      ++depth;
    else if (c == ')')
      depth = std::max(0, depth - 1);
    else if (depth == 0)
      result += c;
  }
  return result;
}

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

std::vector<std::string> listed_versions(std::string_view text) {
  std::vector<std::string> result;
  std::string base;  // "15" for "15 SP4, SP5"
  // Named: split() returns views into it, which must outlive the loop.
  const std::string plain = without_parentheses(text);
  for (const auto raw : split(plain, ',')) {
    const auto part = trim(raw);
    if (part.empty()) continue;
    const auto words = split_words(part);
    if (words.size() >= 2 && words[1].starts_with("SP")) {
      base = std::string(words[0]);
      result.push_back(base + " " + std::string(words[1]));
    } else if (words[0].starts_with("SP") && !base.empty()) {
      result.push_back(base + " " + std::string(words[0]));
    } else if (is_digit(words[0].front())) {
      result.emplace_back(words[0]);
    }
  }
  return result;
}

bool version_matches(std::string_view version_id, std::string_view listed) {
  std::string ours(trim(version_id));
  std::replace(ours.begin(), ours.end(), '-', ' ');
  const auto our_words = split_words(ours);
  const auto listed_words = split_words(listed);
  if (our_words.empty() || listed_words.empty()) return false;
  // Service packs must agree exactly ("15 SP5"); a bare "15" never matches "15 SP5".
  if (our_words.size() != listed_words.size()) return false;
  for (std::size_t i = 1; i < our_words.size(); ++i) {
    if (our_words[i] != listed_words[i]) return false;
  }
  const auto a = split(our_words[0], '.');
  const auto b = split(listed_words[0], '.');
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (parse_uint(a[i]) != parse_uint(b[i])) return false;
  }
  return true;
}

std::vector<KernelSpec> listed_kernels(std::string_view text) {
  std::vector<KernelSpec> specs;
  const auto clean = without_parentheses(text);
  std::size_t i = 0;
  while (i < clean.size()) {
    if (!is_digit(clean[i]) || (i > 0 && (is_digit(clean[i - 1]) || clean[i - 1] == '.' || clean[i - 1] == '-'))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < clean.size() && (is_digit(clean[end]) || clean[end] == '.')) ++end;
    const auto token = std::string_view(clean).substr(i, end - i);
    // Skip the rest of a kernel release ("-362.el9", "-150500.53-default").
    std::size_t after = end;
    while (after < clean.size() && !std::isspace(static_cast<unsigned char>(clean[after])) && clean[after] != ',' &&
           clean[after] != ';' && clean[after] != '/' && clean[after] != '+' && clean[after] != ':') {
      ++after;
    }
    const bool names_distro = after < clean.size() && clean[after] == ':';
    const auto parts = split(token, '.');
    if (!names_distro && parts.size() >= 2) {
      KernelSpec spec;
      spec.major = static_cast<int>(parse_uint(parts[0]).value_or(0));
      spec.minor = static_cast<int>(parse_uint(parts[1]).value_or(0));
      spec.or_newer = after < clean.size() && clean[after] == '+';
      specs.push_back(spec);
    }
    i = after;
  }
  return specs;
}

bool kernel_matches(std::string_view release, const std::vector<KernelSpec>& specs) {
  const auto parts = split(release.substr(0, release.find('-')), '.');
  if (parts.size() < 2) return false;
  const auto major = static_cast<int>(parse_uint(parts[0]).value_or(0));
  const auto minor = static_cast<int>(parse_uint(parts[1]).value_or(0));
  return std::any_of(specs.begin(), specs.end(), [&](const KernelSpec& spec) {
    if (spec.major == major && spec.minor == minor) return true;
    return spec.or_newer && (major > spec.major || (major == spec.major && minor > spec.minor));
  });
}

bool cpuinfo_has_hypervisor(std::string_view cpuinfo) {
  for (const auto line : lines(cpuinfo)) {
    if (!line.starts_with("flags")) continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const auto words = split_words(line.substr(colon + 1));
    if (std::find(words.begin(), words.end(), "hypervisor") != words.end()) return true;
  }
  return false;
}

namespace {

constexpr std::string_view kCheckId = "platform";

// The support-list name of this distribution ("Ubuntu"), or of the one it derives from.
std::pair<std::string, bool> list_name(const SystemFacts& facts) {
  const auto& names = platform_table().distributions;
  if (const auto it = names.find(facts.os_id); it != names.end()) return {it->second, true};
  const auto& like = platform_table().like;
  for (const auto word : split_words(facts.os_id_like)) {
    const auto target = like.find(std::string(word));
    if (target == like.end()) continue;
    if (const auto it = names.find(target->second); it != names.end()) return {it->second, false};
  }
  return {"", false};
}

std::string describe(const kb::OsSupport& row) {
  return row.name + " " + row.version + " (kernel " + row.kernel + ")";
}

struct Judgement {
  std::vector<const kb::OsSupport*> same_distro;  // rows of this distribution
  std::vector<const kb::OsSupport*> matching;     // rows that list this version
};

Judgement judge(const kb::Release& release, const std::string& name, const std::string& version_id, bool exact) {
  Judgement result;
  for (const auto& row : release.os) {
    if (row.name != name) continue;
    result.same_distro.push_back(&row);
    if (!exact) continue;
    const auto versions = listed_versions(row.version);
    if (std::any_of(versions.begin(), versions.end(),
                    [&](const std::string& listed) { return version_matches(version_id, listed); })) {
      result.matching.push_back(&row);
    }
  }
  return result;
}

// The first release after `release` whose list has this distribution version, if any.
const kb::Release* later_release_listing(const kb::Release& release, const std::string& name,
                                         const std::string& version_id) {
  for (const auto& row : kb::knowledge_base().releases()) {
    if (!kb::version_less(release.release, row.release)) continue;
    const auto judged = judge(row, name, version_id, true);
    if (!judged.matching.empty()) return &row;
  }
  return nullptr;
}

// "6.2.0" -> "6.2": AMD's repository folders drop a zero patch level.
std::string repo_folder_of(const std::string& version) {
  const auto parts = split(version, '.');
  if (parts.size() == 3 && parts[2] == "0") return std::string(parts[0]) + "." + std::string(parts[1]);
  return version;
}

// AMD's apt line for a ROCm release folder ("7.1", "6.2.4") in the suite fitting this distribution.
std::string rocm_repo_line(const std::string& folder, const std::string& suite) {
  const auto& repository = packages::rocm_packages_table();  // keyring and host: rocm_packages.json
  return "deb [arch=amd64 signed-by=" + repository.keyring + "] https://" + repository.legacy_hosts.front() +
         "/rocm/apt/" + folder + " " + suite + " main";
}

Finding unsupported_os(const Host& host, const SystemFacts& facts, const kb::Release& release,
                       const std::string& version, const Judgement& judgement, const std::string& name) {
  std::vector<std::string> nearest;
  for (const auto* row : judgement.same_distro) nearest.push_back(describe(*row));
  if (nearest.empty()) {
    for (const auto& row : release.os) {
      if (row.name == "Ubuntu") nearest.push_back(describe(row));
    }
  }
  const auto shown = facts.os_pretty_name.empty() ? facts.os_id + " " + facts.os_version_id : facts.os_pretty_name;
  auto finding =
      make_finding("os.unsupported", Severity::warning,
                   shown + " is not on ROCm " + release.release + "'s list of supported distributions")
          .because(
              "AMD builds and tests each ROCm release on a short list of distributions. Elsewhere "
              "packages may not install (dependency names differ), amdgpu-dkms may not build, and "
              "problems are not supported." +
              (name.empty() || judgement.same_distro.empty()
                   ? std::string()
                   : " This " + name + " version is not among the listed ones."))
          .with_evidence("/etc/os-release", "ID=" + facts.os_id + " VERSION_ID=" + facts.os_version_id +
                                                (facts.os_id_like.empty() ? "" : " ID_LIKE=" + facts.os_id_like))
          .with_evidence("installed ROCm", version)
          .with_evidence("supported (nearest)", nearest.empty() ? "none listed" : join(nearest, "; "))
          .with_evidence("source",
                         release.sources.empty() ? "checks/data/rocm_releases.json" : release.sources.front());
  const auto suite = distro_suite::read(host);
  if (suite) finding.with_evidence("release", distro_suite::describe(*suite));
  const auto* later = name.empty() ? nullptr : later_release_listing(release, name, facts.os_version_id);
  if (later) finding.with_evidence("listed by", "ROCm " + later->release);
  std::vector<std::string> commands;
  std::string description;
  if (later && suite && !suite->suite.empty()) {
    // A newer ROCm supports this release: its repository line, in this release's suite.
    const auto line = rocm_repo_line(later->release, suite->suite);
    description = "ROCm " + later->release + " lists " + shown + ": point AMD's repository at it (" + line +
                  ") and upgrade ROCm.";
    commands = {"echo " + shell_quote(line) + " | sudo tee /etc/apt/sources.list.d/rocm.list", "sudo apt update"};
  } else if (suite && !suite->suite.empty() && (suite->interim || suite->distro != "Ubuntu")) {
    // An interim Ubuntu, a derivative or Debian: AMD's packages for the nearest LTS are the ones to use.
    const auto line = rocm_repo_line(repo_folder_of(version), suite->suite);
    description = "Unsupported, but AMD's packages for the nearest supported release (Ubuntu " + suite->suite_version +
                  " '" + suite->suite + "') are the ones that fit " + distro_suite::describe(*suite) + ": " + line +
                  ". For a supported setup run ROCm on a listed distribution (or in a container image of one).";
    commands = {"echo " + shell_quote(line) + " | sudo tee /etc/apt/sources.list.d/rocm.list", "sudo apt update"};
  } else {
    description = "Run ROCm " + release.release +
                  " on one of the listed distributions (or in a container image of one, on a supported host), or "
                  "install the ROCm release whose list has this distribution.";
    if (facts.os_id == "ubuntu") commands.push_back("sudo do-release-upgrade");
  }
  const bool upgrade = !commands.empty() && commands.front() == "sudo do-release-upgrade";
  return finding.with_fix(make_fix(kCheckId, description, commands, {.root = !commands.empty(), .reboot = upgrade}));
}

// The fix for a kernel not on the list: the HWE kernel when it is not installed yet.
// When it is (the running kernel may be it), installing it and rebooting changes
// nothing (issue 26): the advice is the kernel the list names, by hand.
std::vector<std::string> kernel_commands(const SystemFacts& facts, const DpkgDatabase& dpkg) {
  if (facts.os_id != "ubuntu" || facts.os_version_id.empty()) return {"ls /boot/vmlinuz-*"};
  const auto hwe = "linux-generic-hwe-" + facts.os_version_id;
  if (dpkg.installed_version(hwe)) return {"ls /boot/vmlinuz-*", shell_command({"dpkg", "-l", "linux-image-*"})};
  return {shell_command({"sudo", "apt", "install", "--install-recommends", hwe}), "sudo reboot"};
}

std::optional<Finding> unsupported_kernel(const SystemFacts& facts, const kb::Release& release,
                                          const Judgement& judgement, const DpkgDatabase& dpkg) {
  std::vector<KernelSpec> specs;
  std::vector<std::string> listed;
  for (const auto* row : judgement.matching) {
    const auto row_specs = listed_kernels(row->kernel);
    specs.insert(specs.end(), row_specs.begin(), row_specs.end());
    listed.push_back(row->version + ": " + row->kernel);
  }
  if (specs.empty() || kernel_matches(facts.kernel_release, specs)) return std::nullopt;
  auto finding = make_finding("os.kernel-unsupported", Severity::warning,
                              "Kernel " + facts.kernel_release + " is not one ROCm " + release.release +
                                  " supports on this distribution")
                     .because(
                         "amdgpu-dkms is built and tested against the kernels on the support list; with another "
                         "kernel it may fail to build (the GPU then has no driver after a reboot) or the in-tree "
                         "driver runs instead.")
                     .with_evidence("/proc/sys/kernel/osrelease", facts.kernel_release)
                     .with_evidence("supported kernels", join(listed, "; "));
  const auto commands = kernel_commands(facts, dpkg);
  const bool installs = commands.back() == "sudo reboot";
  return finding.with_fix(make_fix(kCheckId,
                                   installs ? "Boot one of the listed kernels (the distribution's standard or HWE "
                                              "kernel, not a mainline or custom build)."
                                            : "The distribution's HWE kernel is already installed: boot a kernel the "
                                              "list names (choose it in GRUB), or keep this one: it is untested, "
                                              "not known to fail.",
                                   commands, {.root = installs, .reboot = installs}));
}

std::optional<Finding> virtualized(const Host& host, std::string& hypervisor,
                                   const std::vector<VirtualFunction>& functions) {
  std::vector<std::pair<std::string, std::string>> evidence;
  if (const auto cpuinfo = host.read_file("/proc/cpuinfo", 8U << 20); cpuinfo && cpuinfo_has_hypervisor(*cpuinfo)) {
    evidence.emplace_back("/proc/cpuinfo", "flags include hypervisor");
  }
  const auto vendor = host.read_trimmed("/sys/class/dmi/id/sys_vendor").value_or("");
  const auto product = host.read_trimmed("/sys/class/dmi/id/product_name").value_or("");
  const auto dmi = vendor + " " + product;
  for (const auto& row : platform_table().hypervisor_vendors) {
    if (dmi.find(row.match) == std::string::npos) continue;
    if (product.find("metal") != std::string::npos) break;  // bare-metal cloud instances
    hypervisor = row.name;
    evidence.emplace_back("/sys/class/dmi/id/sys_vendor", vendor + " / " + product);
    break;
  }
  // A VF beside its PF (physfn) is the SR-IOV host, not a guest: os.sriov-vf says so.
  if (evidence.empty()) return std::nullopt;
  std::string summary =
      hypervisor.empty() ? "Running in a virtual machine" : "Running in a " + hypervisor + " virtual machine";
  const bool guest_vf =
      std::any_of(functions.begin(), functions.end(), [](const auto& f) { return f.physical.empty(); });
  if (guest_vf) summary += " with an SR-IOV virtual function of the GPU (os.sriov-vf)";
  auto finding = make_finding("os.virtualized", Severity::info, summary)
                     .because(
                         "ROCm supports GPUs in virtual machines only in listed setups (KVM passthrough or SR-IOV of "
                         "specific Instinct and Radeon PRO parts). The GPU must be passed through whole (VFIO) or as a "
                         "virtual function with AMD's host driver; PCIe atomics and peer-to-peer depend on the "
                         "hypervisor, and GPU reset and power readings may be missing.");
  for (const auto& [source, value] : evidence) finding.with_evidence(source, value);
  return finding;
}

class PlatformCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "Platform support"; }
  int order() const override { return 11; }
  std::vector<std::string_view> finding_ids() const override {
    return {"os.unsupported", "os.kernel-unsupported", "os.virtualized", "os.sriov-vf"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.wsl)
      return CheckOutcome::skipped("WSL: ROCm on WSL has its own support list, tied to the Windows driver");
    std::vector<Finding> findings;
    const bool native = !ctx.options().image_mode && facts.container.empty();
    if (native) {
      const auto functions = virtual_functions(ctx.host());
      std::string hypervisor;
      if (auto finding = virtualized(ctx.host(), hypervisor, functions)) findings.push_back(std::move(*finding));
      if (auto finding = sriov_finding(functions, hypervisor)) findings.push_back(std::move(*finding));
    }
    const auto& install = ctx.fact<RocmInstallation>();
    if (!install.active || install.active->distro_packaged || install.active->version.empty()) return findings;
    const auto* release = kb::knowledge_base().release(install.active->version);
    if (!release || facts.os_id.empty()) return findings;
    const auto [name, exact] = list_name(facts);
    const auto judgement = judge(*release, name, facts.os_version_id, exact);
    if (judgement.matching.empty()) {
      findings.push_back(unsupported_os(ctx.host(), facts, *release, install.active->version, judgement, name));
    } else if (native && !facts.kernel_release.empty()) {
      if (auto finding = unsupported_kernel(facts, *release, judgement, ctx.fact<DpkgDatabase>()))
        findings.push_back(std::move(*finding));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::platform

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::platform::PlatformCheck)
