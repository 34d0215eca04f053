#!/usr/bin/env python3
"""Collects the seed corpora of the fuzz targets (fuzz/corpus/<target>/) from the
real-looking files of tests/scenarios/*/root/... and their snapshot.json.

Small on purpose: identical files are kept once (named by their SHA-1, as
libFuzzer names its inputs), files above 64 KiB are left out, and each target
keeps at most 40 seeds, picked deterministically. Rerun after adding scenarios:
    fuzz/collect-seeds.py [path/to/rocm-doctor]
With a built rocm-doctor it also writes JSON reports of a few scenarios as the
report_digest seeds (what `diff` and `fleet` read).
"""
import hashlib
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
SCENARIOS = HERE.parent / "tests" / "scenarios"
CORPUS = HERE / "corpus"
MAX_SIZE = 64 * 1024
MAX_SEEDS = 40

# target -> glob patterns under tests/scenarios/
FILE_SEEDS = {
    "kfd_properties": ["*/root/sys/**/topology/nodes/*/properties", "*/root/sys/**/io_links/*/properties",
                       "*/root/sys/**/p2p_links/*/properties"],
    "group_file": ["*/root/etc/group"],
    "passwd_file": ["*/root/etc/passwd"],
    "os_release": ["*/root/etc/os-release", "*/root/usr/lib/os-release", "*/root/proc/sys/kernel/osrelease"],
    "snapshot_manifest": ["*/snapshot.json"],
    "kernel_cmdline": ["*/root/proc/cmdline", "*/root/etc/default/grub"],
    "version_files": ["*/root/opt/**/.info/version*", "*/root/opt/**/share/hip/version",
                      "*/root/sys/module/amdgpu/version"],
}

# target -> environment variables (from snapshot.json) whose values are seeds
ENV_SEEDS = {
    "gfx_override": lambda name: name.startswith("HSA_OVERRIDE_GFX_VERSION"),
    "alloc_conf": lambda name: name.endswith("_ALLOC_CONF"),
    "visible_devices": lambda name: name.endswith("_VISIBLE_DEVICES") or name in (
        "PYTORCH_ROCM_ARCH", "AMDGPU_TARGETS", "GPU_TARGETS"),
}

# Hand-written seeds for shapes the scenarios lack.
EXTRA_SEEDS = {
    "gfx_override": [b"10.3.0", b"11.0.0", b"9.4.2", b"gfx90a", b"gfx1100", b"gfx942:sramecc+:xnack-"],
    "alloc_conf": [b"expandable_segments:True", b"garbage_collection_threshold:0.8,max_split_size_mb:512",
                   b"roundup_power2_divisions:[256:1,512:2,>:8]", b"backend:native"],
    "visible_devices": [b"0,1", b"GPU-4b2c1a9f12345678,1", b"-1", b"", b"gfx90a;gfx942 gfx1100"],
    "version_files": [b"6.2.4-115\n", b"HIP_VERSION_MAJOR=6\nHIP_VERSION_MINOR=2\nHIP_VERSION_PATCH=41134\n",
                      b"6.8.5\n6.2.4", b"1:6.8.5.60204-2041575.22.04\n6.4.1", b"libamdhip64.so.5.2.21153"],
}


def seeds_from_files(patterns):
    for pattern in patterns:
        for path in sorted(SCENARIOS.glob(pattern)):
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_SIZE:
                yield path.read_bytes()


def seeds_from_env(wanted):
    for manifest in sorted(SCENARIOS.glob("*/snapshot.json")):
        env = json.loads(manifest.read_text()).get("env", {})
        for name, value in sorted(env.items()):
            if wanted(name):
                yield value.encode()


def reports(doctor):
    scenarios = sorted(p.parent for p in SCENARIOS.glob("*/snapshot.json"))
    for scenario in scenarios[:: max(1, len(scenarios) // 12)]:
        run = subprocess.run([doctor, "--replay", str(scenario), "--json"], capture_output=True, check=False)
        if run.stdout:
            yield run.stdout


def write(target, seeds):
    unique = {}
    for seed in seeds:
        if len(seed) <= MAX_SIZE:
            unique.setdefault(hashlib.sha1(seed).hexdigest(), seed)
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    # Spread the pick over the whole (sorted) set rather than its first files.
    names = sorted(unique)
    step = max(1, len(names) // MAX_SEEDS)
    for name in names[::step][:MAX_SEEDS]:
        (folder / name).write_bytes(unique[name])
    print(f"{target}: {min(len(names[::step]), MAX_SEEDS)} seeds of {len(names)} distinct")


def main():
    for target, patterns in FILE_SEEDS.items():
        write(target, list(seeds_from_files(patterns)) + EXTRA_SEEDS.get(target, []))
    for target, wanted in ENV_SEEDS.items():
        write(target, list(seeds_from_env(wanted)) + EXTRA_SEEDS.get(target, []))
    if len(sys.argv) > 1:
        write("report_digest", list(reports(sys.argv[1])))


if __name__ == "__main__":
    main()
