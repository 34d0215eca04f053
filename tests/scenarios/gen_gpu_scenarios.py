#!/usr/bin/env python3
"""Writes the gpu-arch / libraries scenario snapshots (tests/scenarios/gpu-*).

Each machine is described in a few lines below; the script lays out what a real
kernel shows: KFD topology `properties` with every field kfd_topology.c writes,
PCI functions under /sys/devices with /sys/bus/pci/devices and /sys/class/drm
links, DRM mem_info files, /dev nodes, and a ROCm release with rocBLAS Tensile,
MIOpen and hipBLASLt kernel files named as the real packages name them.
Run it from anywhere; it rewrites only the gpu-* folders. Commit its output.
"""
import json
import shutil
from pathlib import Path

import scenario_out

HERE = Path(__file__).resolve().parent
GIB = 1024 ** 3

# gfx -> (gfx_target_version, simd_per_cu, wave_front_size, max_waves_per_simd, lds_kb, num_gws)
ARCH = {
    "gfx803": (80003, 4, 64, 10, 64, 0),
    "gfx90a": (90010, 4, 64, 8, 64, 64),
    "gfx942": (90402, 4, 64, 8, 64, 64),
    "gfx1010": (100100, 2, 32, 20, 64, 64),
    "gfx1030": (100300, 2, 32, 16, 64, 64),
    "gfx1031": (100301, 2, 32, 16, 64, 64),
    "gfx1036": (100306, 2, 32, 16, 64, 64),
    "gfx1100": (110000, 2, 32, 16, 64, 64),
    "gfx1102": (110002, 2, 32, 16, 64, 64),
}

# rocBLAS 6.0 builds Tensile kernels for these targets (library/CMakeLists AMDGPU_TARGETS).
ROCBLAS_60 = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1012",
              "gfx1030", "gfx1100", "gfx1101", "gfx1102"]
INSTINCT_ONLY = ["gfx908", "gfx90a", "gfx942"]
MIOPEN_60 = ["gfx900_56.kdb", "gfx900_64.kdb", "gfx906_60.kdb", "gfx906_64.kdb", "gfx90878.kdb", "gfx90a68.kdb",
             "gfx90a6e.kdb", "gfx942130.kdb", "gfx1030_36.kdb", "gfx1100_48.kdb", "gfx1030_36.HIP.fdb.txt"]
HIPBLASLT_60 = ["gfx90a", "gfx940", "gfx941", "gfx942"]


# What the report says beyond `expect`, by scenario: its ranked `root_causes`, `also` and `versions`
# (expected.json; tests/core/scenarios_test.cpp compares each exactly). Each generator adds the entries of
# the folders it writes (state()); Machine.save writes them.
RESULTS = {
    "gpu-apu-plus-rx7900xtx": {"root_causes": ["gpu.igpu-present"]},
    "gpu-apu-plus-rx7900xtx-global-override": {"root_causes": ["gpu.override-invalid", "gpu.igpu-present"]},
    "gpu-busy-vram-and-kfd-mismatch": {"root_causes": ["gpu.kfd-mismatch", "gpu.vram-in-use"]},
    "gpu-image-target-gfx": {"root_causes": ["gpu.unsupported"]},
    "gpu-mi300x-x8": {"versions": {"rocm": "6.2.4", "rocm_packaging": "amd", "rocm_prefix": "/opt/rocm-6.2.4",
        "amdgpu": "6.3.6", "amdgpu_source": "module", "amdgpu_rocm": "6.0"}},
    "gpu-none-visible": {"root_causes": ["gpu.none-visible"]},
    "gpu-rocblas-missing-card-tensile": {"root_causes": ["gpu.unsupported"]},
    "gpu-rx5700xt-override-10.3.0": {"root_causes": ["gpu.override-invalid"]},
    "gpu-rx580-rocm6": {"root_causes": ["gpu.unsupported"]},
    "gpu-rx6700xt-no-override": {"root_causes": ["gpu.override-needed"]},
    "gpu-rx6700xt-override-11.0.0": {"root_causes": ["gpu.override-invalid"]},
    "gpu-rx6700xt-override-gfx-name": {"root_causes": ["gpu.override-invalid"]},
    "gpu-rx7600-hip-only": {"root_causes": ["gpu.override-needed"]},
    "gpu-rx7600-rocblas": {"root_causes": ["lib.miopen-arch-missing"]},
    "gpu-rx7900xtx-needless-override": {"root_causes": ["gpu.override-unneeded"]},
}


def state(results):
    RESULTS.update(results)


