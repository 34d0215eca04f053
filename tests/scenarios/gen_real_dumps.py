#!/usr/bin/env python3
"""Writes the real-* scenarios whose captures come from public files and threads other than
ROCm/k8s-device-plugin's testdata (that one is gen_real_scenarios.py).

Two kinds of capture (each scenario's SOURCE.md says which it is and names every file):

- kept: files a real node wrote (a KFD `properties` file pasted into a test, a sysfs fixture). They live
  in the scenario's root/ byte for byte; this script reads them back from there before it rebuilds the
  folder, so it never needs the source repository and never changes them.
- transcribed: command output (rocminfo) that states facts the doctor reads from sysfs. Only the stated
  facts are written, each into the KFD properties line that holds it (TRANSCRIBED below says which).

Everything else (the distribution, accounts, the ROCm release, the PCI function, DRM and /dev nodes) is
built healthy by gen_real_scenarios.RealNode, so every finding is the doctor's own judgement.
Run it from anywhere; it rewrites only the folders it names. Commit its output.
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_gpu_scenarios import MIOPEN_60, ROCBLAS_60  # noqa: E402
import scenario_out  # noqa: E402
from gen_real_scenarios import DISPLAY_DEVICES, REVISION, TOPOLOGY, RealNode, ubuntu2004  # noqa: E402

# PCI revision of the built function, from the knowledge base's row for the device (the captures have none).
REVISION.update({0x744C: "0xc8", 0x738C: "0x01", 0x687F: "0xc1", 0x73BF: "0xc0", 0x1586: "0xc1", 0x66AF: "0xc1", 0x73FF: "0xc1", 0x74A0: "0x00", 0x7408: "0x01"})
DISPLAY_DEVICES.update({0x744C, 0x687F, 0x73BF, 0x1586, 0x66AF, 0x73FF})

# rocminfo line -> the KFD properties line that holds the same fact (kfd_topology.c writes them;
# rocminfo reads them back through libhsakmt).
TRANSCRIBED = ("Name: gfxNNN -> gfx_target_version; Chip ID -> device_id; BDFID -> location_id; "
               "Compute Unit x SIMDs per CU -> simd_count; SIMDs per CU -> simd_per_cu; "
               "Shader Engines -> array_count (x Shader Arrs. per Eng.); Max Clock Freq. -> "
               "max_engine_clk_fcompute; Uuid GPU-<hex> -> unique_id; Node -> the node number; "
               "Pool 1 size (KB) -> mem_banks/0 size_in_bytes")


class Kept:
    """Capture files kept in a scenario's root/, read before the folder is rebuilt."""

    def __init__(self, scenario, relatives):
        base = HERE / scenario / "root" / TOPOLOGY.lstrip("/")
        self.data = {relative: (base / relative).read_bytes() for relative in relatives}

    def files(self):
        return self.data.items()


class Transcribed:
    """KFD files written from the facts a rocminfo listing states, nothing else."""

    def __init__(self, cpu_cores, gpus):
        self.data = {}
        for node, cores in enumerate(cpu_cores):  # rocminfo's "Compute Unit" of a CPU agent is its cores
            self.data[f"nodes/{node}/properties"] = f"cpu_cores_count {cores}\nsimd_count 0\n".encode()
        for node, facts in gpus:
            text = "".join(f"{key} {value}\n" for key, value in facts.items() if key != "pool_kb")
            self.data[f"nodes/{node}/properties"] = text.encode()
            self.data[f"nodes/{node}/mem_banks/0/properties"] = f"size_in_bytes {facts['pool_kb'] * 1024}\n".encode()

    def files(self):
        return self.data.items()


def rocminfo_gpu(gfx, chip, bdfid, cus, simds, engines, arrays, clock, uuid, pool_kb, render_minor):
    major, minor, step = int(gfx[3:-2]), int(gfx[-2]), int(gfx[-1], 16)
    return {"simd_count": cus * simds, "simd_per_cu": simds, "array_count": engines * arrays,
            "simd_arrays_per_engine": arrays, "gfx_target_version": major * 10000 + minor * 100 + step,
            "vendor_id": 4098, "device_id": chip, "location_id": bdfid, "domain": 0,
            "drm_render_minor": render_minor, "max_engine_clk_fcompute": clock, "unique_id": int(uuid, 16),
            "pool_kb": pool_kb}


