#!/usr/bin/env python3
"""pages_api.py --html DIR --step NAME --step-dir DIR [--doxygen DOXYGEN --doxyfile FILE]:
previous and next on a step's API pages, the pages Doxygen wrote into
DIR (the step's html/): the step's README, its file list, each header's
page with its structs' pages and its listing, back to the README
(lockstep_site/api_pages.py says why in that order). With --doxygen,
Doxygen runs on FILE first (in the current directory, as docs/CMakeLists.txt
runs it), and its failure is this run's: the API pages get their pagers
whenever Doxygen writes them. Standard library only.
"""
import argparse
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
from lockstep_site.api_pages import api_pagers  # noqa: E402 (beside this file)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(":\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--html", type=Path, required=True, help="the step's HTML directory (Doxygen's output)")
    p.add_argument("--step", required=True, help="the step's name, 03-no-refcount")
    p.add_argument("--step-dir", type=Path, required=True, help="the step's directory (its headers, its README)")
    p.add_argument("--doxygen", help="run this Doxygen first")
    p.add_argument("--doxyfile", help="with --doxygen: its configuration, Doxyfile.<step>")
    return p.parse_args()


def main():
    args = parse_args()
    if args.doxygen:
        if not args.doxyfile:
            sys.exit("pages_api.py: --doxygen needs --doxyfile")
        run = subprocess.run([args.doxygen, args.doxyfile])
        if run.returncode != 0:
            sys.exit(run.returncode)
    if not (args.html / "files.html").is_file():
        sys.exit(f"pages_api.py: no {args.html}/files.html: Doxygen has not written the step's pages")
    n = api_pagers(args.html, args.step, args.step_dir)
    print(f"pages_api.py: previous and next on {n} API pages of {args.step}")


if __name__ == "__main__":
    main()
