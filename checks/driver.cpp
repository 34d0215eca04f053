// `driver`: is there an AMD GPU, is the amdgpu kernel driver up, and does it
// offer the /dev/kfd compute interface ROCm needs.
#include "driver.h"

#include <algorithm>
#include <cstdio>

#include "rocm_doctor/check.h"
#include "rocm_doctor/kb.h"
#include "rocm_doctor/kernel_cmdline_fix.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::driver {
namespace {

constexpr std::string_view kPciDevices = "/sys/bus/pci/devices";
constexpr std::string_view kCheckId = "driver";

struct PciFunction {
  std::string bdf;
  std::uint32_t vendor = 0;
  std::uint32_t device = 0;
  std::uint32_t pci_class = 0;
  std::string driver;  // bound kernel driver, "" when none

  [[nodiscard]] std::string label() const {
    std::string text = pci_knowledge().vendor_name(vendor) + " [" + hex4(vendor) + ":" + hex4(device) + "] at " + bdf;
    return text + (driver.empty() ? " (no driver bound)" : " (driver " + driver + ")");
  }
};

struct PciScan {
  std::vector<PciFunction> gpus;  // display-class functions of any vendor, and AMD accelerators
  std::optional<HostError> error;
};

std::string hex6(std::uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%06x", value);
  return buffer;
}

std::string last_component(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

PciScan scan_pci(const Host& host) {
  PciScan scan;
  auto entries = host.list_dir(kPciDevices);
  if (!entries) {
    scan.error = entries.error();
    return scan;
  }
  const auto& knowledge = pci_knowledge();
  for (const auto& entry : *entries) {
    const std::string base = std::string(kPciDevices) + "/" + entry.name;
    PciFunction function;
    function.bdf = entry.name;
    const auto read_hex = [&](const char* name) {
      return host.read_file(base + "/" + name)
          .map([](const std::string& text) { return parse_sysfs_hex(text); })
          .value_or(std::nullopt);
    };
    const auto vendor = read_hex("vendor");
    const auto pci_class = read_hex("class");
    if (!vendor || !pci_class) continue;
    function.vendor = *vendor;
    function.pci_class = *pci_class;
    function.device = read_hex("device").value_or(0);
    if (!knowledge.is_display(function.pci_class) && !knowledge.is_amd_gpu(function.vendor, function.pci_class))
      continue;
    if (const auto link = host.read_link(base + "/driver")) function.driver = last_component(*link);
    scan.gpus.push_back(std::move(function));
  }
  return scan;
}

Finding no_amd_gpu(const PciScan& scan) {
  std::vector<std::string> others;
  for (const auto& gpu : scan.gpus) others.push_back(gpu.label());
  std::string summary = "No AMD GPU on the PCI bus";
  if (!others.empty()) summary += ": found " + join(others, ", ") + " instead";
  auto finding = make_finding("driver.no-amd-gpu", Severity::error, summary)
                     .because("ROCm runs only on AMD GPUs (PCI vendor 0x" + hex4(kb::kAmdPciVendor) +
                              "). Without one, no ROCm program can use a GPU here; frameworks fall back to the CPU or "
                              "fail.");
  if (scan.error) {
    finding.with_evidence(kPciDevices, scan.error->message);
  } else if (others.empty()) {
    finding.with_evidence(kPciDevices, "no display-class (0x03xxxx) device");
  }
  for (const auto& gpu : scan.gpus) {
    finding.with_evidence(std::string(kPciDevices) + "/" + gpu.bdf, "vendor 0x" + hex4(gpu.vendor) + " (" +
                                                                        pci_knowledge().vendor_name(gpu.vendor) +
                                                                        "), class 0x" + hex6(gpu.pci_class));
  }
  finding.with_evidence("/dev/kfd", "absent");
  return finding.with_fix(
      make_fix(kCheckId,
               "Run ROCm on a machine with a supported AMD GPU. In a virtual machine, pass the AMD GPU through (VFIO) "
               "first; then this list shows it.",
               {"lspci -nn -d " + hex4(kb::kAmdPciVendor) + ":"}));
}

Finding nomodeset(const Host& host, const KernelCmdline& cmdline, const SystemFacts& facts,
                  std::string_view cmdline_text, bool module_loaded) {
  std::vector<std::string> words;
  for (const auto& word : cmdline.amdgpu_words) {
    if (word.find("blacklist") == std::string::npos) words.push_back(word);
  }
  auto finding = make_finding("driver.nomodeset", Severity::error,
                              "The kernel command line disables the amdgpu driver (" + join(words, " ") + ")")
                     .because(
                         "With `nomodeset` (or amdgpu.modeset=0) amdgpu refuses to initialise, so there is no /dev/kfd "
                         "and no GPU for ROCm. It is often left over from an installation that needed a basic "
                         "framebuffer. Keep the amdgpu driver: do not purge or blacklist it.")
                     .with_evidence("/proc/cmdline", trim(cmdline_text))
                     .with_evidence("/sys/module/amdgpu", module_loaded ? "present" : "absent (driver not loaded)");
  return finding.with_fix(kernel_cmdline_fix(
      kCheckId, host, facts, "Remove " + join(words, " ") + " from the kernel command line", {}, words));
}

std::string module_file(const Host& host, const std::string& release) {
  for (const std::string folder : {"updates/dkms", "kernel/drivers/gpu/drm/amd/amdgpu", "extra"}) {
    for (const std::string suffix : {"", ".zst", ".xz", ".gz"}) {
      auto path = "/lib/modules/" + release + "/" + folder + "/amdgpu.ko" + suffix;
      if (host.exists(path)) return path;
    }
  }
  return "";
}

Finding amdgpu_not_loaded(const CheckContext& ctx, const std::vector<PciFunction>& amd, const KernelCmdline& cmdline) {
  const auto& facts = ctx.fact<SystemFacts>();
  auto finding = make_finding("driver.amdgpu-not-loaded", Severity::error,
                              "The amdgpu kernel driver is not loaded although an AMD GPU is present")
                     .because(
                         "ROCm talks to the GPU through the amdgpu kernel driver and its /dev/kfd interface. "
                         "Without it the GPU is invisible to every ROCm program. Never purge amdgpu: it is "
                         "the driver ROCm needs.")
                     .with_evidence("/sys/module/amdgpu", "absent");
  for (const auto& gpu : amd) finding.with_evidence(std::string(kPciDevices) + "/" + gpu.bdf, gpu.label());
  const auto release = facts.kernel_release;
  const auto module = release.empty() ? std::string() : module_file(ctx.host(), release);
  if (!release.empty()) {
    finding.with_evidence("/lib/modules/" + release, module.empty() ? "no amdgpu.ko module file" : module);
  }
  const bool vfio = std::any_of(amd.begin(), amd.end(), [](const auto& gpu) { return gpu.driver == "vfio-pci"; });
  const bool radeon = std::any_of(amd.begin(), amd.end(), [](const auto& gpu) { return gpu.driver == "radeon"; });
  if (cmdline.amdgpu_blacklisted) {
    std::vector<std::string> words;
    for (const auto& word : cmdline.amdgpu_words) {
      if (word.find("blacklist") != std::string::npos) words.push_back(word);
    }
    finding.with_evidence("/proc/cmdline", join(words, " "));
    finding.with_fix(kernel_cmdline_fix(kCheckId, ctx.host(), facts,
                                        "The kernel command line blacklists amdgpu: remove " + join(words, " "), {},
                                        words));
  } else if (vfio) {
    finding.with_fix(make_fix(kCheckId,
                              "The GPU is reserved for a virtual machine by vfio-pci. Remove its id from the "
                              "vfio-pci.ids= kernel argument or the `options vfio-pci ids=` line in "
                              "/etc/modprobe.d, then reboot so amdgpu can claim it.",
                              {"grep -rn vfio /etc/modprobe.d /proc/cmdline"}, {.root = true, .reboot = true}));
  } else if (radeon) {
    finding.with_fix(make_fix(kCheckId,
                              "The GPU is driven by the legacy radeon driver (GCN 1.0/1.1 cards). ROCm does not "
                              "support these GPUs; use a GPU on ROCm's support list.",
                              {}));
  } else if (module.empty() && !release.empty() && facts.os_id == "ubuntu") {
    finding.with_fix(make_fix(
        kCheckId,
        "Ubuntu ships amdgpu in the linux-modules-extra package of each kernel: install it "
        "for the running kernel and load the driver.",
        {"sudo apt install " + shell_quote("linux-modules-extra-" + release), "sudo modprobe amdgpu"}, {.root = true}));
  } else if (module.empty()) {
    finding.with_fix(make_fix(kCheckId,
                              "No amdgpu module exists for the running kernel " + release +
                                  ": install the kernel's module package, or amdgpu-dkms from AMD's repository "
                                  "(check that it built for this kernel).",
                              {"dkms status"}, {.root = true}));
  } else {
    finding.with_fix(make_fix(kCheckId,
                              "Load the driver and read the kernel log for the reason it did not load (with Secure "
                              "Boot on, an unsigned amdgpu-dkms module is refused: enroll its MOK key).",
                              {"sudo modprobe amdgpu", "sudo dmesg | grep -iE 'amdgpu|kfd'", "mokutil --sb-state"},
                              {.root = true}));
  }
  return finding;
}

Finding kfd_missing(const CheckContext& ctx, bool module_loaded) {
  const auto& facts = ctx.fact<SystemFacts>();
  const auto& host = ctx.host();
  auto finding = make_finding("driver.kfd-missing", Severity::error, "/dev/kfd is missing")
                     .because(
                         "/dev/kfd is the compute interface every ROCm program opens; without it ROCm sees no "
                         "GPU (rocminfo: \"Unable to open /dev/kfd\").")
                     .with_evidence("/dev/kfd", "absent")
                     .with_evidence("/sys/module/amdgpu", module_loaded ? "present (driver loaded)" : "not visible");
  if (!facts.container.empty()) {
    return finding.with_evidence("container runtime", facts.container)
        .with_fix(make_fix(kCheckId,
                           "Inside a " + facts.container +
                               " container the device nodes must be passed in: start the container with "
                               "--device=/dev/kfd --device=/dev/dri (the host needs the amdgpu driver loaded).",
                           {"docker run --device=/dev/kfd --device=/dev/dri IMAGE"}));
  }
  const bool kfd_class = host.exists("/sys/class/kfd/kfd");
  finding.with_evidence("/sys/class/kfd/kfd", kfd_class ? "present" : "absent");
  if (kfd_class) {
    return finding.with_fix(make_fix(kCheckId,
                                     "The kernel created the KFD device but no /dev node appeared: let udev "
                                     "create it again.",
                                     {"sudo udevadm trigger --subsystem-match=kfd", "ls -l /dev/kfd"}, {.root = true}));
  }
  if (!facts.kernel_release.empty()) {
    const auto config = host.read_file("/boot/config-" + facts.kernel_release, 16 * 1024 * 1024);
    if (config && config->find("# CONFIG_HSA_AMD is not set") != std::string::npos) {
      finding.with_evidence("/boot/config-" + facts.kernel_release, "# CONFIG_HSA_AMD is not set");
      std::vector<std::string> commands;
      if (facts.os_id == "debian") commands = {"sudo apt install linux-image-amd64"};
      if (facts.os_id == "ubuntu") commands = {"sudo apt install linux-generic"};
      return finding.with_fix(make_fix(kCheckId,
                                       "This kernel was built without KFD (CONFIG_HSA_AMD): boot a kernel with "
                                       "CONFIG_HSA_AMD=y, such as your distribution's standard kernel.",
                                       commands, {.root = true, .reboot = true}));
    }
  }
  return finding.with_fix(make_fix(kCheckId,
                                   "amdgpu did not create the compute interface for this GPU. The kernel log says "
                                   "why; \"not supported in kfd\" means the GPU is too old for ROCm.",
                                   {"sudo dmesg | grep -iE 'kfd|amdgpu'"}, {.root = true}));
}

// "a directory", "a regular file": what sits at /dev/kfd instead of the device.
std::string entry_description(EntryType type) {
  switch (type) {
    case EntryType::file: return "a regular file";
    case EntryType::directory: return "a directory";
    case EntryType::symlink: return "a symbolic link";
    case EntryType::block_device: return "a block device";
    case EntryType::char_device: return "a character device";
    case EntryType::other: break;
  }
  return "not a device (a FIFO or socket)";
}

Finding kfd_not_a_device(const CheckContext& ctx, const NodeInfo& node) {
  const auto& facts = ctx.fact<SystemFacts>();
  const auto what = entry_description(node.type);
  auto finding =
      make_finding("driver.kfd-not-a-device", Severity::error, "/dev/kfd is " + what + ", not the KFD device")
          .because(
              "ROCm opens /dev/kfd and talks to the driver through ioctl(2) on it; only the character "
              "device amdgpu creates (`crw-rw----`) answers. A directory or file there "
              "typically comes from a container started with -v /dev/kfd:/dev/kfd, which creates an empty "
              "directory when the path is missing, or from a copy of /dev.")
          .with_evidence("/dev/kfd", what);
  if (!facts.container.empty()) {
    finding.with_evidence("container runtime", facts.container);
    return finding.with_fix(make_fix(kCheckId,
                                     "Pass the devices in as devices, not volumes: --device=/dev/kfd "
                                     "--device=/dev/dri (the host needs the amdgpu driver loaded).",
                                     {"docker run --device=/dev/kfd --device=/dev/dri IMAGE"}));
  }
  return finding.with_fix(make_fix(
      kCheckId, "Move the impostor away and let udev create the device node again.",
      {"ls -ld /dev/kfd", "sudo mv /dev/kfd /root/kfd.not-a-device", "sudo udevadm trigger --subsystem-match=kfd"},
      {.root = true}));
}

Finding driver_ok(const CheckContext& ctx, const std::vector<PciFunction>& amd, bool module_loaded) {
  const auto& host = ctx.host();
  const auto version = host.read_trimmed("/sys/module/amdgpu/version");
  std::string driver;
  if (!module_loaded) {
    driver = "amdgpu (module details not visible here)";
  } else if (version && !version->empty()) {
    driver = "amdgpu " + *version + " (out-of-tree amdgpu-dkms)";
  } else {
    driver = "amdgpu, the in-tree driver of kernel " + ctx.fact<SystemFacts>().kernel_release;
  }
  std::vector<std::string> labels;
  for (const auto& gpu : amd) labels.push_back(gpu.bdf);
  const std::string gpus = amd.empty() ? "AMD GPU not listed on the PCI bus here"
                                       : std::to_string(amd.size()) + " AMD GPU(s) at " + join(labels, ", ");
  auto finding = make_finding("driver.ok", Severity::ok, "Driver " + driver + " loaded, /dev/kfd present; " + gpus)
                     .because("The amdgpu kernel driver is up and offers the /dev/kfd compute interface ROCm uses.")
                     .with_evidence("/sys/module/amdgpu/version", version ? *version : "absent (in-tree driver)")
                     .with_evidence("/dev/kfd", "present");
  for (const auto& gpu : amd) finding.with_evidence(std::string(kPciDevices) + "/" + gpu.bdf, gpu.label());
  return finding;
}

class DriverCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "AMD GPU and kernel driver"; }
  int order() const override { return 20; }
  std::vector<std::string_view> finding_ids() const override {
    return {"driver.no-amd-gpu",  "driver.amdgpu-not-loaded", "driver.nomodeset",
            "driver.kfd-missing", "driver.kfd-not-a-device",  "driver.ok"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode)
      return CheckOutcome::skipped("--image: no GPU or driver is expected in an image build");
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.wsl) return CheckOutcome::skipped("WSL: the GPU is reached through /dev/dxg");
    const auto& host = ctx.host();

