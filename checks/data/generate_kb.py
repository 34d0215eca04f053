#!/usr/bin/env python3
"""Derives gfx_targets.json, pci_ids.json and rocm_releases.json in this folder from the fact sheet
kb/gpu_db.json (every row with its sources; its _meta says where it came from and what was added).
A fact for these tables goes into the fact sheet, never into the tables by hand: run this and commit
both. The build never runs it; tests/scenarios/regenerate_test.py checks that its output is the
committed tables, byte for byte.

    python3 checks/data/generate_kb.py [FACT_SHEET] [--out DIR]   # defaults: kb/gpu_db.json, this folder
"""
import argparse
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Short family names and ISA-compatibility groups. Two targets of the same
# isa_family share an instruction set closely enough that one can run the
# other's code objects (LLVM AMDGPUUsage 'Generic Processors' table:
# gfx9-generic, gfx9-4-generic, gfx10-1-generic, gfx10-3-generic,
# gfx11-generic, gfx12-generic); gfx908 and gfx90a have no generic
# processor and form groups of their own.
FAMILY = {
    "gfx700": ("GCN2", "gfx7"), "gfx701": ("GCN2", "gfx7"),
    "gfx801": ("GCN3", "gfx8"), "gfx802": ("GCN3", "gfx8"), "gfx803": ("GCN3/GCN4", "gfx8"),
    "gfx900": ("GCN5", "gfx9"), "gfx902": ("GCN5", "gfx9"), "gfx904": ("GCN5", "gfx9"),
    "gfx906": ("GCN5.1", "gfx9"), "gfx909": ("GCN5", "gfx9"), "gfx90c": ("GCN5", "gfx9"),
    "gfx908": ("CDNA1", "gfx908"), "gfx90a": ("CDNA2", "gfx90a"),
    "gfx940": ("CDNA3", "gfx9-4"), "gfx941": ("CDNA3", "gfx9-4"), "gfx942": ("CDNA3", "gfx9-4"),
    "gfx950": ("CDNA4", "gfx9-4"),
    "gfx1010": ("RDNA1", "gfx10-1"), "gfx1011": ("RDNA1", "gfx10-1"), "gfx1012": ("RDNA1", "gfx10-1"),
    "gfx1013": ("RDNA1", "gfx10-1"),
    **{f"gfx103{i}": ("RDNA2", "gfx10-3") for i in range(7)},
    **{f"gfx110{i}": ("RDNA3", "gfx11") for i in range(4)},
    **{f"gfx115{i}": ("RDNA3.5", "gfx11") for i in range(5)},
    "gfx1200": ("RDNA4", "gfx12"), "gfx1201": ("RDNA4", "gfx12"),
    "gfx1250": ("GFX12.5", "gfx12-5"),
}

# reliability of a workaround: "community" (widely reported to work, unofficial),
# "disputed" (works for some, hangs/faults for others), "unreliable" (different ISA
# generation; crashes reported), "reported" (single reports).
RELIABILITY = {
    "10.3.0:gfx1031": "community", "10.3.0:gfx1032": "community", "10.3.0:gfx1033": "community",
    "10.3.0:gfx1034": "community", "10.3.0:gfx1035": "community", "10.3.0:gfx1036": "community",
    "11.0.0:gfx1101": "community", "11.0.0:gfx1102": "community",
    "11.0.0:gfx1103": "disputed", "9.0.0:gfx90c": "community",
    "10.3.0:gfx1010": "unreliable", "10.3.0:gfx1011": "unreliable", "10.3.0:gfx1012": "unreliable",
    "11.5.0:gfx1152": "reported",
}

