#!/usr/bin/env python3
"""Writes the real-* scenario snapshots from real KFD topology captures.

Each scenario keeps a capture made on a real node byte for byte under root/sys/class/kfd/kfd/topology
(every file the capture holds: properties, name, gpu_id, io_links, p2p_links, mem_banks, caches) and
builds only what the capture lacks, healthy: the distribution, accounts, the ROCm release, the amdgpu
module, and, per physical GPU the capture shows, its PCI function (at the address KFD names for its first
partition), DRM card and render node, the platform devices (amdgpu_xcp) that own the render nodes of
later partitions, and the /dev nodes. Nothing the capture says is changed.

The captures come from ROCm/k8s-device-plugin's testdata (see each scenario's SOURCE.md):

    gen_real_scenarios.py                 # the captures kept in the committed real-* folders
    git clone https://github.com/ROCm/k8s-device-plugin && \
      gen_real_scenarios.py --k8s-device-plugin k8s-device-plugin/.git   # the captures from the source

The two give the same tree: the folders keep each capture byte for byte.

Run it from anywhere; it rewrites only the real-* folders it names. Commit its output.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_gpu_scenarios import Machine  # noqa: E402
import scenario_out  # noqa: E402

K8S_COMMIT = "ed7646843003e8f0b6a0630346f01bb4d1ecff2e"
K8S_REPO = "ROCm/k8s-device-plugin"
TOPOLOGY = "/sys/class/kfd/kfd/topology"
# PCI revision of the built function: the dump has none; the knowledge base's row for the device.
REVISION = {0x6860: "0x00", 0x740F: "0x02", 0x74A1: "0x00", 0x74A2: "0x00"}
# Render nodes the amdgpu driver reserves per Instinct MI300-series GPU, one per possible partition
# (ROCm/rocDecode pull request 310: "the kernel driver always creates 8 render nodes per MI3xx family").
XCP_RENDER_NODES = {0x74A1: 8, 0x74A2: 8}
# Devices whose PCI class is a VGA controller (the others are Instinct accelerators, class 0x1200).
DISPLAY_DEVICES = {0x6860}


class Capture:
    """Files of one capture at one commit of a git repository."""

    def __init__(self, git_dir, commit, folder, skip=()):
        self.git_dir, self.commit, self.folder, self.skip = git_dir, commit, folder.rstrip("/"), skip

    def files(self):
        out = subprocess.run(["git", "--git-dir", self.git_dir, "ls-tree", "-r", "--name-only", self.commit,
                              self.folder + "/"], check=True, capture_output=True, text=True).stdout
        for path in out.splitlines():
            relative = path[len(self.folder) + 1:]
            if any(relative.startswith(prefix + "/") for prefix in self.skip):
                continue
            yield relative, self.read(path)

    def read(self, path):
        return subprocess.run(["git", "--git-dir", self.git_dir, "show", f"{self.commit}:{path}"], check=True,
                              capture_output=True).stdout


class KeptCapture:
    """The files of a capture as the committed scenario folder that keeps it holds them (byte for byte)."""

    def __init__(self, scenario):
        self.base = scenario_out.HERE / scenario / "root" / TOPOLOGY.lstrip("/")

    def files(self):
        for path in sorted(self.base.rglob("*")):
            if path.is_file():
                yield path.relative_to(self.base).as_posix(), path.read_bytes()


def properties(data):
    values = {}
    for line in data.decode().splitlines():
        words = line.split()
        if len(words) == 2 and words[1].isdigit():
            values[words[0]] = int(words[1])
    return values


class RealNode(Machine):
    def __init__(self, name, description, capture, source):
        super().__init__(name, description)
        self.capture, self.source = capture, source
        self.kfd = {}  # "nodes/N/properties" -> bytes, ...
        self.partition_mode = None  # (compute, memory) written in each PCI device folder
        self.mode_overrides = {}  # bdf -> (compute, memory) for that GPU only
        self.groups = [88]

    def copy_capture(self):
        for relative, data in self.capture.files():
            target = self.root / TOPOLOGY.lstrip("/") / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            self.kfd[relative] = data

    def physical_gpus(self):
        """KFD GPU nodes grouped by unique_id, in node order: [(bdf, device, [node properties])]."""
        groups = {}
        for relative, data in sorted(self.kfd.items(), key=lambda item: node_number(item[0])):
            if not relative.endswith("/properties") or relative.count("/") != 2:
                continue
            values = properties(data)
            if not values.get("simd_count"):
                continue
            values["node"] = node_number(relative)
            values["mem_bytes"] = properties(self.kfd.get(relative.replace("properties", "mem_banks/0/properties"),
                                                          b"")).get("size_in_bytes", 0)
            groups.setdefault(values.get("unique_id") or values["node"], []).append(values)
        result = []
        for nodes in groups.values():
            first = nodes[0]
            location, domain = first["location_id"] & ~7, first.get("domain", 0)
            bdf = f"{domain:04x}:{location >> 8:02x}:{(location >> 3) & 0x1f:02x}.0"
            result.append((bdf, first["device_id"], nodes))
        return result

    def build_pci(self):
        xcp = 0
        for index, (bdf, device, nodes) in enumerate(self.physical_gpus()):
            domain = bdf.split(":")[0]
            port = f"/sys/devices/pci{domain}:{index * 0x10:02x}/{domain}:{index * 0x10:02x}:01.1"
            real = f"{port}/{bdf}"
            vram = sum(node["mem_bytes"] for node in nodes) or 16 * 1024 ** 3
            pci_class = "0x030000" if device in DISPLAY_DEVICES else "0x120000"
            for key, value in (("vendor", "0x1002"), ("device", f"0x{device:04x}"), ("class", pci_class),
                               ("subsystem_vendor", "0x1002"), ("subsystem_device", f"0x{device:04x}"),
                               ("revision", REVISION[device]), ("numa_node", str(0 if index < 4 else 1)),
                               ("mem_info_vram_total", str(vram)), ("mem_info_vram_used", str(283 * 1024 * 1024)),
                               ("mem_info_vis_vram_total", str(vram)),
                               ("current_link_speed", "32.0 GT/s PCIe"), ("current_link_width", "16"),
                               ("max_link_speed", "32.0 GT/s PCIe"), ("max_link_width", "16"),
                               ("uevent", f"DRIVER=amdgpu\nPCI_CLASS={pci_class[2:].upper()}\n"
                                          f"PCI_ID=1002:{device:04X}\nPCI_SLOT_NAME={bdf}\n")):
                self.write(f"{real}/{key}", value + "\n")
            for key, value in (("max_link_speed", "32.0 GT/s PCIe"), ("max_link_width", "16"),
                               ("current_link_speed", "32.0 GT/s PCIe"), ("current_link_width", "16"),
                               ("vendor", "0x1022"), ("device", "0x14ab"), ("class", "0x060400")):
                self.write(f"{port}/{key}", value + "\n")
            if self.partition_mode:
                compute, memory = self.mode_overrides.get(bdf, self.partition_mode)
                self.write(f"{real}/current_compute_partition", compute + "\n")
                self.write(f"{real}/available_compute_partition", "SPX, DPX, QPX, CPX\n")
                self.write(f"{real}/current_memory_partition", memory + "\n")
                self.write(f"{real}/available_memory_partition", "NPS1, NPS4\n")
            self.link(f"{real}/driver", "../../../bus/pci/drivers/amdgpu")
            self.link(f"/sys/bus/pci/devices/{bdf}", f"../../..{real[4:]}")
            first_minor = nodes[0]["drm_render_minor"]
            card = f"card{first_minor - 128}"
            self.write(f"{real}/drm/{card}/dev", f"226:{first_minor - 128}\n")
            self.link(f"{real}/drm/{card}/device", "../../../" + bdf)
            self.link(f"/sys/class/drm/{card}", f"../../devices{real[12:]}/drm/{card}")
            self.nodes[f"/dev/dri/{card}"] = {"type": "char", "mode": "0660", "uid": 0, "gid": 44}
            minors = [first_minor + n for n in range(XCP_RENDER_NODES.get(device, 1))]
            for minor in minors:
                render = f"renderD{minor}"
                if minor == first_minor:
                    self.write(f"{real}/drm/{render}/dev", f"226:{minor}\n")
                    self.link(f"{real}/drm/{render}/device", "../../../" + bdf)
                    self.link(f"/sys/class/drm/{render}", f"../../devices{real[12:]}/drm/{render}")
                else:  # a later partition's render node: a platform device of its own
                    platform = f"/sys/devices/platform/{self.xcp_name(xcp)}"
                    xcp += 1
                    self.write(f"{platform}/drm/{render}/dev", f"226:{minor}\n")
                    self.link(f"/sys/class/drm/{render}", f"../../devices{platform[12:]}/drm/{render}")
                self.nodes[f"/dev/dri/{render}"] = {"type": "char", "mode": "0660", "uid": 0, "gid": 110}
        self.write("/sys/bus/pci/drivers/amdgpu/module/initstate", "live\n")
        self.write("/sys/class/drm/version", "drm 1.1.0 20060810\n")

    def xcp_name(self, number):
        # Kernels name them amdgpu_xcp_N or amdgpu_xcp.N (ROCm/k8s-device-plugin issue 157).
        return f"amdgpu_xcp_{number}" if self.name.startswith("real-mi300x") else f"amdgpu_xcp.{number}"

    def finish(self, expect, absent=(), note=""):
        self.copy_capture()
        self.build_pci()
        self.write("/etc/group", "root:x:0:\nadm:x:4:syslog,alice\nvideo:x:44:alice\nsudo:x:27:alice\n"
                   "render:x:110:alice\nalice:x:1000:\n")
        self.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
        manifest = {"format": "rocm-doctor-snapshot", "version": 1, "captured_at": "2026-12-01T10:00:00Z",
                    "captured_by": "tests/scenarios/gen_real_scenarios.py", "env": self.env,
                    "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [4, 27, 44, 110, 1000]},
                    "nodes": self.nodes, "probes": {}}
        (self.folder / "snapshot.json").write_text(json.dumps(manifest, indent=2) + "\n")
        description = f"{self.description} Source: {self.source} (see SOURCE.md)."
        expected = {"description": description, "expect": expect,
                    "root_causes": [name for name, severity in expect.items() if severity in ("warning", "error")]}
        if absent:
            expected["absent"] = list(absent)
        (self.folder / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
        (self.folder / "SOURCE.md").write_text(
            f"# {self.name}\n\n{self.description}\n\n"
            f"Captured on a real node: `{self.source}`, copied byte for byte to "
            f"`root{TOPOLOGY}/`.\n{note}\n"
            "Built around it by `tests/scenarios/gen_real_scenarios.py` (healthy, so every finding is the "
            "doctor's own judgement of the capture): /etc (os-release, group, passwd, profile), /proc, the "
            "ROCm release under /opt, /sys/module/amdgpu, one PCI function per physical GPU at the address KFD "
            "gives for its first partition (revision from the knowledge base), its DRM card and render node, "
            "the amdgpu_xcp platform devices owning later partitions' render nodes, and the /dev nodes in "
            "snapshot.json.\n")
        return self


def node_number(relative):
    part = relative.split("/")[1] if relative.startswith("nodes/") else "-1"
    return int(part) if part.isdigit() else -1


def ubuntu2004(m, kernel):
    m.base_system("ubuntu2204", kernel)
    m.write("/etc/os-release", 'NAME="Ubuntu"\nVERSION="20.04.6 LTS (Focal Fossa)"\nID=ubuntu\nID_LIKE=debian\n'
            'PRETTY_NAME="Ubuntu 20.04.6 LTS"\nVERSION_ID="20.04"\nVERSION_CODENAME=focal\n')
    return m


def scenarios(git_dir, mixed=True):
    def capture(folder, kept_in, skip=()):
        return Capture(git_dir, K8S_COMMIT, folder, skip) if git_dir else KeptCapture(kept_in)

    def source(folder):
        return f"{K8S_REPO} {folder} at commit {K8S_COMMIT}"

    folder = "testdata/topo-mi300-cpx/topology"
    m = RealNode("real-mi300x-cpx-x8", "8x Instinct MI300X in CPX compute-partition mode (NPS1): 63 KFD GPU nodes, "
                 "8 per GPU sharing its unique_id, except the last GPU, which has 7; ROCm 6.2.4 on Ubuntu 22.04.",
                 capture(folder, "real-mi300x-cpx-x8"), source(folder))
    m.base_system("ubuntu2204", "5.15.0-119-generic")
    m.rocm("6.2.4", "139")
    m.partition_mode = ("CPX", "NPS1")
    m.finish({"gpu.partition-count-mismatch": "warning", "gpu.supported": "ok"},
             absent=["gpu.kfd-mismatch", "gpu.partition-mode-mixed", "gpu.none-visible"],
             note="\nThe capture holds 63 GPU nodes where 8 GPUs in CPX give 64: the last GPU "
             "(location 58624, 0000:e5:00.0) lists partitions 0-6 only, so the doctor says "
             "gpu.partition-count-mismatch for that GPU (and nothing else). amd-smi shows the same 63 on "
             "8x MI300X CPX nodes (ROCm/amdsmi issue 99). Before the partition model the doctor listed "
             "63 GPUs at invented PCI addresses (0000:05:00.1 ...) and raised 55 gpu.kfd-mismatch warnings.\n")

    folder = "testdata/topology-parsing-mi308/topology"
    def partitioned_node(name, description):
        node = RealNode(name, description, capture(folder, "real-mi308x-cpx-x8"), source(folder))
        node.base_system("ubuntu2204", "5.15.0-119-generic")
        node.rocm("6.2.4", "139")
        node.partition_mode = ("CPX", "NPS1")
        return node

    m = partitioned_node("real-mi308x-cpx-x8", "8x Instinct MI308X in CPX compute-partition mode (NPS1) across "
                         "two PCI domains: 32 KFD GPU nodes, 4 per GPU sharing its unique_id, render nodes 8 apart; "
                         "ROCm 6.2.4 on Ubuntu 22.04.")
    m.finish({"gpu.supported": "ok"}, absent=["gpu.kfd-mismatch", "gpu.partition-count-mismatch",
                                              "gpu.partition-mode-mixed"],
             note="\nHealthy: no warning. Before the partition model the doctor raised 24 gpu.kfd-mismatch "
             "warnings here.\n")
    if mixed:
        m = partitioned_node("gpu-partition-mode-mixed", "The real-mi308x-cpx-x8 capture (8x MI308X, CPX) with "
                             "the memory partition of the GPU at 0000:0a:00.0 built as NPS4 while the others are "
                             "NPS1: a mode change that did not reach every GPU.")
        m.mode_overrides = {"0000:0a:00.0": ("CPX", "NPS4")}
        m.finish({"gpu.partition-mode-mixed": "warning", "gpu.supported": "ok"},
                 absent=["gpu.partition-count-mismatch", "gpu.kfd-mismatch"],
                 note="\nOnly current_memory_partition of 0000:0a:00.0 differs from real-mi308x-cpx-x8, its "
                 "healthy twin.\n")

    folder = "testdata/topology-parsing/topology"
    m = RealNode("real-vega10-old-kernel", "Radeon Instinct MI25 (Vega 10, device 0x6860) on a 2018 kernel whose "
                 "KFD writes no gfx_target_version line and an empty name; ROCm 5.2.3 on Ubuntu 20.04.",
                 capture(folder, "real-vega10-old-kernel", skip=("nodes/2",)), source(folder))
    ubuntu2004(m, "5.4.0-42-generic")
    (m.root / "sys/module/amdgpu/version").unlink()  # the kernel's own amdgpu writes no version
    m.rocm("5.2.3", "109")
    m.finish({"gpu.supported": "ok"}, absent=["gpu.none-visible", "gpu.kfd-properties-invalid"],
             note="\nBefore the fix the doctor said gpu.none-visible (error) here: it took a node without "
             "gfx_target_version for a CPU. Now gfx900 comes from the PCI id table, named in the evidence.\n"
             "\nNode 2 of the capture is left out: its README says it is a copy of node 1 made to "
             "simulate a second GPU, not something a machine wrote.\n")

    folder = "testdata/topo-mi210-xgmi-pcie"
    m = RealNode("real-mi210-xgmi-x8", "8x Instinct MI210 (gfx90a) in two XGMI hives of four, linked over PCIe "
                 "between hives; ROCm 6.2.4 on Ubuntu 22.04.", capture(folder, "real-mi210-xgmi-x8"), source(folder))
    m.base_system("ubuntu2204", "5.15.0-119-generic")
    m.rocm("6.2.4", "139")
    m.finish({"gpu.supported": "ok"}, note="\nHealthy before and after the partition model. Node 9's unique_id "
             "is the one the topology-parsing capture's hand-made copy (node 2) carries, so that value may have "
             "been edited; the doctor does not depend on it.\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k8s-device-plugin", help="git directory of ROCm/k8s-device-plugin (default: read "
                        "the captures back from the committed folders that keep them)")
    scenarios(scenario_out.parse(__doc__, parser).k8s_device_plugin)


if __name__ == "__main__":
    main()
