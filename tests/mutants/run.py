#!/usr/bin/env python3
"""run.py: the mutation table (tests/mutants/README.md).

Every memory order stronger than relaxed in every step's src/*.c, weakened
one notch and all the way to relaxed, and every logic mistake of logic.tsv:
each such mutant must be caught by the step's tests on every run. Two
modes, each with its own results file, merged into one Markdown table
(docs/MUTANTS.md):

  default     the step built with the mutant and its tests run, memory
              orders under ThreadSanitizer, logic mutants under the
              sanitizer their logic.tsv row names: results in tsan.tsv;
  --explorer  the step's schedule explorer scenarios alone, built without
              any sanitizer: a weakened order runs on the unchanged build
              through the explorer's --weaken FILE:LINE=ORDER, a logic
              mutant is built: results in explorer.tsv.

Builds use copies of the steps (student mode, -DLOCKSTEP_STEP_DIR_NN);
the step sources are never modified. Standard library only.
"""
import argparse
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
import build  # noqa: E402 (after the line above)
import scan  # noqa: E402
import table  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
LOGIC = HERE / "logic.tsv"

# A race test's coverage guard: the Check failure that says the race's two
# sides never met (lockstep_check_race_coverage's ck_abort_msg), known by
# where Check's XML log places the failure.
CHECK_MAIN = REPO / "tests" / "support" / "check_main.c"
COVERAGE_GUARD = "lockstep_check_race_coverage"

# Each sanitizer exits with its own status (build.SANITIZER_EXIT), which
# says which one stopped a test.
EXIT = build.SANITIZER_EXIT
SANITIZER_ENV = {
    "thread": {"TSAN_OPTIONS": f"halt_on_error=1:second_deadlock_stack=1:exitcode={EXIT['TSan']}"},
    "address": {"ASAN_OPTIONS": f"detect_leaks=1:detect_stack_use_after_return=1:exitcode={EXIT['ASan']}",
                "UBSAN_OPTIONS": f"print_stacktrace=1:halt_on_error=1:exitcode={EXIT['UBSan']}"},
}


