#!/usr/bin/env python3
"""Times whole rocm-doctor runs beside Debian's rocminfo and rocm-smi; prints a markdown table.

Each case runs --repeat times after one warm-up run, under /usr/bin/time -v (peak RSS,
user and system CPU); wall time is measured around it. Reported: median wall, min-max wall,
median CPU and median peak RSS. Nothing here fails on time: the budgets are printed beside
the figures (docs/performance.md).

    bench/process_bench.py --doctor build-release/rocm-doctor            # full run, ~2 min
    bench/process_bench.py --doctor build-release/rocm-doctor --quick    # CI: few runs, small fleet

Cases: a live run at the default probe level with the Python probe skipped (--skip torch,miopen)
and with Python absent (--python naming no interpreter); a live run with every probe (--level full) against
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
