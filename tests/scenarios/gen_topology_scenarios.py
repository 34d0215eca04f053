#!/usr/bin/env python3
"""Writes the container-*, wsl-* and topology-* scenario snapshots.

Reuses gen_gpu_scenarios.Machine (KFD/DRM/PCI sysfs as the kernel lays it out) and adds what
these checks read: PCIe link files ("16.0 GT/s PCIe") on the GPU and its root port, KFD
io_links/p2p_links properties (type 11 = XGMI, 2 = PCIe), IOMMU groups, NUMA cpulists,
/proc/mounts, container marks and WSL files. Rewrites only the folders it names.
"""
import json
import shutil

import gen_gpu_scenarios
from gen_gpu_scenarios import Machine
import scenario_out

DOCKER_MOUNTS = ("overlay / overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/ZQ3V:/var/lib/docker/overlay2/l/"
                 "7KXF,upperdir=/var/lib/docker/overlay2/4f1c/diff,workdir=/var/lib/docker/overlay2/4f1c/work 0 0\n"
                 "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
                 "tmpfs /dev tmpfs rw,nosuid,size=65536k,mode=755,inode64 0 0\n"
                 "sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0\n"
                 "cgroup /sys/fs/cgroup cgroup2 ro,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0\n"
                 "mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec,relatime 0 0\n"
                 "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k,inode64 0 0\n"
                 "/dev/nvme0n1p2 /etc/hosts ext4 rw,relatime 0 0\n")
STATUS = "Name:\tbash\nUmask:\t0022\nState:\tR (running)\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\nGid:\t{gid}\t{gid}\t{gid}\t{gid}\n" \
         "NoNewPrivs:\t0\nSeccomp:\t{seccomp}\nSeccomp_filters:\t{filters}\n"
INIT_MAP = "         0          0 4294967295\n"
# The report's root_causes and also (gen_gpu_scenarios.RESULTS).
gen_gpu_scenarios.state({
    "container-docker-host-gid-109": {"root_causes": ["container.gid-mismatch"]},
    "container-docker-no-kfd": {"root_causes": ["container.kfd-not-passed"]},
    "container-podman-rootless": {"root_causes": ["container.gid-mismatch"]},
    "topology-4x-pcie-one-x4": {"root_causes": ["pcie.link-degraded"], "also": ["rccl.missing"]},
    "topology-iommu-translated-2gpu": {"root_causes": ["iommu.not-passthrough"]},
    "wsl2-rx6800xt-broken": {"root_causes": ["wsl.unsupported-gpu"]},
})


