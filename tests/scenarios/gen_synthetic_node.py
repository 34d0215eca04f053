#!/usr/bin/env python3
"""Writes a synthetic healthy node with N Instinct MI300X GPUs (gfx942) to a folder.

For the benchmarks (bench/) and the scaling test (tests/core/synthetic_node_test.cpp): the
sysfs is laid out by the scenario generators (gen_gpu_scenarios.Machine, gen_topology_scenarios.Node:
KFD topology nodes with io_links, DRM cards and render nodes, PCI functions with their links
and root ports, /dev nodes, IOMMU groups, NUMA nodes), only with as many GPUs as asked. GPUs
form XGMI hives of eight, as real 8-GPU boards do, so the files grow linearly with N.
--groups adds that many extra groups to /etc/group (a directory-service-sized group file).

    gen_synthetic_node.py --gpus 64 --groups 1000 --out /tmp/node64
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_topology_scenarios import Node, io_link  # noqa: E402

HIVE_SIZE = 8


class SyntheticNode(Node):
    def build_io_links(self):
        """Each GPU links to its CPU node (PCIe) and to the other GPUs of its hive (XGMI)."""
        base = "/sys/class/kfd/kfd/topology/nodes"
        gpu_nodes = [self.cpu_nodes + i for i in range(len(self.gpus))]
        for i, node in enumerate(gpu_nodes):
            cpu = max(self.gpus[i]["numa"], 0)
            hive = i // HIVE_SIZE
            peers = [gpu_nodes[j] for j in range(len(gpu_nodes)) if j // HIVE_SIZE == hive and j != i]
            links = [(2, node, cpu, 20, 312, 64000)] + [(11, node, peer, 15, 50000, 50000) for peer in peers]
            for n, link in enumerate(links):
                self.write(f"{base}/{node}/io_links/{n}/properties", io_link(*link))
        for cpu in range(self.cpu_nodes):
            for n, node in enumerate(gpu_nodes):
                self.write(f"{base}/{cpu}/io_links/{n}/properties", io_link(2, cpu, node, 20, 0, 0))


def build(folder, gpus, groups):
    m = SyntheticNode("synthetic-node", f"Synthetic node: {gpus}x Instinct MI300X (gfx942) in XGMI hives of "
                      f"{HIVE_SIZE}, dual-socket EPYC, IOMMU passthrough, ROCm 6.2.4; {groups} extra groups",
                      folder).base_system("ubuntu2204", "5.15.0-119-generic")
    m.cpu_nodes, m.cpu_cores = 2, 96
    for i in range(gpus):
        # Buses 0x05, 0x06, ... on segment (domain) i // 200, so any N gets unique addresses.
        bdf = f"{i // 200:04x}:{5 + i % 200:02x}:00.0"
        m.gpu(bdf, "0x74a1", "0x00", "gfx942", 304, 192, 290, subsystem=("0x1002", "0x74a1"),
              hive=0x9E1F2A3B4C5D6E00 + i // HIVE_SIZE, sdma=16, xgmi_sdma=14, num_xcc=8, clock=2100,
              numa=0 if i % HIVE_SIZE < HIVE_SIZE // 2 else 1, pci_class="0x120000")
    m.rocm("6.2.4", "139")
    m.write("/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-5.15.0-119-generic root=UUID=6f1c2a9e-7d1b-4b7e-9a43-"
            "2f0c8d1e5b21 ro iommu=pt amd_iommu=on\n")
    m.iommu_type = "identity"
    if groups:
        extra = "".join(f"project{n:05d}:x:{20000 + n}:alice,bob{n % 97}\n" for n in range(groups))
        m.append("/etc/group", extra)
        m.identity = dict(m.identity, groups=m.identity["groups"] + [20000 + n for n in range(0, groups, 10)])
    m.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    m.finish({}, checks=())
    manifest_path = m.folder / "snapshot.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["probes"] = probes(m.gpus)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    return m


def probes(gpus):
    """What the hip, smi and python probes return on such a node, so that every check has work."""
    def outcome(result, elapsed):
        return {"status": "ok", "elapsed_ms": elapsed, "exit_code": 0, "stderr_tail": "", "stderr_bytes": 0,
                "result": result}
    vram = 192 * 1024 ** 3
    hip = {"library": {"status": "loaded", "path": "/opt/rocm-6.2.4/lib/libamdhip64.so.6",
                       "real_path": "/opt/rocm-6.2.4/lib/libamdhip64.so.6.2.60204", "soname": "libamdhip64.so.6"},
           "smoke_requested": False, "runtime_version": 60241134, "runtime_version_text": "6.2.41134",
           "driver_version": 60241134, "device_count": len(gpus),
           "devices": [{"index": i, "name": "AMD Instinct MI300X", "pci_bus_id": gpu["bdf"], "gfx": "gfx942",
                        "isa": "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "compute_units": 304,
                        "memory_total": vram, "memory_free": vram - 290 * 1024 ** 2} for i, gpu in enumerate(gpus)]}
    smi = {"library": {"status": "loaded", "path": "/opt/rocm/lib/librocm_smi64.so.1",
                       "real_path": "/opt/rocm-6.2.4/lib/librocm_smi64.so.1.0"},
           "driver_version": "6.8.5", "device_count": len(gpus),
           "devices": [{"index": i, "name": "Aqua Vanjaram [Instinct MI300X]", "pci_bus_id": gpu["bdf"],
                        "temperature": {"edge": {"current_mc": 41000, "critical_mc": 100000},
                                        "junction": {"current_mc": 48000, "critical_mc": 110000},
                                        "memory": {"current_mc": 39000, "critical_mc": 95000}},
                        "power_uw": 140000000, "power_cap_uw": 750000000, "vram_total": vram,
                        "vram_used": 290 * 1024 ** 2, "ecc": {"umc": {"correctable": 0, "uncorrectable": 0}},
                        "metrics_format": "1.5", "throttle_status": 0, "pcie": {"width": 16, "speed_gts": 32.0}}
                       for i, gpu in enumerate(gpus)]}
    python = {"executable": "/home/alice/venv/bin/python3", "version": "3.10.12",
              "torch": {"version": "2.5.1+rocm6.2", "hip": "6.2.41133-dd7f95766", "cuda": None,
                        "gpu_available": True, "device_count": len(gpus),
                        "arch_list": ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"],
                        "devices": ["AMD Instinct MI300X"] * len(gpus), "error": None}}
    return {"hip": outcome(hip, 180), "smi": outcome(smi, 60), "python": outcome(python, 2100)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, required=True)
    parser.add_argument("--groups", type=int, default=0)
    parser.add_argument("--out", required=True, help="folder to write (replaced if it exists)")
    args = parser.parse_args()
    build(Path(args.out).resolve(), args.gpus, args.groups)


if __name__ == "__main__":
    main()