    const auto scan = scan_pci(host);
    std::vector<PciFunction> amd;
    std::copy_if(scan.gpus.begin(), scan.gpus.end(), std::back_inserter(amd),
                 [](const auto& gpu) { return pci_knowledge().is_amd_gpu(gpu.vendor, gpu.pci_class); });
    const bool kfd = host.exists("/dev/kfd");
    // A container may hide the PCI bus; /dev/kfd still proves a GPU driver is there.
    if (amd.empty() && !kfd) return {{no_amd_gpu(scan)}};

    const bool module_loaded = host.exists("/sys/module/amdgpu");
    const auto cmdline_text = host.read_file("/proc/cmdline").value_or("");
    const auto cmdline = parse_kernel_cmdline(cmdline_text);
    if (!kfd && cmdline.disables_modeset())
      return {{nomodeset(ctx.host(), cmdline, facts, cmdline_text, module_loaded)}};
    if (!kfd && !module_loaded && facts.container.empty()) return {{amdgpu_not_loaded(ctx, amd, cmdline)}};
    if (!kfd) return {{kfd_missing(ctx, module_loaded)}};
    if (const auto node = host.stat_node("/dev/kfd"); node && node->type != EntryType::char_device) {
      return {{kfd_not_a_device(ctx, *node)}};
    }
    return {{driver_ok(ctx, amd, module_loaded)}};
  }
};

}  // namespace
}  // namespace rocm_doctor::driver

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::driver::DriverCheck)
