#!/usr/bin/env python3
"""step_diff.py: a step's diff from the step before, and the test that its
README's "Files changed" list is that diff.

  step_diff.py check PREV THIS
      Fails unless the "## Files changed from ..." list in THIS/README.md
      names exactly the files that differ between the two step directories
      (added, removed or edited; the README itself excluded: it always
      differs). The test stepNN.readme_lists_changed_files.
  step_diff.py write PREV THIS OUT [--exclude NAME]
      Writes `diff -ruN PREV THIS` to OUT, run from THIS's parent (the paths
      read 01-mutex/src/...); with --exclude, without the files of that name
      (about half of a step's diff is its README's text).

The list is read by its one parser, step_readme.py, which the diff pages
use too. Standard library, and diff(1) for `write`.
"""
import argparse
import filecmp
import os
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
from step_readme import files_changed, has_section  # noqa: E402 (beside this file)

README = "README.md"


def files_of(step):
    """Every file under the step's directory, as paths relative to it (the
    diff pages run diff on each file of either step: lockstep_site/diff_page.py)."""
    return {p.relative_to(step).as_posix() for p in step.rglob("*") if p.is_file()}


def changed_files(prev, this):
    """The files added, removed or edited from PREV to THIS, but the README, sorted."""
    before, after = files_of(prev), files_of(this)
    edited = {f for f in before & after if not filecmp.cmp(prev / f, this / f, shallow=False)}
    return sorted((before ^ after | edited) - {README})


def listed_files(readme):
    """The files README's "Files changed" list names, but the README, sorted."""
    if not has_section(readme):
        sys.exit(f"{readme} has no '## Files changed from ...' section")
    return sorted(set(files_changed(readme)[0]) - {README})


def check(args):
    """The check: the README's list is the real diff, or what differs."""
    changed, listed = changed_files(args.prev, args.this), listed_files(args.this / README)
    if listed != changed:
        missing = [f for f in changed if f not in listed]
        extra = [f for f in listed if f not in changed]
        sys.exit(f"{args.this / README}'s list of changed files is not the diff.\n"
                 f"  changed but not listed: {', '.join(missing)}\n  listed but not changed: {', '.join(extra)}")
    print(f"README lists exactly the {args.prev} -> {args.this} changes: {', '.join(changed)}")


def write(args):
    """`diff -ruN` of the two steps into OUT (diff's status 1 means they differ, not an error)."""
    parent = args.this.resolve().parent
    exclude = ["-x", args.exclude] if args.exclude else []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "wb") as out:
        run = subprocess.run(["diff", "-ruN"] + exclude + [os.path.relpath(args.prev.resolve(), parent), args.this.name],
                             cwd=parent, stdout=out)
    if run.returncode > 1:
        sys.exit(f"step_diff.py: diff failed ({run.returncode})")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    for name, helptext in (("check", "fail unless THIS's README lists exactly the changed files"),
                           ("write", "write `diff -ruN PREV THIS` to OUT")):
        cmd = sub.add_parser(name, help=helptext)
        cmd.add_argument("prev", type=Path, help="the step before, steps/01-mutex")
        cmd.add_argument("this", type=Path, help="the step, steps/02-atomic-handle")
    sub.choices["write"].add_argument("out", type=Path, help="the diff file to write")
    sub.choices["write"].add_argument("--exclude", help="leave out the files of this name (README.md)")
    return p.parse_args()


def main():
    args = parse_args()
    if args.command == "check":
        check(args)
    else:
        write(args)


if __name__ == "__main__":
    main()