# What is known about support before the releases in rocm_releases.json.
HISTORY = {
    "gfx803": {
        "text": "GFX8 (Polaris/Fiji) support was 'not guaranteed' from ROCm 4.x and GFX8 GPUs are not detected "
                "from ROCm 4.5 on; rocBLAS dropped gfx803 from its 6.0 builds (5.7.1 is the last release whose "
                "rocBLAS still carries gfx803 kernels).",
        "last_release": "5.7",
        "sources": ["RadeonOpenCompute/ROCm#1356, ROCm/ROCm#1659 (gfx8 OpenCL/ROCm 4.5)",
                    "thaddeusc1 gist 'ROCm Installation on Ubuntu 20.04 ... for GFX8 GPUs' (gfx8 not detected in 4.5)",
                    "ollama/ollama#2453 (rocBLAS removed gfx803 from 6.0.x builds; 5.7.1 works)"],
    },
    "gfx900": {
        "text": "Radeon Instinct MI25 (gfx900) is listed as unsupported from the ROCm 5.6 documentation on.",
        "last_release": "",
        "sources": ["ROCm/ROCm branch docs/5.6.0 docs/release/gpu_os_support.md"],
    },
}

LLVM_SOURCE = ("llvm/llvm-project llvm/docs/AMDGPUUsage.rst 'AMDGPU Processors' and 'Generic Processors' "
               "tables (isa_family groups)")


def gfx_of_override(value):
    major, minor, step = (int(x) for x in value.split("."))
    return f"gfx{major}{minor:x}{step:x}"


def targets(db):
    workaround = {}
    for mapping in db["overrides"]["mappings"]:
        value = mapping["override"]
        if not re.fullmatch(r"\d+\.\d+\.\d+", value):
            continue
        for gfx in mapping["actual_gfx"]:
            workaround[gfx] = {
                "override": value,
                "runs_as": gfx_of_override(value),
                "reliability": RELIABILITY[f"{value}:{gfx}"],
                "note": mapping["notes"],
                "sources": mapping["sources"],
            }
    rows = []
    for t in db["targets"]:
        family, isa = FAMILY[t["gfx"]]
        row = {
            "gfx": t["gfx"],
            "family": family,
            "family_detail": t["family"],
            "isa_family": isa,
            "kfd_gfx_target_version": t["kfd_gfx_target_version"],
            "override": t["hsa_override_string"],
            "apu": bool(t["apu"]),
            "codenames": t["codenames"],
            "products": [p.strip() for e in t["example_products"] for p in e.split(";") if p.strip()],
            "notes": t["notes"],
            "sources": t["sources"] + [LLVM_SOURCE],
        }
        if t["gfx"] in HISTORY:
            row["support_history"] = HISTORY[t["gfx"]]
        if t["gfx"] in workaround:
            row["workaround"] = workaround[t["gfx"]]
        rows.append(row)
    return {
        "_as_of": db["_meta"]["as_of"]["gfx_targets"],
        "_sources": sorted({s for t in db["targets"] for s in t["sources"]} | {LLVM_SOURCE}
                           | {s for m in db["overrides"]["mappings"] for s in m["sources"]}
                           | {s for h in HISTORY.values() for s in h["sources"]}),
        "_notes": "gfx targets: family, APU flag, override string (major.minor.stepping, decimal), "
                  "isa_family (override compatibility group) and the known override workaround.",
        "_override_rules": db["overrides"]["rules"],
        "targets": rows,
    }


# Accelerator dies (XCDs) of MI300-series GPUs (CPX mode makes one partition of each) and the APU
# whose GPU shares one HBM pool with the CPU. Written for the revision-0x00 / any-revision rows.
XCDS = {"0x74a0": 6, "0x74a1": 8, "0x74a2": 4, "0x74a5": 8, "0x74a9": 8, "0x74bd": 8, "0x75a0": 8, "0x75a3": 8}
UNIFIED_MEMORY = {"0x74a0"}
XCDS_SOURCE = ("AMD Instinct partitioning docs (instinct.docs.amd.com/projects/amdgpu-docs gpu-partitioning: MI300X "
               "is 8 XCDs, MI300A 6 XCDs; MI325X/MI350X/MI355X CPX = 8 logical GPUs per GPU, aac.amd.com bare-metal "
               "GPU partitioning); MI308X: 4 partitions of 20 CUs in CPX in the ROCm/k8s-device-plugin "
               "testdata/topology-parsing-mi308 capture")


