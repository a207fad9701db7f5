"""The `lab NN MUTANT [N]` samples of check_samples.py: tests/labs/run.sh,
the lab a student runs, on a copy of step NN with one edit of
sample_mutants.tsv applied (`unchanged`: no edit). Also the copy itself,
which the `mutant` samples build too (samples_mutant.py).

Which tests failed is ctest's word, from the results it keeps in the lab's
build directory (Testing/<tag>/Test.xml, read by run.sh's own reader,
tests/labs/report.py), never from the report's text; the report's text is
what the page quotes."""
import os
import re
import subprocess
import sys
from pathlib import Path

from samples_program import ROOT, TIMEOUT, normalize

sys.path.insert(0, str(ROOT / "tests" / "labs"))
import report as lab_report  # noqa: E402 (tests/labs/report.py: ctest's results, as run.sh reads them)

MUTANTS = Path(__file__).resolve().parent / "sample_mutants.tsv"


def read_mutants():
    """{(NN, name): (file, original, replacement)} from sample_mutants.tsv."""
    out = {}
    with open(MUTANTS, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            nn, file, name, original, replacement = line.rstrip("\n").split("\t")[:5]
            unescape = lambda s: s.replace("\\n", "\n").replace("\\t", "\t")
            out[(nn, name)] = (file, unescape(original), unescape(replacement))
    return out


def prepare_copy(build, nn, name):
    """A copy of step NN with the edit NAME applied: (its directory, None),
    or (None, why not)."""
    mutant = read_mutants().get((nn, name)) if name != "unchanged" else ("", "", "")
    if not mutant:
        return None, f"no mutant {nn} {name} in {MUTANTS}"
    file, original, replacement = mutant
    steps = list((ROOT / "steps").glob(nn + "-*"))
    if len(steps) != 1:
        return None, f"no step {nn}"
    step = steps[0]
    if file and (step / file).is_file() and (step / file).read_text(encoding="utf-8").count(original) != 1:
        return None, f"mutant {nn} {name}: its original text is not exactly once in {step.name}/{file}"
    # One copy per step, reused: the next sample of the same step rebuilds
    # only the file its edit changes (a file is rewritten only when its text
    # differs, so make sees what changed).
    copy = build / "samples" / f"copy-{nn}" / step.name
    for src in (p for p in step.rglob("*") if p.is_file()):
        rel = src.relative_to(step)
        text = src.read_text(encoding="utf-8")
        if rel.as_posix() == file:
            text = text.replace(original, replacement)
        write_if_changed(copy / rel, text)
    return copy, None


def write_if_changed(path, text):
    """PATH holds TEXT, written only if it held something else (make sees no change)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def run_lab(build, args, only, lab_build):
    """tests/labs/run.sh on a copy of the step with one edit, as a student
    runs it, building in LAB_BUILD; with ONLY (test names), only those tests
    (run.sh --only)."""
    if len(args) not in (2, 3):
        return None, "a lab sample is `lab NN MUTANT [EXERCISE]`"
    nn = args[0]
    copy, err = prepare_copy(build, nn, args[1])
    if err:
        return None, err
    env = dict(os.environ, LOCKSTEP_LAB_BUILD=str(lab_build))
    extra = ["--only", "^(" + "|".join(re.escape(t) for t in only) + ")$"] if only else []
    r = subprocess.run([ROOT / "tests" / "labs" / "run.sh", nn, copy] + args[2:] + extra,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                       timeout=TIMEOUT, cwd=ROOT)
    out = r.stdout
    start = out.find("lab: tests that failed")
    if start < 0:
        start = out.find("lab: every test of step")
    if start < 0:
        return None, f"run.sh printed no report (exit {r.returncode}):\n{out[-3000:]}"
    # The copy and the lab's build directory are this machine's paths; the
    # lab's text copies the step to /tmp/me/ and builds in build/lab-NN.
    return normalize(out[start:], [(str(lab_build), f"build/lab-{nn}"), (str(copy.parent), "/tmp/me")]), None


def skipped_tests(lab_build):
    """The tests ctest skipped in the lab's last run in LAB_BUILD (its
    results, Test.xml): a step's component it has not yet, a race that one
    CPU cannot run. Which of them is which, ctest's results do not say."""
    return sorted(r.name for r in lab_report.results(lab_build) if r.skipped())


FAILED_LIST = "lab: tests that failed, and what each said:\n"  # report.py's print_failures
ENTRY, SAID = "  ", "      "  # an entry's line: its test's name; then what it said, each line so indented


def failed_entries(report, names, lab_build):
    """The entries of run.sh's "tests that failed" list for these tests, in
    this order: the test's name, then what it said, indented. Each must
    have failed, as ctest's results in LAB_BUILD say (the run just made,
    with run.sh --only these tests)."""
    ran = {r.name: r for r in lab_report.results(lab_build)}
    missing = [n for n in names if n not in ran]
    if missing:
        return None, f"{', '.join(missing)} did not run (ctest's results in {lab_build}/Testing)"
    passed = [n for n in names if not ran[n].failed()]
    if passed:
        failed = sorted(n for n, r in ran.items() if r.failed())
        return None, f"{', '.join(passed)} did not fail; these did: {', '.join(failed) or 'none'}"
    # The list: the lines after its heading, up to the blank line after it.
    listed = report.partition(FAILED_LIST)[2].partition("\n\n")[0].split("\n")
    quoted = []
    for name in names:
        if ENTRY + name not in listed:
            return None, f"{name} failed (ctest's results), but the report's list has no entry `{ENTRY}{name}`"
        at = listed.index(ENTRY + name) + 1
        end = at
        while end < len(listed) and listed[end].startswith(SAID):
            end += 1
        quoted += listed[at - 1:end]
    return "\n".join(quoted) + "\n", None
