#!/usr/bin/env python3
"""walkthrough_explorers.py WALKTHROUGH: the explorer targets a walkthrough's
trace and graph markers run, one a line, in the page's order, each once.

docs/CMakeLists.txt reads them at configure time: a step's pages are
written after those explorers are built, and again when one changes. The
markers are read by lockstep_site/walkthrough.py, which fills them in.
Standard library only.
"""
import argparse
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
from lockstep_site.walkthrough import explorers_run  # noqa: E402 (beside this file)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("walkthrough", type=Path, help="docs/walkthroughs/<STEP>.md")
    args = p.parse_args()
    for target in explorers_run(args.walkthrough.read_text(encoding="utf-8")):
        print(target)


if __name__ == "__main__":
    main()
