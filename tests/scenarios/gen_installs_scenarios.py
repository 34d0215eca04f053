#!/usr/bin/env python3
"""Writes the ROCm-wherever-it-lives scenarios (issue 27): installs-*.

Layouts follow the sources in checks/data/rocm_installs.json and each description:
- ollama: the payload /usr/lib/ollama/rocm_v7_2 (libggml-hip.so, libamdhip64.so.7, libhipblas.so.3,
  librocblas.so.5.2.70201, rocblas/library/TensileLibrary_lazy_gfxNNNN.dat), public notes on the
  ollama:rocm images 0.30.6 and 0.32.5; its libggml-hip.so carries ollama's CMakePresets.json "ROCm 6"
  AMDGPU_TARGETS (ollama/ollama commit 062aadfd); install.sh's /etc/systemd/system/ollama.service.
- The Strix Halo container is real-strix-halo-rocm702's machine (KFD topology transcribed from the
  rocminfo of ROCm/ROCm#5572) with its /opt/rocm taken away: what the ollama:rocm image sees.
- The 780M host is the machine of ollama/ollama#15482 (Ryzen 7 PRO 8700GE, Radeon 780M, gfx1103: not
  among the bundle's targets; the reporter's fix HSA_OVERRIDE_GFX_VERSION=11.0.0).
- TheRock pip: rocm_sdk/_dist_info.py and the package names of TheRock's
  build_tools/packaging/python/templates (commit 021840b3); the iGPU + dGPU host is
  lemonade-sdk/lemonade#2705's (Ryzen 9 9950X's gfx1036 iGPU, Radeon AI PRO R9700 gfx1201).
- TheRock tarballs: .info/version, share/therock/dist_info.json (dist_amdgpu_targets, ';'-separated)
  and therock_manifest.json; the family's targets from therock_amdgpu_targets.cmake (commit 02eb4a57).
Libraries are placeholders except libggml-hip.so, an ELF whose .hip_fatbin holds compressed offload
bundles built from the format's documentation (gen_code_objects.py): only its bundle headers are read.

    python3 tests/scenarios/gen_installs_scenarios.py
"""
import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_code_objects as co  # noqa: E402
import gen_gpu_scenarios as gpus  # noqa: E402
import scenario_out  # noqa: E402

gpus.ARCH.update({"gfx1103": (110003, 2, 32, 16, 64, 64), "gfx1151": (110501, 2, 32, 16, 64, 64),
                  "gfx1201": (120001, 2, 32, 16, 64, 64)})

OLLAMA_ROCM6_TARGETS = ["gfx900", "gfx940", "gfx941", "gfx942", "gfx1010", "gfx1012", "gfx1030", "gfx1100",
                        "gfx1101", "gfx1102", "gfx1151", "gfx1200", "gfx1201", "gfx906:xnack-", "gfx908:xnack-",
                        "gfx90a:xnack+", "gfx90a:xnack-"]
OLLAMA_UNIT = """[Unit]
Description=Ollama Service
After=network-online.target

[Service]
ExecStart=/usr/local/bin/ollama serve
User=ollama
Group=ollama
Restart=always
RestartSec=3
Environment="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

[Install]
WantedBy=default.target
"""
CHECKS = ["os", "driver", "access", "rocm-install", "rocm-installs", "gpu-arch", "env", "packages"]


def ggml_hip(targets):
    """libggml-hip.so: one zstd-compressed bundle per translation unit, as hipcc writes them."""
    return co.wheel_library([targets] * 3)


def write_bytes(root, path, data):
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def ollama_payload(m, prefix, targets, rocblas_targets):
    write_bytes(m.root, f"{prefix}/libggml-hip.so", ggml_hip(targets))
    m.write(f"{prefix}/libamdhip64.so.7.2.26015", "")
    m.link(f"{prefix}/libamdhip64.so.7", "libamdhip64.so.7.2.26015")
    m.write(f"{prefix}/libhsa-runtime64.so.1.18.0", "")
    m.link(f"{prefix}/libhsa-runtime64.so.1", "libhsa-runtime64.so.1.18.0")
    m.write(f"{prefix}/libhipblas.so.3.2.70201", "")
    m.link(f"{prefix}/libhipblas.so.3", "libhipblas.so.3.2.70201")
    m.write(f"{prefix}/librocblas.so.5.2.70201", "")
    m.link(f"{prefix}/librocblas.so.5", "librocblas.so.5.2.70201")
    for gfx in rocblas_targets:
        m.write(f"{prefix}/rocblas/library/TensileLibrary_lazy_{gfx}.dat", "")


