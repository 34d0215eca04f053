#!/usr/bin/env python3
"""`rocm-doctor fleet` over 2,000, 20,000 and 100,000 reports: wall time, CPU and peak RSS.

The reports are the scenario replays (bench/process_bench.py's fleet generator: 40 rack
folders, one node name per report). Each size runs --repeat times after a warm-up under
/usr/bin/time -v. Figures only, nothing fails on them; the budgets of issue 20 are printed
beside them: peak RSS at 20,000 reports within 1.25x of that at 2,000 and under 64 MiB,
100,000 reports in under 10 s on 2 cores (docs/performance.md).

    bench/fleet_bench.py --doctor build/rocm-doctor                    # ~1.5 GB of reports in --work
    bench/fleet_bench.py --doctor build/rocm-doctor --sizes 500,5000   # quick
    bench/fleet_bench.py --doctor build/rocm-doctor --sizes 2000,20000 --baseline auto   # issue 29

With --baseline (auto, or a report file) `fleet` also compares every node with the baseline
(docs/fleet.md#the-node-that-differs); the same budget holds: 20,000 within 1.25x of 2,000.
"""
import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from process_bench import fleet_reports, measure  # noqa: E402  (same folder)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doctor", required=True)
    parser.add_argument("--sizes", default="2000,20000,100000", help="report counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per size (after one warm-up)")
    parser.add_argument("--work", default="/tmp/rocm-doctor-fleet-bench", help="where the reports are kept")
    parser.add_argument("--format", default="json", help="the summary's format (text, markdown, json)")
    parser.add_argument("--baseline", default="", help="also compare with a baseline: auto or a report file")
    args = parser.parse_args()
    doctor = Path(args.doctor).resolve()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows, rss = [], {}
    for count in (int(size) for size in args.sizes.split(",")):
        folder = fleet_reports(work, doctor, count)
        size_mb = sum(f.stat().st_size for f in folder.rglob("*.json")) / 1e6
        command = [str(doctor), "fleet", str(folder), "--format", args.format]
        if args.baseline:
            command += ["--baseline", args.baseline]
        runs = measure(command, args.repeat)
        if any(run["exit"] != 0 for run in runs):
            sys.exit(f"fleet_bench: rocm-doctor fleet failed on {count} reports: {runs[0]['stderr']}")
        wall = statistics.median(run["wall_ms"] for run in runs) / 1000
        cpu = statistics.median(run["cpu_ms"] for run in runs) / 1000
        rss[count] = statistics.median(run["rss_kb"] for run in runs) / 1024
        rows.append(f"| {count:,} | {size_mb:,.0f} MB | {wall:.2f} s | {cpu:.2f} s | {rss[count]:.1f} MiB |")
    print("| reports | JSON | wall (median) | CPU | peak RSS |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    load = os.getloadavg()[0]
    if args.baseline:
        print(f"\nfleet --baseline {args.baseline}")
    print(f"\n{args.repeat} timed runs per size after a warm-up; {os.cpu_count()} CPUs, load average {load:.1f}.")
    if 2000 in rss and 20000 in rss:
        ratio = rss[20000] / rss[2000]
        print(f"peak RSS 20,000 / 2,000 reports: {ratio:.2f}x (budget 1.25x); "
              f"20,000 reports: {rss[20000]:.1f} MiB (budget 64 MiB)")


if __name__ == "__main__":
    main()
