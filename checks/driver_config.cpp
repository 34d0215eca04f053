// `driver-config`: why an installed amdgpu driver does not load. A modprobe.d or
// kernel-command-line blacklist, Secure Boot refusing an unsigned DKMS module, or
// an amdgpu-dkms that was never built for the running kernel (often: no headers).
#include "driver_config.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "apu_memory.h"
#include "driver.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/kernel_cmdline_fix.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::driver_config {
namespace {

constexpr std::string_view kCheckId = "driver-config";
constexpr std::string_view kSecureBootVar = "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
constexpr std::string_view kDkmsTree = "/var/lib/dkms/amdgpu";

std::string regenerate_initramfs(Family family, const std::string& release) {
  if (family == Family::debian) return shell_command({"sudo", "update-initramfs", "-u", "-k", release});
  return shell_command({"sudo", "dracut", "--force", "--kver", release});
}

struct BlacklistHit {
  std::string file;
  ModprobeRule rule;
};

std::vector<BlacklistHit> modprobe_blacklists(const Host& host) {
  std::map<std::string, std::string> files;  // file name -> full path of the one that counts
  // modprobe.d folders in modprobe's precedence order (apu_memory.json's modprobe_dirs): a
  // file name in an earlier folder hides the same name in a later one.
  for (const auto& dir : apu_memory::data().modprobe_dirs) {
    const auto entries = host.list_dir(dir);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      if (!entry.name.ends_with(".conf") || files.contains(entry.name)) continue;
      files[entry.name] = dir + "/" + entry.name;
    }
  }
  std::vector<BlacklistHit> hits;
  for (const auto& [name, path] : files) {
    const auto text = host.read_file(path);
    if (!text) continue;
    for (auto& rule : parse_modprobe_conf(*text, "amdgpu")) hits.push_back({path, std::move(rule)});
  }
  return hits;
}

bool amd_gpu_present(const Host& host) {
  const auto entries = host.list_dir("/sys/bus/pci/devices");
  if (!entries) return false;
  const auto& knowledge = driver::pci_knowledge();
  return std::any_of(entries->begin(), entries->end(), [&](const DirEntry& entry) {
    const auto base = "/sys/bus/pci/devices/" + entry.name;
    const auto read = [&](const char* name) {
      return host.read_file(base + "/" + name)
          .map([](const std::string& t) { return driver::parse_sysfs_hex(t); })
          .value_or(std::nullopt);
    };
    const auto vendor = read("vendor");
    const auto pci_class = read("class");
    return vendor && pci_class && knowledge.is_amd_gpu(*vendor, *pci_class);
  });
}

// One version folder of the amdgpu DKMS tree.
struct DkmsVersion {
  std::string version;
  bool has_source = false;   // source/dkms.conf present
  std::string built_module;  // <kernel>/<arch>/module/amdgpu.ko* for the running kernel, "" when none
  std::string make_log;      // build/make.log when present
};

std::vector<DkmsVersion> scan_dkms(const Host& host, const std::string& release) {
  std::vector<DkmsVersion> versions;
  const auto entries = host.list_dir(kDkmsTree);
  if (!entries) return versions;
  for (const auto& entry : *entries) {
    // Old dkms keeps "kernel-<release>-<arch>" links beside the version folders.
    if (entry.type != EntryType::directory || entry.name.starts_with("kernel-")) continue;
    DkmsVersion version;
    version.version = entry.name;
    const auto base = std::string(kDkmsTree) + "/" + entry.name;
    version.has_source = host.exists(base + "/source/dkms.conf");
    if (host.exists(base + "/build/make.log")) version.make_log = base + "/build/make.log";
    if (const auto arches = host.list_dir(base + "/" + release)) {
      for (const auto& arch : *arches) {
        const auto module_dir = base + "/" + release + "/" + arch.name + "/module";
        for (const auto& file : host.list_dir(module_dir).value_or(std::vector<DirEntry>{})) {
          if (is_module_file(file.name, "amdgpu")) version.built_module = module_dir + "/" + file.name;
        }
      }
    }
    versions.push_back(std::move(version));
  }
  return versions;
}

