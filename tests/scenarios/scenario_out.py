"""Where the scenario generators write (tests/scenarios/README.md, "Generated scenarios").

Every gen_*.py takes `--out DIR`: it writes its folders under DIR instead of tests/scenarios. What a
generator reads (a base machine it copies, a capture kept in a committed folder) always comes from the
committed tree, HERE, so a run into an empty folder rebuilds exactly what the tree holds; the
regeneration test (tests/scenarios/regenerate_test.py) compares the two file by file.
"""

import argparse
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE  # the generators' output root: folder(name) is OUT / name


def parse(description, parser=None):
    """Parses the generator's arguments, --out among them, and points folder() at --out."""
    global OUT
    parser = parser or argparse.ArgumentParser(description=description,
                                               formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(HERE),
                        help="folder to write the scenarios into (default: tests/scenarios itself)")
    args = parser.parse_args()
    OUT = Path(args.out).resolve()
    OUT.mkdir(parents=True, exist_ok=True)
    return args


def folder(name):
    return OUT / name
