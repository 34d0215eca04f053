#!/usr/bin/env python3
"""Writes the code-objects and torch-from-files scenarios (tests/scenarios/README.md).

The binaries are built from the formats' documentation: an ELF64 shared object
(<elf.h> layout) whose .hip_fatbin holds clang offload bundles as
clang/docs/ClangOffloadBundler.rst lays them out (magic, entry count, then
offset/size/id-length/id per entry) and compressed bundles as
clang/include/clang/Driver/OffloadBundler.h lays them out ("CCOB", version,
method 0 zlib / 1 zstd, sizes, hash, data). zstd data comes from Debian's zstd
program. Code objects are placeholders: only the bundle headers are judged.

    tests/scenarios/gen_code_objects.py            # rewrites the scenarios below
"""
import json
import struct
import subprocess
import zlib
from pathlib import Path

import scenario_out

HERE = Path(__file__).resolve().parent
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/home/alice",
       "USER": "alice", "LANG": "C.UTF-8"}
IDENTITY = {"user": "alice", "uid": 1000, "gid": 1000, "groups": [1000]}


def bundle(targets):
    entries = [("host-x86_64-unknown-linux-gnu-", b"")]
    entries += [("hipv4-amdgcn-amd-amdhsa--" + t, b"\x7fELF" + bytes(252)) for t in targets]
    header = 24 + 8 + sum(24 + len(i) for i, _ in entries)
    out = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(entries))
    offset = header
    for entry_id, code in entries:
        out += struct.pack("<QQQ", offset, len(code), len(entry_id)) + entry_id.encode()
        offset += len(code)
    return out + b"".join(code for _, code in entries)


def compressed(plain, method, version=3):
    data = zlib.compress(plain) if method == 0 else subprocess.run(
        ["zstd", "-q", "-c", "-3"], input=plain, capture_output=True, check=True).stdout
    size = {1: 20, 2: 24, 3: 32}[version]
    out = b"CCOB" + struct.pack("<HH", version, method)
    if version == 2:
        out += struct.pack("<I", size + len(data))
    if version == 3:
        out += struct.pack("<Q", size + len(data))
    out += struct.pack("<Q" if version == 3 else "<I", len(plain)) + struct.pack("<Q", 0x5eed)
    return out + data


def elf(fatbin, align=4096):
    names = b"\0.shstrtab\0.hip_fatbin\0"
    out = bytearray(64) + names
    fat_at = (len(out) + align - 1) // align * align
    out += bytes(fat_at - len(out)) + fatbin
    out += bytes((-len(out)) % 8)
    shoff = len(out)
    out[0:64] = (b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) +
                 struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 1))
    out += bytes(64)
    out += struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, 64, len(names), 0, 0, 1, 0)
    out += struct.pack("<IIQQQQIIQQ", 11, 1, 2, 0, fat_at, len(fatbin), 0, 0, align, 0)
    return bytes(out)


def wheel_library(targets_per_bundle):
    """A libtorch_hip.so like a ROCm 6.x wheel's: one zstd CCOB per translation unit, 4 KiB aligned."""
    fatbin = b""
    for targets in targets_per_bundle:
        blob = compressed(bundle(targets), 1)
        fatbin += blob + bytes((-len(blob)) % 4096)
    return elf(fatbin)


def scenario(name, description, files, expectation, stats=None, env=None):
    folder = scenario_out.folder(name)
    root = folder / "root"
    for path, content in files.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
    manifest = {"format": "rocm-doctor-snapshot", "version": 1, "captured_at": "2026-12-01T10:00:00Z",
                "captured_by": "tests/scenarios/gen_code_objects.py", "env": env or ENV, "identity": IDENTITY,
                "nodes": {}, "probes": {}}
    if stats:
        manifest["stat"] = stats
    (folder / "snapshot.json").write_text(json.dumps(manifest, indent=2) + "\n")
    (folder / "expected.json").write_text(json.dumps(dict(description=description, **expectation), indent=2) + "\n")


WHEEL_TARGETS = [["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101"]] * 3
LIB = "/opt/app/lib/libtorch_hip.so"


