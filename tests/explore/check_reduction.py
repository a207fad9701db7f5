#!/usr/bin/env python3
"""check_reduction.py BUILD_DIR: the reduction's oracle over everything.

Runs --check-reduction (run.c: the reduced search's set of executions
against every interleaving's) on every scenario of every explorer binary
in BUILD_DIR/tests/explore, under both --model values, and on every
litmus file of litmus/tests and of each --litmus DIR (GenMC's litmus
tests, translated to herd's C, are the next evidence). A run that does not finish within --limit
seconds is run again against sleep sets alone over the coarser dependence
(--check-reduction=sleep). Prints one line per run and a summary; exits 1
if any run found an execution the reduced search missed, or failed.
Not part of CI (it takes minutes): run it after changing the search or
step.c's dependence. Standard library only.
"""
import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIPPED = 77
REFUSED = 2  # a file or a command line the program cannot use: it says why on stderr


def check(command, limit):
    """(status, reference, seconds, summary line) of one run."""
    start = time.monotonic()
    for flag, timeout in (("--check-reduction", limit), ("--check-reduction=sleep", None)):
        try:
            done = subprocess.run(command + [flag], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            continue
        lines = [x for x in done.stdout.splitlines() if x.startswith("explore: the reduction checked")]
        if done.returncode == REFUSED and not lines:
            return done.returncode, flag, time.monotonic() - start, (done.stderr.strip().splitlines() or [""])[0]
        return done.returncode, flag, time.monotonic() - start, lines[-1] if lines else done.stdout[-300:]
    raise AssertionError("unreachable: the second run has no timeout")


def scenarios(binary):
    """The scenario names `binary --list --json` gives."""
    with tempfile.TemporaryDirectory() as tmp:
        listed = Path(tmp) / "list.json"
        subprocess.run([str(binary), "--list", "--json", str(listed)], capture_output=True, check=True)
        return [s["name"] for s in json.loads(listed.read_text())["scenarios"]]


def runs(build, litmus_dirs):
    """(label, command) of every run to check: the litmus files of each
    folder in litmus_dirs, then every scenario of every step."""
    explore = Path(build) / "tests" / "explore"
    for litmus in sorted(x for d in litmus_dirs for x in Path(d).glob("*.litmus")):
        yield f"litmus {litmus.stem}", [str(explore / "litmus" / "explore_litmus"), str(litmus)]
    for binary in sorted(explore.glob("explore_*_step[0-9][0-9]")):
        for name in scenarios(binary):
            for model in ("rc11", "c11"):
                yield f"{binary.name} {name} {model}", [str(binary), name, "--model", model]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build", help="the build directory (e.g. build/test)")
    p.add_argument("--limit", type=float, default=30, help="seconds for every interleaving before sleep sets "
                   "alone are the reference (30)")
    p.add_argument("--litmus", metavar="DIR", action="append", default=[],
                   help="litmus files to check as well, in DIR (e.g. GenMC's tests translated to herd's C); "
                   "may be given more than once")
    p.add_argument("--only", metavar="REGEX", help="only the runs whose label (e.g. 'litmus IRIW+sc', "
                   "'explore_event_step04 set_vs_await rc11') matches REGEX")
    args = p.parse_args()
    lost = checked = skipped = refused = 0
    for label, command in runs(args.build, [HERE / "litmus" / "tests", *args.litmus]):
        if args.only and not re.search(args.only, label):
            continue
        status, flag, seconds, line = check(command, args.limit)
        if status == SKIPPED:
            skipped += 1
            continue
        if status == REFUSED:
            refused += 1
            print(f"refused {label}: {line}", flush=True)
            continue
        checked += 1
        lost += status != 0
        print(f"{'ok  ' if status == 0 else 'LOST'} {label} ({flag}, {seconds:.1f} s): {line}", flush=True)
    print(f"check_reduction: {checked} runs, {lost} failed or missed an execution, {skipped} skipped "
          f"(the scenario needs another step), {refused} refused (a file the program cannot read: why, above)")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