BUILT_BY = ("Built around it by `tests/scenarios/gen_real_scenarios.py`",
            "Built around it by `tests/scenarios/gen_real_dumps.py` (with gen_real_scenarios.py's RealNode)")


def by_this_script(m):
    source = m.folder / "SOURCE.md"
    source.write_text(source.read_text().replace(*BUILT_BY))


def transcribed(m):
    """RealNode's SOURCE.md says the capture was copied byte for byte: not so for command output."""
    by_this_script(m)
    source = m.folder / "SOURCE.md"
    source.write_text(source.read_text().replace("`, copied byte for byte to", "`, its facts transcribed into"))


def inbox_driver(rocm, kernel="5.15.0-119-generic"):
    """A healthy setup whose amdgpu is the kernel's own (no dkms version to skew from the release)."""
    def setup(node):
        healthy(node, rocm, kernel)
        (node.root / "sys/module/amdgpu/version").unlink()
        return node
    return setup


def healthy(node, rocm=("6.2.4", "139"), kernel="5.15.0-119-generic"):
    node.base_system("ubuntu2204", kernel)
    node.rocm(*rocm)
    return node


def kept(name, source, description, relatives, note, expect=None, absent=(), setup=healthy):
    m = RealNode(name, description, Kept(name, relatives), source)
    setup(m)
    m.finish(expect or {"gpu.supported": "ok"}, absent=absent, note="\nKept: " + note + "\n")
    by_this_script(m)
    return m


def tinygrad_7900xtx():
    kept("real-rx7900xtx-tinybox",
         "tinygrad/tinygrad test/mockgpu/amd/amdgpu.py (gpu_props) at commit 022af812a8672a96a441d07670b96a8a6fc7dcfc",
         "Radeon RX 7900 XTX (gfx1100, Navi 31) as tinygrad's mock GPU replays the KFD node properties of a real "
         "card (p2p_links_count 5: one of six in a tinybox); ROCm 6.2.4 on Ubuntu 22.04.", ["nodes/1/properties"],
         "`nodes/1/properties` is the source's `gpu_props` text byte for byte (no final newline, as there), except "
         "its one template field: `drm_render_minor {drm_render_minor}` (tinygrad fills it per mock GPU) is written "
         "`drm_render_minor 128`. The CPU node 0 is built. The other five GPUs the p2p count implies are not in the "
         "capture and are not built; the 16 GiB of VRAM is built (the capture has no memory bank).")


def rocmi_mi100():
    kept("real-mi100-rocmi", "mrodden/rocmi tests/test_kfd.py (setup_cards) at commit "
         "181c6a2e145c12051226aadf309e8a871e012546",
         "Instinct MI100 (gfx908, Arcturus) KFD node as the rocmi library's tests keep it: gpu_id 42700, name "
         "arcturus; ROCm 6.2.4 on Ubuntu 22.04.", ["nodes/1/properties", "nodes/1/gpu_id", "nodes/1/name"],
         "`nodes/1/properties`, `nodes/1/gpu_id` (`42700`) and `nodes/1/name` (`arcturus`), byte for byte as the "
         "test writes them (at node 0 there; node 1 here, after the built CPU node, as KFD numbers them). Its "
         "unique_id 7809984429061111111 looks edited by the author; the doctor does not depend on it.")


