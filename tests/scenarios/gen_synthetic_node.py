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
    m.finish({}, checks=())
    return m


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, required=True)
    parser.add_argument("--groups", type=int, default=0)
    parser.add_argument("--out", required=True, help="folder to write (replaced if it exists)")
    args = parser.parse_args()
    build(Path(args.out).resolve(), args.gpus, args.groups)


if __name__ == "__main__":
    main()
