#!/usr/bin/env python3
"""check_samples.py BUILD [--update] [FILE...]: every sample output quoted in
the course's Markdown is what the real program prints today.

A quoted output is marked by an HTML comment right before its code block
(fenced, or indented by four spaces, or a Markdown table; blank lines may
come between), which GitHub and Doxygen do not show:

    <!-- sample: explore_task_step03 completion_vs_await -->
    ```
    explore: step 03 task completion_vs_await: ...
    ```

The marker names a command; this check runs it and compares its output with
the block, after normalize() below: only what genuinely differs from
machine to machine or from run to run. (The walkthroughs' traces need no
marker of this kind: docs/generator/pages_step.py runs them into the pages at
every docs build.) The commands:

  PROGRAM ARGS...         a program of the build tree (BUILD), found by name
                          (explore_task_step03, unit_task_step03, ...)
  lab NN MUTANT [N]       tests/labs/run.sh on a copy of step NN with the
                          edit MUTANT of sample_mutants.tsv (beside this
                          file) applied: the lab a student runs, from its
                          list of failed tests to its last line (N: run.sh's
                          EXERCISE argument; MUTANT `unchanged`: no edit).
                          It builds in BUILD/samples/.
  mutant NN MUTANT PROGRAM ARGS...
                          PROGRAM of that copy's build (the same build): a
                          student's own copy of a step, under the explorer
  explore-cost            the explorer's cost table: every scenario on every
                          step, "executions / schedules, seconds" per cell,
                          "(P=k)" when the search stopped at k preemptions
                          (a Markdown table, marked like a code block)

After the command, options, each after a `|`:

  | from WORDS            the block starts at the first line holding WORDS,
                          as written (a quote that leaves out the lines before)
  | lines N               only the first N lines (after `from`)
  | tests NAME...         (lab) only these tests' entries of the list of
                          failed tests, in this order; each must have failed
  | varies REGEX          what REGEX matches (its group 1, if it has one) may
                          differ from run to run: a race test's count, say,
                          or (an optional group 1) a note that a race test
                          failed too. The block shows one run's; any passes.

With --update, every marked block is rewritten from the real output (after
the same normalizations) instead of compared: run it after a change of
output that the text should follow, then read the diff. FILE... limits the
check to those files (default: every page a reader reads, PAGES below).
Exits 1 when a block differs from its program's output or a program is
missing. Standard library only.
"""
import argparse
import concurrent.futures
import difflib
import os
import queue
import re
import subprocess
import sys
from pathlib import Path

from samples_cost import explore_cost
from samples_lab import failed_entries, run_lab, skipped_tests
from samples_mutant import run_mutant
from samples_program import CACHE, ROOT, find_program, run_program

PAGES = ["README.md", "steps/*/README.md", "docs/labs/*.md", "docs/labs/answers/*.md",
         "docs/walkthroughs/*.md", "docs/in-depth/*.md", "tests/explore/README.md", "tests/explore/REFERENCE.md",
         "tests/mutants/README.md",
         "tests/bench/cxx/README.md", "docs/ERRATA.md"]
MARKER = re.compile(r"^( *)<!-- sample: (.*?) -->\s*$")


def blocks(lines):
    """(marker line index, spec, first, end, indent) of every marked block:
    lines[first:end] is its text, each line indented by indent."""
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        first, end, ind, after = block_after(lines, j, len(m.group(1)))
        yield i, m.group(2), first, end, ind
        i = after


def block_after(lines, j, ind):
    """The block that starts at line J, under a marker indented by IND:
    (first, end, its text's indent, the line after it); first and end are
    None if no block starts there."""
    if j < len(lines) and lines[j][ind:].startswith("```") and lines[j][:ind].strip() == "":
        k = j + 1
        while k < len(lines) and lines[k].strip() != "```":
            k += 1
        return j + 1, k, ind, k + 1
    if j < len(lines) and lines[j][ind:].startswith("|"):
        k = j
        while k < len(lines) and lines[k][ind:].startswith("|"):
            k += 1
        return j, k, ind, k
    code = " " * (ind + 4)
    if j < len(lines) and lines[j].startswith(code):
        k = j
        while k < len(lines) and (lines[k].startswith(code) or not lines[k].strip()):
            k += 1
        while k > j and not lines[k - 1].strip():
            k -= 1
        return j, k, ind + 4, k
    return None, None, ind, j


def parse(spec):
    parts = [p.strip() for p in spec.split(" | ")]
    options = []
    for p in parts[1:]:
        key, _, value = p.partition(" ")
        if key not in ("from", "lines", "tests", "varies"):
            raise ValueError(f"unknown option `{key}` (from, lines, tests, varies)")
        options.append((key, value))
    return parts[0].split(), options