class Machine:
    def __init__(self, name, description, folder=None):
        self.name = name
        self.description = description
        self.folder = Path(folder) if folder else scenario_out.folder(name)
        self.root = self.folder / "root"
        self.env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm/bin",
                    "HOME": "/home/alice", "USER": "alice", "SHELL": "/bin/bash", "LANG": "en_US.UTF-8"}
        self.nodes = {"/dev/kfd": {"type": "char", "mode": "0660", "uid": 0, "gid": 110}}
        self.gpus = []
        self.cpu_nodes = 1
        self.cpu_cores = 16
        self.bashrc_extra = self.dot_profile_extra = self.environment_extra = None
        self.profile_d_extra = self.extra_pci = None
        self.kfd_hides_gpus = False
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.root.mkdir(parents=True)

    def append(self, path, text):
        target = self.root / path.lstrip("/")
        target.write_text(target.read_text() + text)

    def write(self, path, text):
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def link(self, path, to):
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(to)

    def base_system(self, distro="ubuntu2204", kernel="6.5.0-41-generic"):
        if distro == "ubuntu2204":
            self.write("/etc/os-release", 'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\n'
                       'VERSION="22.04.4 LTS (Jammy Jellyfish)"\nVERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\n')
        else:
            self.write("/etc/os-release", 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\n'
                       'VERSION="24.04.1 LTS (Noble Numbat)"\nVERSION_CODENAME=noble\nID=ubuntu\nID_LIKE=debian\n')
        self.write("/proc/sys/kernel/osrelease", kernel + "\n")
        self.write("/proc/version", f"Linux version {kernel} (buildd@lcy02-amd64-016) (x86_64-linux-gnu-gcc-12 "
                   f"(Ubuntu 12.3.0-1ubuntu1~22.04) 12.3.0, GNU ld (GNU Binutils for Ubuntu) 2.38) "
                   f"#41~22.04.2-Ubuntu SMP PREEMPT_DYNAMIC Mon Jun  3 11:32:55 UTC 2\n")
        self.write("/proc/cmdline", f"BOOT_IMAGE=/boot/vmlinuz-{kernel} root=UUID=6f1c2a9e-7d1b-4b7e-9a43-2f0c8d1e5b21 "
                   "ro quiet splash vt.handoff=7\n")
        self.write("/etc/hostname", self.name + "\n")
        self.write("/etc/group", "root:x:0:\nadm:x:4:syslog,alice\nvideo:x:44:alice\nsudo:x:27:alice\n"
                   "render:x:110:alice\nalice:x:1000:\n")
        self.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
                   "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n")
        self.write("/etc/environment", 'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:'
                   '/usr/games:/usr/local/games:/snap/bin"\n')
        self.write("/etc/profile", PROFILE)
        self.write("/etc/profile.d/01-locale-fix.sh", '# shellcheck shell=sh\neval "$(/usr/bin/locale-check C.UTF-8)"\n')
        self.write("/home/alice/.profile", DOT_PROFILE)
        self.write("/home/alice/.bashrc", BASHRC)
        self.write("/sys/module/amdgpu/initstate", "live\n")
        self.write("/sys/module/amdgpu/version", "6.3.6\n")
        return self

    def gpu(self, bdf, device, revision, gfx, cus, vram_gib=0, vram_used_mib=600, apu=False, subsystem=("0x1002", "0x0e3b"),
            hive=0, sdma=2, xgmi_sdma=0, num_xcc=1, clock=2500, numa=-1, pci_class="0x030000"):
        self.gpus.append(dict(bdf=bdf, device=device, revision=revision, gfx=gfx, cus=cus, vram=vram_gib * GIB,
                              used=vram_used_mib * 1024 * 1024, apu=apu, subsystem=subsystem, hive=hive, sdma=sdma,
                              xgmi_sdma=xgmi_sdma, num_xcc=num_xcc, clock=clock, numa=numa, pci_class=pci_class))
        return self

    def rocm(self, version="6.0.2", build="115", rocblas=ROCBLAS_60, miopen=MIOPEN_60, hipblaslt=HIPBLASLT_60):
        prefix = f"/opt/rocm-{version}"
        libpatch = "".join(f"{int(x):02d}" if i else x for i, x in enumerate(version.split(".")))
        self.link("/opt/rocm", f"rocm-{version}")
        self.write(f"{prefix}/.info/version", f"{version}-{build}\n")
        self.write(f"{prefix}/bin/rocminfo", "#!/bin/sh\n")
        self.write(f"{prefix}/bin/hipconfig", "#!/bin/sh\n")
        major = version.split(".")[0]
        self.write(f"{prefix}/lib/libamdhip64.so.{major}.{version.split('.')[1]}.{libpatch}", "")
        self.link(f"{prefix}/lib/libamdhip64.so.{major}", f"libamdhip64.so.{major}.{version.split('.')[1]}.{libpatch}")
        self.link(f"{prefix}/lib/libamdhip64.so", f"libamdhip64.so.{major}")
        self.write("/etc/ld.so.conf.d/10-rocm-opencl.conf", f"{prefix}/lib\n")
        if rocblas is not None:
            self.write(f"{prefix}/lib/librocblas.so.4.0.{libpatch}", "")
            self.link(f"{prefix}/lib/librocblas.so.4", f"librocblas.so.4.0.{libpatch}")
            self.link(f"{prefix}/lib/librocblas.so", "librocblas.so.4")
            lib = f"{prefix}/lib/rocblas/library"
            self.write(f"{lib}/TensileManifest.txt", "")
            for gfx in rocblas:
                variants = [f"{gfx}-xnack-", f"{gfx}-xnack+"] if gfx in ("gfx90a", "gfx940", "gfx941", "gfx942") else [gfx]
                self.write(f"{lib}/TensileLibrary_lazy_{gfx}.dat", "")
                self.write(f"{lib}/TensileLibrary_Type_HH_Contraction_l_Ailk_Bjlk_Cijk_Dijk_{gfx}.co", "")
                self.write(f"{lib}/TensileLibrary_Type_SS_Contraction_l_Alik_Bljk_Cijk_Dijk_{gfx}.dat", "")
                for variant in variants:
                    self.write(f"{lib}/Kernels.so-000-{variant}.hsaco", "")
        if miopen is not None:
            self.write(f"{prefix}/lib/libMIOpen.so.1.0.{libpatch}", "")
            self.link(f"{prefix}/lib/libMIOpen.so.1", f"libMIOpen.so.1.0.{libpatch}")
            for name in miopen:
                self.write(f"{prefix}/share/miopen/db/{name}", "")
        if hipblaslt is not None:
            self.write(f"{prefix}/lib/libhipblaslt.so.0.6.{libpatch}", "")
            for gfx in hipblaslt:
                self.write(f"{prefix}/lib/hipblaslt/library/TensileLibrary_lazy_{gfx}.dat", "")
                self.write(f"{prefix}/lib/hipblaslt/library/extop_{gfx}.co", "")
        for name in ("librccl.so.1.0", "librocfft.so.0.1", "libhipblas.so.2.0", "librocsolver.so.0.1"):
            self.write(f"{prefix}/lib/{name}.{libpatch}", "")
        return self

    def build_kfd(self):
        base = "/sys/class/kfd/kfd/topology"
        node = 0
        for cpu in range(self.cpu_nodes):
            self.write(f"{base}/nodes/{node}/properties", kfd_properties(cpu_node(self.cpu_cores, cpu, len(self.gpus))))
            self.write(f"{base}/nodes/{node}/name", "\n")
            self.write(f"{base}/nodes/{node}/gpu_id", "0\n")
            node += 1
        for index, gpu in enumerate(self.gpus):
            values = gpu_node(gpu, index, self.cpu_cores * self.cpu_nodes, len(self.gpus))
            self.write(f"{base}/nodes/{node}/properties", kfd_properties(values))
            self.write(f"{base}/nodes/{node}/name", gpu["gfx"] + "\n")
            self.write(f"{base}/nodes/{node}/gpu_id", f"{(index * 7919 + 43520) % 65536}\n")
            node += 1
        self.write(f"{base}/generation_id", "1\n")
        self.write(f"{base}/system_properties", "platform_oem 0\nplatform_id 0\nplatform_rev 0\n")

    def build_pci(self):
        for index, gpu in enumerate(self.gpus):
            bdf = gpu["bdf"]
            real = f"/sys/devices/pci0000:00/0000:00:0{1 + index % 7}.{1 if not gpu['apu'] else 4}/{bdf}"
            for key, value in (("vendor", "0x1002"), ("device", gpu["device"]), ("class", gpu["pci_class"]),
                               ("subsystem_vendor", gpu["subsystem"][0]), ("subsystem_device", gpu["subsystem"][1]),
                               ("revision", gpu["revision"]), ("numa_node", str(gpu["numa"])),
                               ("mem_info_vram_total", str(gpu["vram"] if not gpu["apu"] else 512 * 1024 * 1024)),
                               ("mem_info_vram_used", str(gpu["used"])),
                               ("uevent", f"DRIVER=amdgpu\nPCI_CLASS={gpu['pci_class'][2:].upper()}\n"
                                          f"PCI_ID=1002:{gpu['device'][2:].upper()}\nPCI_SLOT_NAME={bdf}\n")):
                self.write(f"{real}/{key}", value + "\n")
            self.link(f"{real}/driver", "../../../../bus/pci/drivers/amdgpu")
            self.link(f"/sys/bus/pci/devices/{bdf}", f"../../..{real[4:]}")
            card, render = f"card{index}", f"renderD{128 + index}"
            self.write(f"{real}/drm/{card}/dev", f"226:{index}\n")
            self.link(f"{real}/drm/{card}/device", f"../../../{bdf}")
            self.write(f"{real}/drm/{render}/dev", f"226:{128 + index}\n")
            self.link(f"{real}/drm/{render}/device", f"../../../{bdf}")
            self.link(f"/sys/class/drm/{card}", f"../../devices{real[12:]}/drm/{card}")
            self.link(f"/sys/class/drm/{render}", f"../../devices{real[12:]}/drm/{render}")
            self.nodes[f"/dev/dri/{render}"] = {"type": "char", "mode": "0660", "uid": 0, "gid": 110}
            self.nodes[f"/dev/dri/{card}"] = {"type": "char", "mode": "0660", "uid": 0, "gid": 44}
        self.write("/sys/bus/pci/drivers/amdgpu/module/initstate", "live\n")
        self.write("/sys/class/drm/version", "drm 1.1.0 20060810\n")

    def save(self, expect, absent=(), checks=("os", "gpu-arch", "libraries"), options=None):
        if self.bashrc_extra:
            self.append("/home/alice/.bashrc", self.bashrc_extra)
        if self.dot_profile_extra:
            self.append("/home/alice/.profile", self.dot_profile_extra)
        if self.environment_extra:
            self.append("/etc/environment", self.environment_extra)
        if self.profile_d_extra:
            self.write("/etc/profile.d/" + self.profile_d_extra[0], self.profile_d_extra[1])
        self.build_pci()
        if self.extra_pci:
            bdf, device, revision = self.extra_pci
            real = f"/sys/devices/pci0000:00/0000:00:03.1/0000:05:00.0/0000:06:00.0/{bdf}"
            for key, value in (("vendor", "0x1002"), ("device", device), ("class", "0x030000"),
                               ("subsystem_vendor", "0x1002"), ("subsystem_device", "0x0e3b"),
                               ("revision", revision), ("numa_node", "-1")):
                self.write(f"{real}/{key}", value + "\n")
            self.link(f"{real}/driver", "../../../../../../bus/pci/drivers/amdgpu")
            self.link(f"/sys/bus/pci/devices/{bdf}", f"../../..{real[4:]}")
        if self.kfd_hides_gpus:
            gpus, self.gpus = self.gpus, []
            self.build_kfd()
            self.gpus = gpus
        else:
            self.build_kfd()
        manifest = {"format": "rocm-doctor-snapshot", "version": 1, "captured_at": "2026-11-30T07:00:00Z",
                    "captured_by": "tests/scenarios/gen_gpu_scenarios.py", "env": self.env,
                    "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [4, 27, 44, 110, 1000]},
                    "nodes": self.nodes if self.gpus else {}, "probes": {}}
        if options and options.get("image"):
            manifest["nodes"] = {}
        (self.folder / "snapshot.json").write_text(json.dumps(manifest, indent=2) + "\n")
        expected = {"description": self.description, "checks": list(checks), "expect": expect}
        if absent:
            expected["absent"] = list(absent)
        if options:
            expected["options"] = options
        expected.update(RESULTS.get(self.name, {}))
        (self.folder / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")


def cpu_node(cores, socket, gpus):
    values = dict.fromkeys(FIELDS, 0)
    values.update(cpu_cores_count=cores, mem_banks_count=1, io_links_count=gpus, cpu_core_id_base=socket * cores,
                  max_engine_clk_ccompute=3800)
    return values


def gpu_node(gpu, index, cpu_cores, gpus):
    version, simd_per_cu, wave, waves, lds, gws = ARCH[gpu["gfx"]]
    bus, devfn = gpu["bdf"].split(":")[1], gpu["bdf"].split(":")[2]
    dev, fn = devfn.split(".")
    location = (int(bus, 16) << 8) | (int(dev, 16) << 3) | int(fn, 16)
    values = dict.fromkeys(FIELDS, 0)
    values.update(
        simd_count=gpu["cus"] * simd_per_cu, mem_banks_count=1, caches_count=4 if wave == 32 else 3,
        io_links_count=1 + (gpus - 1 if gpu["hive"] else 0), p2p_links_count=gpus - 1 if gpu["hive"] else 0,
        simd_id_base=2147487744 + index * 2048, max_waves_per_simd=waves, lds_size_in_kb=lds, num_gws=gws,
        wave_front_size=wave, array_count=4 if gpu["cus"] < 100 else 8 * gpu["num_xcc"],
        simd_arrays_per_engine=2 if wave == 32 else 1, cu_per_simd_array=max(1, gpu["cus"] // (8 if gpu["cus"] >= 100 else 4)),
        simd_per_cu=simd_per_cu, max_slots_scratch_cu=32, gfx_target_version=version, vendor_id=4098,
        device_id=int(gpu["device"], 16), location_id=location, domain=int(gpu["bdf"].split(":")[0], 16),
        drm_render_minor=128 + index, hive_id=gpu["hive"], num_sdma_engines=gpu["sdma"],
        num_sdma_xgmi_engines=gpu["xgmi_sdma"], num_sdma_queues_per_engine=8 if wave == 64 else 6,
        num_cp_queues=24 if wave == 32 else 120, max_engine_clk_fcompute=gpu["clock"],
        local_mem_size=0 if gpu["apu"] else gpu["vram"], fw_version=118 if wave == 32 else 78,
        capability=671588992 if wave == 32 else 1015065216, debug_prop=1495 if wave == 32 else 1511,
        sdma_fw_version=83 if wave == 32 else 9, unique_id=0 if gpu["apu"] else 10376463598834532000 + index * 7,
        num_xcc=gpu["num_xcc"], max_engine_clk_ccompute=3800)
    return values


FIELDS = ["cpu_cores_count", "simd_count", "mem_banks_count", "caches_count", "io_links_count", "p2p_links_count",
          "cpu_core_id_base", "simd_id_base", "max_waves_per_simd", "lds_size_in_kb", "gds_size_in_kb", "num_gws",
          "wave_front_size", "array_count", "simd_arrays_per_engine", "cu_per_simd_array", "simd_per_cu",
          "max_slots_scratch_cu", "gfx_target_version", "vendor_id", "device_id", "location_id", "domain",
          "drm_render_minor", "hive_id", "num_sdma_engines", "num_sdma_xgmi_engines", "num_sdma_queues_per_engine",
          "num_cp_queues", "max_engine_clk_fcompute", "local_mem_size", "fw_version", "capability", "debug_prop",
          "sdma_fw_version", "unique_id", "num_xcc", "max_engine_clk_ccompute"]


def kfd_properties(values):
    return "".join(f"{key} {values[key]}\n" for key in FIELDS)


PROFILE = '''# /etc/profile: system-wide .profile file for the Bourne shell (sh(1))
# and Bourne compatible shells (bash(1), ksh(1), ash(1), ...).

if [ "${PS1-}" ]; then
  if [ "${BASH-}" ] && [ "$BASH" != "/bin/sh" ]; then
    if [ -f /etc/bash.bashrc ]; then
      . /etc/bash.bashrc
    fi
  else
    if [ "$(id -u)" -eq 0 ]; then
      PS1='# '
    else
      PS1='$ '
    fi
  fi
fi

if [ -d /etc/profile.d ]; then
  for i in /etc/profile.d/*.sh; do
    if [ -r $i ]; then
      . $i
    fi
  done
  unset i
fi
'''

DOT_PROFILE = '''# ~/.profile: executed by the command interpreter for login shells.
if [ -n "$BASH_VERSION" ]; then
    if [ -f "$HOME/.bashrc" ]; then
	. "$HOME/.bashrc"
    fi
fi

if [ -d "$HOME/bin" ] ; then
    PATH="$HOME/bin:$PATH"
fi
'''

BASHRC = '''# ~/.bashrc: executed by bash(1) for non-login shells.
case $- in
    *i*) ;;
      *) return;;
esac

HISTCONTROL=ignoreboth
shopt -s histappend
HISTSIZE=1000
HISTFILESIZE=2000

alias ll='ls -alF'
alias la='ls -A'
export PATH=$PATH:/opt/rocm/bin
'''


def rx6700xt(name, description):
    return Machine(name, description).base_system().gpu("0000:03:00.0", "0x73df", "0xc1", "gfx1031", 40, 12, 412,
                                                          subsystem=("0x1da2", "0xe445"), clock=2725).rocm()


def rx5700xt(name, description):
    return Machine(name, description).base_system().gpu("0000:03:00.0", "0x731f", "0xc1", "gfx1010", 40, 8, 380,
                                                          subsystem=("0x1da2", "0xe409"), clock=2100).rocm()


def scenarios():
    m = rx5700xt("gpu-rx5700xt-override-10.3.0",
                 "RX 5700 XT (RDNA1 gfx1010) with the community override HSA_OVERRIDE_GFX_VERSION=10.3.0 in ~/.bashrc: "
                 "it runs RDNA2 gfx1030 code on an RDNA1 card (another ISA generation; crashes reported in "
                 "ROCm/legacy-rocm-build#887 and #2527). At least a warning, never gpu.supported; this ROCm 6.0.2 "
                 "rocBLAS carries gfx1010 itself, so the fix removes the override")
    m.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
    m.bashrc_extra = "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
    yield m.save({"gpu.override-invalid": "warning"}, absent=["gpu.supported", "gpu.override-needed"],
                 checks=("os", "gpu-arch"))

    yield rx5700xt("gpu-rx5700xt-native",
                   "Healthy twin of gpu-rx5700xt-override-10.3.0: the same RX 5700 XT without the override, on a "
                   "ROCm 6.0.2 whose rocBLAS carries gfx1010 Tensile files").save(
        {"gpu.supported": "ok"}, absent=["gpu.override-invalid", "gpu.override-needed", "gpu.unsupported"],
        checks=("os", "gpu-arch"))

    m = Machine("gpu-release-newer-than-kb",
                "RX 5700 XT (gfx1010) on a ROCm 10.3.0 the doctor's knowledge base (newest: 10.1) does not know, with "
                "no rocBLAS installed: nothing says whether 10.3 carries gfx1010, so the doctor says so (info) and "
                "calls nothing unsupported").base_system()
    m.gpu("0000:03:00.0", "0x731f", "0xc1", "gfx1010", 40, 8, 380, subsystem=("0x1da2", "0xe409"), clock=2100)
    m.rocm(version="10.3.0", build="12", rocblas=None, miopen=None, hipblaslt=None)
    m.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    yield m.save({"gpu.support-unknown": "info", "rocm.release-unknown-newer": "info", "rocm.version": "info",
                  "rocm.ok": "ok"},
                 absent=["gpu.unsupported", "gpu.supported"], checks=("os", "gpu-arch", "rocm-install"))

    m = Machine("gpu-release-newer-than-kb-listed-gpu",
                "Twin of gpu-release-newer-than-kb: an RX 7900 XTX (gfx1100, on the newest known list) on the same "
                "unknown ROCm 10.3.0: supported as far as the doctor knows, plus the info that the release is newer "
                "than its knowledge").base_system()
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210, subsystem=("0x1002", "0x0e3b"))
    m.rocm(version="10.3.0", build="12", rocblas=None, miopen=None, hipblaslt=None)
    m.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    yield m.save({"gpu.supported": "ok", "rocm.release-unknown-newer": "info", "rocm.version": "info",
                  "rocm.ok": "ok"},
                 absent=["gpu.unsupported", "gpu.support-unknown"], checks=("os", "gpu-arch", "rocm-install"))

    yield rx6700xt("gpu-rx6700xt-no-override",
                   "RX 6700 XT (gfx1031) on ROCm 6.0.2 without HSA_OVERRIDE_GFX_VERSION: rocBLAS carries gfx1030 "
                   "but not gfx1031, so the 10.3.0 override is needed").save(
        {"gpu.override-needed": "error", "lib.rocblas-arch-missing": "error", "lib.miopen-arch-missing": "error",
         "lib.hipblaslt-arch-missing": "info", "lib.installed": "info"},
        absent=["gpu.supported", "gpu.override-invalid"])

    m = rx6700xt("gpu-rx6700xt-override-10.3.0", "RX 6700 XT (gfx1031) with HSA_OVERRIDE_GFX_VERSION=10.3.0 "
                 "exported from ~/.bashrc: runs as gfx1030, the libraries carry gfx1030")
    m.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
    m.bashrc_extra = "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
    yield m.save({"gpu.supported": "ok", "lib.installed": "info", "lib.arch-covered": "ok",
                  "lib.hipblaslt-arch-missing": "info"},
                 absent=["gpu.override-needed", "gpu.override-invalid", "gpu.override-unneeded"])

    m = rx6700xt("gpu-rx6700xt-override-11.0.0", "RX 6700 XT (RDNA2) with the RDNA3 value 11.0.0 in /etc/environment: "
                 "a different family, so kernels fault")
    m.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0"
    m.environment_extra = "HSA_OVERRIDE_GFX_VERSION=11.0.0\n"
    yield m.save({"gpu.override-invalid": "error", "lib.installed": "info", "lib.arch-covered": "ok",
                  "lib.hipblaslt-arch-missing": "info"})

    m = rx6700xt("gpu-rx6700xt-override-gfx-name", "RX 6700 XT with HSA_OVERRIDE_GFX_VERSION=gfx1030 (a gfx name, "
                 "not major.minor.stepping) in /etc/profile.d: libhsakmt rejects it and ROCm sees no GPU")
    m.env["HSA_OVERRIDE_GFX_VERSION"] = "gfx1030"
    m.profile_d_extra = ("rocm.sh", "export PATH=$PATH:/opt/rocm/bin\nexport HSA_OVERRIDE_GFX_VERSION=gfx1030\n")
    yield m.save({"gpu.override-invalid": "error"}, absent=["gpu.override-needed"], checks=("os", "gpu-arch"))

    m = Machine("gpu-rx7900xtx-needless-override", "RX 7900 XTX (gfx1100, natively supported by ROCm 6.0.2) with a "
                "leftover HSA_OVERRIDE_GFX_VERSION=11.0.0 in ~/.profile").base_system()
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210, subsystem=("0x1002", "0x0e3b")).rocm()
    m.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0"
    m.dot_profile_extra = "export HSA_OVERRIDE_GFX_VERSION=11.0.0\n"
    yield m.save({"gpu.override-unneeded": "warning", "lib.installed": "info", "lib.arch-covered": "ok",
                  "lib.hipblaslt-arch-missing": "info"})

    m = Machine("gpu-rx7600-hip-only", "RX 7600 (gfx1102) on ROCm 6.1.2 with only the HIP runtime installed: no "
                "rocBLAS to look at, so the official list decides (gfx1102 is not on it; 11.0.0 runs it as gfx1100)")
    m.base_system().gpu("0000:0b:00.0", "0x7480", "0xcf", "gfx1102", 32, 8, 380, subsystem=("0x1458", "0x2405"))
    m.rocm("6.1.2", "119", rocblas=None, miopen=None, hipblaslt=None)
    yield m.save({"gpu.override-needed": "error", "lib.installed": "info"})

    m = Machine("gpu-rx7600-rocblas", "RX 7600 (gfx1102) on ROCm 6.0.2 whose rocBLAS carries gfx1102 Tensile files: "
                "the installed libraries win over the official list").base_system()
    m.gpu("0000:0b:00.0", "0x7480", "0xcf", "gfx1102", 32, 8, 380, subsystem=("0x1458", "0x2405")).rocm()
    yield m.save({"gpu.supported": "ok", "lib.miopen-arch-missing": "error", "lib.installed": "info",
                  "lib.hipblaslt-arch-missing": "info"}, absent=["gpu.override-needed"])

    m = Machine("gpu-apu-plus-rx7900xtx", "Ryzen 9 7950X (Raphael iGPU, gfx1036) beside an RX 7900 XTX: the iGPU is "
                "ROCm device 1 and should be hidden").base_system()
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 980)
    m.gpu("0000:0e:00.0", "0x164e", "0xd8", "gfx1036", 1, 0, 300, apu=True, subsystem=("0x1043", "0x8877"), sdma=1,
          clock=2200).rocm()
    yield m.save({"gpu.supported": "ok", "gpu.igpu-present": "warning", "lib.installed": "info",
                  "lib.arch-covered": "ok", "lib.hipblaslt-arch-missing": "info"},
                 absent=["gpu.override-needed", "gpu.unsupported"])

    m = Machine("gpu-apu-plus-rx7900xtx-global-override", "Raphael iGPU (gfx1036) + RX 7900 XTX with a global "
                "HSA_OVERRIDE_GFX_VERSION=10.3.0 meant for the iGPU: wrong for the RDNA3 card").base_system()
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 980)
    m.gpu("0000:0e:00.0", "0x164e", "0xd8", "gfx1036", 1, 0, 300, apu=True, sdma=1, clock=2200).rocm()
    m.env["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"
    m.bashrc_extra = "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
    yield m.save({"gpu.override-invalid": "error", "gpu.override-multi-gpu": "warning",
                  "gpu.igpu-present": "warning"}, checks=("os", "gpu-arch"))

    m = Machine("gpu-mi250x-x4", "4x Instinct MI250X (8 GCDs, gfx90a) in one XGMI hive on a dual-socket EPYC, "
                "ROCm 6.0.2").base_system("ubuntu2204", "5.15.0-107-generic")
    m.cpu_nodes, m.cpu_cores = 2, 64
    for i, bus in enumerate(["29", "2c", "2f", "32", "a9", "ac", "af", "b2"]):
        m.gpu(f"0000:{bus}:00.0", "0x740c", "0x01", "gfx90a", 110, 64, 10, subsystem=("0x1002", "0x0b0c"),
              hive=0x5A3C0D1E7B2F9C11, sdma=5, xgmi_sdma=4, clock=1700, numa=0 if i < 4 else 1, pci_class="0x038000")
    m.rocm()
    yield m.save({"gpu.supported": "ok", "lib.installed": "info", "lib.arch-covered": "ok"},
                 absent=["gpu.igpu-present", "gpu.kfd-mismatch"])

    m = Machine("gpu-mi300x-x8", "8x Instinct MI300X (gfx942, SPX mode) on Ubuntu 22.04 with ROCm 6.2.4").base_system(
        "ubuntu2204", "5.15.0-119-generic")
    m.cpu_nodes, m.cpu_cores = 2, 96
    for i, bus in enumerate(["05", "15", "65", "75", "85", "95", "e5", "f5"]):
        m.gpu(f"0000:{bus}:00.0", "0x74a1", "0x00", "gfx942", 304, 192, 290, subsystem=("0x1002", "0x74a1"),
              hive=0x9E1F2A3B4C5D6E7F, sdma=16, xgmi_sdma=14, num_xcc=8, clock=2100, numa=0 if i < 4 else 1,
              pci_class="0x120000")
    m.rocm("6.2.4", "139")
    yield m.save({"gpu.supported": "ok", "lib.installed": "info", "lib.arch-covered": "ok"},
                 checks=("os", "gpu-arch", "libraries", "packages"))

    m = Machine("gpu-rx580-rocm6", "RX 580 (Polaris, gfx803) on ROCm 6.0.2: no compatible target is built in; "
                "rocBLAS 5.7 was the last to carry gfx803").base_system()
    m.gpu("0000:01:00.0", "0x67df", "0xe7", "gfx803", 36, 8, 320, subsystem=("0x1da2", "0xe366"), clock=1366).rocm()
    yield m.save({"gpu.unsupported": "error", "lib.rocblas-arch-missing": "error", "lib.miopen-arch-missing": "error",
                  "lib.hipblaslt-arch-missing": "info", "lib.installed": "info"})

    m = Machine("gpu-unknown-device-id", "A gfx1100 card whose PCI device id (0x744d) is in no table: named as "
                "unknown, judged by the gfx KFD reports").base_system()
    m.gpu("0000:03:00.0", "0x744d", "0xc0", "gfx1100", 84, 20, 700, subsystem=("0x1002", "0x0e3b")).rocm()
    yield m.save({"gpu.supported": "ok", "lib.installed": "info", "lib.arch-covered": "ok",
                  "lib.hipblaslt-arch-missing": "info"})

    m = Machine("gpu-rocblas-missing-card-tensile", "RX 7900 XTX on a trimmed ROCm 6.0.2 image whose rocBLAS, MIOpen "
                "and hipBLASLt were built for Instinct targets only").base_system()
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210)
    m.rocm(rocblas=INSTINCT_ONLY, miopen=["gfx90878.kdb", "gfx90a6e.kdb", "gfx942130.kdb"])
    yield m.save({"gpu.unsupported": "error", "lib.rocblas-arch-missing": "error", "lib.miopen-arch-missing": "error",
                  "lib.hipblaslt-arch-missing": "info", "lib.installed": "info"})

    m = Machine("gpu-busy-vram-and-kfd-mismatch", "RX 7900 XTX with 20 of 24 GiB VRAM already used, and a second "
                "RX 7900 XTX that KFD skipped (no PCIe atomics behind a switch)").base_system()
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 20480).rocm()
    m.extra_pci = ("0000:07:00.0", "0x744c", "0xcc")
    yield m.save({"gpu.supported": "ok", "gpu.vram-in-use": "warning", "gpu.kfd-mismatch": "warning"},
                 checks=("os", "gpu-arch"))

    m = Machine("gpu-none-visible", "RX 6800 bound to amdgpu but KFD lists only the CPU node (dmesg: PCI rejects "
                "atomics)").base_system()
    m.gpu("0000:03:00.0", "0x73bf", "0xc3", "gfx1030", 60, 16, 300).rocm()
    m.kfd_hides_gpus = True
    yield m.save({"gpu.none-visible": "error"}, checks=("os", "gpu-arch"))

    m = Machine("gpu-image-target-gfx", "Container image build (--image) for gfx942 and gfx1100 with rocBLAS "
                "installed: judged against --target-gfx").base_system()
    m.rocm(rocblas=INSTINCT_ONLY)
    yield m.save({"gpu.supported": "ok", "gpu.unsupported": "error", "lib.rocblas-arch-missing": "error",
                  "lib.hipblaslt-arch-missing": "info", "lib.installed": "info"},
                 options={"image": True, "target_gfx": ["gfx942", "gfx1100"]})


def main():
    scenario_out.parse(__doc__)
    for _ in scenarios():
        pass


if __name__ == "__main__":
    main()
