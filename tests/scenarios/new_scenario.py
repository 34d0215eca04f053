#!/usr/bin/env python3
"""Writes a scenario folder to start from: snapshot.json, expected.json and root/.

    tests/scenarios/new_scenario.py mycheck-broken --check mycheck \\
        --env MY_VAR=1 --file /etc/mycheck.conf='enabled = no' --twin

makes tests/scenarios/mycheck-broken/ (and, with --twin, its healthy twin
mycheck-broken-healthy/, the same machine with nothing wrong, which you then
edit to be right); each folder's SOURCE.md says no generator writes it. The
machine is a minimal Debian 12 host (os-release, kernel, passwd, group, one
user) unless --from names an existing scenario to copy
(for instance ubuntu2204-rx7900xtx-healthy: a complete healthy GPU machine).
expected.json starts with an empty "expect": run the scenario test and it
names every finding the check raised that expected.json does not list yet
(docs/adding-a-check.md, "Scenarios").
"""
import argparse
import json
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
HAND_WRITTEN = "Hand-written: no generator writes this folder."  # the line tests/regenerate_test.py looks for

MINIMAL_FILES = {
    "/etc/os-release": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\n'
                       'VERSION_ID="12"\nVERSION="12 (bookworm)"\nID=debian\n',
    "/proc/sys/kernel/osrelease": "6.1.0-27-amd64\n",
    "/etc/hostname": "node01\n",
    "/etc/passwd": "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n",
    "/etc/group": "root:x:0:\nvideo:x:44:alice\nrender:x:105:alice\nalice:x:1000:\n",
}


def minimal_snapshot():
    return {
        "format": "rocm-doctor-snapshot",
        "version": 1,
        "captured_at": "2026-12-01T00:00:00Z",
        "captured_by": "tests/scenarios/new_scenario.py",
        "env": {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/home/alice", "USER": "alice"},
        "identity": {"user": "alice", "uid": 1000, "gid": 1000, "groups": [1000, 44, 105]},
        "nodes": {},
        "probes": {},
    }


def write_file(root, path, content):
    if not path.startswith("/"):
        sys.exit(f"new_scenario.py: --file path must be absolute: {path}")
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")


def pairs(values, what):
    result = {}
    for value in values:
        if "=" not in value:
            sys.exit(f"new_scenario.py: {what} takes NAME=VALUE, got {value!r}")
        name, _, rest = value.partition("=")
        # '\n' in a value is a newline; other characters (UTF-8 included) stay as they are
        result[name] = rest.encode("latin-1", "backslashreplace").decode("unicode_escape")
    return result


def make(folder, args, description):
    if folder.exists():
        sys.exit(f"new_scenario.py: {folder} exists; pick another name or remove it")
    if args.source:
        source = HERE / args.source
        if not (source / "snapshot.json").exists():
            sys.exit(f"new_scenario.py: {source} is not a scenario folder")
        shutil.copytree(source, folder, symlinks=True)
        (folder / "expected.json").unlink(missing_ok=True)
        snapshot = json.loads((folder / "snapshot.json").read_text())
    else:
        folder.mkdir(parents=True)
        for path, content in MINIMAL_FILES.items():
            write_file(folder / "root", path, content)
        snapshot = minimal_snapshot()
    snapshot["env"].update(pairs(args.env, "--env"))
    for path, content in pairs(args.file, "--file").items():
        write_file(folder / "root", path, content)
    (folder / "snapshot.json").write_text(json.dumps(snapshot, indent=2) + "\n")
    expected = {"description": description, "checks": args.check, "expect": {}}
    (folder / "expected.json").write_text(json.dumps(expected, indent=2) + "\n")
    # No generator writes this folder: say so (tests/regenerate_test.py asks every such folder to).
    (folder / "SOURCE.md").write_text(f"# {folder.name}\n\n{HAND_WRITTEN}\n\nTODO: where its files come from "
                                      "(a real capture: source and what is kept byte for byte).\n")
    print(folder.relative_to(HERE.parent.parent))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", help="folder name: <check id>-<case>, e.g. env-debug-logging")
    parser.add_argument("--check", action="append", default=[], required=True,
                        help="check id the scenario runs (repeatable)")
    parser.add_argument("--from", dest="source", help="copy this existing scenario's machine instead of the minimal one")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="an environment variable")
    parser.add_argument("--file", action="append", default=[], metavar="/PATH=CONTENT",
                        help="a file under root/ at its absolute path (\\n for newlines)")
    parser.add_argument("--description", default="TODO: what machine this is and what is wrong with it")
    parser.add_argument("--twin", action="store_true", help="also write <name>-healthy, the healthy twin")
    args = parser.parse_args()
    make(HERE / args.name, args, args.description)
    if args.twin:
        twin = argparse.Namespace(**vars(args))
        twin.env, twin.file = [], []
        make(HERE / (args.name + "-healthy"), twin, "healthy twin of " + args.name + ": TODO, the same machine set right")


if __name__ == "__main__":
    main()