def produce(build, argv, options, lab_build):
    """The output of a sample's command ARGV with its OPTIONS applied: (out,
    None), or (None, why not). A lab or a mutant builds in LAB_BUILD."""
    if argv[0] == "lab":
        only = [n for key, value in options if key == "tests" for n in value.split()]
        out, err = run_lab(build, argv[1:], only, lab_build)
    elif argv[0] == "mutant":
        out, err = run_mutant(build, argv[1:], lab_build)
    elif argv == ["explore-cost"]:
        out, err = explore_cost(build)
    else:
        out, err = run_program(build, argv)
    if err:
        return None, err
    for key, value in options:
        if key == "from":
            lines = out.split("\n")
            at = next((n for n, line in enumerate(lines) if value in line), None)
            if at is None:
                return None, f"the output has no line holding `{value}`:\n{out}"
            out = "\n".join(lines[at:])
        elif key == "tests":
            out, err = failed_entries(out, value.split(), lab_build)
            if err:
                return None, err
        elif key == "lines":
            out = "\n".join(out.split("\n")[:int(value)]) + "\n"
    return out, None


def blank_varying(text, options):
    """The text with what each `varies` REGEX matches (its group 1, if it
    has one; where group 1 is optional and absent, the match's end) made
    the same: an optional part that comes and goes compares equal too."""
    for key, value in options:
        if key != "varies":
            continue
        rx = re.compile(value)

        def blank(m):
            if not rx.groups:
                return "<varies>"
            if m.group(1) is None:
                return m.group(0) + "<varies>"
            a, b = m.start(1) - m.start(0), m.end(1) - m.start(0)
            return m.group(0)[:a] + "<varies>" + m.group(0)[b:]
        text = rx.sub(blank, text)
    return text


TEXTS = {}  # {page: its lines}, as read when the check started
NOT_COMPARED = []  # lab samples that this machine cannot reproduce (one CPU)


def group(argv):
    """Samples of one group run one after the other, groups side by side: a
    lab or a mutant edits and builds its step's one copy (`copy NN`); the
    cost table times every scenario; a program runs on its own."""
    if argv and argv[0] in ("lab", "mutant") and len(argv) > 1:
        return "copy " + argv[1]
    if argv == ["explore-cost"]:
        return "cost"
    return None


def grouped_jobs(files):
    """{group: [((file, marker line), spec), ...]} of every marked block of
    FILES (see group(); a sample of no group is a group of its own)."""
    groups = {}
    for path in files:
        for marker, spec, first, _, _ in blocks(TEXTS[path]):
            if first is None:
                continue
            try:
                argv, _ = parse(spec)
            except ValueError:
                argv = []
            groups.setdefault(group(argv) or (path, marker), []).append(((path, marker), spec))
    return groups


class Runner:
    """Runs a group of samples in one of the lab build directories, one per
    worker (BUILD/samples/lab-1, ...): a group runs in one worker, so no
    other group builds or tests in its lab build directory meanwhile (ctest
    -T keeps its results there)."""

    def __init__(self, build, workers):
        self.build, self.lab_builds = build, queue.Queue()
        for n in range(workers):
            self.lab_builds.put(build / "samples" / f"lab-{n + 1}")

    def run_group(self, items):
        lab_build = self.lab_builds.get()
        try:
            return {key: self.run_one(spec, lab_build) for key, spec in items}
        finally:
            self.lab_builds.put(lab_build)

    def run_one(self, spec, lab_build):
        """(argv, options, output, error, skipped) of one sample; of a lab,
        skipped is the tests ctest skipped in its run (read now: the next
        group in this lab build directory runs its own)."""
        try:
            argv, options = parse(spec)
            out, err = produce(self.build, argv, options, lab_build)
        except (ValueError, subprocess.TimeoutExpired) as e:
            return [], [], None, str(e), []
        return argv, options, out, err, skipped_tests(lab_build) if argv[0] == "lab" and not err else []