def expected(m, description, expect, root_causes=(), absent=(), checks=CHECKS, options=None, versions=None):
    data = {"description": description, "checks": list(checks), "expect": expect, "absent": list(absent),
            "root_causes": list(root_causes)}
    if options:
        data["options"] = options
    if versions is not None:
        data["versions"] = versions
    (m.folder / "expected.json").write_text(json.dumps(data, indent=2) + "\n")


def source_md(m, text):
    (m.folder / "SOURCE.md").write_text(f"# {m.name}\n\n{text}\n")


# ---- the ollama:rocm container on a Strix Halo (the real report's layout) ----

def ollama_container_strix_halo():
    name = "installs-ollama-container-strix-halo"
    folder = scenario_out.folder(name)
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(HERE / "real-strix-halo-rocm702" / "root", folder / "root", symlinks=True)
    m = gpus.Machine.__new__(gpus.Machine)
    m.name, m.folder, m.root = name, folder, folder / "root"
    for path in ("opt", "etc/ld.so.conf.d/10-rocm-opencl.conf"):
        target = m.root / path
        shutil.rmtree(target) if target.is_dir() and not target.is_symlink() else target.unlink()
    m.write("/.dockerenv", "")
    m.write("/usr/bin/ollama", "")
    ollama_payload(m, "/usr/lib/ollama/rocm_v7_2", OLLAMA_ROCM6_TARGETS, ["gfx1100", "gfx1151", "gfx1201"])
    snapshot = json.loads((HERE / "real-strix-halo-rocm702" / "snapshot.json").read_text())
    snapshot["captured_by"] = "tests/scenarios/gen_installs_scenarios.py"
    snapshot["env"] = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                       "HOME": "/root", "OLLAMA_HOST": "0.0.0.0:11434", "LANG": "C.UTF-8"}
    (folder / "snapshot.json").write_text(json.dumps(snapshot, indent=2) + "\n")
    expected(m, "The ollama:rocm container on a Strix Halo (Radeon 8060S, gfx1151), healthy: no system ROCm, "
             "ollama's own ROCm 7.2 in /usr/lib/ollama/rocm_v7_2 carries gfx1151. Before issue 27 the root "
             "cause was rocm.not-installed at error.",
             {"rocm.not-installed": "info", "rocm.installs": "info"},
             absent=["rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs", "gpu-arch", "env"])
    source_md(m, "real-strix-halo-rocm702's machine (see its SOURCE.md: KFD topology transcribed from the "
                 "rocminfo of https://github.com/ROCm/ROCm/issues/5572), without /opt/rocm, with /.dockerenv and "
                 "the ollama:rocm payload laid out as public notes on ollama 0.30.6-rocm record it: "
                 "/usr/lib/ollama/rocm_v7_2/{libggml-hip.so, libamdhip64.so.7, libhipblas.so.3, "
                 "librocblas.so.5.2.70201, rocblas/library/TensileLibrary_lazy_gfx*.dat}. libggml-hip.so is built "
                 "(gen_code_objects.py) with the targets of ollama's CMakePresets.json 'ROCm 6' preset "
                 "(ollama/ollama commit 062aadfd).")


# ---- ollama on a 780M host: the bundle lacks gfx1103 (ollama/ollama#15482) ----

def ollama_780m(name, description, drop_in):
    m = gpus.Machine(name, description).base_system(distro="ubuntu2404", kernel="6.8.0-90-generic")
    m.gpu("0000:c5:00.0", "0x15bf", "0xc1", "gfx1103", 12, 0, 300, apu=True, subsystem=("0x1002", "0x0124"))
    m.write("/usr/local/bin/ollama", "")
    m.write("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
            "ollama:x:998:998::/usr/share/ollama:/bin/false\n")
    m.write("/etc/systemd/system/ollama.service", OLLAMA_UNIT)
    if drop_in:
        m.write("/etc/systemd/system/ollama.service.d/override.conf",
                '[Service]\nEnvironment="HSA_OVERRIDE_GFX_VERSION=11.0.0"\n')
    ollama_payload(m, "/usr/local/lib/ollama/rocm_v7_2", OLLAMA_ROCM6_TARGETS, ["gfx1100", "gfx1151", "gfx1201"])
    m.env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    m.bashrc_extra = None
    return m