def thamada_mi300x_x4():
    name = "real-mi300x-x4-rocminfo"
    repo = "thamada/nvidia-smi nvsim/MI300X_x4_rocminfo.py at commit a296cf1dff865bac1d5fd7ba38789570cab4a8da"
    gpus = [(2 + index, rocminfo_gpu("gfx942", 0x74A1, bdfid, 304, 4, 32, 1, 2100, uuid, 201310208, 128 + 8 * index))
            for index, (bdfid, uuid) in enumerate([(9728, "8d1457e2c20f59d2"), (17920, "b4fa34630e85d42a"),
                                                   (25856, "e8986800e182538a"), (34048, "eff71edc82169115")])]
    m = RealNode(name, "4x Instinct MI300X (gfx942) in SPX mode behind two EPYC 9474F sockets, as rocminfo lists "
                 "them (agents 3-6, BDFIDs 9728/17920/25856/34048); ROCm 6.2.4 on Ubuntu 22.04.",
                 Transcribed([96, 96], gpus), repo)
    healthy(m)
    m.partition_mode = ("SPX", "NPS1")
    m.finish({"gpu.supported": "ok"}, absent=["gpu.partition-count-mismatch", "gpu.kfd-mismatch"],
             note=f"\nTranscribed, not kept: the source is rocminfo output. Written from it: nodes 0-1 (the two CPU "
             f"agents: `cpu_cores_count` from their Compute Unit 96, `simd_count 0`) and nodes 2-5 `properties` and `mem_banks/0/properties` "
             f"with only the facts rocminfo states ({TRANSCRIBED}). rocminfo states no render node; "
             f"`drm_render_minor` 128, 136, 144, 152 is built (8 render nodes per MI300 GPU), as is the SPX/NPS1 mode the single agent per GPU implies.\n")
    transcribed(m)


def keep_files(scenario, folder):
    """Every file of a kept sysfs folder in the scenario's root/, to write back after the rebuild."""
    base = HERE / scenario / "root" / folder.lstrip("/")
    return {path.relative_to(base): path.read_bytes() for path in sorted(base.rglob("*")) if path.is_file()}


