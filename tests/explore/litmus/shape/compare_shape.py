#!/usr/bin/env python3
"""compare_shape.py EXPLORE_LITMUS TEST HERD: explore_litmus prints a test's
result in herd7's shape. This compares its output for TEST with herd7's,
recorded in HERD, line by line, the counts of executions too (Positive,
Negative, the Observation's two numbers), but for what the README says
differs: Time, herd's Hash line, and explore_litmus's last line, the
schedules its search ran. Standard library only.
"""
import argparse
import subprocess
import sys
from pathlib import Path

# The lines the two programs print differently, by design (their first words).
SKIPPED = ("Time ", "Hash=", "Schedules ")


def comparable(text):
    """The output without the lines that may differ, and without blank ends."""
    return "\n".join(line for line in text.split("\n") if not line.startswith(SKIPPED)).strip()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("explorer", help="explore_litmus")
    p.add_argument("test", help="the litmus file, Shape.litmus")
    p.add_argument("herd", help="herd7's output for it, Shape.herd")
    args = p.parse_args()
    run = subprocess.run([args.explorer, args.test], stdout=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"explore_litmus {args.test} exited with {run.returncode}:\n{run.stdout}")
    ours, theirs = comparable(run.stdout), comparable(Path(args.herd).read_text(encoding="utf-8"))
    if ours != theirs:
        sys.exit(f"explore_litmus's output is not herd7's:\n--- explore_litmus\n{ours}\n--- herd7\n{theirs}")
    print(f"explore_litmus prints herd7's lines for {args.test}")


if __name__ == "__main__":
    main()
