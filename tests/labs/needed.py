#!/usr/bin/env python3
"""needed.py NN TARGET... < ctest --show-only=json-v1: the executables of
step NN that the listed tests run, one a line, for tests/labs/run.sh.

ctest gives a test's command only when its program exists: a test whose
program is not built yet has none. Then nothing is printed, and run.sh
builds every target of the step (printing a partial list would leave that
test's program unbuilt: "Unable to find executable"). Standard library
only."""
import argparse
import json
import os
import sys


def needed(tests, nn, targets):
    """The targets the tests' commands name (a path whose last part is one of
    the step's TARGETS), or None when a test has no command."""
    found = set()
    for test in tests:
        command = test.get("command")
        if not command:
            return None
        for arg in command:
            head, name = os.path.split(arg)
            if head and f"_step{nn}" in name and name in targets:
                found.add(name)
    return sorted(found)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("nn", help="the step's number, two digits")
    p.add_argument("targets", nargs="*", help="the build's targets of the step")
    args = p.parse_args()
    tests = json.load(sys.stdin).get("tests", [])
    print("\n".join(needed(tests, args.nn, set(args.targets)) or []))


if __name__ == "__main__":
    main()
