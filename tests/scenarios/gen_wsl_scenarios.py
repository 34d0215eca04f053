#!/usr/bin/env python3
"""Writes the wsl-* scenarios of issue 28 (each with its healthy twin): WSL2 machines whose
Windows side the dxcore and wsl-interop probes read. The machines are built around real reports
(each SOURCE.md names it and says what is kept and what is built); rewrites only wsl-* folders."""
import json
import os
import shutil

import scenario_out

HERE = os.path.dirname(os.path.abspath(__file__))
GiB = 1 << 30


def adapter(index, device, revision, description, dedicated, shared, driver="32.0.21013.1000",
            vendor="0x1002", subsystem=("0x1002", "0x0e3b"), hardware=True):
    return {"index": index, "vendor_id": vendor, "device_id": device, "subsystem_vendor_id": subsystem[0],
            "subsystem_device_id": subsystem[1], "revision_id": revision, "description": description,
            "driver_version": driver, "dedicated_adapter_memory": dedicated, "dedicated_system_memory": 0,
            "shared_system_memory": shared, "is_hardware": hardware, "is_integrated": False}


def dxcore(*adapters):
    return {"status": "ok", "elapsed_ms": 38, "exit_code": 0,
            "stderr_tail": "rocm-doctor-probe: step dlopen libdxcore\nrocm-doctor-probe: step done\n",
            "stderr_bytes": 74, "last_step": "done",
            "result": {"library": {"status": "loaded", "path": "/usr/lib/wsl/lib/libdxcore.so",
                                   "soname": "libdxcore.so"},
                       "adapter_count": len(adapters), "adapters": list(adapters)}}


def interop(ver_stdout, wsl_stdout, wsl_status="ok"):
    return {"status": "ok", "elapsed_ms": 412, "result": {
        "cmd_ver": {"command": ["/mnt/c/Windows/System32/cmd.exe", "/c", "ver"], "status": "ok", "exit_code": 0,
                    "elapsed_ms": 180, "stdout": ver_stdout},
        "wsl_version": {"command": ["/mnt/c/Windows/System32/wsl.exe", "--version"], "status": wsl_status,
                        "exit_code": 0 if wsl_status == "ok" else 1, "elapsed_ms": 230, "stdout": wsl_stdout}}}


def hip_no_device():
    return {"status": "ok", "elapsed_ms": 95, "exit_code": 0,
            "result": {"library": {"status": "loaded", "soname": "libamdhip64.so.6"},
                       "device_count_error": {"call": "hipGetDeviceCount", "code": 100, "name": "hipErrorNoDevice",
                                              "text": "no ROCm-capable device is detected"}}}


# `wsl --version` as ROCm/legacy-rocm-build#5535 shows it (kept byte for byte).
WSL_VERSION_5535 = ("WSL version: 2.6.1.0\nKernel version: 6.6.87.2-1\nWSLg version: 1.0.66\n"
                    "MSRDC version: 1.2.6353\nDirect3D version: 1.611.1-81528511\n"
                    "DXCore version: 10.0.26100.1-240331-1435.ge-release\nWindows version: 10.0.26100.6899\n")
VER_26100 = "\r\nMicrosoft Windows [Version 10.0.26100.6899]\r\n"


