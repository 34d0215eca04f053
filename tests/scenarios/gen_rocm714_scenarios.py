#!/usr/bin/env python3
"""Writes the ROCm Core SDK (7.14+) layout scenarios: rocm714-*.

The layouts follow the sources named in each scenario's description:
- ROCm/TheRock build_tools/packaging/linux/build_package.py (commit 89553ce3): install prefix
  /opt/rocm/core-X.Y; template/scripts/amdrocm-core-postinst.j2: update-alternatives
  /opt/rocm/core, /opt/rocm/core-N, /opt/rocm/{bin,lib,include,llvm,amdgcn,libexec,share} and
  /usr/bin/{rocminfo,hipcc,amd-smi,...}; base/artifact.toml ships .info/.
- ROCm/TheRock build_tools/packaging/python/templates/rocm/src/rocm_sdk/_dist_info.py:
  pip rocm-sdk-core installs site-packages/_rocm_sdk_core/{lib,bin}; libamdhip64.so* in lib/.
- A public project note records /opt/rocm/core-7.14/lib/libamdhip64.so.7.14.60850-0000000 and
  libhsa-runtime64.so.1.21.0 on a real 7.14.0 host (file names used below).
Everything else (users, os-release, loader config) is a healthy Ubuntu 24.04.

    python3 tests/scenarios/gen_rocm714_scenarios.py
"""
import json
import os
import shutil
from pathlib import Path

import scenario_out

HERE = Path(__file__).resolve().parent
scenario_out.parse(__doc__)
HIP_FILE = "libamdhip64.so.7.14.60850-0000000"
HSA_FILE = "libhsa-runtime64.so.1.21.0"

OS_RELEASE = """PRETTY_NAME="Ubuntu 24.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.4 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=noble
"""
LD_SO_CONF = "include /etc/ld.so.conf.d/*.conf\n\n"
LIBC_CONF = "# libc default configuration\n/usr/local/lib\n"
MULTIARCH_CONF = "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n"
PASSWD = ("root:x:0:0:root:/root:/bin/bash\n"
          "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n")
GROUP = "root:x:0:\nvideo:x:44:alice\nrender:x:991:alice\nalice:x:1000:\n"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def write(root, path, text=""):
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def link(root, path, to):
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.exists():
        target.unlink()
    os.symlink(to, target)


def base(root):
    write(root, "/etc/os-release", OS_RELEASE)
    write(root, "/etc/ld.so.conf", LD_SO_CONF)
    write(root, "/etc/ld.so.conf.d/libc.conf", LIBC_CONF)
    write(root, "/etc/ld.so.conf.d/x86_64-linux-gnu.conf", MULTIARCH_CONF)
    write(root, "/etc/passwd", PASSWD)
    write(root, "/etc/group", GROUP)
    write(root, "/proc/sys/kernel/osrelease", "6.8.0-90-generic\n")


def runtime(root, lib):
    write(root, f"{lib}/{HIP_FILE}")
    link(root, f"{lib}/libamdhip64.so.7", HIP_FILE)
    link(root, f"{lib}/libamdhip64.so", "libamdhip64.so.7")
    write(root, f"{lib}/{HSA_FILE}")
    link(root, f"{lib}/libhsa-runtime64.so.1", HSA_FILE)
    link(root, f"{lib}/libhsa-runtime64.so", "libhsa-runtime64.so.1")


def core_release(root, version="7.14", full="7.14.0"):
    prefix = f"/opt/rocm/core-{version}"
    write(root, f"{prefix}/.info/version", f"{full}\n")
    runtime(root, f"{prefix}/lib")
    for tool in ("rocminfo", "hipconfig", "amd-smi", "rocm_agent_enumerator"):
        write(root, f"{prefix}/bin/{tool}")
    return prefix


def alternatives(root, prefix, major="7"):
    """What amdrocm-core's postinst registers (update-alternatives --install ...)."""
    for name, link_path, target in (("core", "/opt/rocm/core", prefix),
                                    (f"core-{major}", f"/opt/rocm/core-{major}", prefix),
                                    ("rocm-bin", "/opt/rocm/bin", prefix + "/bin"),
                                    ("rocm-lib", "/opt/rocm/lib", prefix + "/lib"),
                                    ("rocm-include", "/opt/rocm/include", prefix + "/include")):
        link(root, f"/etc/alternatives/{name}", target)
        link(root, link_path, f"/etc/alternatives/{name}")
    for tool in ("rocminfo", "hipconfig", "amd-smi", "rocm_agent_enumerator"):
        link(root, f"/etc/alternatives/{tool}", f"{prefix}/bin/{tool}")
        link(root, f"/usr/bin/{tool}", f"/etc/alternatives/{tool}")