def log(message):
    print(f"[mutants {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Stop(Exception):
    """Something that is no verdict on a mutant: the run stops (exit 2)."""


class Runner:
    def __init__(self, args, steps, work):
        self.args, self.steps, self.work = args, steps, work
        self.copies = {nn: work / "src" / d.name for nn, d in steps.items()}
        for nn, d in steps.items():
            shutil.copytree(d, self.copies[nn])
        self.builds, self.baselines, self.compiled = {}, {}, {}
        self.dirty = set()  # (sanitizer, NN): the build holds a logic mutant's step
        self.rule = None  # where the compiler puts __LINE__ in a macro call over lines
        self.guard = coverage_guard()

    # ---- builds --------------------------------------------------------------

    def build_for(self, sanitizer):
        if sanitizer not in self.builds:
            # ASan is cheaper than TSan and its races (a lost wake-up in a gap of a
            # few instructions) are rare: ten times the iterations.
            n = self.args.iterations * (1 if sanitizer == "thread" else 10)
            b = build.Build(REPO, self.work, sanitizer, self.copies, n, log)
            b.configure()
            self.builds[sanitizer] = b
        return self.builds[sanitizer]

    def kinds(self):
        return ["explore"] if self.args.explorer else ["unit", "stress", "explore"]

    def library(self, nn):
        return f"lockstep_explore_step{nn}" if self.args.explorer else f"lockstep_step{nn}"

    def build_step(self, b, nn):
        targets = b.targets(nn, self.kinds())
        if not targets:
            raise Stop(f"no test executables for step {nn} in the {b.sanitizer} build")
        return b.build(targets)

    def baseline(self, b, nn):
        """The unmutated step must build and pass, or the table means nothing."""
        if (b.sanitizer, nn) in self.baselines:
            return
        log(f"step {nn} ({b.sanitizer}): baseline build and run")
        errors = self.build_step(b, nn)
        if errors:
            raise Stop(f"step {nn} does not build ({b.sanitizer}):\n{errors}")
        killer, _ = self.run_tests(b, nn, [], [])
        if killer:
            raise Stop(f"step {nn} fails unmutated ({b.sanitizer}): {killer[0]}: {killer[1]}\n{killer[2]}")
        self.baselines[(b.sanitizer, nn)] = b.objects_hash(self.library(nn))

    # ---- running a step's tests ----------------------------------------------

    def run_tests(self, b, nn, first, extra):
        """Runs the step's tests, the names in FIRST first, then unit before
        stress, and stops at the first failure. Returns (killer, schedules):
        killer is (test, kind, output) or None; schedules, in the explorer
        mode, those the failing scenario explored, or all of them on a pass
        (None if an output did not say)."""
        tests = b.tests(nn, ["explore"] if self.args.explorer else [])
        rank = {name: i for i, name in enumerate(first)}
        tests = sorted(tests, key=lambda t: rank.get(t.name, 2000 if ".stress." in t.name else 1000))
        prefix = ["setarch", platform.machine(), "-R"] if b.sanitizer == "thread" and sys.platform == "linux" else []
        total = 0
        for t in tests:
            o = self.run_one(t, b, extra, prefix)
            if o is None:
                continue
            if self.args.explorer:
                verdict = explorer_verdict(t, o)
                if verdict == "passed":
                    n = o.explored.get("schedules")
                    total = None if n is None or total is None else total + n
                elif verdict == "failed":
                    return (t.name, o.explored["kind"], o.output), o.explored.get("schedules")
                elif verdict == "unlinked":
                    continue  # the binary does not contain the weakened file: nothing of it changed
                elif verdict != "skipped":
                    raise Stop(f"{t.name} {' '.join(extra)}: the explorer exited {o.status}, neither a pass (0, "
                               f"--json result passed) nor a failure it reports (1, result failed with its kind): "
                               f"a runner error, not a verdict\n{o.output[-3000:]}")
            elif o.status not in (0, t.skip_code):
                return (t.name, build.failure_kind(o), o.output), None
        return None, total

    def run_one(self, t, b, extra, prefix):
        """One test: its build.Outcome, or None if a race test met no race
        in three tries (its coverage guard: both sides of the race must occur,
        which a busy machine can prevent: that proves nothing either way)."""
        for attempt in (1, 2, 3):
            o = build.run(t, self.args.timeout, extra, SANITIZER_ENV.get(b.sanitizer), prefix)
            if self.args.explorer or o.status == 0 or not inconclusive(o, self.guard):
                return o
            log(f"{t.name}: the race did not occur (attempt {attempt}), running it again")
        return None

    # ---- one mutant ------------------------------------------------------------

    def judge(self, m):
        """Mutant M's table.Result."""
        b = self.build_for("none" if self.args.explorer else m.sanitizer)
        self.baseline(b, m.step)
        if self.args.explorer and m.kind == "order":
            spec, why = self.weaken_spec(b, m)
            if spec == "no code change":
                return table.Result("no code change")
            if spec:
                self.clean(b, m.step)
                return self.runs(b, m, ["--weaken", spec])
            log(f"{m.id}: {why}: built instead")
        return self.rebuilt(b, m)

    def weaken_spec(self, b, m):
        """The --weaken argument that runs order mutant M without a rebuild:
        (spec, None), ("no code change", None), or (None, why not)."""
        copy = self.copies[m.step] / m.file
        key = (m.step, m.file)
        if key not in self.compiled:
            self.compiled[key] = b.compiled_lines(self.library(m.step), copy)
        if m.call_line not in self.compiled[key]:
            return "no code change", None
        # The explorer names an operation by the __LINE__ of its macro call.
        if self.rule is None:
            self.rule = b.line_of_multiline_call()
        site = m.call_line if self.rule == "name" else m.close_line
        for call_line, close_line, order in m.others:
            other = call_line if self.rule == "name" else close_line
            if other == site and scan.STRENGTH[m.mutant] < scan.STRENGTH[order]:
                return None, f"--weaken {Path(m.file).name}:{site} would also weaken the {order} beside it"
        return f"{Path(m.file).name}:{site}={m.mutant}", None

    def clean(self, b, nn):
        """The step built as it is again, after a logic mutant's build."""
        if (b.sanitizer, nn) in self.dirty:
            errors = self.build_step(b, nn)
            if errors:
                raise Stop(f"step {nn} does not build again ({b.sanitizer}):\n{errors}")
            self.dirty.discard((b.sanitizer, nn))

    def rebuilt(self, b, m):
        """Mutant M built into the step's copy, judged, and the copy put back."""
        copy = self.copies[m.step] / m.file
        original = copy.read_text(encoding="utf-8")
        mutated = m.edit(original)
        if mutated == original:
            raise Stop(f"{m.id}: the edit changed nothing")
        try:
            copy.write_text(mutated, encoding="utf-8")
            errors = self.build_step(b, m.step)
            self.dirty.add((b.sanitizer, m.step))
            if errors:
                return table.Result("does not build", error=next((x for x in errors.splitlines() if "error" in x), ""))
            if b.objects_hash(self.library(m.step)) == self.baselines[(b.sanitizer, m.step)]:
                return table.Result("no code change")
            return self.runs(b, m, [])
        finally:
            copy.write_text(original, encoding="utf-8")

    def runs(self, b, m, extra):
        """Every run of the step's tests against mutant M: its table.Result,
        each run a table.Run (the explorer's: the scenario, the test's name
        after stepNN.explore., and its schedules)."""
        killers, runs = [], []
        start = time.monotonic()
        for _ in range(self.args.runs):
            killer, n = self.run_tests(b, m.step, killers, extra)
            if killer:
                killers.insert(0, killer[0])
            if not self.args.explorer:
                runs.append(table.Run(killer[0], killer[1]) if killer else table.Run())
            else:
                scenario = killer[0].removeprefix(f"step{m.step}.explore.") if killer else ""
                runs.append(table.Run(scenario, killer[1] if killer else "", n))
        mode = "explorer" if self.args.explorer else "tsan"
        # (the seconds are kept in explorer.tsv; in the sanitizer mode only logged)
        return table.Result(table.status_of(mode, runs), runs, seconds=f"{time.monotonic() - start:.1f}")


def explorer_verdict(test, o):
    """The explorer's exit status and its --json, read by their contract
    (build.Outcome O): 0 with result "passed" every schedule passed, 1 with
    result "failed" a schedule failed (its kind in the JSON), the test's skip
    code a scenario for a later step; anything else (2: a refused --weaken or
    bad usage; a crash; a timeout) is no verdict."""
    rc, said = o.status, (o.explored or {}).get("result")
    if rc == 0 and said == "passed":
        return "passed"
    if rc == 1 and said == "failed" and o.explored.get("kind"):
        return "failed"
    if rc == test.skip_code:
        return "skipped"
    # A binary of the step that links none of the weakened file's code (the
    # task scenarios link no event.c) refuses the --weaken, and its --json
    # names the refusal no-file: the mutant changes nothing it runs. Any
    # other refusal stays an error.
    if rc == 2 and said == "refused" and o.explored.get("refusal") == "no-file":
        return "unlinked"
    return "error"


def coverage_guard():
    """(file, first line, last line) of the ck_abort_msg call in CHECK_MAIN's
    lockstep_check_race_coverage, read from the source: where Check places
    the failure of a race test that met no race (gcc gives a call over
    several lines its first line, clang its last)."""
    lines = CHECK_MAIN.read_text(encoding="utf-8").split("\n")
    start = next((i for i, x in enumerate(lines) if x.startswith(f"void {COVERAGE_GUARD}(")), None)
    call = next((i for i in range(start, len(lines)) if "ck_abort_msg(" in lines[i]), None) if start is not None else None
    end = next((i for i in range(call, len(lines)) if lines[i].rstrip().endswith(");")), None) if call is not None else None
    if end is None:
        raise Stop(f"no ck_abort_msg(...); in {COVERAGE_GUARD}() of {CHECK_MAIN}: where does a race test say it met no race?")
    return os.path.realpath(CHECK_MAIN), call + 1, end + 1


def inconclusive(o, guard):
    """A race test that failed (exit 1, no sanitizer's status) only at its
    coverage guard: every failure in Check's XML log is at GUARD."""
    file, first, last = guard
    failures = build.check_failures(o)
    return (o.status == 1 and bool(failures)
            and all(os.path.realpath(f.file) == file and first <= f.line <= last for f in failures))


def options():
    p = argparse.ArgumentParser(prog="tests/mutants/run.py", description="The mutation table "
                                "(tests/mutants/README.md). Exit status: 0 if every mutant was killed on every "
                                "run, 1 if one survived or did not build, 2 if the run itself failed.")
    p.add_argument("--runs", type=int, default=table.DEFAULT_RUNS,
                   help=f"runs per mutant; killed only if every run kills it ({table.DEFAULT_RUNS})")
    p.add_argument("--steps", default="", help='only these steps, e.g. "03 05" (default: every steps/NN-*/)')
    p.add_argument("--only", default="", metavar="REGEX", help="only mutants whose id matches REGEX")
    p.add_argument("--explorer", action="store_true", help="the explorer alone (results in explorer.tsv); "
                   "default: the sanitizers (results in tsan.tsv)")
    p.add_argument("--out", type=Path, default=REPO / "docs" / "MUTANTS.md",
                   help="the table (docs/MUTANTS.md)")
    p.add_argument("--results", type=Path, default=HERE, metavar="DIR", help="the results files tsan.tsv and explorer.tsv "
                   "(default tests/mutants; seeded from there if DIR lacks them)")
    p.add_argument("--table-only", action="store_true", help="run nothing: rewrite the table from the results")
    p.add_argument("--keep-going", action="store_true", help="run every mutant even after one survives or "
                   "does not build (default: stop at the first, still writing the table)")
    p.add_argument("--iterations", type=int, default=20000, help="LOCKSTEP_ITERATIONS for the stress tests "
                   "under TSan (20000; ten times that under ASan)")
    p.add_argument("--timeout", type=float, default=120, help="per-test timeout in seconds (120); under the "
                   "sanitizers a hang counts as a kill, under the explorer it stops the run")
    p.add_argument("--list", action="store_true", help="print the mutants and exit (builds nothing)")
    args = p.parse_args()
    if args.runs < 1:
        p.error("--runs needs a positive number")
    return args


def machine():
    u = platform.uname()
    cc = subprocess.run([os.environ.get("CC", "cc"), "--version"], capture_output=True, text=True).stdout
    return f"{u.system} {u.release} {u.machine}, {os.cpu_count()} cores, {cc.splitlines()[0] if cc else '?'}"


def settings(args):
    if args.explorer:
        return ("the step's explorer scenarios only (ctest labels explore and stepNN, not errata), built without "
                "any sanitizer; memory orders through --weaken, no rebuild; per-scenario timeout "
                f"{args.timeout:g}s")
    return (f"LOCKSTEP_ITERATIONS={args.iterations} under TSan, {args.iterations * 10} under ASan; "
            f"per-test timeout {args.timeout:g}s")


def chosen_steps(args, all_steps):
    """The steps --steps names (default: all of them)."""
    if not args.steps:
        return all_steps
    missing = [nn for nn in args.steps.split() if nn not in all_steps]
    if missing:
        sys.exit(f"run.py: no step {' '.join(missing)} under steps/")
    return {nn: all_steps[nn] for nn in args.steps.split()}


def chosen_mutants(args, steps):
    """The mutants of STEPS whose id matches --only."""
    try:
        return [m for m in scan.discover(steps, LOGIC) if re.search(args.only, m.id)]
    except scan.ScanError as e:
        sys.exit(f"run.py: {e}")


def print_list(mutants):
    for m in mutants:
        print(f"{m.id:<60} {m.file}:{m.line}  {m.function}  {m.original} -> {m.mutant}")


def read_results(directory):
    """{mode: its results file in DIRECTORY}, seeded from tests/mutants/ where DIRECTORY lacks one."""
    directory.mkdir(parents=True, exist_ok=True)
    for mode in table.MODES:
        mine, seed = directory / f"{mode}.tsv", HERE / f"{mode}.tsv"
        if not mine.exists() and seed.exists():
            shutil.copy(seed, mine)
    try:
        return table.read_results(str(directory))
    except table.RowError as e:
        sys.exit(f"run.py: {e}")


def write_table(args, all_steps, results):
    """docs/MUTANTS.md from both results files: the two summary lines."""
    step_names = {nn: Path(d).name for nn, d in all_steps.items()}
    s = table.write(str(args.out.absolute()), scan.discover(all_steps, LOGIC), step_names,
                    results["tsan"], results["explorer"], args.runs)
    log(f"table written to {args.out}")
    return s


def start_run(args, mine):
    """MINE's description of this run; a partial run keeps the earlier ones'."""
    if mine.exists() and (args.only or args.steps):
        mine.describe_partial_run()
    else:
        mine.earlier = []
    mine.meta = {"command": shlex.join(["tests/mutants/run.py"] + sys.argv[1:]),
                 "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                 "machine": machine(), "settings": settings(args), "runs": str(args.runs)}


def judge_all(args, steps, mutants, mine, mode):
    """Every mutant judged, MINE saved after each. Returns (status, bad):
    status 2 if the run itself failed, bad if a mutant survived or did not build."""
    start, status, bad, ran = time.monotonic(), 0, False, 0
    work = Path(tempfile.mkdtemp(prefix="lockstep-mutants."))
    try:
        runner = Runner(args, {nn: steps[nn] for nn in sorted({m.step for m in mutants})}, work)
        for m in mutants:
            result = mine.rows[m.id] = runner.judge(m)
            ran += 1
            log(f"{m.id}: {result.status}: {table.cell(mode, result)}"
                + (f" ({result.seconds} s)" if result.seconds else ""))
            mine.meta["wall time"] = table.minutes(time.monotonic() - start)
            mine.save()  # after every mutant: an interrupted run keeps what it found
            if result.status not in ("killed", "caught", "no code change"):
                bad = True
                if not args.keep_going:
                    log("stopping at the first survivor (--keep-going runs them all)")
                    break
    except (Stop, build.BuildError, subprocess.CalledProcessError) as e:
        log(f"error: {e}")
        status = 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if ran:
        mine.meta["wall time"] = table.minutes(time.monotonic() - start)
        mine.save()
    return status, bad


def main():
    args = options()
    all_steps = {nn: Path(d) for nn, d in table.step_dirs(REPO).items()}
    steps = chosen_steps(args, all_steps)
    mutants = chosen_mutants(args, steps)
    if args.list:
        print_list(mutants)
        return 0
    results = read_results(args.results)
    if args.table_only:
        t, x = write_table(args, all_steps, results)
        log(f"TSan/ASan: {t}")
        log(f"explorer alone: {x}")
        return 0
    if not mutants:
        sys.exit("run.py: no mutants match")

    mode = "explorer" if args.explorer else "tsan"
    mine = results[mode]
    start_run(args, mine)
    log(f"{len(mutants)} mutants, {args.runs} runs each{', the explorer alone' if args.explorer else ''}")
    status, bad = judge_all(args, steps, mutants, mine, mode)
    t, x = write_table(args, all_steps, results)
    log(f"explorer alone: {x}" if args.explorer else f"TSan/ASan: {t}")
    log(f"results in {mine.path}")
    return status or (1 if bad else 0)


if __name__ == "__main__":
    sys.exit(main())
