// The per-APU findings of the `apu-memory` check: the memory pool KFD gives
// ROCm (what rocminfo calls the GPU's pool), against the firmware carve-out,
// GTT and RAM.
#include <algorithm>

#include "apu_memory.h"
#include "rocm_doctor/check.h"
#include "rocm_doctor/facts/gpu_inventory.h"
#include "rocm_doctor/shell.h"
#include "rocm_doctor/system_facts.h"
#include "rocm_doctor/text.h"

namespace rocm_doctor::apu_memory {

namespace {

struct ApuMemory {
  const Gpu* gpu = nullptr;
  std::optional<std::uint64_t> pool;  // KFD mem_banks of its node, summed
  std::string pool_source;
  std::optional<std::uint64_t> carve_out;  // mem_info_vram_total
  std::optional<std::uint64_t> gtt;        // mem_info_gtt_total
};

std::optional<std::uint64_t> read_sysfs_number(const Host& host, const std::string& path) {
  const auto text = host.read_trimmed(path);
  if (!text) return std::nullopt;
  return parse_uint(*text);
}

ApuMemory measure(const Host& host, const Gpu& gpu) {
  ApuMemory memory;
  memory.gpu = &gpu;
  memory.carve_out = gpu.vram_total;
  if (!gpu.card.empty())
    memory.gtt = read_sysfs_number(host, "/sys/class/drm/" + gpu.card + "/device/mem_info_gtt_total");
  if (!gpu.node_id) return memory;
  memory.pool_source = "/sys/class/kfd/kfd/topology/nodes/" + std::to_string(*gpu.node_id) + "/mem_banks";
  const auto banks = host.list_dir(memory.pool_source);
  if (!banks) return memory;
  std::uint64_t total = 0;
  bool any = false;
  for (const auto& bank : *banks) {
    const auto text = host.read_file(memory.pool_source + "/" + bank.name + "/properties");
    const auto parsed = text ? parse_mem_bank(*text) : std::nullopt;
    if (!parsed) continue;
    total += parsed->size;
    any = true;
  }
  if (any) memory.pool = total;
  return memory;
}

std::string or_unknown(const std::optional<std::uint64_t>& bytes) {
  return bytes ? human_bytes(*bytes) : std::string("unknown");
}

Finding summary(const ApuMemory& memory, std::optional<std::uint64_t> ram) {
  auto finding = make_finding("apu.memory", Severity::info,
                              memory.gpu->label() + ": ROCm pool " + or_unknown(memory.pool) + " (carve-out " +
                                  or_unknown(memory.carve_out) + ", GTT " + or_unknown(memory.gtt) + ", RAM " +
                                  or_unknown(ram) + ")")
                     .because(
                         "An APU shares the machine's RAM. ROCm allocates from the pool KFD reports: the firmware's "
                         "UMA carve-out, or GTT (RAM the GPU may map, capped by ttm.pages_limit) on kernels that "
                         "let small APUs use it. ollama and llama.cpp size their GPU layers from it.");
  if (memory.pool) finding.with_evidence(memory.pool_source, std::to_string(*memory.pool) + " bytes");
  if (memory.carve_out) {
    finding.with_evidence("/sys/class/drm/" + memory.gpu->card + "/device/mem_info_vram_total",
                          std::to_string(*memory.carve_out));
  }
  if (memory.gtt) {
    finding.with_evidence("/sys/class/drm/" + memory.gpu->card + "/device/mem_info_gtt_total",
                          std::to_string(*memory.gtt));
  }
  return finding;
}

// Ubuntu 24.04's HWE kernel is 6.11 or newer; 22.04's stops at 6.8.
std::vector<std::string> newer_kernel_commands(const SystemFacts& facts) {
  if (facts.os_id == "ubuntu" && facts.os_version_id == "24.04") return {"sudo apt install linux-generic-hwe-24.04"};
  return {};
}

std::optional<Finding> too_small(const ApuMemory& memory, const SystemFacts& facts, std::optional<std::uint64_t> ram) {
  if (!memory.pool || !ram || *memory.pool >= data().pool_too_small || *ram < 2 * data().pool_too_small) {
    return std::nullopt;
  }
  const auto old_kernel = kernel_older_than(facts.kernel_release, data().small_apu_gtt_kernel).value_or(false);
  auto finding =
      make_finding("apu.memory-small", Severity::warning,
                   memory.gpu->label() + ": ROCm can allocate only " + human_bytes(*memory.pool) + " of " +
                       human_bytes(*ram) + " RAM")
          .because(std::string("ROCm allocates from the pool KFD reports, here the firmware's UMA carve-out. "
                               "Models and even small PyTorch examples fail with 'HIP out of memory' or ollama "
                               "runs on the CPU. ") +
                   (old_kernel ? "Kernels before " + data().small_apu_gtt_kernel +
                                     " give ROCm nothing beyond the carve-out; newer ones let a small APU "
                                     "allocate from GTT (system RAM)."
                               : "Raise the carve-out (UMA Frame Buffer Size) in the firmware setup."))
          .with_evidence(memory.pool_source, std::to_string(*memory.pool) + " bytes")
          .with_evidence("/proc/meminfo", "MemTotal " + std::to_string(*ram / 1024) + " kB");
  if (old_kernel) finding.with_evidence("/proc/sys/kernel/osrelease", facts.kernel_release);
  std::string description =
      old_kernel ? "Boot a kernel " + data().small_apu_gtt_kernel +
                       " or newer (ROCm then allocates from GTT), or raise 'UMA Frame Buffer Size' in the firmware "
                       "setup (AMD CBS > NBIO > GFX Configuration) and reboot."
                 : "Raise 'UMA Frame Buffer Size' in the firmware setup (AMD CBS > NBIO > GFX Configuration) and "
                   "reboot.";
  auto commands = old_kernel ? newer_kernel_commands(facts) : std::vector<std::string>{};
  commands.push_back("sudo reboot");
  return finding.with_fix(make_fix(kCheckId, description, commands, {.root = true, .reboot = true}));
}

const CappedPoolFix* known_cap(const Gpu& gpu) {
  for (const auto& row : data().capped_pool_fixed_in) {
    if (row.gfx == gpu.gfx) return &row;
  }
  return nullptr;
}

std::optional<Finding> capped(const ApuMemory& memory, const SystemFacts& facts) {
  if (!memory.pool || !memory.carve_out || *memory.carve_out <= data().pool_too_small) return std::nullopt;
  if (static_cast<double>(*memory.pool) >= data().pool_capped_ratio * static_cast<double>(*memory.carve_out)) {
    return std::nullopt;
  }
  const auto* cap = known_cap(*memory.gpu);
  const bool old_kernel = cap && kernel_older_than(facts.kernel_release, cap->kernel).value_or(false);
  auto finding =
      make_finding("apu.memory-capped", Severity::warning,
                   memory.gpu->label() + ": ROCm sees " + human_bytes(*memory.pool) + " of the " +
                       human_bytes(*memory.carve_out) + " carve-out")
          .because(old_kernel ? "Kernels before " + cap->kernel + " cap the pool KFD reports for " + cap->gfx +
                                    " (rocminfo and hipMemGetInfo show about 15.5 GB, allocations past it fail), "
                                    "whatever the firmware reserved (" +
                                    cap->source + ")."
                              : std::string("KFD reports a smaller pool than the carve-out the firmware reserved: "
                                            "allocations past it fail although the memory is set aside."))
          .with_evidence(memory.pool_source, std::to_string(*memory.pool) + " bytes")
          .with_evidence("/sys/class/drm/" + memory.gpu->card + "/device/mem_info_vram_total",
                         std::to_string(*memory.carve_out));
  if (old_kernel) finding.with_evidence("/proc/sys/kernel/osrelease", facts.kernel_release);
  return finding.with_fix(make_fix(
      kCheckId, old_kernel ? "Boot kernel " + cap->kernel + " or newer." : "Boot a current kernel for this APU.", {},
      {.root = true, .reboot = true}));
}

}  // namespace

std::vector<Finding> pool_findings(const CheckContext& ctx, std::optional<std::uint64_t> ram) {
  const auto& inventory = ctx.fact<GpuInventory>();
  const auto& facts = ctx.fact<SystemFacts>();
  const auto gpus = inventory.kfd_gpus();
  // Beside a discrete GPU the APU is usually hidden from ROCm (gpu.igpu-present): its pool does not matter.
  const bool only_apus = std::all_of(gpus.begin(), gpus.end(), [](const Gpu* gpu) { return gpu->apu; });
  std::vector<Finding> findings;
  for (const auto* gpu : gpus) {
    if (!gpu->apu) continue;
    const auto memory = measure(ctx.host(), *gpu);
    findings.push_back(summary(memory, ram));
    if (!only_apus) continue;
    if (auto finding = too_small(memory, facts, ram)) findings.push_back(std::move(*finding));
    if (auto finding = capped(memory, facts)) findings.push_back(std::move(*finding));
  }
  return findings;
}

}  // namespace rocm_doctor::apu_memory