def pci_ids(db):
    rows, seen = [], set()
    for p in db["pci_ids"]:
        if p["gfx"] == "unknown":
            gfx = None
        else:
            gfx = p["gfx"]
        key = (p["device_id"].lower(), (p["revision"] or "any").lower())
        if key in seen:
            continue
        seen.add(key)
        row = {
            "device": p["device_id"].lower(),
            "revision": p["revision"].lower() if p["revision"] else None,
            "name": p["marketing_name"],
            "codename": p["codename"],
            "gfx": gfx,
            "notes": p["notes"],
            "sources": p["sources"],
        }
        if row["device"] in XCDS and row["revision"] in ("0x00", None):
            row["xcds"] = XCDS[row["device"]]
            if row["device"] in UNIFIED_MEMORY:
                row["unified_memory"] = True
            row["sources"] = row.pop("sources") + [XCDS_SOURCE]
        # An SR-IOV virtual function has its own device id, named "... VF" or
        # "... MxGPU" (AMD's SR-IOV brand) in pci.ids and libdrm's amdgpu.ids.
        if re.search(r"\bVF\b|MxGPU", p["marketing_name"]):
            row["virtual_function"] = True
        rows.append(row)
    return {
        "_as_of": db["_meta"]["as_of"]["pci_ids"],
        "_sources": sorted({s for p in db["pci_ids"] for s in p["sources"]}),
        "_notes": "PCI vendor 0x1002 device (and revision, null = any) -> marketing name and gfx target. "
                  "Prefer KFD gfx_target_version; use this table for names and when KFD is absent. 'xcds': "
                  "accelerator dies of an MI300-series GPU (CPX mode = one partition per XCD); 'unified_memory': an "
                  "APU whose GPU and CPU share one HBM pool (MI300A).",
        "vendor": "0x1002",
        "devices": rows,
    }


def releases(db):
    rows = []
    for r in db["support_matrix"]:
        tgts = []
        for entry in r["gfx_targets"]:
            m = re.fullmatch(r"(gfx[0-9a-f]+)(?: \((\d+\.\d+\.\d+)(?:\+| only)\))?", entry)
            tgts.append({"gfx": m.group(1), "since": m.group(2) or ""})
        rows.append({
            "release": r["release"],
            "patch_releases": [p.rstrip("?") for p in r["patch_releases"]],
            "released": r["released"],
            "layout": r["layout"],
            "gfx_targets": tgts,
            "gpus": r["gpus"],
            "deprecated_or_unsupported": r["deprecated_or_unsupported"],
            "os": r["os"],
            "notes": r["notes"],
            "sources": r["sources"],
        })
    per_device = db["overrides"]["rules"]["per_device_variant"]
    return {
        "_as_of": db["_meta"]["as_of"]["rocm_releases"],
        "_sources": sorted({s for r in db["support_matrix"] for s in r["sources"]}),
        "_notes": "Official Linux support per ROCm release: gfx targets (since = first patch release "
                  "listing it), supported distributions with kernels, notes. Each release row names its layout "
                  "(legacy /opt/rocm-X.Y.Z or core-sdk /opt/rocm/core-X.Y) and the date of each patch release.",
        "per_device_override": {
            "variable": "HSA_OVERRIDE_GFX_VERSION_<node>",
            "since": "6.2",
            "inferred": True,
            "note": per_device,
            "sources": ["ROCm/ROCT-Thunk-Interface commit cf49353 (2024-06-04)",
                        "ROCm 6.2.0 ships ROCT 20240607.* (date inference)"],
        },
        "releases": rows,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fact_sheet", nargs="?", default=str(HERE / "kb" / "gpu_db.json"))
    parser.add_argument("--out", default=str(HERE), help="folder to write the tables into (default: this one)")
    args = parser.parse_args()
    db = json.loads(Path(args.fact_sheet).read_text())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, data in (("gfx_targets", targets(db)), ("pci_ids", pci_ids(db)), ("rocm_releases", releases(db))):
        (out / f"{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
