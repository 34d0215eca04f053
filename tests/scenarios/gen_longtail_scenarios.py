#!/usr/bin/env python3
"""Writes the apu-* and opencl-* scenario snapshots (issue #19, the long tail).

Reuses gen_gpu_scenarios.Machine (KFD/DRM/PCI sysfs as the kernel lays it out) and adds
what the apu-memory and opencl checks read: the APU's carve-out (mem_info_vram_total),
GTT (mem_info_gtt_total), the KFD mem_banks pool, /proc/meminfo, ttm/amdttm module
parameters, modprobe.d files and OpenCL ICD files. Each machine names the public report
it reproduces (docs/coverage.md). Rewrites only the folders it names.
"""
import gen_gpu_scenarios
from gen_gpu_scenarios import Machine
import scenario_out

GIB = 1024 ** 3
MIB = 1024 ** 2
gen_gpu_scenarios.ARCH.setdefault("gfx1103", (110003, 2, 32, 16, 64, 64))
gen_gpu_scenarios.ARCH.setdefault("gfx1151", (110501, 2, 32, 16, 64, 64))
# The report's root_causes and also (gen_gpu_scenarios.RESULTS).
gen_gpu_scenarios.state({
    "apu-780m-carveout-old-kernel": {"root_causes": ["apu.memory-small"]},
    "apu-halo-64g-limit-over-ram": {"root_causes": ["apu.gtt-over-ram"]},
    "apu-halo-amdttm-ignores-ttm-conf": {"root_causes": ["apu.ttm-not-applied"]},
    "apu-halo-gttsize-over-ttm": {"root_causes": ["apu.gttsize-over-ttm"]},
    "apu-halo-param-invalid": {"root_causes": ["apu.memory-param-invalid"]},
    "apu-halo-pool-capped-old-kernel": {"root_causes": ["apu.memory-capped"]},
    "container-one-of-two-gpus-visible-index": {"root_causes": ["container.visible-index-out-of-range"]},
    "opencl-clover-beside-rocm": {"root_causes": ["opencl.amd-gpu-twice"]},
    "opencl-icd-stale-release": {"root_causes": ["opencl.icd-unresolved"]},
    "opencl-no-amd-icd": {"root_causes": ["opencl.no-amd-icd"]},
    "opencl-rusticl-radeonsi-enabled": {"root_causes": ["opencl.amd-gpu-twice"]},
    "python-amdsmi-user-site-newer": {"root_causes": ["python.rocm-package-mismatch"]},
    "python-amdsmi-venv-older": {"root_causes": ["python.rocm-package-mismatch"]},
    "repo-suite-debian13-jammy": {"root_causes": ["rocm.repo-suite-mismatch"], "also": ["os.unsupported"]},
    "repo-suite-debian13-noble-rocm70": {"root_causes": [], "also": ["os.unsupported"]},
    "repo-suite-jammy-on-noble": {"root_causes": ["rocm.repo-suite-mismatch"]},
    "repo-suite-ubuntu2504-interim": {"root_causes": ["rocm.repo-suite-mismatch"], "also": ["os.unsupported"]},
    "rocm-link-missing-ldconf": {"root_causes": ["rocm.link-missing"]},
    "rocm-link-missing-mint": {"root_causes": [], "also": ["rocm.link-missing"]},
})