def ollama_780m_scenarios():
    m = ollama_780m("installs-ollama-780m-lacks-gfx",
                    "ollama's own ROCm 7.2 (/usr/local/lib/ollama/rocm_v7_2, install.sh layout) on a Radeon 780M "
                    "(gfx1103): its libggml-hip.so has no gfx1103 code, so ollama runs on the CPU without an error "
                    "(ollama/ollama#15482). No system ROCm.", drop_in=False)
    m.save({})
    expected(m, m.description, {"rocm.bundle-lacks-gfx": "error", "rocm.not-installed": "info",
                                "rocm.installs": "info"},
             root_causes=["rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs"])
    source_md(m, "Built around ollama/ollama#15482 (https://github.com/ollama/ollama/issues/15482): a Radeon 780M "
                 "(gfx1103) that ollama's bundled ROCm does not carry. Layout: ollama's install.sh (binary in "
                 "/usr/local/bin, payload in /usr/local/lib/ollama, ollama.service); libggml-hip.so built with "
                 "the 'ROCm 6' preset targets of ollama's CMakePresets.json (commit 062aadfd), which lack gfx1103.")
    m = ollama_780m("installs-ollama-780m-lacks-gfx-healthy",
                    "Healthy twin: the same 780M host with the reporter's fix, HSA_OVERRIDE_GFX_VERSION=11.0.0 in "
                    "ollama.service's drop-in, so ollama runs the gfx1100 code its bundle carries.", drop_in=True)
    m.save({})
    expected(m, m.description, {"rocm.not-installed": "info", "rocm.installs": "info"},
             absent=["rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs"])
    source_md(m, "Twin of installs-ollama-780m-lacks-gfx (see its SOURCE.md) with "
                 "/etc/systemd/system/ollama.service.d/override.conf setting the override.")


# ---- a venv with a PyTorch ROCm wheel and no system ROCm ----

