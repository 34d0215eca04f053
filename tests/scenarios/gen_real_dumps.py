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
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_real_scenarios import DISPLAY_DEVICES, REVISION, TOPOLOGY, RealNode  # noqa: E402

# PCI revision of the built function, from the knowledge base's row for the device (the captures have none).
REVISION.update({0x744C: "0xc8", 0x738C: "0x01", 0x687F: "0xc1"})
DISPLAY_DEVICES.update({0x744C, 0x687F})

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


def transcribed(m):
    """RealNode's SOURCE.md says the capture was copied byte for byte: not so for command output."""
    source = m.folder / "SOURCE.md"
    source.write_text(source.read_text().replace("`, copied byte for byte to", "`, its facts transcribed into"))


def healthy(node, rocm=("6.2.4", "139"), kernel="5.15.0-119-generic"):
    node.base_system("ubuntu2204", kernel)
    node.rocm(*rocm)
    return node


def kept(name, source, description, relatives, note, expect=None, absent=(), setup=healthy):
    m = RealNode(name, description, Kept(name, relatives), source)
    setup(m)
    m.finish(expect or {"gpu.supported": "ok"}, absent=absent, note="\nKept: " + note + "\n")
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


def main():
    tinygrad_7900xtx()
    rocmi_mi100()
    thamada_mi300x_x4()
    procfs_vega64()


if __name__ == "__main__":
    main()