class Node(Machine):
    """A machine with link files, io_links and the extra files these checks read."""

    def __init__(self, name, description, folder=None):
        super().__init__(name, description, folder)
        self.links = {}          # bdf -> (cur_speed, cur_width)
        self.io = "xgmi"         # "xgmi", "pcie-p2p" or "none"
        self.identity = {"user": "alice", "uid": 1000, "gid": 1000, "groups": [4, 27, 44, 110, 1000]}
        self.extra_env = {}
        self.node_overrides = None
        self.iommu_type = None   # "identity" or "DMA-FQ": writes iommu groups
        self.vis_vram = None     # bytes CPU-visible, None = whole VRAM

    def finish(self, expect, absent=(), checks=("os",)):
        self.save(expect, absent, checks)
        for index, gpu in enumerate(self.gpus):
            real = f"/sys/devices/pci0000:00/0000:00:0{1 + index % 7}.1/{gpu['bdf']}"
            port = real.rsplit("/", 1)[0]
            speed, width = self.links.get(gpu["bdf"], ("16.0 GT/s PCIe", "16"))
            self.write(f"{real}/current_link_speed", speed + "\n")
            self.write(f"{real}/current_link_width", width + "\n")
            self.write(f"{real}/max_link_speed", "16.0 GT/s PCIe\n")
            self.write(f"{real}/max_link_width", "16\n")
            for key, value in (("max_link_speed", "16.0 GT/s PCIe"), ("max_link_width", "16"),
                               ("current_link_speed", "16.0 GT/s PCIe"), ("current_link_width", "16"),
                               ("vendor", "0x1022"), ("device", "0x14ab"), ("class", "0x060400")):
                self.write(f"{port}/{key}", value + "\n")
            vis = gpu["vram"] if self.vis_vram is None else self.vis_vram
            self.write(f"{real}/mem_info_vis_vram_total", f"{vis}\n")
            if self.iommu_type:
                self.write(f"/sys/kernel/iommu_groups/{20 + index}/type", self.iommu_type + "\n")
                self.link(f"{real}/iommu_group", f"../../../../kernel/iommu_groups/{20 + index}")
        if self.iommu_type:
            self.write("/sys/devices/pci0000:00/0000:00:00.2/iommu/ivhd0/amd-iommu/cap", "0x00203040\n")
            self.link("/sys/class/iommu/ivhd0", "../../devices/pci0000:00/0000:00:00.2/iommu/ivhd0")
        for cpu in range(self.cpu_nodes):
            first = cpu * self.cpu_cores
            self.write(f"/sys/devices/system/node/node{cpu}/cpulist",
                       f"{first}-{first + self.cpu_cores - 1},{first + self.cpu_cores * self.cpu_nodes}-"
                       f"{first + self.cpu_cores * self.cpu_nodes + self.cpu_cores - 1}\n")
        self.build_io_links()
        manifest = json.loads((self.folder / "snapshot.json").read_text())
        manifest["identity"] = self.identity
        manifest["env"].update(self.extra_env)
        if self.node_overrides is not None:
            manifest["nodes"] = self.node_overrides
        (self.folder / "snapshot.json").write_text(json.dumps(manifest, indent=2) + "\n")
        return self

    def build_io_links(self):
        base = "/sys/class/kfd/kfd/topology/nodes"
        gpu_nodes = [self.cpu_nodes + i for i in range(len(self.gpus))]
        for i, node in enumerate(gpu_nodes):
            cpu = max(self.gpus[i]["numa"], 0)
            links = [(2, node, cpu, 20, 312, 64000)]
            if self.io == "xgmi":
                links += [(11, node, peer, 15, 50000, 50000) for peer in gpu_nodes if peer != node]
            for n, link in enumerate(links):
                self.write(f"{base}/{node}/io_links/{n}/properties", io_link(*link))
            if self.io == "pcie-p2p":
                peers = [peer for peer in gpu_nodes if peer != node]
                for n, peer in enumerate(peers):
                    self.write(f"{base}/{node}/p2p_links/{n}/properties", io_link(2, node, peer, 40, 0, 0))
        for cpu in range(self.cpu_nodes):
            for n, node in enumerate(gpu_nodes):
                self.write(f"{base}/{cpu}/io_links/{n}/properties", io_link(2, cpu, node, 20, 0, 0))


def io_link(kind, node_from, node_to, weight, min_bw, max_bw):
    return (f"type {kind}\nversion_major 0\nversion_minor 0\nnode_from {node_from}\nnode_to {node_to}\n"
            f"weight {weight}\nmin_latency 0\nmax_latency 0\nmin_bandwidth {min_bw}\nmax_bandwidth {max_bw}\n"
            f"recommended_transfer_size 0\nflags 1\n")


def docker(m, uid=1000, gid=1000, seccomp=2):
    m.write("/.dockerenv", "")
    m.write("/proc/1/cgroup", "0::/\n")
    m.write("/proc/mounts", DOCKER_MOUNTS)
    m.write("/proc/self/uid_map", INIT_MAP)
    m.write("/proc/self/status", STATUS.format(uid=uid, gid=gid, seccomp=seccomp, filters=1 if seccomp else 0))
    m.write("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n")
    m.write("/sys/fs/cgroup/memory.max", "max\n")
    m.write("/etc/hostname", "4f1c2a9e7d1b\n")


def rx7900(m, bdfs):
    for bdf in bdfs:
        m.gpu(bdf, "0x744c", "0xc8", "gfx1100", 96, 24, 600)
    return m