def torch_venv():
    m = gpus.Machine("installs-torch-wheel-venv",
                     "An RX 7900 XTX (gfx1100) with no system ROCm; ~/venv holds torch 2.9.1+rocm6.4, whose "
                     "torch/lib bundles libamdhip64 and rocBLAS with gfx1100: healthy").base_system()
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210)
    site = "/home/alice/venv/lib/python3.12/site-packages"
    m.write("/home/alice/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n")
    m.write("/home/alice/venv/bin/python3", "")
    m.write(f"{site}/torch/__init__.py", "")
    m.write(f"{site}/torch/version.py", "__version__ = '2.9.1+rocm6.4'\ndebug = False\ncuda: Optional[str] = None\n"
            "git_version = 'd38164a545b4a4e4e0cf73ce67173f70574890b6'\nhip: Optional[str] = '6.4.43482-0f2d60242'\n"
            "rocm: Optional[str] = '6.4.3'\nxpu: Optional[str] = None\n")
    m.write(f"{site}/torch/lib/libamdhip64.so", "")
    m.write(f"{site}/torch/lib/libtorch_hip.so", "")
    for gfx in ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1102",
                "gfx1200", "gfx1201"):
        m.write(f"{site}/torch/lib/rocblas/library/TensileLibrary_lazy_{gfx}.dat", "")
    m.env.update(PATH="/home/alice/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                 VIRTUAL_ENV="/home/alice/venv")
    m.bashrc_extra = None
    m.save({})
    expected(m, m.description, {"rocm.not-installed": "info", "rocm.installs": "info"},
             absent=["rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs", "env"])
    source_md(m, "Built: a torch ROCm wheel's layout (torch/version.py with hip and rocm, torch/lib with its own "
                 "libamdhip64.so and rocblas/library) as pytorch's manywheel ROCm builds lay it out; rocBLAS file "
                 "names as gen_gpu_scenarios.py writes them.")


# ---- TheRock pip packages on an iGPU + dGPU host (lemonade-sdk/lemonade#2705) ----

THEROCK_SITE = "/home/alice/.venv/lib/python3.12/site-packages"
AVAILABLE = ["gfx90X-dcgpu", "gfx94X-dcgpu", "gfx950-dcgpu", "gfx101X-dgpu", "gfx103X-all", "gfx110X-all",
             "gfx1150", "gfx1151", "gfx120X-all"]


def therock_pip(name, description, families, env):
    m = gpus.Machine(name, description).base_system(distro="ubuntu2404", kernel="6.14.0-37-generic")
    m.gpu("0000:13:00.0", "0x164e", "0xc9", "gfx1036", 2, 0, 200, apu=True, subsystem=("0x1043", "0x8877"))
    m.gpu("0000:03:00.0", "0x7551", "0xc0", "gfx1201", 64, 32, 900, subsystem=("0x1002", "0x0e3b"))
    core = THEROCK_SITE + "/_rocm_sdk_core"
    m.write("/home/alice/.venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n")
    m.write("/home/alice/.venv/bin/python3", "")
    m.write(f"{THEROCK_SITE}/rocm_sdk_core-7.13.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: rocm-sdk-core\n"
            "Version: 7.13.0\n")
    m.write(f"{core}/__init__.py", "")
    m.write(f"{core}/lib/libamdhip64.so.7.13.60550", "")
    m.link(f"{core}/lib/libamdhip64.so.7", "libamdhip64.so.7.13.60550")
    m.write(f"{THEROCK_SITE}/rocm_sdk/__init__.py", "")
    m.write(f"{THEROCK_SITE}/rocm_sdk/_dist_info.py",
            '__version__ = "7.13.0"\nPY_PACKAGE_SUFFIX_NONCE: str = ""\nDEFAULT_TARGET_FAMILY: str = "gfx110X-all"\n'
            "AVAILABLE_TARGET_FAMILIES: list[str] = [" + ", ".join(f'"{f}"' for f in AVAILABLE) + "]\n")
    for family in families:
        package = "rocm_sdk_libraries_" + family.replace("-", "_")
        m.write(f"{THEROCK_SITE}/{package}-7.13.0.dist-info/METADATA",
                f"Metadata-Version: 2.1\nName: rocm-sdk-libraries-{family}\nVersion: 7.13.0\n")
        m.write(f"{THEROCK_SITE}/_{package}/__init__.py", "")
        m.write(f"{THEROCK_SITE}/_{package}/lib/librocblas.so.5", "")
    m.env.update(PATH="/home/alice/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                 VIRTUAL_ENV="/home/alice/.venv", **env)
    m.bashrc_extra = None
    m.save({})
    return m


def therock_pip_scenarios():
    m = therock_pip("installs-therock-pip-wrong-family",
                    "Ryzen 9 9950X iGPU (gfx1036) + Radeon AI PRO R9700 (gfx1201), HIP_VISIBLE_DEVICES=1 for the "
                    "R9700; TheRock's pip packages in ~/.venv with the iGPU's rocm-sdk-libraries-gfx103X-all: "
                    "rocm_sdk picks gfx103X-all (offload-arch still lists the iGPU) and the R9700 gets no kernels "
                    "(lemonade-sdk/lemonade#2705)", ["gfx103X-all"], {"HIP_VISIBLE_DEVICES": "1"})
    expected(m, m.description, {"rocm.therock-family-mismatch": "error", "rocm.installs": "info"},
             root_causes=["rocm.therock-family-mismatch"], checks=["rocm-installs"])
    source_md(m, "Built around lemonade-sdk/lemonade#2705 (https://github.com/lemonade-sdk/lemonade/issues/2705): "
                 "the R9700 (gfx1201) runs while the iGPU's gfx1036 family was installed. Package layout from "
                 "TheRock's rocm_sdk/_dist_info.py (commit 021840b3); families from therock_amdgpu_targets.cmake.")
    m = therock_pip("installs-therock-pip-wrong-family-healthy",
                    "Healthy twin: the same host with rocm-sdk-libraries-gfx120X-all installed and "
                    "ROCM_SDK_TARGET_FAMILY=gfx120X-all, so rocm_sdk loads the R9700's family",
                    ["gfx103X-all", "gfx120X-all"], {"HIP_VISIBLE_DEVICES": "1", "ROCM_SDK_TARGET_FAMILY": "gfx120X-all"})
    expected(m, m.description, {"rocm.installs": "info"}, absent=["rocm.therock-family-mismatch"],
             checks=["rocm-installs"])
    source_md(m, "Twin of installs-therock-pip-wrong-family (see its SOURCE.md).")


# ---- a TheRock tarball in /home ----

def tarball(name, description, targets):
    m = gpus.Machine(name, description).base_system(distro="ubuntu2404", kernel="6.8.0-90-generic")
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210)
    prefix = "/home/alice/rocm/7.13.0"
    m.write(f"{prefix}/.info/version", "7.13.0\n")
    m.write(f"{prefix}/lib/libamdhip64.so.7.13.60550", "")
    m.link(f"{prefix}/lib/libamdhip64.so.7", "libamdhip64.so.7.13.60550")
    m.write(f"{prefix}/bin/rocminfo", "")
    m.write(f"{prefix}/share/therock/therock_manifest.json",
            '{"the_rock_commit": "c3e4a1f0b2d96e8a7f5c4b3a2918d7e6f5a4b3c2", "submodules": []}\n')
    m.write(f"{prefix}/share/therock/dist_info.json", json.dumps({"dist_amdgpu_targets": ";".join(targets)}) + "\n")
    m.env.update(PATH=f"{prefix}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                 ROCM_PATH=prefix, LD_LIBRARY_PATH=f"{prefix}/lib")
    m.bashrc_extra = f"export ROCM_PATH={prefix}\nexport PATH={prefix}/bin:$PATH\nexport LD_LIBRARY_PATH={prefix}/lib\n"
    m.save({})
    return m


def tarball_scenarios():
    m = tarball("installs-tarball-home-lacks-gfx",
                "TheRock's gfx120X-all tarball unpacked in ~/rocm/7.13.0 (ROCM_PATH names it) on an RX 7900 XTX "
                "(gfx1100): dist_info.json says it was built for gfx1200;gfx1201 only", ["gfx1200", "gfx1201"])
    expected(m, m.description, {"rocm.bundle-lacks-gfx": "error", "rocm.installs": "info",
                                "rocm.not-installed": "info"},
             root_causes=["rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs"])
    source_md(m, "Built: a TheRock tarball's tree (.info/version, lib/libamdhip64.so.7, share/therock/"
                 "therock_manifest.json and dist_info.json with dist_amdgpu_targets as nightly tarballs write it).")
    m = tarball("installs-tarball-home-lacks-gfx-healthy",
                "Healthy twin: the gfx110X-all tarball (gfx1100;gfx1101;gfx1102;gfx1103) in the same place",
                ["gfx1100", "gfx1101", "gfx1102", "gfx1103"])
    expected(m, m.description, {"rocm.installs": "info", "rocm.not-installed": "info"},
             absent=["rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs"])
    source_md(m, "Twin of installs-tarball-home-lacks-gfx (see its SOURCE.md).")


# ---- conda, Fedora, Arch, ROCm 10.2 ----

def conda_env():
    m = gpus.Machine("installs-conda-env",
                     "An RX 7900 XTX with no system ROCm; a conda environment ~/miniconda3/envs/rocm ships the HIP "
                     "runtime (conda-forge rocm-core 6.4.1): healthy").base_system()
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210)
    env = "/home/alice/miniconda3/envs/rocm"
    m.write(f"{env}/conda-meta/rocm-core-6.4.1-h3b8e9c0_0.json", '{"name": "rocm-core", "version": "6.4.1"}\n')
    m.write(f"{env}/conda-meta/history", "")
    m.write(f"{env}/bin/python3", "")
    m.write(f"{env}/lib/python3.12/site-packages/README.txt", "")
    m.write(f"{env}/lib/libamdhip64.so.6.4.43484", "")
    m.link(f"{env}/lib/libamdhip64.so.6", "libamdhip64.so.6.4.43484")
    m.env.update(CONDA_PREFIX=env, PATH=f"{env}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
    m.bashrc_extra = None
    m.save({})
    expected(m, m.description, {"rocm.not-installed": "info", "rocm.installs": "info"},
             absent=["rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs"])
    source_md(m, "Built: a conda environment's layout (conda-meta/<name>-<version>-<build>.json, lib/).")


def fedora_distro():
    m = gpus.Machine("installs-fedora-distro-rocm",
                     "Fedora 42 with its own ROCm 6.3 packages (rocm-hip: /usr/lib64/libamdhip64.so.6.3.42134) "
                     "on an RX 7900 XTX: healthy").base_system()
    m.write("/etc/os-release", 'NAME="Fedora Linux"\nVERSION="42 (Workstation Edition)"\nID=fedora\n'
            'VERSION_ID=42\nPRETTY_NAME="Fedora Linux 42 (Workstation Edition)"\n')
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210)
    m.write("/usr/lib64/libamdhip64.so.6.3.42134", "")
    m.link("/usr/lib64/libamdhip64.so.6", "libamdhip64.so.6.3.42134")
    m.write("/usr/bin/rocminfo", "")
    m.env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    m.bashrc_extra = None
    m.save({})
    expected(m, m.description, {"rocm.version": "info", "rocm.installs": "info"},
             absent=["rocm.not-installed", "rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs"])
    source_md(m, "Built: Fedora's ROCm packages install libamdhip64 into /usr/lib64.")


def arch_distro():
    m = gpus.Machine("installs-arch-distro-rocm",
                     "Arch Linux's ROCm 6.4.1 packages (hip-runtime-amd, rocm-core: Arch installs into /opt/rocm "
                     "itself, pacman owns it) on an RX 7900 XTX: healthy").base_system()
    m.write("/etc/os-release", 'NAME="Arch Linux"\nPRETTY_NAME="Arch Linux"\nID=arch\nBUILD_ID=rolling\n')
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210)
    m.write("/opt/rocm/.info/version", "6.4.1\n")
    m.write("/opt/rocm/lib/libamdhip64.so.6.4.43482", "")
    m.link("/opt/rocm/lib/libamdhip64.so.6", "libamdhip64.so.6.4.43482")
    m.write("/opt/rocm/bin/rocminfo", "")
    m.write("/etc/ld.so.conf.d/rocm.conf", "/opt/rocm/lib\n")
    m.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    m.write("/var/lib/pacman/local/rocm-core-6.4.1-1/desc", "%NAME%\nrocm-core\n\n%VERSION%\n6.4.1-1\n")
    m.write("/var/lib/pacman/local/hip-runtime-amd-6.4.1-1/desc", "%NAME%\nhip-runtime-amd\n\n%VERSION%\n6.4.1-1\n")
    m.save({})
    expected(m, m.description, {"rocm.version": "info", "rocm.installs": "info"},
             absent=["rocm.not-installed", "rocm.bundle-lacks-gfx"], checks=["rocm-install", "rocm-installs"])
    source_md(m, "Built: Arch's ROCm packages install into /opt/rocm (rocm-core owns /opt/rocm/.info/version); "
                 "pacman's database in /var/lib/pacman/local/<name>-<version>/desc.")