def machine(kernel, rocm, runtime, env=None, interop_on=True, ubuntu=("24.04", "noble", "Ubuntu 24.04.2 LTS")):
    version, codename, pretty = ubuntu
    files = {
        "/etc/os-release": f'PRETTY_NAME="{pretty}"\nNAME="Ubuntu"\nVERSION_ID="{version}"\n'
                           f'VERSION_CODENAME={codename}\nID=ubuntu\nID_LIKE=debian\n',
        "/proc/sys/kernel/osrelease": kernel + "\n",
        "/proc/version": f"Linux version {kernel} (root@build) (gcc (GCC) 11.2.0) #1 SMP\n",
        "/etc/passwd": "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n",
        "/etc/group": "root:x:0:\nvideo:x:44:alice\nrender:x:110:alice\nalice:x:1000:\n",
        "/usr/lib/wsl/lib/libdxcore.so": "",
        "/usr/lib/wsl/lib/libd3d12.so": "",
        "/usr/lib/wsl/drivers/u0412345.inf_amd64_3f1c0d2e5a6b7c8d/B412345/amdxc64.so": "",
        "/proc/sys/fs/binfmt_misc/WSLInterop":
            ("enabled" if interop_on else "disabled") + "\ninterpreter /init\nflags: PF\noffset 0\nmagic 4d5a\n",
        f"/opt/rocm-{rocm}/.info/version": f"{rocm}-1\n",
    }
    if runtime == "librocdxg":
        files[f"/opt/rocm-{rocm}/lib/librocdxg.so"] = ""
    else:
        files["/var/lib/dpkg/status"] = (f"Package: hsa-runtime-rocr4wsl-amdgpu\nStatus: install ok installed\n"
                                         f"Version: {runtime}\n\n")
    environment = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/rocm/bin",
                   "HOME": "/home/alice", "USER": "alice", "SHELL": "/bin/bash", "LANG": "en_US.UTF-8",
                   "WSL_DISTRO_NAME": "Ubuntu-" + version, "WSL_INTEROP": "/run/WSL/1_interop"}
    environment.update(env or {})
    return {"files": files, "links": {"/opt/rocm": f"rocm-{rocm}"}, "env": environment, "probes": {}}


