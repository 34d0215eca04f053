#!/usr/bin/env python3
"""Regenerates the generated scenarios and knowledge tables into a temporary folder and compares them with the tree.

Each gen_*.py (but gen_synthetic_node.py, which writes benchmark nodes, not the tree) runs with
`--out TMP/<generator>`; every folder it writes must equal the committed folder of that name file for file:
the same files, bytes, executable bits and symbolic links. No folder may be written by two generators, and a
committed scenario folder no generator writes must say so: its SOURCE.md's first lines hold the line
HAND_WRITTEN below (tests/scenarios/README.md, "Generated scenarios"). A generated folder must not say it.
checks/data/generate_kb.py runs with `--out TMP/kb`: each table it writes must equal the committed one byte for
byte. Exit status 1 names every difference.

    tests/regenerate_test.py [--keep DIR]   # DIR: keep the regenerated trees there
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HERE = REPO / "tests" / "scenarios"
KB = REPO / "checks" / "data"
NOT_TREE_GENERATORS = {"gen_synthetic_node.py"}  # writes a node of N GPUs for bench/, never the tree
HAND_WRITTEN = "Hand-written: no generator writes this folder."


def generators():
    return sorted(p for p in HERE.glob("gen_*.py") if p.name not in NOT_TREE_GENERATORS)


def kb_problems(out):
    problems = []
    for table in sorted(out.iterdir()):
        committed = KB / table.name
        if not committed.is_file():
            problems.append(f"checks/data/{table.name}: generate_kb.py writes it, the tree has no such file")
        elif committed.read_bytes() != table.read_bytes():
            problems.append(f"checks/data/{table.name}: content differs from generate_kb.py's output")
    return problems


def run(generator, out):
    result = subprocess.run([sys.executable, str(generator), "--out", str(out)], capture_output=True, text=True)
    return generator.name, result


def entries(folder):
    """path -> ("link", target) | ("file", executable, bytes) under folder (git keeps no empty folder)."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        base = Path(dirpath)
        for name in dirnames + filenames:
            path = base / name
            key = path.relative_to(folder).as_posix()
            if path.is_symlink():
                found[key] = ("link", os.readlink(path))
            elif not path.is_dir():
                found[key] = ("file", os.access(path, os.X_OK), path.read_bytes())
    return found


def describe(entry):
    if entry is None:
        return "missing"
    if entry[0] == "link":
        return "a link to " + entry[1]
    return f"a {len(entry[2])}-byte file" + (" (executable)" if entry[1] else "")


def compare(name, generated, committed):
    ours, theirs = entries(generated), entries(committed)
    problems = []
    for key in sorted(set(ours) | set(theirs)):
        mine, tree = ours.get(key), theirs.get(key)
        if mine == tree:
            continue
        if mine and tree and mine[0] == tree[0] == "file" and mine[2] != tree[2]:
            problems.append(f"{name}/{key}: content differs")
        else:
            problems.append(f"{name}/{key}: generated {describe(mine)}, committed {describe(tree)}")
    return problems


def says_hand_written(folder):
    source = folder / "SOURCE.md"
    return source.is_file() and HAND_WRITTEN in source.read_text(encoding="utf-8").splitlines()[:5]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="write the regenerated tree here (kept) instead of a temporary folder")
    args = parser.parse_args()
    # About 29 000 files (160 MB) are written: in memory (/dev/shm) when there is one.
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="rocm-doctor-regen-", dir=shm) as temporary:
        top = Path(args.keep or temporary).resolve()
        problems, owner = [], {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            runs = [pool.submit(run, g, top / g.stem) for g in [KB / "generate_kb.py"] + generators()]
            for done in runs:
                name, result = done.result()
                if result.returncode != 0:
                    problems.append(f"{name} failed (exit {result.returncode}):\n{result.stderr.strip()}")
        if (top / "generate_kb").is_dir():
            problems += kb_problems(top / "generate_kb")
        for generator in generators():
            out = top / generator.stem
            for folder in sorted(p for p in out.iterdir() if p.is_dir()) if out.is_dir() else []:
                if folder.name in owner:
                    problems.append(f"{folder.name}: written by both {owner[folder.name]} and {generator.name}")
                    continue
                owner[folder.name] = generator.name
                committed = HERE / folder.name
                if not committed.is_dir():
                    problems.append(f"{folder.name}: {generator.name} writes it, the tree has no such folder")
                    continue
                problems += compare(folder.name, folder, committed)
                if says_hand_written(committed):
                    problems.append(f"{folder.name}/SOURCE.md: says hand-written, but {generator.name} writes it")
        scenarios = sorted(p for p in HERE.iterdir() if (p / "expected.json").is_file())
        hand = [p for p in scenarios if p.name not in owner]
        for folder in hand:
            if not says_hand_written(folder):
                problems.append(f"{folder.name}: no generator writes it and its SOURCE.md does not say "
                                f"'{HAND_WRITTEN}'")
        tables = len(list((top / "generate_kb").glob("*.json")))
        print(f"{len(generators())} scenario generators wrote {len(owner)} folders; {len(hand)} hand-written; "
              f"{len(scenarios)} scenarios; generate_kb.py wrote {tables} tables")
        for problem in problems:
            print(problem)
        if problems:
            print("A generated file changes in its generator, never by hand: change the generator (or the fact "
                  "sheet checks/data/kb/gpu_db.json), run it without --out and commit both "
                  "(tests/scenarios/README.md, \"Generated scenarios\").")
        return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