def rocm_102():
    m = gpus.Machine("installs-rocm-10-2-packages",
                     "ROCm Core SDK 10.2.0 packages (/opt/rocm/core-10.2 with update-alternatives links) on an RX "
                     "7900 XTX: the knowledge base knows 10.2, so no rocm.release-unknown-newer").base_system(
        distro="ubuntu2404", kernel="6.8.0-90-generic")
    m.gpu("0000:03:00.0", "0x744c", "0xc8", "gfx1100", 96, 24, 1210)
    prefix = "/opt/rocm/core-10.2"
    m.write(f"{prefix}/.info/version", "10.2.0\n")
    m.write(f"{prefix}/lib/libamdhip64.so.7.17.60100", "")
    m.link(f"{prefix}/lib/libamdhip64.so.7", "libamdhip64.so.7.17.60100")
    for tool in ("rocminfo", "hipconfig", "amd-smi"):
        m.write(f"{prefix}/bin/{tool}", "")
    for name, link_path, target in (("core", "/opt/rocm/core", prefix), ("core-10", "/opt/rocm/core-10", prefix),
                                    ("rocm-bin", "/opt/rocm/bin", prefix + "/bin"),
                                    ("rocm-lib", "/opt/rocm/lib", prefix + "/lib")):
        m.link(f"/etc/alternatives/{name}", target)
        m.link(link_path, f"/etc/alternatives/{name}")
    m.write("/etc/ld.so.conf.d/amdrocm.conf", "/opt/rocm/lib\n")
    m.write("/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    m.save({})
    expected(m, m.description, {"rocm.version": "info", "rocm.installs": "info", "rocm.ok": "ok"},
             absent=["rocm.release-unknown-newer", "rocm.not-installed"], checks=["rocm-install", "rocm-installs"])
    source_md(m, "Built: the Core SDK layout of gen_rocm714_scenarios.py (TheRock build_package.py and "
                 "amdrocm-core-postinst.j2, commit 89553ce3) at 10.2; HIP 7.17 (AMDGPU.jl v2.13.0's note on 10.2).")


def main():
    scenario_out.parse(__doc__)
    ollama_container_strix_halo()
    ollama_780m_scenarios()
    torch_venv()
    therock_pip_scenarios()
    tarball_scenarios()
    conda_env()
    fedora_distro()
    arch_distro()
    rocm_102()


if __name__ == "__main__":
    main()
