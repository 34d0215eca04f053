#!/usr/bin/env python3
"""Writes the slurm-confined-*, slurm-unconfined-* and docker-device-subset-* scenarios.

Not captures of real jobs (none was found in public repositories or threads): each is the
gpu-mi300x-x8 machine seen from inside a job whose device cgroup closes some GPUs, as the
kernel and Slurm present it:
- KFD answers EPERM for gpu_id, name and properties of a GPU node whose render node the
  process's device cgroup refuses (drm/amdkfd "Check against device cgroup", 2019): those
  files go to snapshot.json 'unreadable', as a capture records them;
- the closed render nodes answer access(2) and open(2) with EPERM whatever their mode
  ('access': 'none', 'access_error': 'EPERM'), the open ones 'rw';
- Slurm sets SLURM_JOB_ID, SLURM_STEP_ID, SLURM_JOB_GPUS/SLURM_STEP_GPUS (global ids) and,
  under ConstrainDevices=yes, ROCR_VISIBLE_DEVICES/CUDA_VISIBLE_DEVICES/GPU_DEVICE_ORDINAL
  relative to the job (0..k-1; SchedMD slurm src/plugins/gres/common/gres_common.c);
- a `docker run --device=/dev/dri/renderD<N>` container has only that render node in /dev.
Rewrites only the folders it names.
"""
import json
import os
import shutil

import scenario_out

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "gpu-mi300x-x8")
NOT_COPIED = shutil.ignore_patterns("SOURCE.md")  # the base's SOURCE.md is about the base
scenario_out.parse(__doc__)
TOPOLOGY = "/sys/class/kfd/kfd/topology/nodes"
GPU_NODES = list(range(2, 10))  # KFD nodes 0 and 1 are the two CPU sockets
RENDER_MINOR = {node: 126 + node for node in GPU_NODES}  # node 2 -> renderD128 ... node 9 -> renderD135
DOCKER_MOUNTS = ("overlay / overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/ZQ3V,upperdir=/var/lib/docker/"
                 "overlay2/4f1c/diff,workdir=/var/lib/docker/overlay2/4f1c/work 0 0\n"
                 "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
                 "tmpfs /dev tmpfs rw,nosuid,size=65536k,mode=755,inode64 0 0\n"
                 "sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0\n")


def slurm_env(job_gpus, visible, variables=("ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")):
    env = {"SLURM_JOB_ID": "4242", "SLURM_STEP_ID": "0", "SLURM_JOB_GPUS": job_gpus, "SLURM_STEP_GPUS": job_gpus,
           "SLURM_GPUS_ON_NODE": str(len([g for g in job_gpus.split(",") if g]))}
    if visible is not None:
        env.update({name: visible for name in variables})
    return env


def write(name, description, open_nodes, env, expect, absent=(), docker=False, root_causes=()):
    target = str(scenario_out.folder(name))
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(BASE, target, symlinks=True, ignore=NOT_COPIED)
    with open(os.path.join(target, "snapshot.json")) as f:
        snap = json.load(f)
    snap["captured_by"] = "tests/scenarios/gen_confined_scenarios.py"
    snap["env"].update(env)
    unreadable = set(snap.get("unreadable", []))
    for node in GPU_NODES:
        render = "/dev/dri/renderD%d" % RENDER_MINOR[node]
        card = "/dev/dri/card%d" % (node - 2)
        if node in open_nodes:
            snap["nodes"][render]["access"] = "rw"
            continue
        for leaf in ("gpu_id", "name", "properties"):
            path = "%s/%d/%s" % (TOPOLOGY, node, leaf)
            os.remove(os.path.join(target, "root", path.lstrip("/")))
            unreadable.add(path)
        if docker:  # the container has only the devices it was given
            del snap["nodes"][render]
            del snap["nodes"][card]
        else:
            snap["nodes"][render].update({"access": "none", "access_error": "EPERM"})
    snap["unreadable"] = sorted(unreadable)
    if docker:
        os.makedirs(os.path.join(target, "root/proc/self"), exist_ok=True)
        with open(os.path.join(target, "root/proc/self/mounts"), "w") as f:
            f.write(DOCKER_MOUNTS)
        with open(os.path.join(target, "root/.dockerenv"), "w") as f:
            f.write("")
    with open(os.path.join(target, "snapshot.json"), "w") as f:
        json.dump(snap, f, indent=2)
        f.write("\n")
    # rocm-install is left out: the base machine's loader cache is not part of it (rocm.lib-not-found there
    # is the base's, not the job's); every other check that reads the GPUs runs.
    expected = {"description": description, "checks": CHECKS, "expect": expect}
    if absent:
        expected["absent"] = list(absent)
    if root_causes:
        expected["root_causes"] = list(root_causes)
    with open(os.path.join(target, "expected.json"), "w") as f:
        json.dump(expected, f, indent=2)
        f.write("\n")