std::string installed_dkms_module(const Host& host, const std::string& release) {
  const auto dir = "/lib/modules/" + release + "/updates/dkms";
  for (const auto& file : host.list_dir(dir).value_or(std::vector<DirEntry>{})) {
    if (is_module_file(file.name, "amdgpu")) return dir + "/" + file.name;
  }
  return "";
}

class DriverConfigCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "amdgpu driver configuration"; }
  int order() const override { return 21; }
  std::vector<std::string_view> finding_ids() const override {
    return {"driver.blacklisted", "driver.secure-boot-unsigned", "driver.dkms-not-built", "driver.headers-missing"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode) return CheckOutcome::skipped("--image: no kernel driver is loaded in an image build");
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.wsl) return CheckOutcome::skipped("WSL: the GPU is driven by the Windows driver");
    if (!facts.container.empty()) return CheckOutcome::skipped("container: the kernel driver belongs to the host");
    const auto& host = ctx.host();
    const bool loaded = host.exists("/sys/module/amdgpu");
    const bool gpu = loaded || amd_gpu_present(host);
    std::vector<Finding> findings;
    if (!gpu) return findings;
    if (auto finding = blacklisted(ctx, loaded)) findings.push_back(std::move(*finding));

    const auto release = facts.kernel_release;
    if (release.empty()) return findings;
    const auto versions = scan_dkms(host, release);
    const auto installed = installed_dkms_module(host, release);
    const bool built = !installed.empty() || std::any_of(versions.begin(), versions.end(),
                                                         [](const auto& v) { return !v.built_module.empty(); });
    if (!loaded && built) {
      std::string module = installed;
      for (const auto& version : versions) {
        if (module.empty()) module = version.built_module;
      }
      if (auto finding = secure_boot(ctx, module)) findings.push_back(std::move(*finding));
    }
    if (!versions.empty() && !built && !host.exists("/sys/module/amdgpu/version")) {
      const bool headers = host.exists("/lib/modules/" + release + "/build");
      findings.push_back(dkms_not_built(ctx, versions, loaded, headers));
      if (!headers) findings.push_back(headers_missing(ctx, versions));
    }
    return findings;
  }

 private:
  static std::optional<Finding> blacklisted(const CheckContext& ctx, bool loaded) {
    const auto& host = ctx.host();
    const auto& facts = ctx.fact<SystemFacts>();
    const auto hits = modprobe_blacklists(host);
    const auto cmdline_text = host.read_file("/proc/cmdline").value_or("");
    const auto cmdline = driver::parse_kernel_cmdline(cmdline_text);
    std::vector<std::string> cmdline_words;
    for (const auto& word : cmdline.amdgpu_words) {
      if (word.find("blacklist") != std::string::npos) cmdline_words.push_back(word);
    }
    if (hits.empty() && cmdline_words.empty()) return std::nullopt;

    std::vector<std::string> places;
    for (const auto& hit : hits) places.push_back(hit.file + ":" + std::to_string(hit.rule.line));
    if (!cmdline_words.empty()) places.push_back("/proc/cmdline");
    auto finding =
        make_finding("driver.blacklisted", loaded ? Severity::warning : Severity::error,
                     "amdgpu is blacklisted (" + join(places, ", ") + ")" +
                         (loaded ? " although it is loaded now" : ": the kernel never loads it"))
            .because(loaded ? "The driver was loaded by hand or from an old initramfs; the blacklist stops it at a "
                              "later boot, and then ROCm sees no GPU."
                            : "A blacklisted amdgpu is never loaded at boot, so there is no /dev/kfd and no GPU for "
                              "ROCm. Such lines are left over from other drivers' installers or from advice to "
                              "\"purge\" or disable amdgpu: ROCm needs this driver.");
    for (const auto& hit : hits) finding.with_evidence(hit.file + ":" + std::to_string(hit.rule.line), hit.rule.text);
    if (!cmdline_words.empty()) finding.with_evidence("/proc/cmdline", join(cmdline_words, " "));

    const auto family = distro_family(facts);
    if (!hits.empty()) {
      std::vector<std::string> commands;
      for (const auto& hit : hits) {
        commands.push_back(shell_command({"sudo", "sed", "-i", std::to_string(hit.rule.line) + "s/^/# /", hit.file}));
      }
      if (!facts.kernel_release.empty()) commands.push_back(regenerate_initramfs(family, facts.kernel_release));
      commands.push_back("sudo reboot");
      finding.with_fix(make_fix(kCheckId,
                                "Comment out the blacklist line(s), rebuild the initramfs (it carries a copy of "
                                "modprobe.d) and reboot.",
                                commands, {.root = true, .reboot = true}));
    }
    if (!cmdline_words.empty()) {
      finding.with_fix(kernel_cmdline_fix(kCheckId, ctx.host(), facts,
                                          "Remove " + join(cmdline_words, " ") + " from the kernel command line", {},
                                          cmdline_words));
    }
    return finding;
  }

  static std::optional<Finding> secure_boot(const CheckContext& ctx, const std::string& module) {
    const auto& host = ctx.host();
    const auto bytes = host.read_file(kSecureBootVar, 64);
    if (!bytes) return std::nullopt;
    const auto enabled = parse_secure_boot_efivar(*bytes);
    if (!enabled || !*enabled) return std::nullopt;
    const auto& facts = ctx.fact<SystemFacts>();
    const auto family = distro_family(facts);
    std::string key;
    for (const std::string candidate : {"/var/lib/shim-signed/mok/MOK.der", "/var/lib/dkms/mok.pub"}) {
      if (host.exists(candidate)) {
        key = candidate;
        break;
      }
    }
    const bool have_key = !key.empty();
    if (!have_key) key = facts.os_id == "ubuntu" ? "/var/lib/shim-signed/mok/MOK.der" : "/var/lib/dkms/mok.pub";
    auto finding =
        make_finding("driver.secure-boot-unsigned", Severity::error,
                     "Secure Boot is on and the DKMS-built amdgpu module is not loaded: its signing key is not "
                     "enrolled")
            .because(
                "With Secure Boot the kernel loads only modules signed by a key it trusts. amdgpu-dkms builds "
                "amdgpu on this machine and signs it with a local Machine Owner Key (MOK); until that key is "
                "enrolled in the firmware, the kernel refuses the module, and ROCm sees no GPU. Disabling "
                "Secure Boot also works but weakens the machine.")
            .with_evidence(kSecureBootVar, "enabled (last byte 1)")
            .with_evidence("/sys/module/amdgpu", "absent (driver not loaded)");
    if (!module.empty()) finding.with_evidence("DKMS module", module);
    finding.with_evidence(key, have_key ? "MOK key present, not trusted by the kernel" : "not found");
    std::vector<std::string> commands;
    if (!have_key && family == Family::debian && facts.os_id == "ubuntu") {
      commands.push_back("sudo update-secureboot-policy --new-key");
    } else if (!have_key) {
      commands.push_back(shell_command({"sudo", "dkms", "autoinstall", "-k", facts.kernel_release}));
    }
    commands.push_back(shell_command({"sudo", "mokutil", "--import", key}));
    commands.push_back("sudo reboot");
    commands.push_back("sudo modprobe amdgpu");
    return finding.with_fix(make_fix(
        kCheckId,
        "Enroll the DKMS signing key: `mokutil --import` asks for a one-time password; at the next boot the blue "
        "MOK Manager screen appears: choose \"Enroll MOK\", \"Continue\", \"Yes\", type that password, then "
        "\"Reboot\". Check afterwards with `mokutil --test-key " +
            key + "`.",
        commands, {.root = true, .reboot = true}));
  }

  static const DkmsVersion* newest_usable(const std::vector<DkmsVersion>& versions) {
    const DkmsVersion* best = nullptr;
    for (const auto& version : versions) {
      if (version.has_source && (!best || compare_dotted(version.version, best->version) > 0)) best = &version;
    }
    return best;
  }

  static int compare_dotted(std::string_view a, std::string_view b) {
    const auto number = [](std::string_view text) {
      std::vector<std::uint64_t> parts;
      for (const auto part : split(text.substr(0, text.find('-')), '.')) parts.push_back(parse_uint(part).value_or(0));
      return parts;
    };
    const auto x = number(a);
    const auto y = number(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }

  static Finding dkms_not_built(const CheckContext& ctx, const std::vector<DkmsVersion>& versions, bool loaded,
                                bool headers) {
    const auto& facts = ctx.fact<SystemFacts>();
    const auto& release = facts.kernel_release;
    auto finding =
        make_finding("driver.dkms-not-built", loaded ? Severity::warning : Severity::error,
                     "amdgpu-dkms is installed but not built for the running kernel " + release +
                         (loaded ? ": the kernel's own amdgpu runs instead" : ""))
            .because(loaded ? "The in-tree amdgpu of this kernel is loaded instead of the driver your ROCm release "
                              "was tested with; newer GPUs and fixes may be missing, and the two drift further "
                              "apart at each kernel update."
                            : "DKMS builds amdgpu for each installed kernel. It did not build it for this one "
                              "(usually: a kernel update without its headers, or a kernel too new for this "
                              "amdgpu-dkms), so no amdgpu module matches the running kernel.");
    std::vector<std::string> stale;
    for (const auto& version : versions) {
      const auto base = std::string(kDkmsTree) + "/" + version.version;
      finding.with_evidence(base + "/" + release, "absent: no module built for this kernel");
      if (!version.has_source) {
        finding.with_evidence(base + "/source/dkms.conf", "missing: a leftover folder that breaks `dkms status`");
        stale.push_back(base);
      }
      if (!version.make_log.empty()) finding.with_evidence(version.make_log, "the last build's log");
    }
    finding.with_evidence("/lib/modules/" + release + "/build", headers ? "present (kernel headers)" : "absent");
    std::vector<std::string> commands;
    for (const auto& folder : stale) commands.push_back(shell_command({"sudo", "rm", "-r", "--", folder}));
    if (!headers) {
      const auto package = header_package(distro_family(facts), release);
      if (!package.empty()) commands.push_back(install_command(distro_family(facts), {package}));
    }
    if (const auto* usable = newest_usable(versions)) {
      commands.push_back(shell_command({"sudo", "dkms", "install", "amdgpu/" + usable->version, "-k", release}));
    } else {
      commands.push_back("sudo dkms autoinstall -k " + shell_quote(release));
    }
    commands.push_back("dkms status amdgpu");
    commands.push_back("sudo reboot");
    return finding.with_fix(make_fix(
        kCheckId,
        "Build amdgpu-dkms for this kernel and reboot into it. If the build fails, its make.log names the error; a "
        "kernel newer than the ones your ROCm release supports needs a newer amdgpu-dkms or an older kernel.",
        commands, {.root = true, .reboot = true}));
  }

  static Finding headers_missing(const CheckContext& ctx, const std::vector<DkmsVersion>& versions) {
    const auto& facts = ctx.fact<SystemFacts>();
    const auto& release = facts.kernel_release;
    const auto family = distro_family(facts);
    const auto package = header_package(family, release);
    auto finding = make_finding("driver.headers-missing", Severity::error,
                                "The headers of the running kernel " + release +
                                    " are not installed, so DKMS "
                                    "cannot build amdgpu for it")
                       .because(
                           "DKMS compiles amdgpu against the kernel's headers (/lib/modules/<release>/build). "
                           "Without them every kernel update leaves the GPU without its driver.")
                       .with_evidence("/lib/modules/" + release + "/build", "absent")
                       .with_evidence(kDkmsTree, std::to_string(versions.size()) + " version(s) installed");
    std::vector<std::string> commands;
    if (!package.empty()) commands.push_back(install_command(family, {package}));
    commands.push_back(shell_command({"sudo", "dkms", "autoinstall", "-k", release}));
    std::string description = package.empty() ? "Install the headers of kernel " + release +
                                                    " with your distribution's package "
                                                    "manager, then let DKMS build amdgpu."
                                              : "Install " + package + ", then let DKMS build amdgpu for this kernel.";
    if (family == Family::debian && facts.os_id == "ubuntu") {
      description +=
          " To get headers with every future kernel, install the linux-headers meta-package of your "
          "kernel flavour (for example linux-headers-generic-hwe-22.04).";
    }
    return finding.with_fix(make_fix(kCheckId, description, commands, {.root = true}));
  }
};

}  // namespace
}  // namespace rocm_doctor::driver_config

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::driver_config::DriverConfigCheck)