def write(name, m, description, expect, root_causes, source, absent=()):
    folder = str(scenario_out.folder(name))
    shutil.rmtree(folder, ignore_errors=True)
    for path, content in m["files"].items():
        full = os.path.join(folder, "root", path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(content)
    for path, target in m["links"].items():
        full = os.path.join(folder, "root", path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        os.symlink(target, full)
    snapshot = {"format": "rocm-doctor-snapshot", "version": 1, "captured_at": "2026-12-08T09:00:00Z",
                "captured_by": "tests/scenarios/gen_wsl_scenarios.py", "env": m["env"],
                "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [44, 110, 1000]},
                "nodes": {"/dev/dxg": {"type": "char", "mode": "0666", "uid": 0, "gid": 0, "access": "rw"}},
                "probes": m["probes"]}
    with open(os.path.join(folder, "snapshot.json"), "w", encoding="utf-8") as f:
        json.dump(snapshot, f, indent=1, ensure_ascii=False)
        f.write("\n")
    expected = {"description": description, "checks": ["os", "wsl", "driver", "access", "probe"],
                "expect": dict({"os.wsl": "info", "wsl.driver": "info"}, **expect),
                "absent": list(absent), "root_causes": root_causes}
    with open(os.path.join(folder, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(folder, "SOURCE.md"), "w", encoding="utf-8") as f:
        f.write(source.strip() + "\n\nBuilt by `tests/scenarios/gen_wsl_scenarios.py`: the distribution files, accounts, the "
                "ROCm folder and runtime package, the driver store folder name and the Windows driver version "
                "(DXCore's WDDM version; the report names the Adrenalin release only) are built around the "
                "report; the dxcore probe answer is built from the report's GPU with the PCI ids of "
                "`checks/data/pci_ids.json` and invented memory sizes.\n")


HEALTHY_ABSENT = ["wsl.unsupported-gpu", "wsl.runtime-missing", "wsl.windows-too-old", "wsl.no-dxg"]
OK = {"wsl.ok": "ok", "wsl.gpu-memory": "info", "probe.ok": "ok"}


def rx9070(rocm, runtime):
    m = machine("5.15.167.4-microsoft-standard-WSL2", rocm, runtime)
    m["probes"]["dxcore"] = dxcore(adapter(0, "0x7550", "0xc0", "AMD Radeon RX 9070 XT", 16 * GiB - (80 << 20), 16 * GiB),
                                   adapter(1, "0x008c", "0x00", "Microsoft Basic Render Driver", 0, 16 * GiB,
                                           driver="10.0.26100.1", vendor="0x1414", subsystem=("0x0000", "0x0000"),
                                           hardware=False))
    m["probes"]["wsl-interop"] = interop("\r\nMicrosoft Windows [Version 10.0.22631.4890]\r\n", "")
    if runtime != "librocdxg" and rocm.startswith("6.3"):
        m["probes"]["hip"] = hip_no_device()
    return m


SOURCE_9070 = """# RX 9070 XT under WSL2 with ROCm 6.3.4

Built around ROCm/legacy-rocm-build#4490 (RX 9070 XT, Windows 10.0.22631, Ubuntu 24.04.1 under WSL,
Adrenalin 25.3.1, ROCm 6.3.4 installed with `amdgpu-install --usecase=wsl,rocm --no-dkms`: rocminfo
lists only the CPU) and #4524 (the same with Ubuntu 22.04). Transcribed: the GPU, the Windows build
(the `cmd.exe /c ver` line is built from the reported 10.0.22631), the ROCm release and runtime package.
RDNA4 joined ROCm-on-WSL's matrix with ROCm 6.4.1 and Adrenalin 25.6.1 (#4471)."""


def gen_9070():
    write("wsl-rx9070-rocm634", rx9070("6.3.4", "1.14.0.60304-1~24.04"),
          "RX 9070 XT under WSL2 with ROCm 6.3.4's WSL runtime: RDNA4 is on ROCm-on-WSL's list only from 6.4.1, "
          "so HIP finds no device; the doctor names the GPU from the Windows adapter (DXCore)",
          {"wsl.unsupported-gpu": "error", "wsl.gpu-memory": "info", "probe.ok": "ok"}, ["wsl.unsupported-gpu"],
          SOURCE_9070, absent=["wsl.ok", "wsl.runtime-missing"])
    write("wsl-rx9070-rocm634-healthy", rx9070("6.4.1", "1.15.0.60401-1~24.04"),
          "The same RX 9070 XT machine on ROCm 6.4.1's WSL runtime, whose matrix lists RDNA4: healthy",
          OK, [], SOURCE_9070 + "\n\nThe healthy twin: ROCm 6.4.1 instead of 6.3.4.", absent=HEALTHY_ABSENT)


SOURCE_6950 = """# RX 6950 XT under WSL2

Built around ROCm/legacy-rocm-build#4503 (RX 6950 XT under WSL: rocminfo sees no GPU; maintainer:
gfx1030 is not supported per the WSL compatibility matrix) and Samiii777/AMD_MachineLearning#1 (RX 6950,
Adrenalin 25.3.1, Ubuntu 22.04.5 under WSL, rocminfo cannot see the GPU). Transcribed: the GPU, the
driver release, the distribution; the ROCm release (6.3.4, the WSL release of March 2025) is built."""


def rx69(device, revision, name, dedicated):
    m = machine("5.15.167.4-microsoft-standard-WSL2", "6.3.4", "1.14.0.60304-1~22.04",
                ubuntu=("22.04", "jammy", "Ubuntu 22.04.5 LTS"))
    m["probes"]["dxcore"] = dxcore(adapter(0, device, revision, name, dedicated, 16 * GiB, driver="32.0.13031.3015"))
    m["probes"]["wsl-interop"] = interop("\r\nMicrosoft Windows [Version 10.0.22631.4890]\r\n", "")
    return m


def gen_6950():
    write("wsl-rx6950xt", rx69("0x73a5", "0xc0", "AMD Radeon RX 6950 XT", 16 * GiB - (100 << 20)),
          "RX 6950 XT (gfx1030) under WSL2 with ROCm 6.3.4: RDNA2 is on no ROCm-on-WSL list, whatever the release",
          {"wsl.unsupported-gpu": "error", "wsl.gpu-memory": "info", "probe.ok": "ok"}, ["wsl.unsupported-gpu"],
          SOURCE_6950, absent=["wsl.ok"])
    write("wsl-rx6950xt-healthy", rx69("0x744c", "0xc8", "AMD Radeon RX 7900 XTX", 24 * GiB - (100 << 20)),
          "The same machine with an RX 7900 XTX (gfx1100, on the WSL list since 6.1.3): healthy",
          OK, [], SOURCE_6950 + "\n\nThe healthy twin: an RX 7900 XTX instead of the RX 6950 XT.", absent=HEALTHY_ABSENT)


SOURCE_WIN10 = """# RX 9060 XT on Windows 10 with its inbox WSL kernel

Built around ROCm/legacy-rocm-build#6323: Windows 10 Pro 22H2 (OS build 19045.6456), WSL 2 with kernel
5.10.16.3-microsoft-standard-WSL2, RX 9060 XT (gfx1200), Adrenalin 26.2.2 and 26.5.2, ROCm through
amdgpu-install: rocminfo fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES; the maintainer: the WSL docs list
Windows 11 specifically. Kept: the kernel release and the Windows build. Built: the `cmd.exe /c ver` line
around that build, `wsl.exe --version` failing (the inbox WSL of Windows 10 has no --version), ROCm 7.2.0
with librocdxg enabled (HSA_ENABLE_DXG_DETECTION=1)."""


def win10(healthy, interop_on=True):
    kernel = "6.6.87.2-microsoft-standard-WSL2" if healthy else "5.10.16.3-microsoft-standard-WSL2"
    m = machine(kernel, "7.2.0", "librocdxg", env={"HSA_ENABLE_DXG_DETECTION": "1"}, interop_on=interop_on)
    m["probes"]["dxcore"] = dxcore(adapter(0, "0x7590", "0xc0", "AMD Radeon RX 9060 XT", 16 * GiB - (70 << 20),
                                           16 * GiB, driver="32.0.22029.1019"))
    if interop_on:
        m["probes"]["wsl-interop"] = (interop(VER_26100, WSL_VERSION_5535) if healthy else
                                      interop("\r\nMicrosoft Windows [Version 10.0.19045.6456]\r\n", "", "failed"))
    return m


def gen_win10():
    write("wsl-windows10-kernel", win10(False),
          "RX 9060 XT under WSL2 on Windows 10 (build 19045) with its inbox WSL kernel 5.10.16.3: ROCm on WSL "
          "needs Windows 11",
          {"wsl.windows-too-old": "error", "wsl.gpu-memory": "info", "probe.ok": "ok"}, ["wsl.windows-too-old"],
          SOURCE_WIN10, absent=["wsl.ok", "wsl.unsupported-gpu"])
    write("wsl-windows10-kernel-healthy", win10(True),
          "The same RX 9060 XT machine on Windows 11 (build 26100) with an updated WSL kernel (6.6.87.2): healthy",
          OK, [], SOURCE_WIN10 + "\n\nThe healthy twin: Windows 11 build 26100.6899 and `wsl --version` as "
          "ROCm/legacy-rocm-build#5535 shows it (kept byte for byte), kernel 6.6.87.2.", absent=HEALTHY_ABSENT)


SOURCE_INTEROP = """# Interop off: the static facts are still judged

The Windows 10 machine of ROCm/legacy-rocm-build#6323 (kernel 5.10.16.3-microsoft-standard-WSL2, kept)
with Windows interop turned off (`[interop] enabled=false` in /etc/wsl.conf: binfmt_misc's WSLInterop
says `disabled`), so the wsl-interop probe is not planned and nothing asks Windows for its build: the
kernel still tells. The twin runs the 5.15.167.4-microsoft-standard-WSL2 kernel of
ROCm/legacy-rocm-build#4739 (kept)."""


def gen_interop():
    write("wsl-interop-off", win10(False, interop_on=False),
          "Windows interop off (no wsl-interop probe): the Windows 10 inbox WSL kernel alone still says this host "
          "is too old",
          {"wsl.windows-too-old": "error", "wsl.gpu-memory": "info", "probe.ok": "ok"}, ["wsl.windows-too-old"],
          SOURCE_INTEROP, absent=["wsl.ok"])
    m = win10(True, interop_on=False)
    m["files"]["/proc/sys/kernel/osrelease"] = "5.15.167.4-microsoft-standard-WSL2\n"
    m["files"]["/proc/version"] = "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@build) (gcc (GCC) 11.2.0) #1 SMP\n"
    write("wsl-interop-off-healthy", m,
          "Windows interop off with a current WSL kernel (5.15.167.4): nothing to judge on the Windows side, healthy",
          OK, [], SOURCE_INTEROP, absent=HEALTHY_ABSENT)


SOURCE_DXG72 = """# ROCm 7.2 with librocdxg and HSA_ENABLE_DXG_DETECTION unset

Built around ROCm/librocdxg#34 (RX 7800 XT, Ubuntu 24.04 under WSL2, ROCm 7.2.1 with librocdxg: no GPU
until `export HSA_ENABLE_DXG_DETECTION=1`; AMD: the variable pairs with releases before 7.13) and
unslothai/unsloth#9729 (still needed on 7.2.1). Transcribed: the GPU, the release, the variable."""


def dxg_machine(rocm, value, device, description, driver):
    env = {} if value is None else {"HSA_ENABLE_DXG_DETECTION": value}
    m = machine("6.6.87.2-microsoft-standard-WSL2", rocm, "librocdxg", env=env)
    m["probes"]["dxcore"] = dxcore(adapter(0, device[0], device[1], description, 16 * GiB - (device[2] << 20),
                                           16 * GiB, driver=driver))
    m["probes"]["wsl-interop"] = interop(VER_26100, WSL_VERSION_5535)
    return m


def dxg72(value):
    return dxg_machine("7.2.1", value, ("0x747e", "0xc8", 90), "AMD Radeon RX 7800 XT", "32.0.22029.1019")


def gen_dxg():
    write("wsl-rocm72-no-dxg-variable", dxg72(None),
          "ROCm 7.2.1 with librocdxg and HSA_ENABLE_DXG_DETECTION unset: before 7.13 the runtime looks for the WSL "
          "GPU only when it is 1",
          {"wsl.runtime-missing": "error", "wsl.gpu-memory": "info", "probe.ok": "ok"}, ["wsl.runtime-missing"],
          SOURCE_DXG72, absent=["wsl.ok"])
    write("wsl-rocm72-no-dxg-variable-healthy", dxg72("1"),
          "The same ROCm 7.2.1 machine with HSA_ENABLE_DXG_DETECTION=1: healthy",
          OK, [], SOURCE_DXG72 + "\n\nThe healthy twin: the variable set to 1.", absent=HEALTHY_ABSENT)


SOURCE_DXG714 = """# ROCm 7.14 and HSA_ENABLE_DXG_DETECTION

From rocm-systems PR #3863 (merged 2026-03) ROCr treats an unset HSA_ENABLE_DXG_DETECTION as on and only
`0` turns the DXG detection off; ROCm 7.14.0 (2026-07-15) includes it. Built: an RX 9070 XT machine on
Windows 11 with ROCm 7.14.0 and librocdxg; in the broken one a stale `HSA_ENABLE_DXG_DETECTION=0` is left
in the environment. The healthy twin leaves it unset, which before this issue the doctor called an error."""


def dxg714(value):
    return dxg_machine("7.14.0", value, ("0x7550", "0xc0", 80), "AMD Radeon RX 9070 XT", "32.0.23017.1001")


def gen_dxg714():
    write("wsl-rocm714-dxg-disabled", dxg714("0"),
          "ROCm 7.14.0 with HSA_ENABLE_DXG_DETECTION=0: the WSL GPU path is turned off",
          {"wsl.runtime-missing": "error", "wsl.gpu-memory": "info", "probe.ok": "ok"}, ["wsl.runtime-missing"],
          SOURCE_DXG714, absent=["wsl.ok"])
    write("wsl-rocm714-dxg-disabled-healthy", dxg714(None),
          "ROCm 7.14.0 without HSA_ENABLE_DXG_DETECTION: on by default from 7.13, healthy (no false error)",
          OK, [], SOURCE_DXG714, absent=HEALTHY_ABSENT)


if __name__ == "__main__":
    scenario_out.parse(__doc__)
    gen_9070()
    gen_6950()
    gen_win10()
    gen_interop()
    gen_dxg()
    gen_dxg714()
