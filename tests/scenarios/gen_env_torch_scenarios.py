#!/usr/bin/env python3
"""Generates the env/torch/miopen/tools scenarios from the healthy RX 7900 XTX machine
(ROCm 6.2.4, gfx1100): each copies its snapshot and changes env, probes or nodes."""
import json, shutil, pathlib

import scenario_out

HERE = pathlib.Path(__file__).parent
BASE = HERE / "ubuntu2204-rx7900xtx-healthy"
NOT_COPIED = shutil.ignore_patterns("SOURCE.md")  # the base's SOURCE.md is about the base


def python_probe(torch):
    return {"status": "ok", "elapsed_ms": 2140, "exit_code": 0, "stderr_tail": "", "stderr_bytes": 0,
            "result": {"executable": "/home/alice/venv/bin/python3", "version": "3.10.12", "torch": torch}}


def torch(version, hip, cuda, available=True, arch=("gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100"),
          devices=("AMD Radeon RX 7900 XTX",)):
    return {"version": version, "hip": hip, "cuda": cuda, "gpu_available": available,
            "device_count": len(devices) if available else 0, "arch_list": list(arch) if available or hip else [],
            "devices": list(devices) if available else [], "error": None}


ROCM62 = torch("2.5.1+rocm6.2", "6.2.41133-dd7f95766", None)
SCENARIOS = {
    "torch-rocm62-healthy": ("ROCm 6.2 wheel in a venv, gfx1100 in its arch list", ["torch"],
                             {"VIRTUAL_ENV": "/home/alice/venv"}, python_probe(ROCM62), {"torch.ok": "ok"}),
    "torch-cuda-wheel": ("plain pip install torch: an NVIDIA CUDA wheel", ["torch"], {},
                         python_probe(torch("2.3.1+cu121", None, "12.1", available=False)), {"torch.cuda-build": "error"}),
    "torch-cpu-wheel": ("a CPU-only wheel", ["torch"], {},
                        python_probe(torch("2.4.1+cpu", None, None, available=False)), {"torch.cpu-build": "error"}),
    "torch-import-error": ("the wheel's libamdhip64 cannot be loaded", ["torch"], {},
                           python_probe({"version": None, "hip": None, "cuda": None, "gpu_available": None,
                                         "device_count": None, "arch_list": None, "devices": None,
                                         "error": "ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory"}),
                           {"torch.import-failed": "error"}),
    "torch-not-installed": ("python3 without torch", ["torch"], {"CONDA_PREFIX": "/home/alice/miniconda3"},
                            python_probe(None), {"torch.not-installed": "info"}),
    "torch-no-python": ("no python3 on PATH", ["torch"], {},
                        {"status": "ok", "elapsed_ms": 0, "result": {"executable": None, "version": None, "torch": None,
                                                                     "error": "no python3 on PATH (/usr/bin:/bin)"}},
                        {"torch.no-python": "info"}),
    "torch-import-crash": ("python crashes while importing torch", ["torch"], {},
                           {"status": "crashed", "elapsed_ms": 900, "signal": 11, "signal_name": "SIGSEGV",
                            "stderr_tail": "Segmentation fault in libhsa-runtime64.so.1\n", "stderr_bytes": 40},
                           {"torch.import-failed": "error"}),
    "torch-probe-timeout": ("importing torch hangs", ["torch"], {},
                            {"status": "timeout", "elapsed_ms": 30000, "timeout_ms": 30000, "stderr_tail": "", "stderr_bytes": 0},
                            {"torch.probe-failed": "warning"}),
    "torch-arch-missing": ("a ROCm 6.2 wheel whose arch list lacks gfx1100", ["torch"], {},
                           python_probe(torch("2.5.1+rocm6.2", "6.2.41133-dd7f95766", None,
                                              arch=("gfx900", "gfx906", "gfx90a", "gfx1030"))),
                           {"torch.arch-missing": "error"}),
    "torch-no-gpu": ("a ROCm wheel that sees no GPU because ROCR_VISIBLE_DEVICES is empty", ["torch", "env"],
                     {"ROCR_VISIBLE_DEVICES": ""},
                     python_probe(torch("2.5.1+rocm6.2", "6.2.41133-dd7f95766", None, available=False)),
                     {"torch.no-gpu": "error", "env.visible-devices-invalid": "error"}),
    "torch-rocm-mismatch": ("a ROCm 5.7 wheel on a ROCm 6.2.4 machine", ["torch"], {},
                            python_probe(torch("2.2.2+rocm5.7", "5.7.31921-d1770ee1b", None)),
                            {"torch.rocm-mismatch": "warning"}),
    "env-seed-advice": ("the tuning guide's variables: HIP_LAUNCH_BLOCKING=1, NCCL_GROUP_SIZE=4, HSA_AMD_SDMA_SIZE_MB=1024, HIP_PATH=/opt/rocm/hip",
                        ["env"], {"HIP_LAUNCH_BLOCKING": "1", "NCCL_GROUP_SIZE": "4", "HSA_AMD_SDMA_SIZE_MB": "1024",
                                  "HIP_PATH": "/opt/rocm/hip"}, None,
                        {"env.launch-blocking": "warning", "env.unknown-variable": "warning", "env.path-invalid": "error"}),
    "env-typos": ("misspelled names and an unknown one: HSA_OVERIDE_GFX_VERSION, hsa_override_gfx_version, ROCM_VISIBLE_DEVICES, AMD_SOMETHING_NEW",
                  ["env"], {"HSA_OVERIDE_GFX_VERSION": "11.0.0", "hsa_override_gfx_version": "11.0.0",
                            "ROCM_VISIBLE_DEVICES": "0", "AMD_SOMETHING_NEW": "1"}, None,
                  {"env.unknown-variable": "warning"}),
    "env-visible-devices-bad": ("HIP_VISIBLE_DEVICES='0 1' (spaces) and CUDA_VISIBLE_DEVICES=3 on a one-GPU machine",
                                ["env"], {"HIP_VISIBLE_DEVICES": "0 1", "CUDA_VISIBLE_DEVICES": "3"}, None,
                                {"env.visible-devices-invalid": "error"}),
    "env-visible-devices-conflict": ("ROCR_VISIBLE_DEVICES=0 then HIP_VISIBLE_DEVICES=1: index 1 is gone after the first filter",
                                     ["env"], {"ROCR_VISIBLE_DEVICES": "0", "HIP_VISIBLE_DEVICES": "1"}, None,
                                     {"env.visible-devices-conflict": "warning"}),
    "env-serialize-and-alloc-conf": ("AMD_SERIALIZE_KERNEL=3, AMD_LOG_LEVEL=4 and PYTORCH_HIP_ALLOC_CONF=expandable_segments:true",
                                     ["env"], {"AMD_SERIALIZE_KERNEL": "3", "AMD_LOG_LEVEL": "4",
                                               "PYTORCH_HIP_ALLOC_CONF": "garbage_collection_threshold:0.8,expandable_segments:true"},
                                     None, {"env.serialize": "warning", "env.debug-logging": "warning",
                                            "env.alloc-conf-invalid": "error"}),
    "env-debug-logging": ("AMD_LOG_LEVEL=3 left in the environment: the HIP runtime logs every call",
                          ["env"], {"AMD_LOG_LEVEL": "3"}, None, {"env.debug-logging": "warning"}),
    "env-debug-logging-healthy": ("healthy twin of env-debug-logging: AMD_LOG_LEVEL=2 (warnings only) is not a debugging switch",
                                  ["env"], {"AMD_LOG_LEVEL": "2"}, None, {"env.ok": "ok"}),
    "env-arch-and-mixed-releases": ("PYTORCH_ROCM_ARCH=gfx90a;gfx1030 on a gfx1100 machine, LD_LIBRARY_PATH with /opt/rocm-5.7.1/lib",
                                    ["env"], {"PYTORCH_ROCM_ARCH": "gfx90a;gfx1030", "LD_LIBRARY_PATH": "/opt/rocm-5.7.1/lib"},
                                    None, {"env.rocm-arch-mismatch": "warning", "env.mixed-releases": "warning"}),
    "env-healthy-settings": ("real variables set right: HSA_OVERRIDE_GFX_VERSION_1, HSA_ENABLE_SDMA=0, ROCR_VISIBLE_DEVICES=0, PYTORCH_HIP_ALLOC_CONF, AMD_LOG_LEVEL=1, ROCM_PATH",
                             ["env"], {"HSA_ENABLE_SDMA": "0", "ROCR_VISIBLE_DEVICES": "GPU-0,0".replace("GPU-0,", ""),
                                       "PYTORCH_HIP_ALLOC_CONF": "garbage_collection_threshold:0.8,max_split_size_mb:512",
                                       "AMD_LOG_LEVEL": "1", "ROCM_PATH": "/opt/rocm", "NCCL_DEBUG": "INFO",
                                       "MIOPEN_FIND_MODE": "FAST"}, None, {"env.ok": "ok"}),
    "miopen-readonly-container": ("a container whose root file system is read-only: MIOpen cannot keep its cache",
                                  ["miopen"], {"HOME": "/home/alice"}, python_probe(ROCM62),
                                  {"miopen.cache-unwritable": "warning"}),
    "miopen-writable": ("MIOpen's folders are the user's own", ["miopen"], {"HOME": "/home/alice"},
                        python_probe(ROCM62), {"miopen.ok": "ok"}),
    "tools-rocm-bin": ("amd-smi and clinfo in /opt/rocm/bin (on PATH)", ["tools"], {}, None, {"tools.installed": "info"}),
    "tools-none": ("no ROCm tool anywhere: PATH is /usr/bin:/bin", ["tools"], {"PATH": "/usr/bin:/bin"}, None,
                   {"tools.none": "info"}),
}

