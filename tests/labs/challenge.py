#!/usr/bin/env python3
"""The labs' "build it" challenges: put the starting stub or the answer in a copy.

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
is in the lab's "**Checked by:**" list.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import lab_page

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def step_name(nn):
    found = glob.glob(os.path.join(ROOT, "steps", nn + "-*"))
    if len(found) != 1:
        sys.exit(f"challenge: no step {nn}")
    return os.path.basename(found[0])


def challenge(nn):
    """(function, file, stub, answer) of lab NN."""
    name = step_name(nn)
    lab_path = os.path.join(ROOT, "docs", "labs", name + ".md")
    function, file, stub = lab_page.build_it(open(lab_path).read(), lab_path)
    answer_path = os.path.join(ROOT, "docs", "labs", "answers", name + ".md")
    answer = lab_page.first_c_block(open(answer_path).read(), answer_path)
    return function, file, stub, answer


def definition_span(src, function):
    """(start, end) of the function's definition: its first line to its closing brace."""
    m = re.search(r"^[A-Za-z_][^;{}\n]*\b" + re.escape(function) + r"\([^;{}]*\)\s*\{", src, re.M)
    if not m:
        raise SystemExit(f"challenge: no definition of {function}() found")
    i = m.end() - 1  # the opening brace
    depth = 0
    while i < len(src):
        if src.startswith("/*", i):
            i = src.index("*/", i) + 2
            continue
        if src.startswith("//", i):
            i = src.index("\n", i)
            continue
        c = src[i]
        if c in "\"'":
            j = i + 1
            while src[j] != c:
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return m.start(), i + 1
        i += 1
    raise SystemExit(f"challenge: unbalanced braces in {function}()")


def put(nn, copy, which):
    function, file, stub, answer = challenge(nn)
    path = os.path.join(copy, file)
    src = open(path).read()
    a, b = definition_span(src, function)
    code = (stub if which == "stub" else answer).rstrip("\n")
    open(path, "w").write(src[:a] + code + src[b:])
    print(f"challenge: {which} of {function}() put in {path}")


def failed_tests(report):
    """The tests run.sh lists under "lab: tests that failed"."""
    part = report.split("lab: tests that failed", 1)[1] if "lab: tests that failed" in report else ""
    part = part.split("\n\n", 1)[0]
    return re.findall(r"^  (step\d\d\.\S+)$", part, re.M)


def checked_by(nn):
    """The tests the lab's challenge lists under "**Checked by:**"."""
    lab = open(os.path.join(ROOT, "docs", "labs", step_name(nn) + ".md")).read()
    return [t for e in lab_page.entries(lab) if e.section == "challenge" for t in e.always]


def verify(nns):
    run = os.path.join(ROOT, "tests", "labs", "run.sh")
    bad = []
    for nn in nns:
        name = step_name(nn)
        for which, want in (("stub", "fail"), ("answer", "pass")):
            with tempfile.TemporaryDirectory() as tmp:
                copy = os.path.join(tmp, name)
                shutil.copytree(os.path.join(ROOT, "steps", name), copy)
                put(nn, copy, which)
                # A build directory of its own: build/lab-NN stays the student's.
                env = dict(os.environ)
                env.setdefault("LOCKSTEP_LAB_BUILD", os.path.join(ROOT, "build", f"challenge-{nn}"))
                r = subprocess.run([run, nn, copy, "--challenge"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, env=env)
                out = r.stdout
                report = out[out.rfind("lab: the challenge"):] if "lab: the challenge" in out else out[-2000:]
                print(report.rstrip())
                ok = (r.returncode == 0) if want == "pass" else (r.returncode == 1)
                print(f"challenge {nn} {which}: run.sh exit {r.returncode}, "
                      f"{'as expected' if ok else 'NOT as expected'} (the {which} must {want})\n")
                if not ok:
                    bad.append(f"{nn} {which}")
                # The lab's "Checked by" list names every test the stub fails:
                # a student reads it to know what will judge the function.
                unlisted = sorted(set(failed_tests(out)) - set(checked_by(nn))) if which == "stub" else []
                if unlisted:
                    print(f"challenge {nn} stub: also fails {', '.join(unlisted)}, which the lab's "
                          f"'**Checked by:**' list does not name\n")
                    bad.append(f"{nn} stub (Checked by)")
    if bad:
        sys.exit("challenge: not as expected: " + ", ".join(bad))
    print("challenge: every stub failed and every answer passed")


def main(argv):
    if len(argv) >= 2 and argv[1] == "verify":
        nns = argv[2:] or sorted(os.path.basename(p)[:2] for p in glob.glob(os.path.join(ROOT, "docs", "labs", "answers", "[0-9][0-9]-*.md")))
        verify(nns)
    elif len(argv) == 4 and argv[1] in ("stub", "answer") and re.fullmatch(r"[0-9][0-9]", argv[2]):
        put(argv[2], argv[3], argv[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
