#!/usr/bin/env python3
"""compare.py [--herd HERD7] [--explorer EXPLORE_LITMUS] [FILE.litmus...]

Checks the final states each litmus file states (its `expect` lines, in
herd7's format) against herd7 with rc11.cat, the RC11 model (Lahav et al.,
PLDI 2017), an oracle independent of the explorer. Not part of the build
or of CI: run it after writing or changing a litmus file.

For each file (by default every tests/*.litmus beside this script):
  - herd7 -model rc11.cat -macros c11.def FILE (c11.def: the implicit
    seq_cst forms, atomic_load(x) and the like);
  - its set of states, plus `Flag *undef*` when herd flags a data race,
    compared with the file's `expect` lines. A difference is explained when
    the file has a `herd-differs REASON` line (rc11.cat's mutexes), and an
    error otherwise;
  - a file whose set differs between RC11 and C11 (N1570's release
    sequences) also states C11's extra states (`expect-c11` lines), checked
    against herd7's c11_orig.cat (Batty et al., POPL 2016);
  - with --explorer, `explore_litmus --check FILE` too: whether the
    explorer's model already gives exactly the stated set today, how long
    it took, and whether its counts of executions (Positive, Negative)
    equal herd7's. A difference in the counts is explained when the file
    has a `herd-counts-differ REASON` line, and an error otherwise.
Then which files are registered as ctests, and for the others the reason
registry.tsv gives (registry.py reads it, as CMakeLists.txt does). Exits 1 on an
unexplained difference with herd7, or on a registered file the explorer
does not match. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
import herd  # noqa: E402  (the parsers beside this file)
import litmus_file  # noqa: E402
import registry  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_EXPLORER = HERE.parents[2] / "build" / "test" / "tests" / "explore" / "litmus" / "explore_litmus"
DEFAULT_HERD = "/tmp/herd7-install/bin/herd7"  # ../shared/tools/herd7/build.sh installs it there


@dataclass
class Tally:
    """What the files gave, for the summary."""
    agree: int = 0
    explained: list = field(default_factory=list)
    unexplained: list = field(default_factory=list)
    explorer_bad: list = field(default_factory=list)
    counts_equal: int = 0
    counts_explained: list = field(default_factory=list)


def herd_run(herd7, path, model="rc11.cat"):
    """herd7's result for the file: its states, with `Flag *undef*` if it flags a race."""
    out = subprocess.run([herd7, "-model", model, "-macros", "c11.def", str(path)],
                         capture_output=True, text=True, timeout=600)
    result = herd.parse(out.stdout)
    if result is None:
        raise RuntimeError(f"herd7 gave no states:\n{out.stdout}{out.stderr}")
    return result


