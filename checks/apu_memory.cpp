// `apu-memory`: how much memory ROCm gets on an APU (integrated GPU), and the
// GTT/TTM limits behind it. An APU has no VRAM of its own: ROCm allocates from
// the firmware's UMA carve-out or, on newer kernels, from GTT (system RAM the
// GPU may map, capped by TTM's pages_limit). A small carve-out on an old
// kernel, limits configured but never applied (initramfs, amdgpu-dkms' amdttm),
// or limits past the RAM are why ollama, llama.cpp and PyTorch see less memory
// than the machine has, or hang it.
#include "apu_memory.h"

#include <algorithm>
#include <map>

#include "driver_config.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::apu_memory {
namespace {

std::string where(const Setting& setting) {
  return setting.line > 0 ? setting.source + ":" + std::to_string(setting.line) : setting.source;
}

std::string spelled(const Setting& setting) {
  return setting.line > 0 ? "options " + setting.module + " " + setting.param + "=" + setting.value
                          : setting.module + "." + setting.param + "=" + setting.value;
}

// Every memory setting: modprobe.d files (a file name in an earlier folder hides the same
// name in later ones; files apply in name order), then the command line, which wins.
std::vector<Setting> collect_settings(const Host& host) {
  std::map<std::string, std::string> files;  // name -> path
  for (const auto& dir : data().modprobe_dirs) {
    const auto entries = host.list_dir(dir);
    if (!entries) continue;
    for (const auto& entry : *entries) {
      if (!entry.name.ends_with(".conf") || entry.type == EntryType::directory) continue;
      files.emplace(entry.name, dir + "/" + entry.name);
    }
  }
  std::vector<Setting> settings;
  for (const auto& [name, path] : files) {
    const auto text = host.read_file(path);
    if (!text) continue;
    auto found = parse_modprobe_settings(*text, path);
    settings.insert(settings.end(), found.begin(), found.end());
  }
  auto from_cmdline = parse_cmdline_settings(host.read_file("/proc/cmdline").value_or(""));
  settings.insert(settings.end(), from_cmdline.begin(), from_cmdline.end());
  return settings;
}

// The setting that takes effect for module.param: the last one (the command line comes last).
const Setting* effective(const std::vector<Setting>& settings, std::string_view module, std::string_view param) {
  const Setting* found = nullptr;
  for (const auto& setting : settings) {
    if (setting.module == module && setting.param == param) found = &setting;
  }
  return found;
}

std::optional<std::uint64_t> read_number(const Host& host, const std::string& path) {
  const auto text = host.read_trimmed(path);
  if (!text) return std::nullopt;
  return parse_uint(*text);
}

std::string rebuild_initramfs(const SystemFacts& facts) {
  switch (driver_config::distro_family(facts)) {
    case driver_config::Family::debian: return "sudo update-initramfs -u";
    case driver_config::Family::rhel:
    case driver_config::Family::suse: return "sudo dracut -f";
    case driver_config::Family::other: break;
  }
  return "";
}

std::optional<Finding> invalid_settings(const std::vector<Setting>& settings) {
  std::vector<const Setting*> invalid;
  for (const auto& setting : settings) {
    const auto value = parse_param_value(setting.param, setting.value);
    if (!value || (setting.param != "gttsize" && *value == 0) || (setting.param == "gttsize" && *value < -1)) {
      invalid.push_back(&setting);
    }
  }
  if (invalid.empty()) return std::nullopt;
  auto finding = make_finding("apu.memory-param-invalid", Severity::warning,
                              "A GPU memory limit has a value the kernel refuses: " + spelled(*invalid.front()))
                     .because(
                         "pages_limit and page_pool_size are counts of 4 KiB pages and amdgpu.gttsize is a "
                         "number of MiB; the kernel ignores a value such as '96G' (\"invalid for parameter\") "
                         "and keeps its default of half the RAM, so the limit the guide promised never applies.");
  for (const auto* setting : invalid) finding.with_evidence(where(*setting), spelled(*setting));
  return finding.with_fix(make_fix(
      kCheckId,
      "Write the limit as a plain number: pages = GiB x 262144 (96 GiB -> 25165824), gttsize in MiB "
      "(96 GiB -> 98304), then rebuild the initramfs (modprobe.d) or the boot entry (command line) and reboot.",
      {"sudoedit " + shell_quote(invalid.front()->line > 0 ? invalid.front()->source : "/etc/default/grub")},
      {.root = true, .reboot = true}));
}

// A TTM limit that is configured but is not what the loaded module runs with.
struct Unapplied {
  const Setting* setting = nullptr;
  std::string module;  // the module amdgpu uses (ttm, or amdttm from amdgpu-dkms)
  std::uint64_t live = 0;
};

std::vector<Unapplied> unapplied_settings(const Host& host, const std::vector<Setting>& settings,
                                          std::string_view used_module) {
  std::vector<Unapplied> result;
  for (const auto& param : data().ttm_params) {
    const auto live = read_number(host, "/sys/module/" + std::string(used_module) + "/parameters/" + param);
    if (!live) continue;
    const Setting* wanted = effective(settings, used_module, param);
    if (!wanted) {  // configured only for the module amdgpu does not use
      for (const auto& module : data().ttm_modules) {
        if (module != used_module && (wanted = effective(settings, module, param))) break;
      }
    }
    if (!wanted) continue;
    const auto value = parse_param_value(param, wanted->value);
    if (!value || *value <= 0 || static_cast<std::uint64_t>(*value) == *live) continue;
    result.push_back({wanted, std::string(used_module), *live});
  }
  return result;
}

std::optional<Finding> not_applied(const Host& host, const SystemFacts& facts, const std::vector<Setting>& settings) {
  const std::string used_module = host.exists("/sys/module/amdttm") ? "amdttm" : "ttm";
  const auto unapplied = unapplied_settings(host, settings, used_module);
  if (unapplied.empty()) return std::nullopt;
  const auto& first = unapplied.front();
  const bool wrong_module = first.setting->module != used_module;
  auto finding =
      make_finding("apu.ttm-not-applied", Severity::warning,
                   wrong_module ? "The GTT limit is set for " + first.setting->module + ", but amdgpu uses " +
                                      used_module + " (amdgpu-dkms), which still runs with its default"
                                : "The configured GTT limit is not the one the kernel runs with")
          .because(wrong_module
                       ? "AMD's amdgpu-dkms driver brings its own copy of TTM, amdttm, and amdgpu allocates through "
                         "it: options for ttm (modprobe.d or ttm.* on the command line) do not reach it, so the "
                         "GPU keeps half the RAM as its limit."
                       : "TTM reads its limits when it loads: a modprobe.d change needs the initramfs rebuilt and a "
                         "reboot. Until then ROCm, ollama and llama.cpp see the old GTT size.");
  std::vector<std::string> options;
  for (const auto& item : unapplied) {
    finding.with_evidence(where(*item.setting), spelled(*item.setting));
    finding.with_evidence("/sys/module/" + item.module + "/parameters/" + item.setting->param,
                          std::to_string(item.live));
    options.push_back(item.setting->param + "=" + item.setting->value);
  }
  std::vector<std::string> commands;
  if (wrong_module || first.setting->line == 0) {
    commands.push_back("echo " + shell_quote("options " + used_module + " " + join(options, " ")) +
                       " | sudo tee /etc/modprobe.d/" + used_module + ".conf");
  }
  if (const auto initramfs = rebuild_initramfs(facts); !initramfs.empty()) commands.push_back(initramfs);
  commands.push_back("sudo reboot");
  return finding.with_fix(make_fix(kCheckId,
                                   wrong_module ? "Give " + used_module +
                                                      " the same options, rebuild the "
                                                      "initramfs and reboot."
                                                : "Rebuild the initramfs and reboot so the limit applies.",
                                   commands, {.root = true, .reboot = true}));
}

// The bytes a setting allows, when it is a valid limit (gttsize -1 is "default").
std::optional<std::uint64_t> limit_bytes(const Setting& setting) {
  const auto value = parse_param_value(setting.param, setting.value);
  if (!value || *value <= 0) return std::nullopt;
  const auto count = static_cast<std::uint64_t>(*value);
  const std::uint64_t unit = setting.param == "gttsize" ? 1024 * 1024 : data().page_size;
  if (count > UINT64_MAX / unit) return UINT64_MAX;
  return count * unit;
}

std::optional<Finding> over_ram(const std::vector<Setting>& settings, std::uint64_t ram) {
  std::vector<const Setting*> over;
  for (const auto* module : {"ttm", "amdttm", "amdgpu"}) {
    for (const auto* param : {"pages_limit", "gttsize"}) {
      const auto* setting = effective(settings, module, param);
      const auto bytes = setting ? limit_bytes(*setting) : std::nullopt;
      if (bytes && *bytes > ram) over.push_back(setting);
    }
  }
  if (over.empty()) return std::nullopt;
  auto finding = make_finding("apu.gtt-over-ram", Severity::warning,
                              "The GPU may map more memory than the machine has: " + spelled(*over.front()) + " is " +
                                  human_bytes(*limit_bytes(*over.front())) + ", RAM is " + human_bytes(ram))
                     .because(
                         "GTT is system RAM the GPU pins for itself. A limit above the RAM lets one large model "
                         "take every page: the kernel's OOM killer ends processes or the desktop freezes instead "
                         "of the allocation failing. Guides leave a few GiB for the system.")
                     .with_evidence("/proc/meminfo", "MemTotal " + std::to_string(ram / 1024) + " kB");
  for (const auto* setting : over) finding.with_evidence(where(*setting), spelled(*setting));
  const auto pages = (ram - std::min<std::uint64_t>(ram / 8, 8ULL << 30)) / data().page_size;
  return finding.with_fix(make_fix(
      kCheckId,
      "Lower the limit below the RAM, for example pages_limit=" + std::to_string(pages) +
          " (RAM less an eighth, at most 8 GiB, for the system), then rebuild the initramfs or boot entry and reboot.",
      {"sudoedit " + shell_quote(over.front()->line > 0 ? over.front()->source : "/etc/default/grub")},
      {.root = true, .reboot = true}));
}

std::optional<Finding> gttsize_over_ttm(const Host& host, const std::vector<Setting>& settings) {
  const auto* gttsize = effective(settings, "amdgpu", "gttsize");
  const auto gtt_bytes = gttsize ? limit_bytes(*gttsize) : std::nullopt;
  if (!gtt_bytes) return std::nullopt;
  const std::string used_module = host.exists("/sys/module/amdttm") ? "amdttm" : "ttm";
  const auto live = read_number(host, "/sys/module/" + used_module + "/parameters/pages_limit");
  if (!live || *live == 0 || *live > UINT64_MAX / data().page_size) return std::nullopt;
  const auto ttm_bytes = *live * data().page_size;
  if (*gtt_bytes <= ttm_bytes) return std::nullopt;
  return make_finding("apu.gttsize-over-ttm", Severity::warning,
                      "amdgpu.gttsize promises " + human_bytes(*gtt_bytes) + " of GTT, but TTM lets only " +
                          human_bytes(ttm_bytes) + " be allocated")
      .because(
          "amdgpu reports GTT as gttsize, while every allocation also counts against TTM's pages_limit: tools and "
          "ollama see the larger size and allocations fail (or the GPU hangs) past the smaller one. ttm.pages_limit "
          "alone sets both.")
      .with_evidence(where(*gttsize), spelled(*gttsize))
      .with_evidence("/sys/module/" + used_module + "/parameters/pages_limit", std::to_string(*live))
      .with_fix(make_fix(
          kCheckId,
          "Drop amdgpu.gttsize and set " + used_module + " pages_limit (and page_pool_size) to " +
              std::to_string(*gtt_bytes / data().page_size) + " instead, then reboot.",
          {"echo " +
               shell_quote("options " + used_module + " pages_limit=" + std::to_string(*gtt_bytes / data().page_size) +
                           " page_pool_size=" + std::to_string(*gtt_bytes / data().page_size)) +
               " | sudo tee /etc/modprobe.d/" + used_module + ".conf",
           "sudoedit " + shell_quote(gttsize->line > 0 ? gttsize->source : "/etc/default/grub")},
          {.root = true, .reboot = true}));
}

}  // namespace