def hip_probe(found_path=None, fallback=False):
    """The hip probe's record: not found, found by the loader, or found in the probe's own
    fallback folders (/opt/rocm/core-X.Y/lib) after the loader failed."""
    names = ["libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"]
    failed = [{"name": n, "error": f"{n}: cannot open shared object file: No such file or directory"} for n in names]
    if found_path is None:
        return {"status": "ok", "elapsed_ms": 41, "exit_code": 0, "stderr_tail": "", "stderr_bytes": 0,
                "result": {"library": {"status": "not-found", "attempts": [
                    {"name": n, "error": f"{n}: cannot open shared object file: No such file or directory"}
                    for n in names]}}}
    folder = found_path[:found_path.rfind("/")]
    attempts = failed + [{"name": folder + "/libamdhip64.so.7", "loaded": True}] if fallback else [
        {"name": "libamdhip64.so.7", "loaded": True}]
    return {"status": "ok", "elapsed_ms": 212, "exit_code": 0, "stderr_tail": "", "stderr_bytes": 0,
            "result": {"library": {"status": "loaded", "path": folder + "/libamdhip64.so.7" if fallback else
                                   "libamdhip64.so.7", "soname": "libamdhip64.so.7", "real_path": found_path,
                                   "attempts": attempts},
                       "runtime_version": 71460850, "runtime_version_text": "7.14.60850",
                       "driver_version": 71460850, "device_count": 1,
                       "devices": [{"index": 0, "name": "AMD Radeon RX 7900 XTX", "gfx": "gfx1100"}]}}