def explorer_check(explorer, path):
    """explore_litmus --check: its exit code, how long it took, what it said
    when it did not agree (its stderr: a refusal's FILE:LINE:COL, a failure)
    and its counts, herd's `Positive: P Negative: N`, from its --json."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        out = subprocess.run([explorer, "--check", "--json", str(result), str(path)], capture_output=True, text=True,
                             timeout=1800)
        try:
            tests = json.loads(result.read_text())["tests"]
        except (OSError, ValueError, KeyError):
            tests = []
    seconds = time.monotonic() - start
    said = ([l for l in out.stdout.splitlines() if l.startswith("explore_litmus:")] + out.stderr.strip().splitlines()
            if out.returncode else [])
    counts = f"Positive: {tests[0]['positive']} Negative: {tests[0]['negative']}" if tests else None
    return out.returncode, seconds, said, counts


def check_rc11(herd, test, tally):
    """The file's `expect` lines (and its `expect-counts` line, if any) against herd7's states (and
    counts) under rc11.cat: the line to print."""
    herd_set = herd.states
    missing = [s for s in test.expect if s not in herd_set]
    extra = [s for s in herd_set if s not in test.expect]
    if test.expect_counts and test.expect_counts != herd.counts:
        tally.unexplained.append(f"{test.path.stem}: counts stated {test.expect_counts}, herd7 {herd.counts}")
        return f"{test.path.stem}: herd7 DIFFERS: counts stated {test.expect_counts}, herd7 gives {herd.counts}"
    if not missing and not extra:
        tally.agree += 1
        return f"{test.path.stem}: herd7 agrees ({len(test.expect)} stated" + (
            f", and {test.expect_counts})" if test.expect_counts else ")")
    what = "; ".join([f"stated, herd7 does not give: {s}" for s in missing] +
                     [f"herd7 gives, not stated: {s}" for s in extra])
    reason = test.herd_differs
    (tally.explained if reason else tally.unexplained).append(
        f"{test.path.stem}: {what}" + (f" (why: {reason})" if reason else ""))
    return f"{test.path.stem}: herd7 DIFFERS: {what}" + (f"\n    why: {reason}" if reason else "  UNEXPLAINED")


def check_c11(herd7, test, tally):
    """The file's set under C11 proper: RC11's plus its expect-c11 lines,
    against herd7's c11_orig.cat (Batty et al., POPL 2016: N1570's
    contiguous release sequences). The words to add to its line."""
    if not test.expect_c11:
        return ""
    c11_herd = herd_run(herd7, test.path, "c11_orig.cat").states
    c11_set = test.expect + test.expect_c11
    if sorted(c11_herd) == sorted(c11_set):
        return f"; under C11 (c11_orig.cat) herd7 agrees too ({len(c11_set)} stated)"
    what = f"C11 set stated {sorted(c11_set)}, c11_orig.cat gives {sorted(c11_herd)}"
    tally.unexplained.append(f"{test.path.stem}: {what}")
    return f"; C11 DIFFERS: {what}"


def check_counts(test, ours, herd_counts, tally):
    """explore_litmus's counts of executions against herd7's."""
    name, why = test.path.stem, test.herd_counts_differ
    if ours == herd_counts:
        tally.counts_equal += 1
        print(f"    executions: {ours}, as herd7's")
    elif why:
        tally.counts_explained.append(f"{name}: {ours}, herd7 {herd_counts} (why: {why})")
        print(f"    executions: {ours}, herd7 {herd_counts}\n    why: {why}")
    else:
        tally.unexplained.append(f"{name}: executions {ours}, herd7 {herd_counts}")
        print(f"    executions: {ours}, herd7 {herd_counts}  UNEXPLAINED")


def report_explorer(explorer, test, herd_counts, names, waiting, tally):
    """Whether explore_litmus gives exactly the stated set, how fast, with herd7's counts, and whether
    it is registered."""
    name = test.path.stem
    rc, seconds, verdict, ours = explorer_check(explorer, test.path)
    status = "registered" if name in names else f"not registered: {waiting.get(name, 'no reason given')}"
    print(f"    explore_litmus: {'exact' if rc == 0 else 'refused' if rc == 2 else 'differs'} "
          f"in {seconds:.1f} s; {status}")
    if rc != 2:
        check_counts(test, ours, herd_counts, tally)
    for v in verdict:
        print(f"      {v}")
    if name in names and rc != 0:
        tally.explorer_bad.append(name)


def summary(files, names, waiting, tally, explorer):
    """herd7's agreement over the files, then which are registered as ctests and why not the others."""
    print(f"\ncompare: {len(files)} files; herd7 rc11.cat agrees with {tally.agree}, "
          f"differs on {len(tally.explained)} (explained) + {len(tally.unexplained)} (unexplained)")
    for d in tally.explained:
        print(f"  explained: {d}")
    if explorer:
        print(f"compare: explore_litmus's counts of executions equal herd7's on {tally.counts_equal} files, "
              f"differ on {len(tally.counts_explained)} (explained)")
        for d in tally.counts_explained:
            print(f"  explained: {d}")
    for d in tally.unexplained:
        print(f"  UNEXPLAINED: {d}")
    listed = [Path(p).stem for p in files]
    print(f"compare: ctests registered in registry.tsv: {len([n for n in names if n in listed])} of {len(files)}")
    for n in listed:
        if n not in names:
            print(f"  not registered: {n}: {waiting.get(n, 'no reason given in registry.tsv')}")
    if tally.explorer_bad:
        print(f"compare: registered but not exact under the explorer: {', '.join(tally.explorer_bad)}")


def parse_args():
    p = argparse.ArgumentParser(usage="%(prog)s" + __doc__.split("\n")[0][len("compare.py"):],
                                description=__doc__.split("\n\n")[1])
    p.add_argument("--herd", default=os.environ.get("HERD7", DEFAULT_HERD), help="herd7 (default: $HERD7, or %(default)s)")
    p.add_argument("--explorer", default=str(DEFAULT_EXPLORER),
                   help="explore_litmus: it reads the files, and its --check runs on each (default: %(default)s)")
    p.add_argument("files", nargs="*", type=Path, help="litmus files (default: every tests/*.litmus)")
    args = p.parse_args()
    if not os.access(args.herd, os.X_OK):
        sys.exit(f"compare: no herd7 at {args.herd}: build it with ../shared/tools/herd7/build.sh, or pass --herd")
    if not os.access(args.explorer, os.X_OK):
        sys.exit(f"compare: no explore_litmus at {args.explorer}, which reads the litmus files: build it "
                 "(cmake --workflow --preset test), or pass --explorer")
    return args


def main():
    args = parse_args()
    files = args.files or sorted((HERE / "tests").glob("*.litmus"))
    names, waiting = registry.registered(), registry.waiting()
    tally = Tally()
    for path in files:
        try:
            test = litmus_file.read(path, args.explorer)
        except litmus_file.Refused as e:  # (explore_litmus cannot read it: what herd7 says of it, and why)
            print(f"{path.stem}: explore_litmus refuses it:\n    {e}")
            if path.stem in names:
                tally.explorer_bad.append(path.stem)
            continue
        if test.herd_skip:
            tally.explained.append(f"{test.path.stem}: herd7 not run (why: {test.herd_skip})")
            print(f"{test.path.stem}: herd7 not run\n    why: {test.herd_skip}")
            report_explorer(args.explorer, test, test.expect_counts, names, waiting, tally)
            continue
        rc11 = herd_run(args.herd, path)
        print(check_rc11(rc11, test, tally) + check_c11(args.herd, test, tally))
        report_explorer(args.explorer, test, rc11.counts, names, waiting, tally)
    summary(files, names, waiting, tally, args.explorer)
    sys.exit(1 if tally.unexplained or tally.explorer_bad else 0)


if __name__ == "__main__":
    main()