// Defined in apu_memory_pool.cpp: the per-APU findings.
std::vector<Finding> pool_findings(const CheckContext& ctx, std::optional<std::uint64_t> ram);

namespace {

class ApuMemoryCheck final : public Check {
 public:
  std::string_view id() const override { return kCheckId; }
  std::string_view title() const override { return "APU memory (carve-out, GTT and TTM limits)"; }
  int order() const override { return 47; }
  std::vector<std::string_view> finding_ids() const override {
    return {"apu.memory",       "apu.memory-small",     "apu.memory-capped",       "apu.ttm-not-applied",
            "apu.gtt-over-ram", "apu.gttsize-over-ttm", "apu.memory-param-invalid"};
  }

  CheckOutcome run(const CheckContext& ctx) const override {
    if (ctx.options().image_mode) return CheckOutcome::skipped("no GPU while building an image");
    const auto& facts = ctx.fact<SystemFacts>();
    if (facts.wsl) return CheckOutcome::skipped("WSL: the Windows driver manages the GPU's memory");
    const auto& inventory = ctx.fact<GpuInventory>();
    const bool has_apu = std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                                     [](const Gpu& gpu) { return gpu.apu && gpu.index >= 0; });
    if (!has_apu) return CheckOutcome::skipped("no integrated GPU (APU) in KFD");
    const auto& host = ctx.host();
    const auto ram = parse_mem_total(host.read_file("/proc/meminfo").value_or(""));
    std::vector<Finding> findings = pool_findings(ctx, ram);
    const auto settings = collect_settings(host);
    if (auto finding = invalid_settings(settings)) findings.push_back(std::move(*finding));
    // In a container the module parameters are the host's and its modprobe.d is not ours.
    if (facts.container.empty()) {
      if (auto finding = not_applied(host, facts, settings)) findings.push_back(std::move(*finding));
      if (auto finding = gttsize_over_ttm(host, settings)) findings.push_back(std::move(*finding));
    }
    if (ram) {
      if (auto finding = over_ram(settings, *ram)) findings.push_back(std::move(*finding));
    }
    return findings;
  }
};

}  // namespace
}  // namespace rocm_doctor::apu_memory

ROCM_DOCTOR_REGISTER_CHECK(rocm_doctor::apu_memory::ApuMemoryCheck)
