#!/usr/bin/env python3
"""challenge.py stub|answer|verify: the labs' "build it" challenges: put the
starting stub or the answer in a copy of a step, or verify both.

    tests/labs/challenge.py stub NN COPY     replace the challenge's function in your
                                             copy by the lab's starting stub
    tests/labs/challenge.py answer NN COPY   replace it by the answer (docs/labs/answers/)
    tests/labs/challenge.py verify [NN ...]  for each lab (all by default), on fresh
                                             copies: the stub must fail the challenge's
                                             tests and the answer must pass them all

Each lab's "## Build it" section names the function and its file and holds
the stub, the whole definition as the student starts from it (lab_page.py
reads them). The answer page docs/labs/answers/NN-name.md holds the
answer's definition in its first ```c block. `stub` and `answer` replace the
function's definition (from its first line to its closing brace) in the copy;
the comment above it stays. `verify` runs tests/labs/run.sh NN COPY
--challenge and checks its exit status: non-zero with the stub, 0 with the
answer (every test of the step passes), and that every test the stub fails
is in the lab's "**Checked by:**" list (the failed tests read from ctest's
own results, as report.py reads them, not from run.sh's text).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import lab_page
import report

ROOT = Path(__file__).resolve().parents[2]
LABS = ROOT / "docs" / "labs"


def step_name(nn):
    found = list((ROOT / "steps").glob(nn + "-*"))
    if len(found) != 1:
        sys.exit(f"challenge: no step {nn}")
    return found[0].name


def challenge(nn):
    """(function, file, stub, answer) of lab NN."""
    name = step_name(nn)
    lab_path = LABS / f"{name}.md"
    function, file, stub = lab_page.build_it(lab_path.read_text(), lab_path)
    answer_path = LABS / "answers" / f"{name}.md"
    answer = lab_page.first_c_block(answer_path.read_text(), answer_path)
    return function, file, stub, answer


def definition_span(src, function):
    """(start, end) of the function's definition: its first line to its closing brace."""
    m = re.search(r"^[A-Za-z_][^;{}\n]*\b" + re.escape(function) + r"\([^;{}]*\)\s*\{", src, re.M)
    if not m:
        raise SystemExit(f"challenge: no definition of {function}() found")
    end = closing_brace(src, m.end() - 1)
    if end is None:
        raise SystemExit(f"challenge: unbalanced braces in {function}()")
    return m.start(), end + 1


def closing_brace(src, i):
    """The index of the brace that closes the one at I (None if none does):
    braces in comments, strings and character constants do not count."""
    depth = 0
    while i < len(src):
        after = skipped(src, i)
        if after != i:
            i = after
            continue
        if src[i] == "{":
            depth += 1
        elif src[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def skipped(src, i):
    """Where the comment or literal that starts at I ends; I if none starts there."""
    if src.startswith("/*", i):
        return src.index("*/", i) + 2
    if src.startswith("//", i):
        return src.index("\n", i)
    if src[i] in "\"'":
        j = i + 1
        while src[j] != src[i]:
            j += 2 if src[j] == "\\" else 1
        return j + 1
    return i


def put(nn, copy, which):
    function, file, stub, answer = challenge(nn)
    path = copy / file
    src = path.read_text()
    a, b = definition_span(src, function)
    code = (stub if which == "stub" else answer).rstrip("\n")
    path.write_text(src[:a] + code + src[b:])
    print(f"challenge: {which} of {function}() put in {path}")


def failed_tests(build, since):
    """The tests that failed in run.sh's ctest run in BUILD, from ctest's
    results (Testing/<tag>/Test.xml, report.results: the tests run.sh lists
    under "lab: tests that failed"); none if ctest wrote none after SINCE
    (a copy that does not build runs no test: an older run's stay)."""
    xml = report.test_xml(build)
    if not xml or xml.stat().st_mtime < since:
        return []
    return [r.name for r in report.results(build) if r.failed()]


def checked_by(nn):
    """The tests the lab's challenge lists under "**Checked by:**"."""
    lab = (LABS / f"{step_name(nn)}.md").read_text()
    return [t for e in lab_page.entries(lab) if e.section == "challenge" for t in e.always]


def run_lab(nn, which):
    """run.sh NN --challenge on a fresh copy of the step holding WHICH (stub or
    answer): (exit status, output, the tests that failed)."""
    name = step_name(nn)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / name
        shutil.copytree(ROOT / "steps" / name, copy)
        put(nn, copy, which)
        # A build directory of its own: build/lab-NN stays the student's.
        env = dict(os.environ)
        env.setdefault("LOCKSTEP_LAB_BUILD", str(ROOT / "build" / f"challenge-{nn}"))
        start = time.time()
        r = subprocess.run([ROOT / "tests" / "labs" / "run.sh", nn, copy, "--challenge"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    build = Path(env["LOCKSTEP_LAB_BUILD"])  # (run.sh reads a relative one from the repository)
    return r.returncode, r.stdout, failed_tests(build if build.is_absolute() else ROOT / build, start)


def verify_one(nn, which, want):
    """Lab NN's WHICH judged (it must WANT: pass or fail): what went wrong, if anything."""
    rc, out, failed = run_lab(nn, which)
    # (shown to the reader, not read: the failed tests come from ctest's results)
    shown = out[out.rfind("lab: the challenge"):] if "lab: the challenge" in out else out[-2000:]
    print(shown.rstrip())
    ok = (rc == 0) if want == "pass" else (rc == 1)
    print(f"challenge {nn} {which}: run.sh exit {rc}, "
          f"{'as expected' if ok else 'NOT as expected'} (the {which} must {want})\n")
    bad = [] if ok else [f"{nn} {which}"]
    # The lab's "Checked by" list names every test the stub fails:
    # a student reads it to know what will judge the function.
    unlisted = sorted(set(failed) - set(checked_by(nn))) if which == "stub" else []
    if unlisted:
        print(f"challenge {nn} stub: also fails {', '.join(unlisted)}, which the lab's "
              f"'**Checked by:**' list does not name\n")
        bad.append(f"{nn} stub (Checked by)")
    return bad


def verify(nns):
    bad = [b for nn in nns for which, want in (("stub", "fail"), ("answer", "pass"))
           for b in verify_one(nn, which, want)]
    if bad:
        sys.exit("challenge: not as expected: " + ", ".join(bad))
    print("challenge: every stub failed and every answer passed")


def every_lab():
    """The labs that have an answer page, by number."""
    return sorted(p.name[:2] for p in (LABS / "answers").glob("[0-9][0-9]-*.md"))


def lab_number(text):
    if not re.fullmatch(r"[0-9][0-9]", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a lab's two-digit number")
    return text


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = p.add_subparsers(dest="command", required=True, metavar="stub|answer|verify")
    for which, what in (("stub", "the lab's starting stub"), ("answer", "the answer (docs/labs/answers/)")):
        c = commands.add_parser(which, help=f"replace the challenge's function in COPY by {what}")
        c.add_argument("nn", metavar="NN", type=lab_number, help="the lab's number, 01 to the last step's")
        c.add_argument("copy", metavar="COPY", type=Path, help="your copy of the step")
    c = commands.add_parser("verify", help="the stub must fail the challenge's tests, the answer pass them all")
    c.add_argument("nns", metavar="NN", nargs="*", type=lab_number, help="these labs (default: every lab)")
    return p.parse_args()


def main():
    args = parse_args()
    if args.command == "verify":
        verify(args.nns or every_lab())
    else:
        put(args.nn, args.copy, args.command)


if __name__ == "__main__":
    main()
