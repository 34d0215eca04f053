#!/usr/bin/env python3
"""Times whole rocm-doctor runs beside Debian's rocminfo and rocm-smi; prints a markdown table.

Each case runs --repeat times after one warm-up run, under /usr/bin/time -v (peak RSS,
user and system CPU); wall time is measured around it. Reported: median wall, min-max wall,
median CPU and median peak RSS. Nothing here fails on time: the budgets are printed beside
the figures (docs/performance.md).

    bench/process_bench.py --doctor build-release/rocm-doctor            # full run, ~2 min
    bench/process_bench.py --doctor build-release/rocm-doctor --quick    # CI: few runs, small fleet

Cases: a live run at the default probe level with the Python probe skipped (--skip torch,miopen)
and with Python absent (--python naming no interpreter); the default run (no flags) with a venv on
PATH whose torch would sleep 5 s on import (torch is read from its files, nothing is imported)
and with Debian's real python3-torch (--python /usr/bin/python3); `targets` on a synthetic 1 GiB
sparse ELF whose .hip_fatbin holds 4,096 offload bundles; a live run with every probe (--level full) against
the slowest single probe; replays of synthetic 8- and 64-GPU MI300X nodes
(tests/scenarios/gen_synthetic_node.py); `fleet` over 10,000 reports made from the scenario replays.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent
SCENARIOS = SOURCE / "tests" / "scenarios"
GENERATOR = SCENARIOS / "gen_synthetic_node.py"
TIME = "/usr/bin/time"


def measure(argv, repeat, env=None, stderr_file=None):
    """Runs argv repeat+1 times (the first is a warm-up); returns a list of per-run dicts."""
    runs = []
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as report:
        for attempt in range(repeat + 1):
            start = time.perf_counter()
            completed = subprocess.run([TIME, "-v", "-o", report.name] + argv, env=env, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE if stderr_file is None else stderr_file)
            wall = time.perf_counter() - start
            report.seek(0)
            text = report.read()
            if attempt == 0:
                continue
            runs.append({"wall_ms": wall * 1000, "rss_kb": field(text, "Maximum resident set size (kbytes)"),
                         "cpu_ms": (field(text, "User time (seconds)") + field(text, "System time (seconds)")) * 1000,
                         "exit": completed.returncode,
                         "stderr": completed.stderr.decode(errors="replace") if completed.stderr else ""})
    return runs


def field(text, name):
    match = re.search(re.escape(name) + r":\s*([0-9.]+)", text)
    return float(match.group(1)) if match else 0.0


def summary(runs):
    walls = [run["wall_ms"] for run in runs]
    return {"median_ms": statistics.median(walls), "min_ms": min(walls), "max_ms": max(walls),
            "cpu_ms": statistics.median(run["cpu_ms"] for run in runs),
            "rss_mb": statistics.median(run["rss_kb"] for run in runs) / 1024,
            "exits": sorted({run["exit"] for run in runs})}


def synthetic_node(work, gpus):
    folder = work / f"node-{gpus}"
    if not (folder / "snapshot.json").exists():
        subprocess.run([sys.executable, str(GENERATOR), "--gpus", str(gpus), "--out", str(folder)], check=True)
    return folder


def fleet_reports(work, doctor, count):
    """count JSON reports in 40 folders: the scenario replays, each node named node00000..."""
    folder = work / f"fleet-{count}"
    if (folder / "done").exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    templates = []
    for scenario in sorted(SCENARIOS.iterdir()):
        if not (scenario / "snapshot.json").exists():
            continue
        out = subprocess.run([str(doctor), "--replay", str(scenario), "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        if out.stdout.startswith(b"{"):
            templates.append(json.loads(out.stdout))
    if not templates:
        sys.exit("process_bench: no scenario replay produced a report")
    for index in range(count):
        report = templates[index % len(templates)]
        report["host"]["hostname"] = f"node{index:05d}"
        rack = folder / f"rack{index % 40:02d}"
        rack.mkdir(parents=True, exist_ok=True)
        (rack / f"node{index:05d}.json").write_text(json.dumps(report, indent=2) + "\n")
    (folder / "done").write_text("")
    return folder


def slow_torch_venv(work):
    """A venv on PATH whose torch is a ROCm build by its files and sleeps 5 s when imported."""
    venv = work / "slow-venv"
    target = os.path.realpath("/usr/bin/python3")
    version = re.search(r"python(3\.\d+)", target)
    if not version:
        return None
    site = venv / "lib" / f"python{version.group(1)}" / "site-packages" / "torch"
    site.mkdir(parents=True, exist_ok=True)
    (venv / "bin").mkdir(exist_ok=True)
    if not (venv / "bin" / "python3").exists():
        (venv / "bin" / "python3").symlink_to("/usr/bin/python3")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n")
    (site / "version.py").write_text("__version__ = '2.5.1+rocm6.2'\ncuda = None\nhip = '6.2.41133-dd7f95766'\n")
    (site / "__init__.py").write_text("import time\ntime.sleep(5)\n__version__ = '2.5.1+rocm6.2'\n")
    return venv


def large_library(work, size=1 << 30, bundles=4096):
    """A sparse ELF of `size` bytes whose .hip_fatbin (the whole file but the headers) holds
    `bundles` uncompressed offload bundles, each with 8 GPU entries of 256 KiB (holes)."""
    path = work / "libhuge.so"
    if path.exists() and path.stat().st_size == size:
        return path
    import struct
    names = b"\0.shstrtab\0.hip_fatbin\0"
    fat_at = 4096
    fat_size = size - 2 * 4096
    stride = fat_size // bundles // 4096 * 4096
    targets = ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101"]
    with open(path, "wb") as out:
        out.truncate(size)
        for index in range(bundles):
            ids = ["host-x86_64-unknown-linux-gnu-"] + [f"hipv4-amdgcn-amd-amdhsa--{t}" for t in targets]
            header = 24 + 8 + sum(24 + len(i) for i in ids)
            code = (stride - header) // len(ids)
            blob = b"__CLANG_OFFLOAD_BUNDLE__" + struct.pack("<Q", len(ids))
            for n, entry in enumerate(ids):
                blob += struct.pack("<QQQ", header + n * code, code, len(entry)) + entry.encode()
            out.seek(fat_at + index * stride)
            out.write(blob)
        shoff = size - 4096
        out.seek(64)
        out.write(names)
        out.seek(0)
        out.write(b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\0" * 8 +
                  struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, 3, 1))
        out.seek(shoff)
        out.write(b"\0" * 64 + struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, 64, len(names), 0, 0, 1, 0) +
                  struct.pack("<IIQQQQIIQQ", 11, 1, 2, 0, fat_at, fat_size, 0, 0, 4096, 0))
    return path


def probe_times(stderr):
    """The probes' own wall times from a -v run's log: {'hip': 81, ...}."""
    return {name: int(ms) for name, ms in re.findall(r"probe (\w+): \w[\w-]* in (\d+) ms", stderr)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doctor", default=str(SOURCE / "build-release" / "rocm-doctor"))
    parser.add_argument("--repeat", type=int, default=11, help="timed runs per case (after one warm-up)")
    parser.add_argument("--fleet", type=int, default=10000, help="reports in the fleet case")
    parser.add_argument("--quick", action="store_true", help="3 runs per case and a 500-report fleet (CI)")
    parser.add_argument("--work", help="folder for the generated snapshots and reports (default: a temporary one)")
    parser.add_argument("--output", help="also write the markdown table to this file")
    args = parser.parse_args()
    if args.quick:
        args.repeat, args.fleet = 3, 500
    doctor = Path(args.doctor).resolve()
    if not doctor.exists():
        sys.exit(f"process_bench: {doctor}: no such binary (build it first)")
    if not Path(TIME).exists():
        sys.exit("process_bench: /usr/bin/time is missing (Debian package `time`)")
    temporary = None if args.work else tempfile.TemporaryDirectory(prefix="rocm-doctor-bench-")
    work = Path(args.work or temporary.name)
    work.mkdir(parents=True, exist_ok=True)

    rows = []

    def case(name, argv, budget, env=None, shown=None):
        runs = measure(argv, args.repeat, env)
        rows.append((name, shown or " ".join([Path(argv[0]).name] + argv[1:]), budget, summary(runs)))
        return runs

    live = [str(doctor), "--skip", "torch,miopen"]
    case("live, default level, Python probe skipped", live, "< 20 ms, < 10 MB")
    case("live, default level, Python absent", [str(doctor), "--python", "/nonexistent/python3"],
         "< 20 ms, < 10 MB")
    venv = slow_torch_venv(work)
    if venv:
        env = dict(os.environ, PATH=f"{venv}/bin:/usr/bin:/bin", VIRTUAL_ENV=str(venv))
        env.pop("PYTHONPATH", None)
        case("live, default run, venv whose torch import sleeps 5 s", [str(doctor)], "<= rocminfo, <= 16 MiB", env=env,
             shown="PATH=slow-venv/bin:... rocm-doctor")
    if os.path.exists("/usr/lib/python3/dist-packages/torch/version.py"):
        case("live, default run, Debian's python3-torch", [str(doctor), "--python", "/usr/bin/python3"],
             "<= rocminfo, <= 16 MiB")
        case("live, --level full, Debian's python3-torch (imports it)",
             [str(doctor), "--level", "full", "--python", "/usr/bin/python3"], "-")
    huge = large_library(work)
    case("targets, 1 GiB synthetic library (4,096 bundles)", [str(doctor), "targets", str(huge),
                                                              "--target-gfx", "gfx942"],
         "well under 1 s", shown="rocm-doctor targets libhuge.so --target-gfx gfx942")
    for tool in ("rocminfo", "rocm-smi"):
        path = shutil.which(tool)
        if path:
            case(f"Debian's {tool} (for comparison)", [path], "-")
        else:
            print(f"process_bench: {tool} is not installed; skipped", file=sys.stderr)
    runs = case("live, every probe (--level full)", [str(doctor), "--level", "full", "-v"],
                "slowest probe + max(10%, 20 ms)")
    slowest = [max(probe_times(run["stderr"]).values(), default=0) for run in runs]
    rows[-1][3]["note"] = f"slowest probe: median {statistics.median(slowest):.0f} ms"
    node8, node64 = synthetic_node(work, 8), synthetic_node(work, 64)
    case("replay, 8 GPUs (MI300X node, every check)", [str(doctor), "--replay", str(node8)], "< 15 ms",
         shown="rocm-doctor --replay node-8")
    case("replay, 64 GPUs (synthetic)", [str(doctor), "--replay", str(node64)], "< 50 ms",
         shown="rocm-doctor --replay node-64")
    fleet = fleet_reports(work, doctor, args.fleet)
    size = sum(f.stat().st_size for f in fleet.rglob("*.json")) / 1e6
    saved_repeat = args.repeat
    args.repeat = min(args.repeat, 5)
    case(f"fleet, {args.fleet} reports ({size:.0f} MB)", [str(doctor), "fleet", str(fleet)],
         "< 3 s" if args.fleet == 10000 else "-", shown=f"rocm-doctor fleet fleet-{args.fleet}/")
    args.repeat = saved_repeat

    load = os.getloadavg()
    lines = [f"| Case | Command | Budget | Median wall | Min-max wall | CPU (user+sys) | Peak RSS |",
             "|---|---|---|---|---|---|---|"]
    for name, command, budget, s in rows:
        note = f" ({s['note']})" if "note" in s else ""
        lines.append(f"| {name}{note} | `{command}` | {budget} | {s['median_ms']:.1f} ms | "
                     f"{s['min_ms']:.1f}-{s['max_ms']:.1f} ms | {s['cpu_ms']:.0f} ms | {s['rss_mb']:.1f} MB |")
    lines.append("")
    lines.append(f"{args.repeat} timed runs per case after a warm-up (fleet: {min(args.repeat, 5)}); "
                 f"{os.cpu_count()} CPUs, load average {load[0]:.1f} at the end; "
                 f"CPU time has a resolution of 10 ms.")
    table = "\n".join(lines) + "\n"
    print(table)
    if args.output:
        Path(args.output).write_text(table)
    if temporary:
        temporary.cleanup()


if __name__ == "__main__":
    main()