def procfs_vega64():
    name = "real-rx-vega64-procfs"
    source = ("prometheus/procfs testdata/fixtures.ttar (fixtures/sys/class/drm/card0/device/) at commit "
              "3c943fdba94a978d990553698da4add62bb11a30")
    device = "/sys/devices/pci0000:00/0000:00:01.1/0000:09:00.0"
    files = keep_files(name, device)
    vram = int(files[Path("mem_info_vram_total")])
    kfd = {"simd_count": 64 * 4, "simd_per_cu": 4, "gfx_target_version": 90000, "vendor_id": 4098,
           "device_id": 0x687F, "location_id": 9 << 8, "domain": 0, "drm_render_minor": 128,
           "unique_id": int(files[Path("unique_id")], 16), "pool_kb": vram // 1024}
    m = RealNode(name, "Radeon RX Vega 64 (gfx900, Vega 10, ASUS board 1043:04c4, 8 GiB Samsung HBM2) at "
                 "0000:09:00.0, PCIe 3.0 x16, in manual power level, as Prometheus procfs keeps its amdgpu PCI "
                 "folder; ROCm 5.4.3 on Ubuntu 22.04 with the kernel's own amdgpu.", Transcribed([16], [(1, kfd)]),
                 source)
    m.base_system("ubuntu2204", "5.15.0-119-generic")
    (m.root / "sys/module/amdgpu/version").unlink()  # the kernel's own amdgpu writes no version
    m.rocm("5.4.3", "83")
    m.finish({"gpu.supported": "ok"}, note="\nKept: the 61 files of the fixture's `sys/class/drm/card0/device/` "
             f"folder, byte for byte, in the PCI function folder `root{device}/` (the slot its uevent and "
             "thermal_throttling_logging name); its `driver` link is the built one. Built from those files: the KFD "
             "nodes (CPU node 0 with 16 cores, as local_cpulist 0-15; GPU node 1 with gfx_target_version 90000 and "
             "device_id 0x687f as `device` says, location_id from the slot, memory bank from mem_info_vram_total, "
             "unique_id from `unique_id`, 64 CUs: the fixture does not tell Vega 56 from 64, its top sclk of 1630 "
             "MHz is Vega 64's).\n")
    for relative, data in files.items():
        (m.root / device.lstrip("/") / relative).write_bytes(data)
    transcribed(m)


def rocminfo_node(name, source, description, cpu_cores, gpus, note, expect=None, absent=(), setup=healthy,
                  root_causes=None):
    """A scenario from one rocminfo listing: [(node, rocminfo_gpu(...))], every fact named in SOURCE.md."""
    m = RealNode(name, description, Transcribed(cpu_cores, gpus), source)
    setup(m)
    m.finish(expect or {"gpu.supported": "ok"}, absent=absent,
             note=f"\nTranscribed, not kept: the source is rocminfo output. Written from it: the CPU nodes "
             f"(`cpu_cores_count` from the CPU agent's Compute Unit, `simd_count 0`) and each GPU node's `properties` "
             f"and `mem_banks/0/properties` with only the facts rocminfo states ({TRANSCRIBED}). rocminfo states no "
             f"render node: `drm_render_minor` is built. {note}\n")
    transcribed(m)
    if root_causes is not None:  # findings the root cause explains are not root causes themselves
        expected = m.folder / "expected.json"
        data = json.loads(expected.read_text())
        data["root_causes"] = root_causes
        expected.write_text(json.dumps(data, indent=2) + "\n")
    return m


def rx6900xt():
    rocminfo_node("real-rx6900xt-rocm60", "https://github.com/ROCm/ROCm/issues/2783 (rocminfo --support in the "
                  "description)", "Radeon RX 6900 XT (gfx1030, Navi 21, 80 CUs, 16 GiB) beside a Ryzen 9 3900X; "
                  "ROCm 6.0.0 from amdgpu-install on Ubuntu 22.04.3. The thread is a HIP header compile error, "
                  "nothing the machine's setup causes.", [24],
                  [(1, rocminfo_gpu("gfx1030", 0x73BF, 2048, 80, 2, 4, 2, 2660, "270b352c3aab7c1c", 16760832, 128))],
                  "Healthy: the thread's problem (an ambiguous __shfl overload in pytorch_sparse) is in code, not in "
                  "the setup the doctor checks.", setup=lambda m: healthy(m, rocm=("6.0.0", "91"),
                                                                         kernel="6.2.0-39-generic"))


def radeon_vii_rocm72(m):
    m.base_system("ubuntu2404", "6.8.0-60-generic")
    (m.root / "sys/module/amdgpu/version").unlink()  # the kernel's own amdgpu writes no version
    # ROCm 7.2's libraries carry no gfx906 kernels (the release dropped it).
    m.rocm("7.2.0", "43", rocblas=[gfx for gfx in ROCBLAS_60 if gfx != "gfx906"])
    return m


def radeon_vii():
    rocminfo_node("real-radeon-vii-rocm72", "https://github.com/ROCm/ROCm/issues/6138 (rocminfo in comment 2)",
                  "Radeon VII (gfx906, Vega 20, 60 CUs, 16 GiB) with the ROCm 7.2 release installed on Ubuntu 24.04: "
                  "the thread asks why ROCm dropped gfx906; AMD's answer is that releases no longer support it "
                  "(TheRock's gfx906 nightlies do).", [16],
                  [(1, rocminfo_gpu("gfx906", 0x66AF, 12032, 60, 4, 4, 1, 1801, "d48a706172fd5d11", 16760832, 128))],
                  "The listing shows the GPU agent only: the CPU node (16 cores) is built. Broken, as the thread "
                  "resolved it: ROCm 7.0 and later list Radeon VII as unsupported, so the doctor says gpu.unsupported "
                  "for the release installed here (and lib.rocblas-arch-missing, which it causes).", expect={"gpu.unsupported": "error", "lib.rocblas-arch-missing": "error"},
                  setup=radeon_vii_rocm72, root_causes=["gpu.unsupported"])


def rx6600xt_rocm50(m):
    ubuntu2004(m, "5.13.0-30-generic")  # uname in the thread's hipconfig --full
    (m.root / "sys/module/amdgpu/version").unlink()  # the kernel's own amdgpu writes no version
    m.rocm("5.0.1", "62")
    return m


def rx6600xt():
    rocminfo_node("real-rx6600xt-no-override", "https://github.com/ROCm/ROCm/issues/1698 (rocminfo and hipconfig "
                  "--full in the description)", "Radeon RX 6600 XT (gfx1032, Navi 23, 32 CUs, 8 GiB) beside a Ryzen 5 "
                  "3600, ROCm 5.0.1 from amdgpu-install on Ubuntu 20.04.3 with the 5.13 HWE kernel: "
                  "hipErrorNoBinaryForGpu, because ROCm ships no gfx1032 code; the thread's answer is "
                  "HSA_OVERRIDE_GFX_VERSION=10.3.0.", [12],
                  [(1, rocminfo_gpu("gfx1032", 0x73FF, 3072, 32, 2, 4, 2, 2900, "0", 8372224, 128))],
                  "rocminfo prints `Uuid: GPU-XX` (no unique id): unique_id is written 0. The environment hipconfig "
                  "printed (HIP_PLATFORM=hcc, HIP_VISIBLE_DEVICES=0, LD_LIBRARY_PATH) is not transcribed. Broken, as "
                  "the thread resolved it: gpu.override-needed, with the library findings it causes.",
                  expect={"gpu.override-needed": "error", "lib.rocblas-arch-missing": "error",
                          "lib.miopen-arch-missing": "error"}, setup=rx6600xt_rocm50, root_causes=["gpu.override-needed"])


def strix_halo_rocm702(m):
    m.base_system("ubuntu2404", "6.14.0-33-generic")
    (m.root / "sys/module/amdgpu/version").unlink()  # the Ryzen guide uses the kernel's own amdgpu (no dkms)
    m.rocm("7.0.2", "56", rocblas=ROCBLAS_60 + ["gfx1151"], miopen=MIOPEN_60 + ["gfx1151_40.kdb"])
    # The CPU agent's pool is the RAM the kernel manages (rocminfo takes it from the CPU node's memory bank).
    m.write("/proc/meminfo", "MemTotal:       32490760 kB\n")
    return m


def strix_halo():
    rocminfo_node("real-strix-halo-rocm702", "https://github.com/ROCm/ROCm/issues/5572 (rocminfo --support in the "
                  "description)", "Ryzen AI MAX+ 395 with Radeon 8060S (gfx1151, Strix Halo APU, 40 CUs) with 96 GiB "
                  "of its memory given to the GPU, ROCm 7.0.2 on Ubuntu 24.04.3 as AMD's Radeon and Ryzen guide "
                  "installs it. The thread (torch.compile freezing the system) is a runtime bug, not the setup.", [32],
                  [(1, rocminfo_gpu("gfx1151", 0x1586, 50432, 40, 2, 2, 2, 2900, "0", 100663296, 128))],
                  "rocminfo prints `Uuid: GPU-XX`: unique_id is written 0. /proc/meminfo's MemTotal is the CPU "
                  "agent's pool, 32490760 KB.", setup=strix_halo_rocm702)


def mi300a_rocm633(m):
    m.base_system("ubuntu2204", "5.15.0-131-generic")
    m.write("/sys/module/amdgpu/version", "6.10.5\n")  # "ROCk module version 6.10.5 is loaded"
    m.rocm("6.3.3", "74", miopen=None)  # no MIOpen built: which MIOpen db files name gfx940 is not in the capture
    m.write("/proc/meminfo", "MemTotal:       131174896 kB\n")  # the CPU agent's pool
    return m


def mi300a():
    rocminfo_node("real-mi300a-a0-rocm633", "https://github.com/ROCm/ROCm/issues/4411 (rocminfo --support in the "
                  "description)", "Instinct MI300A APU, an early sample (CPU 'AMD Proto Sample : SH5-MI300A-A0') "
                  "whose GPU agent reports gfx940, 228 CUs, unified HBM; amdgpu 6.10.5 (dkms) and ROCm 6.3.3 on "
                  "Ubuntu 22.04.5. The thread (rocm-smi lists a monitoring daemon as a KFD process) is an SMI "
                  "behaviour, not the setup.", [48],
                  [(1, rocminfo_gpu("gfx940", 0x74A0, 256, 228, 4, 24, 1, 2100, "8a034d0fdebb161c", 98381172, 128))],
                  "The one GPU agent is built as one SPX/NPS1 partition set (the thread names SPX, TPX and CPX; at "
                  "capture one agent per GPU is SPX). /proc/meminfo's MemTotal is the CPU agent's pool.",
                  setup=mi300a_rocm633)


def lumi_mi250x():
    rocminfo_node("real-mi250x-gcd-lumi", "csc-training/summerschool gpu-openmp/intro/Readme.md at commit "
                  "a8156158c5bd2451256dfc77d391f880f19354f4 (rocminfo run by srun --gpus 1 on LUMI-G)",
                  "One Graphics Compute Die of an Instinct MI250X (gfx90a, 110 CUs, 64 GiB HBM2e) on a LUMI-G node, "
                  "as rocminfo lists it in a one-GPU job: agent 5, KFD node 4, behind four CPU NUMA nodes; ROCm "
                  "5.2.3.", [16, 16, 16, 16],
                  [(4, rocminfo_gpu("gfx90a", 0x7408, 54784, 110, 4, 8, 1, 1700, "8f32185a4cf32f6d", 67092480, 128))],
                  "The listing starts at agent 5: the CPU agents are not shown, so nodes 0-3 are built as the four "
                  "NUMA nodes of LUMI-G's 64-core EPYC (16 cores each), and the distribution is built as Ubuntu 22.04 "
                  "(LUMI runs HPE Cray OS). Only the GCD the job was given is in the capture, so only it is built.",
                  setup=inbox_driver(("5.2.3", "109")))


def rhel810_rocm640(m):
    m.base_system("ubuntu2204", "4.18.0-553.16.1.el8_10.x86_64")  # the kernel of the thread's dmesg
    m.write("/etc/os-release", 'NAME="Red Hat Enterprise Linux"\nVERSION="8.10 (Ootpa)"\nID="rhel"\n'
            'ID_LIKE="fedora"\nVERSION_ID="8.10"\nPLATFORM_ID="platform:el8"\n'
            'PRETTY_NAME="Red Hat Enterprise Linux 8.10 (Ootpa)"\n')
    m.write("/sys/module/amdgpu/version", "6.12.0\n")  # "ROCk module version 6.12.0 is loaded"
    m.rocm("6.4.0", "47")
    m.write("/proc/meminfo", "MemTotal:       526121644 kB\n")  # the four CPU agents' pools
    return m


def mi300a_x4():
    gpus = [(4 + index, rocminfo_gpu("gfx942", 0x74A0, bdfid, 228, 4, 24, 1, 2100, uuid, 98647808, 128 + 8 * index))
            for index, (bdfid, uuid) in enumerate([(512, "f68e1753dc12b715"), (16640, "5bd3148dc76b831a"),
                                                   (33024, "a57d04507c371187"), (49408, "cdcfb00895cff553")])]
    m = rocminfo_node("real-mi300a-x4-rhel8", "https://github.com/ROCm/ROCm/issues/4688 (rocminfo --support in the "
                      "description)", "4x Instinct MI300A APU (gfx942, 228 CUs each, unified HBM) in a Supermicro "
                      "H13QSH, amdgpu 6.12.0 (dkms) and ROCm 6.4.0 on RHEL 8.10. The thread is an intermittent driver "
                      "hang; rocminfo was taken while the node worked.", [48, 48, 48, 48], gpus,
                      "Each GPU agent is built as one GPU (render nodes 128, 136, 144, 152 built; the thread's dmesg names "
                      "0000:02:00.0 and 0000:c1:00.0, as the BDFIDs give). /proc/meminfo's MemTotal is the sum of "
                      "the four CPU agents' pools. The thread's kernel log (partition-mode warnings, a GPU reset) is "
                      "not transcribed: the doctor is judged on the working node rocminfo shows.",
                      absent=["gpu.igpu-present"], setup=rhel810_rocm640)
    return m


def main():
    scenario_out.parse(__doc__)
    tinygrad_7900xtx()
    rocmi_mi100()
    thamada_mi300x_x4()
    procfs_vega64()
    rx6900xt()
    radeon_vii()
    rx6600xt()
    strix_halo()
    mi300a()
    lumi_mi250x()
    mi300a_x4()


if __name__ == "__main__":
    main()