MOUNTS_RO = "overlay / overlay ro,relatime,lowerdir=/var/lib/docker/overlay2/l/A 0 0\nproc /proc proc rw,nosuid 0 0\n"
MOUNTS_RW = "/dev/nvme0n1p2 / ext4 rw,relatime 0 0\nproc /proc proc rw,nosuid 0 0\n"
# Snapshots hold owners only for /dev nodes, so replay judges MIOpen's folders by mount flags.
HOME_NODES = {}
EXTRA = {
    "miopen-readonly-container": (MOUNTS_RO, HOME_NODES),
    "miopen-writable": (MOUNTS_RW, HOME_NODES),
}
TOOLS_NONE = ["tools-none"]
# What the report says beyond `expect`: its ranked root_causes, also and versions (compared exactly).
RESULTS = {
    "env-arch-and-mixed-releases": {"root_causes": ["env.rocm-arch-mismatch", "env.mixed-releases"]},
    "env-debug-logging": {"root_causes": ["env.debug-logging"]},
    "env-seed-advice": {"root_causes": ["env.path-invalid", "env.launch-blocking"], "also": ["env.unknown-variable"]},
    "env-serialize-and-alloc-conf": {"root_causes": ["env.alloc-conf-invalid", "env.serialize", "env.debug-logging"]},
    "env-typos": {"root_causes": [], "also": ["env.unknown-variable"]},
    "env-visible-devices-bad": {"root_causes": ["env.visible-devices-invalid"]},
    "env-visible-devices-conflict": {"root_causes": ["env.visible-devices-conflict"]},
    "miopen-readonly-container": {"root_causes": ["miopen.cache-unwritable"]},
    "torch-arch-missing": {"root_causes": ["torch.arch-missing"]},
    "torch-cpu-wheel": {"root_causes": ["torch.cpu-build"]},
    "torch-cuda-wheel": {"root_causes": ["torch.cuda-build"]},
    "torch-import-crash": {"root_causes": ["torch.import-failed"]},
    "torch-import-error": {"root_causes": ["torch.import-failed"]},
    "torch-no-gpu": {"root_causes": ["env.visible-devices-invalid"]},
    "torch-probe-timeout": {"root_causes": [], "also": ["torch.probe-failed"]},
    "torch-rocm-mismatch": {"root_causes": ["torch.rocm-mismatch"]},
    "torch-rocm62-healthy": {"versions": {"rocm": "6.2.4", "rocm_packaging": "amd", "rocm_prefix":
        "/opt/rocm-6.2.4", "hip": "6.2.41134", "torch": "2.5.1+rocm6.2", "torch_hip": "6.2.41133-dd7f95766"}},
}


def main():
    scenario_out.parse(__doc__)
    for name, (description, checks, env, probe, expect) in SCENARIOS.items():
        target = scenario_out.folder(name)
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(BASE, target, symlinks=True, ignore=NOT_COPIED)
        snapshot = json.loads((target / "snapshot.json").read_text())
        snapshot["env"].update(env)
        if name in EXTRA:
            mounts, nodes = EXTRA[name]
            (target / "root/proc").mkdir(parents=True, exist_ok=True)
            (target / "root/proc/mounts").write_text(mounts)
            snapshot["nodes"].update(nodes)
        if name in TOOLS_NONE:
            shutil.rmtree(target / "root/opt", ignore_errors=True)
        if probe is not None:
            snapshot.setdefault("probes", {})["python"] = probe
        (target / "snapshot.json").write_text(json.dumps(snapshot, indent=2) + "\n")
        expected = {"description": "Ubuntu 22.04, RX 7900 XTX (gfx1100), ROCm 6.2.4: " + description,
                    "checks": checks, "expect": expect, **RESULTS.get(name, {})}
        (target / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")


if __name__ == "__main__":
    main()