def main():
    scenario_out.parse(__doc__)
    wheel = wheel_library(WHEEL_TARGETS)
    scenario("code-objects-wheel-lacks-gfx1201",
             "Image build for gfx1201 (RDNA4): the app's libtorch_hip.so carries zstd-compressed bundles for "
             "gfx900..gfx1101 only, so `rocm-doctor targets` says gfx1201 has no code",
             {LIB: wheel},
             {"checks": ["code-objects"], "options": {"image": True, "target_gfx": ["gfx1201"], "binaries": [LIB]},
              "expect": {"code-objects.no-kernel": "error"}, "root_causes": ["code-objects.no-kernel"], "absent": ["code-objects.carries"]})
    scenario("code-objects-wheel-has-gfx1100",
             "Healthy twin: the same library judged for gfx1100 and gfx942, both carried",
             {LIB: wheel},
             {"checks": ["code-objects"], "options": {"image": True, "target_gfx": ["gfx1100", "gfx942"],
                                                       "binaries": [LIB]},
              "expect": {"code-objects.carries": "ok"}, "absent": ["code-objects.no-kernel", "code-objects.malformed"]})
    truncated = wheel[:len(wheel) // 2]
    scenario("code-objects-truncated-download",
             "A libtorch_hip.so cut in half (an interrupted copy): its section table lies past the end",
             {LIB: truncated},
             {"checks": ["code-objects"], "options": {"image": True, "target_gfx": ["gfx1100"], "binaries": [LIB]},
              "expect": {"code-objects.malformed": "error"}, "root_causes": ["code-objects.malformed"]})
    scenario("code-objects-host-only",
             "A host-only library (no .hip_fatbin content): it carries no GPU code",
             {"/opt/app/lib/libhost.so": elf(b"")},
             {"checks": ["code-objects"], "options": {"image": True, "target_gfx": ["gfx1100"],
                                                       "binaries": ["/opt/app/lib/libhost.so"]},
              "expect": {"code-objects.none": "info"}})
    scenario("code-objects-missing-file",
             "`targets` names a library the image does not have",
             {"/opt/app/lib/.keep": ""},
             {"checks": ["code-objects"], "options": {"image": True, "target_gfx": ["gfx1100"],
                                                       "binaries": ["/opt/app/lib/libgone.so"]},
              "expect": {"code-objects.unreadable": "error"}, "root_causes": ["code-objects.unreadable"]})
    # torch read from its files in an image build: a venv with a ROCm 6.2 wheel whose libtorch_hip.so lacks gfx1201.
    site = "/opt/venv/lib/python3.11/site-packages"
    venv_files = {
        "/opt/venv/pyvenv.cfg": "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n",
        site + "/torch/__init__.py": "",
        site + "/torch/version.py": ("from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', "
                                     "'git_version', 'hip']\n__version__ = '2.5.1+rocm6.2'\ndebug = False\n"
                                     "cuda: Optional[str] = None\ngit_version = "
                                     "'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
                                     "hip: Optional[str] = '6.2.41133-dd7f95766'\n"),
        site + "/torch-2.5.1+rocm6.2.dist-info/METADATA": "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+rocm6.2\n",
        site + "/torch/lib/libtorch_hip.so": wheel,
    }
    stats = {"/opt/venv/bin/python3": {"type": "file", "mode": "0755", "uid": 0, "gid": 0}}
    env = dict(ENV, PATH="/opt/venv/bin:" + ENV["PATH"], VIRTUAL_ENV="/opt/venv")
    scenario("torch-files-image-lacks-gfx1201",
             "Image build for gfx1201: torch 2.5.1+rocm6.2 read from its files (nothing imported); its "
             "libtorch_hip.so's code objects stop at gfx1101",
             venv_files,
             {"checks": ["torch"], "options": {"image": True, "target_gfx": ["gfx1201"]},
              "expect": {"torch.arch-missing": "error"}, "root_causes": ["torch.arch-missing"], "absent": ["torch.probe-failed"],
              "versions": {"torch": "2.5.1+rocm6.2", "torch_hip": "6.2.41133-dd7f95766"}},
             stats=stats, env=env)
    scenario("torch-files-image-covers-gfx1100",
             "Healthy twin: the same image built for gfx1100, which the wheel's code objects carry",
             venv_files,
             {"checks": ["torch"], "options": {"image": True, "target_gfx": ["gfx1100"]},
              "expect": {"torch.ok": "ok"}, "absent": ["torch.arch-missing"]},
             stats=stats, env=env)


if __name__ == "__main__":
    main()
