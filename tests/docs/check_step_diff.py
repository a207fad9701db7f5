#!/usr/bin/env python3
"""check_step_diff.py --step-diff STEP_DIFF PREV THIS: the test of the test
that a step README's "Files changed" list is the real diff.

Copies the two step directories into a temporary directory (the repository
is never written) and runs `STEP_DIFF check` on the copies three times:

  - as they are: it must pass (the other cases fail for their edit alone);
  - a file left unchanged by the step edited in THIS, its README's list
    untouched: it must fail, saying "changed but not listed: FILE";
  - the same file, unedited, added to the README's list: it must fail,
    saying "listed but not changed: FILE".

Prints each case's verdict; exits 1 if step_diff.py passed a wrong list,
failed a right one or failed without naming the file. Standard library only.
"""
import argparse
import filecmp
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

README = "README.md"
HEADING = "## Files changed from"


def unchanged_file(prev, this):
    """The first file, README aside, that both steps hold byte for byte."""
    for path in sorted(p for p in this.rglob("*") if p.is_file()):
        name = path.relative_to(this).as_posix()
        if name != README and (prev / name).is_file() and filecmp.cmp(prev / name, path, shallow=False):
            return name
    sys.exit(f"check_step_diff.py: {prev} and {this} share no file")


def edit_file(this, name):
    """A change the README does not list: a line added to NAME."""
    with (this / name).open("a", encoding="utf-8") as f:
        f.write("\n")


def list_file(this, name):
    """The README's list names NAME, which the step does not change."""
    readme = this / README
    lines = readme.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(HEADING))
    lines.insert(at + 2, f"- `{name}`: listed, not changed.")
    readme.write_text("\n".join(lines), encoding="utf-8")


def run_check(step_diff, prev, this):
    """step_diff.py check on the copies: (its exit status, its output)."""
    run = subprocess.run([sys.executable, str(step_diff), "check", str(prev), str(this)],
                         capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def case(step_diff, steps, edit, expected):
    """One case on fresh copies of the steps: whether step_diff.py's verdict is the expected one.
    EDIT changes THIS's copy (None: as is); EXPECTED is the failure message's text (None: a pass)."""
    with tempfile.TemporaryDirectory(prefix="check_step_diff.") as tmp:
        prev, this = (shutil.copytree(step, Path(tmp) / step.name) for step in steps)
        if edit:
            edit(this)
        status, output = run_check(step_diff, prev, this)
    right = status == 0 if expected is None else status != 0 and expected in output
    want = "pass" if expected is None else f"fail with {expected!r}"
    print(f"{'ok' if right else 'WRONG'}: expected {want}; step_diff.py exited {status}:")
    print(textwrap.indent(output.strip(), "    "))
    return right


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--step-diff", type=Path, required=True, help="cmake/step_diff.py, the test under test")
    p.add_argument("prev", metavar="PREV", type=Path, help="the step before, steps/05-intrusive-list")
    p.add_argument("this", metavar="THIS", type=Path, help="the step, steps/06-sequencer")
    return p.parse_args()


def main():
    args = parse_args()
    steps = (args.prev.resolve(), args.this.resolve())
    name = unchanged_file(*steps)
    results = [case(args.step_diff, steps, None, None),
               case(args.step_diff, steps, lambda this: edit_file(this, name), f"changed but not listed: {name}"),
               case(args.step_diff, steps, lambda this: list_file(this, name), f"listed but not changed: {name}")]
    print(f"check_step_diff: {len(results)} cases, {results.count(False)} wrong")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