class Apu(Machine):
    """A machine whose GPU is an APU with a carve-out, GTT, a KFD pool and RAM."""

    def __init__(self, name, description, carve, gtt, pool, mem_total_kb):
        super().__init__(name, description)
        self.carve, self.gtt, self.pool, self.mem_total_kb = carve, gtt, pool, mem_total_kb
        self.ttm_module = "ttm"
        self.ttm_live = None  # (pages_limit, page_pool_size) the loaded module runs with

    def build_pci(self):
        super().build_pci()
        for index, gpu in enumerate(self.gpus):
            real = f"/sys/devices/pci0000:00/0000:00:0{1 + index % 7}.4/{gpu['bdf']}"
            self.write(f"{real}/mem_info_vram_total", f"{self.carve}\n")
            self.write(f"{real}/mem_info_gtt_total", f"{self.gtt}\n")
            self.write(f"{real}/mem_info_gtt_used", "18653184\n")

    def build_kfd(self):
        super().build_kfd()
        node = self.cpu_nodes  # the APU's KFD node
        self.write(f"/sys/class/kfd/kfd/topology/nodes/{node}/mem_banks/0/properties",
                   f"heap_type 1\nsize_in_bytes {self.pool}\nflags 0\nwidth 64\nmem_clk_max 2800\n")
        self.write("/proc/meminfo", f"MemTotal:       {self.mem_total_kb} kB\nMemFree:        "
                   f"{self.mem_total_kb * 3 // 4} kB\nMemAvailable:   {self.mem_total_kb * 4 // 5} kB\n")
        pages = self.ttm_live or (self.mem_total_kb // 8, self.mem_total_kb // 8)
        self.write(f"/sys/module/{self.ttm_module}/parameters/pages_limit", f"{pages[0]}\n")
        self.write(f"/sys/module/{self.ttm_module}/parameters/page_pool_size", f"{pages[1]}\n")
        if self.ttm_module == "amdttm":
            self.write("/sys/module/ttm/parameters/pages_limit", f"{self.mem_total_kb // 8}\n")
            self.write("/sys/module/ttm/parameters/page_pool_size", f"{self.mem_total_kb // 8}\n")

    def cmdline(self, extra):
        self.write("/proc/cmdline", f"BOOT_IMAGE=/boot/vmlinuz root=UUID=6f1c2a9e-7d1b-4b7e-9a43-2f0c8d1e5b21 "
                   f"ro quiet splash {extra}\n")
        return self


def phoenix(name, description, kernel, pool):
    # Radeon 780M (Ryzen 7 8845HS), 32 GB, the firmware's default 512 MB carve-out.
    m = Apu(name, description, carve=512 * MIB, gtt=15599 * MIB, pool=pool, mem_total_kb=31948372)
    m.base_system(distro="ubuntu2404", kernel=kernel)
    m.gpu("0000:c5:00.0", "0x15bf", "0xc1", "gfx1103", 12, apu=True).rocm("6.4.1", "83")
    return m


def halo(name, description, kernel, carve, gtt, pool, mem_total_kb, distro="ubuntu2404"):
    m = Apu(name, description, carve=carve, gtt=gtt, pool=pool, mem_total_kb=mem_total_kb)
    m.base_system(distro=distro, kernel=kernel)
    m.gpu("0000:c5:00.0", "0x1586", "0xc1", "gfx1151", 40, apu=True).rocm("7.0.2", "56")
    return m


def apu_scenarios():
    checks = ("apu-memory",)
    m = phoenix("apu-780m-carveout-old-kernel", "Radeon 780M on Ubuntu 24.04's 6.8 kernel with the default 512 MB "
                "UMA carve-out: ROCm allocates only from the carve-out (ollama/ollama#2637, "
                "likelovewant/ollama-for-amd#133; kernel commit 'Let VRAM allocations go to GTT domain on small "
                "APUs': MNIST fails at 512 MB)", "6.8.0-49-generic", 512 * MIB)
    yield m.save({"apu.memory": "info", "apu.memory-small": "warning"}, checks=checks)

    m = phoenix("apu-780m-gtt-new-kernel", "Healthy twin: the same 780M on the 24.04 HWE kernel 6.11, where KFD "
                "lets a small APU allocate from GTT (half the RAM)", "6.11.0-19-generic", 15599 * MIB)
    yield m.save({"apu.memory": "info"}, absent=("apu.memory-small", "apu.memory-capped", "apu.ttm-not-applied"),
                 checks=checks)

    m = halo("apu-halo-pool-capped-old-kernel", "Strix Halo (Radeon 8060S) with a 96 GB carve-out on a 6.14 OEM "
             "kernel: rocminfo shows a 16651264 KB pool (ROCm/legacy-rocm-build#5444, fixed in 6.16.9)",
             "6.14.0-1012-oem", carve=103079215104, gtt=16013 * MIB, pool=16651264 * 1024, mem_total_kb=32796644)
    yield m.save({"apu.memory": "info", "apu.memory-capped": "warning"}, absent=("apu.memory-small",), checks=checks)

    # noamsto/nix-amd-ai#42: ROG Flow Z13, Ryzen AI MAX+ 395, 128 GB, NixOS kernel 7.1.0,
    # ttm.pages_limit=25165824 ttm.page_pool_size=25165824, mem_info_gtt_total 103079215104,
    # mem_info_vram_total 4294967296, llama.cpp 'Total VRAM: 98304 MiB'.
    m = halo("apu-halo-ttm-96g-healthy", "Healthy twin: Strix Halo 128 GB with ttm.pages_limit=25165824 on the "
             "command line, applied (GTT 96 GiB, KFD pool 96 GiB) as measured in noamsto/nix-amd-ai#42",
             "7.1.0", carve=4294967296, gtt=103079215104, pool=103079215104, mem_total_kb=129014516)
    m.cmdline("iommu.passthrough=0 ttm.pages_limit=25165824 ttm.page_pool_size=25165824")
    m.ttm_live = (25165824, 25165824)
    yield m.save({"apu.memory": "info"}, absent=("apu.ttm-not-applied", "apu.gtt-over-ram", "apu.gttsize-over-ttm",
                                                  "apu.memory-capped", "apu.memory-param-invalid"), checks=checks)

    m = halo("apu-halo-amdttm-ignores-ttm-conf", "Strix Halo 128 GB with amdgpu-dkms on linux-oem-24.04c: "
             "/etc/modprobe.d/ttm.conf raises ttm's limit to 120 GiB, but amdgpu uses amdttm, which still runs "
             "with half the RAM (ROCm/legacy-rocm-build#5595: 'ROCm only seeing 62.2GB')",
             "6.14.0-1012-oem", carve=512 * MIB, gtt=63700 * MIB, pool=63700 * MIB, mem_total_kb=130469244)
    m.write("/etc/modprobe.d/ttm.conf", "options ttm pages_limit=31457280\noptions ttm page_pool_size=31457280\n")
    m.ttm_module = "amdttm"
    m.ttm_live = (16308655, 16308655)
    yield m.save({"apu.memory": "info", "apu.ttm-not-applied": "warning"}, absent=("apu.gtt-over-ram",),
                 checks=checks)

    # apellegr/Strix-Halo-Models ROCM-MEMORY-LIMIT-INVESTIGATION.md: kernel 6.18.1, ROCm 7.1.1,
    # 'amdgpu.gttsize=117760 iommu=pt', mem_info_gtt_total 123480309760, ttm pages_limit 26214400.
    m = halo("apu-halo-gttsize-over-ttm", "Strix Halo 128 GB booted with amdgpu.gttsize=117760 while TTM's "
             "pages_limit is 26214400 (100 GiB): GTT reports 115 GiB, allocations stop earlier "
             "(apellegr/Strix-Halo-Models ROCM-MEMORY-LIMIT-INVESTIGATION.md, noamsto/nix-amd-ai#96)",
             "6.18.1-061801-generic", carve=512 * MIB, gtt=123480309760, pool=123480309760, mem_total_kb=130469244,
             distro="ubuntu2404")
    m.cmdline("amdgpu.gttsize=117760 iommu=pt")
    m.ttm_live = (26214400, 26214400)
    yield m.save({"apu.memory": "info", "apu.gttsize-over-ttm": "warning"}, absent=("apu.ttm-not-applied",),
                 checks=checks)

    m = halo("apu-halo-64g-limit-over-ram", "Strix Halo with 64 GB and the 128 GB guide's "
             "ttm.pages_limit=31457280 (120 GiB) copied onto the command line: the GPU may pin more than the RAM "
             "(antirez/ds4#16 values on a smaller machine)", "6.17.0-14-generic", carve=512 * MIB,
             gtt=120 * GIB, pool=120 * GIB, mem_total_kb=65268412)
    m.cmdline("ttm.pages_limit=31457280 ttm.page_pool_size=31457280")
    m.ttm_live = (31457280, 31457280)
    yield m.save({"apu.memory": "info", "apu.gtt-over-ram": "warning"}, checks=checks)

    m = halo("apu-halo-param-invalid", "Strix Halo with 'options ttm pages_limit=96G' in modprobe.d: the "
             "kernel refuses the value and keeps half the RAM", "6.17.0-14-generic", carve=512 * MIB,
             gtt=63700 * MIB, pool=63700 * MIB, mem_total_kb=130469244)
    m.write("/etc/modprobe.d/ttm.conf", "# 96 GiB for the GPU\noptions ttm pages_limit=96G page_pool_size=96G\n")
    m.ttm_live = (16308655, 16308655)
    yield m.save({"apu.memory": "info", "apu.memory-param-invalid": "warning"}, checks=checks)


def rx7900(name, description):
    m = Machine(name, description).base_system(distro="ubuntu2404", kernel="6.8.0-49-generic")
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm("6.2.4", "120")
    with_ld_so_conf(m)
    m.write("/opt/rocm-6.2.4/lib/libamdocl64.so", "")
    m.write("/usr/lib/x86_64-linux-gnu/libOpenCL.so.1.0.0", "")
    m.link("/usr/lib/x86_64-linux-gnu/libOpenCL.so.1", "libOpenCL.so.1.0.0")
    return m


def opencl_scenarios():
    checks = ("opencl",)
    m = rx7900("opencl-icd-stale-release", "amdocl64.icd still names the OpenCL runtime of a removed ROCm "
               "release: clinfo prints 'dlerror: ... cannot open shared object file' (ROCm/legacy-rocm-build#1331)")
    m.write("/etc/OpenCL/vendors/amdocl64.icd", "/opt/rocm-5.7.1/lib/libamdocl64.so\n")
    yield m.save({"opencl.icds": "info", "opencl.icd-unresolved": "warning"}, absent=("opencl.no-amd-icd",),
                 checks=checks)

    m = rx7900("opencl-no-amd-icd", "ROCm's libamdocl64.so is installed but /etc/OpenCL/vendors has only "
               "Mesa's ICDs: clinfo shows no AMD platform (ROCm/TheRock#4750, ROCm/legacy-rocm-build#511)")
    m.write("/etc/OpenCL/vendors/rusticl.icd", "libRusticlOpenCL.so.1\n")
    m.write("/usr/lib/x86_64-linux-gnu/libRusticlOpenCL.so.1", "")
    yield m.save({"opencl.icds": "info", "opencl.no-amd-icd": "warning"}, checks=checks)

    m = rx7900("opencl-clover-beside-rocm", "Mesa Clover (mesa.icd) registered beside ROCm: rocm-clinfo aborts "
               "with 'mesa: CommandLine Error: Option 'h' registered more than once' "
               "(ROCm/ROCm-OpenCL-Runtime#153)")
    m.write("/etc/OpenCL/vendors/amdocl64.icd", "libamdocl64.so\n")
    m.write("/etc/OpenCL/vendors/mesa.icd", "libMesaOpenCL.so.1\n")
    m.write("/usr/lib/x86_64-linux-gnu/libMesaOpenCL.so.1", "")
    yield m.save({"opencl.icds": "info", "opencl.amd-gpu-twice": "warning"}, checks=checks)

    m = rx7900("opencl-rusticl-radeonsi-enabled", "RUSTICL_ENABLE=radeonsi beside ROCm's ICD: the GPU shows as "
               "two platforms and programs may pick rusticl (aurelienpierreeng/ansel#1304: rusticl panics abort "
               "the program)")
    m.write("/etc/OpenCL/vendors/amdocl64.icd", "libamdocl64.so\n")
    m.write("/etc/OpenCL/vendors/rusticl.icd", "libRusticlOpenCL.so.1\n")
    m.write("/usr/lib/x86_64-linux-gnu/libRusticlOpenCL.so.1", "")
    m.env["RUSTICL_ENABLE"] = "radeonsi"
    yield m.save({"opencl.icds": "info", "opencl.amd-gpu-twice": "warning"}, checks=checks)

    m = rx7900("opencl-rocm-and-rusticl-healthy", "Healthy twin: ROCm's amdocl64.icd (resolved through "
               "/etc/ld.so.conf.d/10-rocm-opencl.conf) beside Mesa's rusticl.icd, which drives no radeonsi device "
               "without RUSTICL_ENABLE")
    m.write("/etc/OpenCL/vendors/amdocl64.icd", "libamdocl64.so\n")
    m.write("/etc/OpenCL/vendors/rusticl.icd", "libRusticlOpenCL.so.1\n")
    m.write("/usr/lib/x86_64-linux-gnu/libRusticlOpenCL.so.1", "")
    yield m.save({"opencl.icds": "info"}, absent=("opencl.icd-unresolved", "opencl.no-amd-icd",
                                                   "opencl.amd-gpu-twice"), checks=checks)


def with_ld_so_conf(m):
    m.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n\n")
    m.write("/etc/ld.so.conf.d/x86_64-linux-gnu.conf", "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n"
            "/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n")
    return m


def without_opt_rocm(m):
    (m.root / "opt" / "rocm").unlink()
    return with_ld_so_conf(m)


def rocm_link_scenarios():
    checks = ("rocm-install",)
    m = Machine("rocm-link-missing-mint", "Linux Mint 22 after amdgpu-install: only /opt/rocm-6.3.3 exists, no "
                "/opt/rocm link; the user put the versioned bin folder on PATH and builds still look for "
                "/opt/rocm (YellowRoseCx/koboldcpp-rocm#130)").base_system(distro="ubuntu2404")
    m.write("/etc/os-release", 'NAME="Linux Mint"\nVERSION="22 (Wilma)"\nID=linuxmint\nID_LIKE="ubuntu debian"\n'
            'PRETTY_NAME="Linux Mint 22"\nVERSION_ID="22"\nVERSION_CODENAME=wilma\nUBUNTU_CODENAME=noble\n')
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm("6.3.3", "74")
    m.env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm-6.3.3/bin"
    yield without_opt_rocm(m).save({"rocm.version": "info", "rocm.link-missing": "warning"},
                                   absent=("rocm.bin-not-on-path", "rocm.lib-not-found"), checks=checks)

    m = Machine("rocm-link-missing-ldconf", "Partial install (no rocm-dev, which creates the link): "
                "/etc/ld.so.conf.d/hsa-rocr-dev.conf and PATH name /opt/rocm, which does not exist "
                "(ROCm/legacy-rocm-build#1156)").base_system(distro="ubuntu2404")
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm("6.3.3", "74")
    m.write("/etc/ld.so.conf.d/hsa-rocr-dev.conf", "/opt/rocm/lib\n")
    yield without_opt_rocm(m).save({"rocm.version": "info", "rocm.link-missing": "error"},
                                   absent=("rocm.bin-not-on-path",), checks=checks)

    m = Machine("rocm-link-present-healthy", "Healthy twin: /opt/rocm links to the only release, PATH and the "
                "loader name /opt/rocm").base_system(distro="ubuntu2404")
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm("6.3.3", "74")
    m.write("/etc/ld.so.conf.d/hsa-rocr-dev.conf", "/opt/rocm/lib\n")
    with_ld_so_conf(m)
    yield m.save({"rocm.version": "info", "rocm.ok": "ok"}, absent=("rocm.link-missing",), checks=checks)


OS_RELEASE = {
    "noble": 'PRETTY_NAME="Ubuntu 24.04.3 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nVERSION="24.04.3 LTS (Noble Numbat)"\n'
             'VERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\nUBUNTU_CODENAME=noble\n',
    "plucky": 'PRETTY_NAME="Ubuntu 25.04"\nNAME="Ubuntu"\nVERSION_ID="25.04"\nVERSION="25.04 (Plucky Puffin)"\n'
              'VERSION_CODENAME=plucky\nID=ubuntu\nID_LIKE=debian\nUBUNTU_CODENAME=plucky\n',
    "trixie": 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nNAME="Debian GNU/Linux"\nVERSION_ID="13"\n'
              'VERSION="13 (trixie)"\nVERSION_CODENAME=trixie\nDEBIAN_VERSION_FULL=13.1\nID=debian\n',
}
KEYRING = "signed-by=/etc/apt/keyrings/rocm.gpg"


def apt_machine(name, description, codename, rocm, suite, kernel="6.8.0-49-generic"):
    m = Machine(name, description).base_system(distro="ubuntu2404", kernel=kernel)
    m.write("/etc/os-release", OS_RELEASE[codename])
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm(rocm, "83")
    folder = rocm[:-2] if rocm.endswith(".0") else rocm
    m.write("/etc/apt/sources.list.d/rocm.list",
            f"deb [arch=amd64 {KEYRING}] https://repo.radeon.com/rocm/apt/{folder} {suite} main\n")
    m.write("/etc/apt/sources.list.d/amdgpu.list",
            f"deb [arch=amd64 {KEYRING}] https://repo.radeon.com/amdgpu/{folder}/ubuntu {suite} main\n")
    return m


def repo_suite_scenarios():
    checks = ("platform", "repo-suite")
    m = apt_machine("repo-suite-jammy-on-noble", "Ubuntu 24.04 with AMD's entries still naming 'jammy' after the "
                    "release upgrade: hipsolver/rocm-gdb depend on libcholmod3 and libpython3.10, not installable "
                    "(ROCm/legacy-rocm-build#4042)", "noble", "6.4.1", "jammy")
    yield m.save({"rocm.repo-suite-mismatch": "warning"}, absent=("os.unsupported",), checks=checks)

    m = apt_machine("repo-suite-noble-healthy", "Healthy twin: Ubuntu 24.04 with AMD's entries for 'noble'",
                    "noble", "6.4.1", "noble")
    yield m.save({}, absent=("rocm.repo-suite-mismatch", "os.unsupported"), checks=checks)

    m = apt_machine("repo-suite-debian13-jammy", "Debian 13 'trixie' with ROCm 6.3.1 from the Debian 12 "
                    "instructions ('jammy' packages): rocm-llvm depends on libstdc++-11-dev, not installable; ROCm "
                    "7.1 lists Debian 13 with the 'noble' packages (ROCm/legacy-rocm-build#4323)", "trixie", "6.3.1",
                    "jammy", kernel="6.12.48+deb13-amd64")
    yield m.save({"rocm.repo-suite-mismatch": "warning", "os.unsupported": "warning"},
                 absent=("os.kernel-unsupported",), checks=checks)

    m = apt_machine("repo-suite-debian13-noble-rocm70", "Debian 13 with ROCm 7.0.2 from the 'noble' packages: the "
                    "suite is right, but 7.0 lists only Debian 12; the fix names ROCm 7.1 and its repository line "
                    "(ROCm/legacy-rocm-build#5671, #5577)", "trixie", "7.0.2", "noble", kernel="6.12.57+deb13-amd64")
    yield m.save({"os.unsupported": "warning"}, absent=("rocm.repo-suite-mismatch",), checks=checks)

    m = apt_machine("repo-suite-ubuntu2504-interim", "Ubuntu 25.04 'plucky' (interim) with 'plucky' in AMD's "
                    "entries: repo.radeon.com has no such suite ('does not have a Release file'); the nearest "
                    "supported packages are the 24.04 'noble' ones (ROCm/legacy-rocm-build#1460, #5881)", "plucky",
                    "6.4.1", "plucky", kernel="6.14.0-15-generic")
    yield m.save({"rocm.repo-suite-mismatch": "warning", "os.unsupported": "warning"}, checks=checks)


def python_scenarios():
    checks = ("python-site",)
    m = Machine("python-amdsmi-user-site-newer", "ROCm 6.4.0 with amdsmi 7.0.2 from PyPI in the user site: "
                "`import torch` fails with 'undefined symbol: amdsmi_get_cpu_affinity_with_scope' "
                "(RLinf/RLinf#1507)").base_system(distro="ubuntu2404")
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm("6.4.0", "47")
    m.write("/home/alice/.local/lib/python3.12/site-packages/amdsmi-7.0.2.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: amdsmi\nVersion: 7.0.2\n")
    m.write("/home/alice/.local/lib/python3.12/site-packages/amdsmi/__init__.py", "")
    m.write("/usr/lib/python3.12/EXTERNALLY-MANAGED", "[externally-managed]\nError=To install Python packages "
            "system-wide, try apt install\n")
    m.write("/opt/rocm-6.4.0/share/amd_smi/pyproject.toml", "[project]\nname = \"amdsmi\"\n")
    yield m.save({"python.rocm-package-mismatch": "warning"}, checks=checks)

    m = Machine("python-amdsmi-venv-older", "ROCm 6.4.3 with an older PyPI amdsmi (6.2.4) in the virtualenv vLLM "
                "runs from: amd-smi's traceback ends in the venv's amdsmi_wrapper (vllm-project/vllm#28680)"
                ).base_system(distro="ubuntu2404")
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm("6.4.3", "113")
    m.env["VIRTUAL_ENV"] = "/home/alice/test-venv"
    m.write("/home/alice/test-venv/lib/python3.12/site-packages/amdsmi-6.2.4.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: amdsmi\nVersion: 6.2.4\n")
    yield m.save({"python.rocm-package-mismatch": "warning"}, checks=checks)

    m = Machine("python-amdsmi-matching-healthy", "Healthy twin: amdsmi installed from /opt/rocm/share/amd_smi of "
                "the installed ROCm 6.4.0 into the user site, and AMD SMI's own 24.x numbering in /usr/local "
                "(not comparable, not judged)").base_system(distro="ubuntu2404")
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm("6.4.0", "47")
    m.write("/home/alice/.local/lib/python3.12/site-packages/amdsmi-6.4.0.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: amdsmi\nVersion: 6.4.0\n")
    m.write("/usr/local/lib/python3.12/dist-packages/amdsmi-24.7.1+b446d6c.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: amdsmi\nVersion: 24.7.1+b446d6c\n")
    yield m.save({}, absent=("python.rocm-package-mismatch",), checks=checks)


def libdrm_scenarios():
    checks = ("libdrm",)
    m = Machine("libdrm-ids-missing-image", "Container image with AMD's libdrm copied from /opt/amdgpu/lib and "
                "/opt/amdgpu/share/libdrm/amdgpu.ids left behind: every start prints 'amdgpu.ids: No such file or "
                "directory' (mudler/LocalAI#10624, ROCm/legacy-rocm-build#2961)").base_system(distro="ubuntu2404")
    m.rocm("6.4.1", "83")
    m.write("/opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1.0.0", "")
    m.link("/opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1", "libdrm_amdgpu.so.1.0.0")
    m.link("/opt/amdgpu/share/libdrm/amdgpu.ids", "/usr/share/libdrm/amdgpu.ids.dpkg-old")
    m.write("/usr/share/libdrm/amdgpu.ids", "# List of AMDGPU IDs\n1.0.0\n744C,\tC8,\tAMD Radeon RX 7900 XTX\n")
    yield m.save({"libdrm.ids-missing": "info"}, checks=checks, options={"image": True})

    m = Machine("libdrm-ids-present-healthy", "Healthy twin: AMD's libdrm with its amdgpu.ids in place"
                ).base_system(distro="ubuntu2404")
    m.rocm("6.4.1", "83")
    m.write("/opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1.0.0", "")
    m.link("/opt/amdgpu/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1", "libdrm_amdgpu.so.1.0.0")
    m.write("/opt/amdgpu/share/libdrm/amdgpu.ids", "# List of AMDGPU IDs\n1.0.0\n744C,\tC8,\tAMD Radeon RX 7900 XTX\n")
    yield m.save({}, absent=("libdrm.ids-missing",), checks=checks, options={"image": True})


class OneGpuPassed(Machine):
    """A container on a two-GPU host started with --device /dev/dri/renderD129 only."""

    def build_pci(self):
        super().build_pci()
        del self.nodes["/dev/dri/renderD128"]
        del self.nodes["/dev/dri/card0"]


def render_node_scenarios():
    checks = ("render-nodes",)
    for name, description, env, expect in (
            ("container-one-of-two-gpus-visible-index", "Docker container given only the host's second GPU "
             "(--device /dev/dri/renderD129) with HIP_VISIBLE_DEVICES=1 chosen on the host: inside, that GPU is "
             "device 0 and index 1 selects nothing (ollama/ollama#5766)", {"HIP_VISIBLE_DEVICES": "1"},
             {"container.gpus-subset": "info", "container.visible-index-out-of-range": "error"}),
            ("container-one-of-two-gpus-healthy", "Healthy twin: the same container without a visible-devices "
             "variable; the passed GPU is device 0", {}, {"container.gpus-subset": "info"})):
        m = OneGpuPassed(name, description).base_system(distro="ubuntu2404")
        m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24)
        m.gpu("0000:43:00.0", "0x744c", "0xc8", "gfx1100", 96, 24).rocm("6.4.1", "83")
        m.write("/.dockerenv", "")
        m.env.update(env)
        yield m.save(expect, absent=() if env else ("container.visible-index-out-of-range",), checks=checks)


def main():
    scenario_out.parse(__doc__)
    for _ in apu_scenarios():
        pass
    for _ in opencl_scenarios():
        pass
    for _ in rocm_link_scenarios():
        pass
    for _ in repo_suite_scenarios():
        pass
    for _ in python_scenarios():
        pass
    for _ in libdrm_scenarios():
        pass
    for _ in render_node_scenarios():
        pass


if __name__ == "__main__":
    main()