def run_all(build, files, update=False):
    """{(file, marker line): (argv, options, output, error)} of every marked
    block of FILES, the commands run side by side (one per CPU): a page's
    programs are independent, and each step's copy is built once and
    reused by its next sample. The labs build in one lab build directory
    per worker, configured once for the copies of every step: the code
    every step shares (common/, the explorer) is built there once, not
    once per step."""
    groups = grouped_jobs(files)
    find_program(build, "-", CACHE)  # fill the cache before the threads share it
    workers = os.cpu_count() or 2
    runner = Runner(build, workers)
    # The cost table's seconds vary (its marker says so) and are not
    # compared: it runs beside the rest, except with --update, where the
    # times it writes into the page are taken alone.
    results = runner.run_group(groups.pop("cost", [])) if update else {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        # The longest groups first: the cost table (one long run), then the
        # labs' copies, most samples first.
        order = sorted(groups.items(), key=lambda g: (g[0] != "cost", -len(g[1])))
        for done in pool.map(runner.run_group, [items for _, items in order]):
            results.update(done)
    return results


def check_file(path, update, results):
    """The number of wrong blocks; rewrites them with --update."""
    rel = os.path.relpath(path, ROOT)  # a FILE may lie outside the repository
    lines = list(TEXTS[path])
    wrong = 0
    edits = []
    for marker, spec, first, end, ind in blocks(lines):
        where = f"{rel}:{marker + 1}"
        if first is None:
            print(f"{where}: a sample marker must come right before its code block: {spec}")
            wrong += 1
            continue
        have = "\n".join(line[ind:] for line in lines[first:end]).strip("\n") + "\n"
        verdict, out = judge(where, spec, have, results[(path, marker)])
        if verdict == "wrong" and update:
            edits.append((first, end, [(" " * ind + line).rstrip() for line in out.rstrip("\n").split("\n")]))
            print(f"{where}: rewritten from `{spec}`")
        elif verdict in ("wrong", "error"):
            wrong += 1
            if verdict == "wrong":
                print_difference(where, spec, have, out, results[(path, marker)][1])
    for first, end, new in reversed(edits):
        lines[first:end] = new
    if edits:
        path.write_text("\n".join(lines), encoding="utf-8")
    return wrong


def cpus():
    """How many CPUs this process may run on, as the lab's race tests count
    them (race_cpus(), tests/support/timing.c): the tests run.sh starts
    inherit it."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def judge(where, spec, have, result):
    """(verdict, output) of the block HAVE against its sample's RESULT:
    "same", "wrong", "error" (said here) or "not compared" (said here)."""
    argv, options, out, err, skipped = result
    if err:
        print(f"{where}: `{spec}`: {err}")
        return "error", None
    if blank_varying(have, options) == blank_varying(out, options):
        return "same", out
    # A lab's race tests cannot race on one CPU and skip (with their reason,
    # tests/support/check_main.c): the counts then differ from the page's,
    # which shows a machine that races. On one CPU a lab's output that
    # differs, from a run where ctest skipped tests, is not compared, and
    # said so: this process's CPUs are the tests', and the skips are
    # ctest's results, not read from what the tests print (which skip was
    # a race's, they do not say: any skip counts).
    if argv[0] == "lab" and cpus() < 2 and skipped:
        print(f"{where}: `{spec}`: not compared: this process runs on one CPU, where the lab's race "
              f"tests skip (ctest skipped {len(skipped)}; the page shows a machine that races)")
        NOT_COMPARED.append(where)
        return "not compared", out
    return "wrong", out


def print_difference(where, spec, have, out, options):
    print(f"{where}: the block no longer shows what `{spec}` prints (- the page, + the program):")
    # What varies is shown as <varies>: the diff is what truly differs.
    for d in difflib.unified_diff(blank_varying(have, options).split("\n"),
                                  blank_varying(out, options).split("\n"), "page", "program",
                                  lineterm="", n=1):
        print("    " + d)


def absolute(text):
    """TEXT as an absolute Path, normalized as os.path.abspath does (a
    lab's output names its build directory so)."""
    return Path(os.path.abspath(text))


def existing_dir(text):
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text} is not a directory (the build tree, build/<preset>)")
    return Path(text)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build", metavar="BUILD", type=existing_dir, help="the build tree, build/<preset>")
    p.add_argument("--update", action="store_true", help="rewrite every marked block from the real output")
    p.add_argument("files", metavar="FILE", nargs="*", type=absolute,
                   help="only these pages (default: every page a reader reads)")
    args = p.parse_args()
    args.files = args.files or sorted((p for pattern in PAGES for p in ROOT.glob(pattern)), key=str)
    return args


def read_pages(files):
    """The number of markers in FILES, each read once into TEXTS: the blocks
    run and the blocks compared are the same."""
    for path in files:
        TEXTS[path] = path.read_text(encoding="utf-8").split("\n")
    return sum(1 for path in files for line in TEXTS[path] if MARKER.match(line))


def main():
    args = parse_args()
    count = read_pages(args.files)
    results = run_all(absolute(args.build), args.files, args.update)
    wrong = sum(check_file(path, args.update, results) for path in args.files)
    if wrong:
        me = Path(__file__).resolve().relative_to(ROOT)
        print(f"check_samples: {wrong} of {count} sample outputs are not what their programs print; "
              f"rewrite them from the real output with: {me} {args.build} --update")
        return 1
    print(f"check_samples: {count} sample outputs, each what its program prints"
          + (" (rewritten where they were not)" if args.update else "")
          + (f"; {len(NOT_COMPARED)} lab outputs not compared on one CPU (listed above)" if NOT_COMPARED else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
