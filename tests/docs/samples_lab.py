"""The `lab NN MUTANT [N]` samples of check_samples.py: tests/labs/run.sh,
the lab a student runs, on a copy of step NN with one edit of
sample_mutants.tsv applied (`unchanged`: no edit). Also the copy itself,
which the `mutant` samples build too (samples_mutant.py)."""
import os
import re
import subprocess
from pathlib import Path

from samples_program import ROOT, TIMEOUT, normalize

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


def failed_entries(report, names):
    """The entries of run.sh's "tests that failed" list for these tests, in
    this order: the test's name, then what it said, indented."""
    part = report.split("lab: tests that failed, and what each said:\n", 1)
    if len(part) != 2:
        return None, "the lab failed no test"
    entries, name = {}, None
    for line in part[1].split("\n"):
        if re.match(r"^  \S", line):
            name = line.strip()
            entries[name] = [line]
        elif line.startswith("      ") and name:
            entries[name].append(line)
        else:
            break
    missing = [n for n in names if n not in entries]
    if missing:
        return None, f"{', '.join(missing)} did not fail; these did: {', '.join(entries) or 'none'}"
    return "\n".join(line for n in names for line in entries[n]) + "\n", None