def scenarios():
    # --- containers -------------------------------------------------------------------------
    m = rx7900(Node("container-docker-no-kfd", "rocm/pytorch container started with plain `docker run -it "
                    "rocm/pytorch` on a host with an RX 7900 XTX: sysfs shows the GPU, but /dev/kfd and /dev/dri "
                    "were not passed in. The fix is the docker run flags, not a driver install."),
               ["0000:03:00.0"]).base_system()
    m.rocm("6.2.4", "139")
    docker(m, 0, 0)
    m.identity = {"user": "root", "uid": 0, "gid": 0, "groups": [0]}
    m.node_overrides = {}
    m.finish({"container.kfd-not-passed": "error", "driver.kfd-missing": "error", "container.seccomp": "info",
              "container.image-rocm-version": "info", "os.container": "info"},
             absent=["container.gid-mismatch", "container.ok", "driver.amdgpu-not-loaded"],
             checks=("os", "driver", "container"))

    m = rx7900(Node("container-docker-host-gid-109", "ubuntu:22.04-based ROCm image run with `docker run --device "
                    "/dev/kfd --device /dev/dri --user ubuntu --group-add render`: the host's render group is 109, "
                    "the image's render is 992, so the process holds 992 and the nodes want 109"),
               ["0000:03:00.0"]).base_system()
    m.rocm("6.2.4", "139")
    docker(m, 1000, 1000)
    m.write("/etc/group", "root:x:0:\nvideo:x:44:ubuntu\nrender:x:992:ubuntu\nubuntu:x:1000:\n")
    m.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nubuntu:x:1000:1000::/home/ubuntu:/bin/bash\n")
    m.identity = {"user": "ubuntu", "uid": 1000, "gid": 1000, "groups": [44, 992, 1000]}
    m.node_overrides = {"/dev/kfd": {"type": "char", "mode": "0660", "uid": 0, "gid": 109, "access": "none"},
                        "/dev/dri/renderD128": {"type": "char", "mode": "0660", "uid": 0, "gid": 109, "access": "none"},
                        "/dev/dri/card0": {"type": "char", "mode": "0660", "uid": 0, "gid": 44, "access": "rw"}}
    m.finish({"container.gid-mismatch": "error", "access.kfd-denied": "error", "access.render-denied": "error",
              "access.group-missing": "error", "container.seccomp": "info", "container.image-rocm-version": "info",
              "os.container": "info"},
             absent=["container.kfd-not-passed", "container.ok"], checks=("os", "container", "access"))

    m = rx7900(Node("container-podman-rootless", "Rootless podman on Fedora 40 (`podman run --device /dev/kfd "
                    "--device /dev/dri rocm/dev-ubuntu-22.04:6.2`) without --group-add keep-groups: the host's "
                    "render gid is not mapped into the user namespace, so the nodes show as nobody:nogroup (65534) "
                    "and even root in the container is refused"),
               ["0000:03:00.0"]).base_system()
    m.rocm("6.2.4", "139")
    m.write("/run/.containerenv", 'engine="podman-5.0.2"\nname="rocm-dev"\nid="8a1e4c"\n'
            'image="docker.io/rocm/dev-ubuntu-22.04:6.2"\nimageid="3c9b0f"\nrootless=1\n')
    m.write("/proc/1/cgroup", "0::/\n")
    m.write("/proc/self/uid_map", "         0       1000          1\n         1     524288      65536\n")
    m.write("/proc/mounts", DOCKER_MOUNTS.replace("size=65536k,inode64 0 0\n/dev/nvme", "size=64000k,uid=1000,gid=1000,"
                                                  "inode64 0 0\n/dev/nvme"))
    m.write("/proc/self/status", STATUS.format(uid=0, gid=0, seccomp=2, filters=1))
    m.extra_env = {"container": "podman"}
    m.identity = {"user": "root", "uid": 0, "gid": 0, "groups": [0]}
    m.node_overrides = {"/dev/kfd": {"type": "char", "mode": "0660", "uid": 65534, "gid": 65534, "access": "none"},
                        "/dev/dri/renderD128": {"type": "char", "mode": "0660", "uid": 65534, "gid": 65534,
                                                "access": "none"}}
    m.finish({"container.gid-mismatch": "error", "access.kfd-denied": "error", "access.render-denied": "error",
              "container.seccomp": "info", "container.image-rocm-version": "info", "os.container": "info"},
             absent=["container.kfd-not-passed", "container.ok"], checks=("os", "container", "access"))

    m = Node("container-k8s-device-plugin", "Kubernetes pod on an MI300X node requesting amd.com/gpu: 1 through "
             "AMD's device plugin: /dev/kfd and one render node passed in, root in the pod, default 64 MiB "
             "/dev/shm (info with one GPU)").base_system("ubuntu2204", "5.15.0-119-generic")
    m.cpu_nodes, m.cpu_cores = 2, 96
    m.gpu("0000:05:00.0", "0x74a1", "0x00", "gfx942", 304, 192, 290, subsystem=("0x1002", "0x74a1"),
          hive=0x9E1F2A3B4C5D6E7F, sdma=16, xgmi_sdma=14, num_xcc=8, clock=2100, numa=0, pci_class="0x120000")
    m.rocm("6.2.4", "139")
    m.write("/proc/1/cgroup", "0::/\n")
    m.write("/proc/mounts", DOCKER_MOUNTS)
    m.write("/proc/self/uid_map", INIT_MAP)
    m.write("/proc/self/status", STATUS.format(uid=0, gid=0, seccomp=0, filters=0))
    m.write("/var/run/secrets/kubernetes.io/serviceaccount/namespace", "ml-training\n")
    m.write("/var/run/secrets/kubernetes.io/serviceaccount/token", "eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.redacted\n")
    m.extra_env = {"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    m.identity = {"user": "root", "uid": 0, "gid": 0, "groups": [0]}
    m.node_overrides = {"/dev/kfd": {"type": "char", "mode": "0666", "uid": 0, "gid": 0, "access": "rw"},
                        "/dev/dri/renderD128": {"type": "char", "mode": "0666", "uid": 0, "gid": 0, "access": "rw"}}
    m.finish({"container.ok": "ok", "container.no-ipc-host": "info", "container.image-rocm-version": "info",
              "access.ok": "ok", "os.container": "info"},
             absent=["container.kfd-not-passed", "container.gid-mismatch", "container.seccomp"],
             checks=("os", "container", "access"))

    # --- WSL ------------------------------------------------------------------------------------
    for name, healthy in (("wsl2-rx7900xtx-healthy", True), ("wsl2-rx6800xt-broken", False)):
        m = Node(name, "Ubuntu 24.04 under WSL2 with " + (
            "an RX 7900 XTX, ROCm 7.2.0 and librocdxg enabled (HSA_ENABLE_DXG_DETECTION=1): the WSL path is set up"
            if healthy else
            "an RX 6800 XT (gfx1030, not on the WSL list) and ROCm 7.2.0 without librocdxg: runtime missing and GPU "
            "unsupported")).base_system("ubuntu2404", "6.6.87.2-microsoft-standard-WSL2")
        m.write("/proc/version", "Linux version 6.6.87.2-microsoft-standard-WSL2 (root@439a258ad544) (gcc (GCC) "
                "11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP PREEMPT_DYNAMIC Thu Jun  5 18:30:46 UTC 2025\n")
        m.write("/proc/cmdline", "initrd=\\initrd.img WSL_ROOT_INIT=1 panic=-1 nr_cpus=16 hv_utils.timesync_"
                "implicit=1 console=hvc0 debug pty.legacy_count=0 WSL_ENABLE_CRASH_DUMP=1\n")
        for lib in ("libdxcore.so", "libd3d12.so", "libd3d12core.so"):
            m.write(f"/usr/lib/wsl/lib/{lib}", "")
        m.rocm("7.2.0", "43")
        m.extra_env = {"WSL_DISTRO_NAME": "Ubuntu-24.04", "WSL_INTEROP": "/run/WSL/1_interop"}
        m.node_overrides = {"/dev/dxg": {"type": "char", "mode": "0666", "uid": 0, "gid": 0, "access": "rw"}}
        if healthy:
            m.write("/opt/rocm-7.2.0/lib/librocdxg.so", "")
            m.extra_env["HSA_ENABLE_DXG_DETECTION"] = "1"
            m.finish({"os.wsl": "info", "wsl.driver": "info", "wsl.ok": "ok"},
                     absent=["wsl.no-dxg", "wsl.runtime-missing", "wsl.unsupported-gpu", "driver.kfd-missing",
                             "access.kfd-denied"],
                     checks=("os", "wsl", "driver", "access", "container", "topology"))
            manifest = json.loads((m.folder / "snapshot.json").read_text())
            manifest["probes"] = {"hip": {"status": "ok", "device_count": 1, "devices": [
                {"index": 0, "name": "AMD Radeon RX 7900 XTX", "pci_bus_id": "0000:00:00.0", "compute_units": 48,
                 "gfx": "gfx1100", "isa": "amdgcn-amd-amdhsa--gfx1100"}]}}
        else:
            m.finish({"os.wsl": "info", "wsl.driver": "info", "wsl.runtime-missing": "error",
                      "wsl.unsupported-gpu": "error"},
                     absent=["wsl.ok", "driver.kfd-missing", "access.kfd-denied"],
                     checks=("os", "wsl", "driver", "access"))
            manifest = json.loads((m.folder / "snapshot.json").read_text())
            manifest["probes"] = {"hip": {"status": "ok", "device_count": 1, "devices": [
                {"index": 0, "name": "AMD Radeon RX 6800 XT", "pci_bus_id": "0000:00:00.0", "compute_units": 36,
                 "gfx": "gfx1030", "isa": "amdgcn-amd-amdhsa--gfx1030"}]}}
        (m.folder / "snapshot.json").write_text(json.dumps(manifest, indent=2) + "\n")
        # WSL has no amdgpu module and no KFD: the GPU is behind /dev/dxg.
        for folder in ("sys/module", "sys/class/kfd", "sys/bus", "sys/class/drm"):
            shutil.rmtree(m.root / folder, ignore_errors=True)

    # --- topology -------------------------------------------------------------------------------
    m = Node("topology-mi300x-x8-xgmi", "8x Instinct MI300X (gfx942) on a dual-socket EPYC 9654, one XGMI hive "
             "with every GPU linked to every other (io_links type 11), IOMMU in passthrough (iommu=pt), "
             "ROCm 6.2.4 with RCCL").base_system("ubuntu2204", "5.15.0-119-generic")
    m.cpu_nodes, m.cpu_cores = 2, 96
    for i, bus in enumerate(["05", "15", "65", "75", "85", "95", "e5", "f5"]):
        m.gpu(f"0000:{bus}:00.0", "0x74a1", "0x00", "gfx942", 304, 192, 290, subsystem=("0x1002", "0x74a1"),
              hive=0x9E1F2A3B4C5D6E7F, sdma=16, xgmi_sdma=14, num_xcc=8, clock=2100, numa=0 if i < 4 else 1,
              pci_class="0x120000")
    m.rocm("6.2.4", "139")
    m.write("/proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-5.15.0-119-generic root=UUID=6f1c2a9e-7d1b-4b7e-9a43-"
            "2f0c8d1e5b21 ro iommu=pt amd_iommu=on\n")
    m.iommu_type = "identity"
    m.finish({"topology.xgmi": "info", "topology.p2p": "info", "topology.numa": "info",
              "topology.large-bar": "info"},
             absent=["iommu.not-passthrough", "rccl.missing", "pcie.link-degraded"], checks=("os", "topology"))

    m = rx7900(Node("topology-4x-pcie-one-x4", "4x Radeon PRO W7900-class cards (gfx1100) on PCIe, the fourth in a "
                    "slot whose link trained at x4 of x16; IOMMU off in firmware; ROCm 6.2.4 without RCCL; PCIe "
                    "peer links (p2p_links type 2) between all cards"),
               ["0000:03:00.0", "0000:23:00.0", "0000:43:00.0", "0000:63:00.0"]).base_system()
    m.rocm("6.2.4", "139")
    for name in ("librccl.so.1.0.60204",):
        (m.root / "opt/rocm-6.2.4/lib" / name).unlink(missing_ok=True)
    m.io = "pcie-p2p"
    m.links = {"0000:63:00.0": ("16.0 GT/s PCIe", "4")}
    m.finish({"pcie.link-degraded": "warning", "rccl.missing": "warning", "topology.p2p": "info",
              "topology.large-bar": "info"},
             absent=["iommu.not-passthrough", "topology.xgmi"], checks=("os", "topology"))

    m = rx7900(Node("topology-iommu-translated-2gpu", "Threadripper workstation with two RX 7900 XTX, amd_iommu on "
                    "by default and no iommu=pt: the GPUs' IOMMU groups use translated DMA (DMA-FQ), the cause of "
                    "RCCL hangs"),
               ["0000:03:00.0", "0000:43:00.0"]).base_system()
    m.rocm("6.2.4", "139")
    m.iommu_type = "DMA-FQ"
    m.write("/etc/default/grub", 'GRUB_DEFAULT=0\nGRUB_TIMEOUT_STYLE=hidden\nGRUB_TIMEOUT=0\n'
            'GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n'
            'GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"\nGRUB_CMDLINE_LINUX=""\n')
    m.finish({"iommu.not-passthrough": "warning", "topology.p2p": "info", "topology.large-bar": "info"},
             absent=["rccl.missing", "pcie.link-degraded"], checks=("os", "topology"))


def main():
    scenario_out.parse(__doc__)
    scenarios()


if __name__ == "__main__":
    main()