def scenario(name, description, expect, absent, env=None, probes=None, build=None, checks=None, versions=None,
             root_causes=None, also=None):
    folder = scenario_out.folder(name)
    if folder.exists():
        shutil.rmtree(folder)
    root = folder / "root"
    base(root)
    build(root)
    snapshot = {"format": "rocm-doctor-snapshot", "version": 1, "captured_at": "2026-12-01T09:00:00Z",
                "captured_by": "rocm-doctor 0.1.0",
                "env": {"PATH": PATH, "HOME": "/home/alice", "USER": "alice", "SHELL": "/bin/bash",
                        "LANG": "C.UTF-8", **(env or {})},
                "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [44, 991, 1000]},
                "nodes": {}, "probes": probes or {}}
    (folder / "snapshot.json").write_text(json.dumps(snapshot, indent=2) + "\n")
    expected = {"description": description, "checks": checks or ["rocm-install", "hip", "tools"],
                "expect": expect, "absent": absent}
    if versions:
        expected["versions"] = versions
    if root_causes:
        expected["root_causes"] = root_causes
    if also:
        expected["also"] = also
    (folder / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")


SOURCES = (" Layout: ROCm/TheRock build_package.py (prefix /opt/rocm/core-X.Y) and amdrocm-core-postinst.j2 "
           "(update-alternatives), commit 89553ce3; library file names as recorded on a real 7.14.0 host.")


def full(root):
    alternatives(root, core_release(root))


def full_with_loader_entry(root):
    full(root)
    write(root, "/etc/ld.so.conf.d/rocm-core-7.14.conf", "/opt/rocm/core-7.14/lib\n")


def minimal(root):
    core_release(root)  # amdrocm7.14-gfx1100 style install: no alternatives links


def minimal_with_loader_entry(root):
    minimal(root)
    write(root, "/etc/ld.so.conf.d/rocm-core-7.14.conf", "/opt/rocm/core-7.14/lib\n")


VENV_SITE = "/home/alice/venv/lib/python3.12/site-packages"


def python_managed(root):
    core = VENV_SITE + "/_rocm_sdk_core"
    write(root, f"{core}/__init__.py")
    runtime(root, f"{core}/lib")
    for tool in ("rocminfo", "hipconfig", "amd-smi"):
        write(root, f"{core}/bin/{tool}")
    write(root, f"{VENV_SITE}/rocm_sdk_core-7.14.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: rocm-sdk-core\nVersion: 7.14.0\n")
    write(root, f"{VENV_SITE}/rocm-7.14.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: rocm\nVersion: 7.14.0\n")
    write(root, f"{VENV_SITE}/rocm_sdk/__init__.py")
    for tool in ("rocm-sdk", "rocminfo", "hipconfig", "python3"):
        write(root, f"/home/alice/venv/bin/{tool}")


VENV = {"VIRTUAL_ENV": "/home/alice/venv", "PATH": "/home/alice/venv/bin:" + PATH}

scenario("rocm714-full-no-loader-entry",
         "ROCm Core SDK 7.14.0 installed with `apt install amdrocm` (full install: update-alternatives link "
         "/opt/rocm/lib -> /etc/alternatives/rocm-lib -> /opt/rocm/core-7.14/lib, /usr/bin/rocminfo), but no "
         "ld.so.conf.d entry: the loader does not find libamdhip64.so.7. The fix is the loader entry for "
         "core-7.14/lib, never reinstalling the runtime. (The hip probe still loads it from its own "
         "fallback folder /opt/rocm/core-7.14/lib; programs do not.)" + SOURCES,
         {"rocm.lib-not-found": "error", "rocm.version": "info", "hip.ok": "ok", "tools.installed": "info"},
         ["rocm.ok", "rocm.not-installed", "rocm.bin-not-on-path", "rocm.multiple-installs", "hip.not-found"],
         probes={"hip": hip_probe("/opt/rocm/core-7.14/lib/" + HIP_FILE, fallback=True)}, build=full,
         root_causes=["rocm.lib-not-found"])

scenario("rocm714-full-healthy",
         "Healthy twin of rocm714-full-no-loader-entry: the same full 7.14.0 install with "
         "/etc/ld.so.conf.d/rocm-core-7.14.conf naming /opt/rocm/core-7.14/lib; HIP loads from there." + SOURCES,
         {"rocm.ok": "ok", "rocm.version": "info", "hip.ok": "ok", "tools.installed": "info"},
         ["rocm.lib-not-found", "hip.not-found", "rocm.bin-not-on-path"],
         probes={"hip": hip_probe("/opt/rocm/core-7.14/lib/" + HIP_FILE)}, build=full_with_loader_entry,
         versions=None)

scenario("rocm714-minimal-no-alternatives",
         "A minimal, gfx-specific ROCm Core SDK 7.14.0 install (amdrocm7.14-gfx110x style) without the "
         "update-alternatives links: no /opt/rocm/lib or /opt/rocm/bin, no /usr/bin/rocminfo, no loader entry. "
         "The runtime is in /opt/rocm/core-7.14/lib: register that folder and put core-7.14/bin on PATH (the hip "
         "probe loads it from its fallback folder)." + SOURCES,
         {"rocm.lib-not-found": "error", "rocm.version": "info", "rocm.bin-not-on-path": "warning",
          "hip.ok": "ok", "tools.installed": "info"},
         ["rocm.ok", "rocm.not-installed", "rocm.multiple-installs", "hip.not-found"],
         probes={"hip": hip_probe("/opt/rocm/core-7.14/lib/" + HIP_FILE, fallback=True)}, build=minimal,
         root_causes=["rocm.lib-not-found"], also=["rocm.bin-not-on-path"])

scenario("rocm714-minimal-healthy",
         "Healthy twin of rocm714-minimal-no-alternatives: the loader entry for /opt/rocm/core-7.14/lib exists and "
         "PATH holds /opt/rocm/core-7.14/bin." + SOURCES,
         {"rocm.ok": "ok", "rocm.version": "info", "hip.ok": "ok", "tools.installed": "info"},
         ["rocm.lib-not-found", "hip.not-found", "rocm.bin-not-on-path"],
         env={"PATH": PATH + ":/opt/rocm/core-7.14/bin"},
         probes={"hip": hip_probe("/opt/rocm/core-7.14/lib/" + HIP_FILE)}, build=minimal_with_loader_entry)

scenario("rocm714-python-managed",
         "ROCm 7.14.0 from pip only (`pip install rocm[libraries]` in ~/venv, activated): the runtime is "
         "site-packages/_rocm_sdk_core/lib. Python programs load it through rocm_sdk; programs outside Python do "
         "not find it, which is worth an info with the LD_LIBRARY_PATH line, not an error."
         " Layout: ROCm/TheRock RELEASES.md and build_tools/packaging/python/templates/rocm/src/rocm_sdk/_dist_info.py "
         "(commit 89553ce3).",
         {"rocm.lib-not-found": "info", "rocm.version": "info", "hip.not-found": "info", "tools.installed": "info"},
         ["rocm.not-installed", "rocm.bin-not-on-path", "rocm.multiple-installs"],
         env=VENV, probes={"hip": hip_probe()}, build=python_managed)

scenario("rocm714-python-managed-ld-path",
         "Healthy twin of rocm714-python-managed: LD_LIBRARY_PATH names the venv's _rocm_sdk_core/lib, so programs "
         "outside Python find the runtime too.",
         {"rocm.ok": "ok", "rocm.version": "info", "hip.ok": "ok", "tools.installed": "info"},
         ["rocm.lib-not-found", "hip.not-found", "rocm.bin-not-on-path"],
         env={**VENV, "LD_LIBRARY_PATH": VENV_SITE + "/_rocm_sdk_core/lib"},
         probes={"hip": hip_probe(VENV_SITE + "/_rocm_sdk_core/lib/" + HIP_FILE)}, build=python_managed)
