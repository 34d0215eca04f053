#!/usr/bin/env python3
"""Writes the platform-sriov-* scenarios from platform-virtualized (a QEMU/KVM guest).

Not captures (no public sysfs dump of an AMD VF was found): the PCI layout follows Linux
Documentation/PCI/pci-iov-howto.rst (a VF's folder has a 'physfn' link to its PF, the PF
'virtfnN' links to its VFs, seen on the SR-IOV host; a guest sees the VF as a plain function
with the VF's own device id, MI300X VF 0x74b5 in pci.ids). Rewrites only the folders it names.
"""
import json
import os
import shutil

import scenario_out

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "platform-virtualized")
NOT_COPIED = shutil.ignore_patterns("SOURCE.md")  # the base's SOURCE.md is about the base
scenario_out.parse(__doc__)
GPU = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0"


def put(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def link(root, path, target):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if os.path.lexists(full):
        os.remove(full)
    os.symlink(target, full)


def start(name, description, expect, absent):
    target = str(scenario_out.folder(name))
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(BASE, target, symlinks=True, ignore=NOT_COPIED)
    with open(os.path.join(target, "expected.json"), "w") as f:
        json.dump({"description": description, "checks": ["platform"], "expect": expect, "absent": absent}, f,
                  indent=2)
        f.write("\n")
    return os.path.join(target, "root")


root = start("platform-sriov-guest-mi300x-vf",
             "Not a capture: Ubuntu 22.04 KVM guest (QEMU Q35) given one SR-IOV virtual function of an MI300X "
             "(device 0x74b5, 'Instinct MI300X VF' in pci.ids) by the host's GIM driver; the guest sees no physfn "
             "link. Recognised by its device id: os.sriov-vf says what a VF cannot do, no warning.",
             {"os.virtualized": "info", "os.sriov-vf": "info"}, ["os.unsupported", "os.kernel-unsupported"])
put(root, GPU + "/device", "0x74b5\n")
put(root, GPU + "/revision", "0x00\n")

root = start("platform-sriov-host-vfs",
             "Not a capture: a bare-metal MI300X SR-IOV host (no hypervisor flag, Supermicro DMI) whose GPU "
             "0000:03:00.0 has one virtual function 0000:03:02.0 bound to vfio-pci for a guest: its folder's "
             "physfn link names the PF. The host's view of SR-IOV, not a virtual machine.",
             {"os.sriov-vf": "info"}, ["os.virtualized", "os.unsupported", "os.kernel-unsupported"])
put(root, "sys/class/dmi/id/sys_vendor", "Supermicro\n")
put(root, "sys/class/dmi/id/product_name", "AS -8125GS-TNMR2\n")
put(root, "proc/cpuinfo", open(os.path.join(root, "proc/cpuinfo")).read().replace(" hypervisor", "")
    if os.path.exists(os.path.join(root, "proc/cpuinfo")) else "processor\t: 0\nflags\t\t: fpu vme de pse\n")
put(root, GPU + "/device", "0x74a1\n")
put(root, GPU + "/revision", "0x00\n")
VF = GPU.rsplit("/", 1)[0] + "/0000:03:02.0"
for leaf, text in (("vendor", "0x1002\n"), ("device", "0x74b5\n"), ("revision", "0x00\n"), ("class", "0x120000\n")):
    put(root, VF + "/" + leaf, text)
link(root, VF + "/physfn", "../0000:03:00.0")
link(root, GPU + "/virtfn0", "../0000:03:02.0")
link(root, VF + "/driver", "../../../../../../bus/pci/drivers/vfio-pci")
link(root, "sys/bus/pci/devices/0000:03:02.0", "../../../" + VF[len("sys/"):])