CHECKS = ["os", "platform", "container", "driver", "driver-config", "kernel-log", "access", "job", "packages",
          "gpu-arch", "libraries", "topology", "env", "miopen", "tools"]
NOT_REAL = ("Not a capture (none of a confined job was found): gpu-mi300x-x8 as seen from inside the job, laid out "
            "as KFD and Slurm present it (tests/scenarios/gen_confined_scenarios.py). ")
FALSE_ALARMS = ["gpu.kfd-mismatch", "gpu.kfd-properties-invalid", "access.render-denied", "gpu.none-visible",
                "env.visible-devices-invalid", "hip.device-mismatch"]

write("slurm-confined-2-of-8",
      NOT_REAL + "Slurm job 4242 step 0 with ConstrainDevices=yes on an 8x MI300X node, given the node's GPUs 4 and 5 "
      "(KFD nodes 6 and 7): the other six KFD nodes answer EPERM and their render nodes refuse open; Slurm set "
      "ROCR_VISIBLE_DEVICES=0,1 relative to the job. A job's normal state: no warning or error.",
      open_nodes={6, 7}, env=slurm_env("4,5", "0,1"),
      expect={"job.gpus": "info", "access.ok": "ok", "gpu.supported": "ok"}, absent=FALSE_ALARMS + ["job.no-gpus"])
write("slurm-confined-no-gpus",
      NOT_REAL + "Slurm job 4242 started without --gpus on an 8x MI300X node with ConstrainDevices=yes: every GPU's "
      "KFD node answers EPERM and every render node refuses open, so ROCm finds no device. The job, not the node, "
      "lacks GPUs: job.no-gpus, and no gpu.none-visible.",
      open_nodes=set(), env=slurm_env("", None),
      expect={"job.no-gpus": "warning", "access.ok": "ok"}, absent=FALSE_ALARMS + ["job.gpus"],
      root_causes=["job.no-gpus"])
write("slurm-confined-global-visible-devices",
      NOT_REAL + "Slurm job 4242 given the node's GPUs 4 and 5 (ConstrainDevices=yes), whose job script exports "
      "ROCR_VISIBLE_DEVICES=$SLURM_JOB_GPUS (4,5): inside the job ROCm numbers its two GPUs 0 and 1, so index 4 "
      "names a GPU this job cannot use and no GPU is visible (the flux-core PR 7806 bug, seen from Slurm).",
      open_nodes={6, 7}, env={**slurm_env("4,5", None), "ROCR_VISIBLE_DEVICES": "4,5"},
      expect={"job.gpus": "info", "env.visible-devices-invalid": "error", "access.ok": "ok", "gpu.supported": "ok"},
      absent=["gpu.kfd-mismatch", "gpu.kfd-properties-invalid", "access.render-denied"],
      root_causes=["env.visible-devices-invalid"])
write("slurm-unconfined-2-of-8",
      NOT_REAL + "Healthy twin of slurm-confined-2-of-8: Slurm job 4242 given GPUs 4 and 5 with ConstrainDevices=no, "
      "so every GPU stays open and Slurm (gres.conf Flags=amd_gpu_env) sets ROCR_VISIBLE_DEVICES=4,5, global ids "
      "when devices are not constrained: valid, no warning.",
      open_nodes=set(GPU_NODES), env=slurm_env("4,5", "4,5", ("ROCR_VISIBLE_DEVICES",)),
      expect={"job.gpus": "info", "access.ok": "ok", "gpu.supported": "ok"}, absent=FALSE_ALARMS + ["job.no-gpus"])
write("docker-device-subset-1-of-8",
      NOT_REAL + "A container started with docker run --device=/dev/kfd --device=/dev/dri/renderD128 on an 8x "
      "MI300X host: /dev/dri holds only renderD128 and card0, the host's sysfs shows all eight GPUs, and KFD answers "
      "EPERM for the seven the container's device cgroup refuses. One GPU, no warning or error.",
      open_nodes={2}, env={}, docker=True,
      expect={"job.gpus": "info", "access.ok": "ok", "gpu.supported": "ok"}, absent=FALSE_ALARMS + ["job.no-gpus"])
