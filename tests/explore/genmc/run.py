#!/usr/bin/env python3
"""Counts the explorer's executions against GenMC's, scenario by scenario.

Each program here is a scenario of tests/explore/scenarios written as a plain
pthread program that #includes the step's own sources (README.md). For each
program and each step it applies to, this script

  - compiles it as GenMC compiles its input (clang-16, GenMC's headers), then
    simplifies the IR (opt -passes=inline,sroa,instsimplify: GenMC rejects a
    task_result, {int, intptr_t}, passed by value until SROA has split it),
  - runs GenMC on it (-rc11 -disable-mm-detector --disable-instruction-caching)
    and reads "Number of complete executions explored",
  - runs the matching scenario with the explorer of BUILD_DIR and reads
    "explore: N executions, M schedules",

and prints one row per pair. Exit status 1 if any count differs, either tool
reports an error, or a program or explorer binary is missing.

    tests/explore/genmc/run.py --genmc /tmp/genmc-build/genmc build/test
    tests/explore/genmc/run.py --genmc /tmp/genmc-build/genmc build/test --step 07

Not a ctest: GenMC is not a package (../shared/tools/genmc/build.sh, beside the
repository, builds it).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

# (program, defines, component, scenario, first step, last step)
PAIRS = [
    ("event_waiter_threads.c", ["-DWAITERS=3"], "event", "set_vs_three_waiter_threads", 4, 9),
    ("event_waiter_threads.c", ["-DWAITERS=2"], "event", "set_vs_awaits_on_two_threads", 4, 9),
    ("task_chain_three_threads.c", [], "task", "chain_across_three_threads", 1, 7),
]

GENMC_RE = re.compile(r"Number of complete executions explored: (\d+)")


def step_dirs(root):
    """{step number: its folder}, from root's steps/NN-name."""
    found = {}
    for name in sorted(os.listdir(os.path.join(root, "steps"))):
        m = re.match(r"(\d\d)-", name)
        if m:
            found[int(m.group(1))] = os.path.join(root, "steps", name)
    return found


def run(cmd, timeout):
    """(exit status, stdout + stderr, seconds); status None on a timeout."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        return p.returncode, p.stdout, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out, time.monotonic() - start


def first_error(text):
    # GenMC: its assertion's text, or its verdict's line ("Error: Attempt to access freed memory!")
    for key in ("Assertion violation:", "Error:"):
        for line in text.splitlines():
            if line.startswith(key):
                return line.strip()
    for line in text.splitlines():
        if re.search(r"error|Error|ERROR|FAILED|Assertion|race", line):
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "(no output)"


def genmc_count(args, program, defines, step, step_dir, workdir):
    """(executions or None, seconds, note)."""
    ll = os.path.join(workdir, "prog.ll")
    opt_ll = os.path.join(workdir, "prog.opt.ll")
    # GenMC's own compile line (its main.cpp), but -O1 without LLVM's passes
    # instead of -O0, so that opt may inline (-O0 marks every function
    # noinline); opt then runs only the three passes named.
    compile_cmd = [args.clang, "-fno-discard-value-names", "-O1", "-Xclang", "-disable-llvm-passes", "-g",
                   f"-DLOCKSTEP_STEP={step}", *defines, *args.cflags,
                   "-I", HERE, "-I", os.path.join(args.source, "tests", "support"),
                   "-I", os.path.join(step_dir, "src"), "-I", os.path.join(step_dir, "include"),
                   "-I", os.path.join(args.source, "common", "include"), "-I", args.genmc_include,
                   "-D__CONFIG_GENMC_INODE_DATA_SIZE=64", "-S", "-emit-llvm", "-o", ll,
                   os.path.join(HERE, program)]
    status, out, _ = run(compile_cmd, args.timeout)
    if status != 0:
        return None, 0.0, "clang: " + first_error(out)
    status, out, _ = run([args.opt, "-passes=inline,sroa,instsimplify", "-S", ll, "-o", opt_ll], args.timeout)
    if status != 0:
        return None, 0.0, "opt: " + first_error(out)
    status, out, secs = run([args.genmc, "-rc11", "-disable-mm-detector", "--disable-instruction-caching",
                             "--input-from-bitcode-file", "--", opt_ll], args.timeout)
    m = GENMC_RE.search(out)
    if status is None:
        return None, secs, f"GenMC: no answer in {args.timeout} s"
    if status != 0 or not m or "No errors were detected" not in out:
        return None, secs, "GenMC: " + first_error(out)
    return int(m.group(1)), secs, ""


def explorer_count(args, component, scenario, step):
    """(executions or None, schedules, seconds, note): the explorer's --json."""
    exe = os.path.join(args.build_dir, "tests", "explore", f"explore_{component}_step{step:02d}")
    if not os.path.exists(exe):
        return None, None, 0.0, f"not built: cmake --build {args.build_dir} --target {os.path.basename(exe)}"
    with tempfile.TemporaryDirectory() as tmp:
        result = os.path.join(tmp, "result.json")
        status, out, secs = run([exe, scenario, "--json", result], args.timeout)
        try:
            with open(result, encoding="utf-8") as f:
                got = json.load(f)
        except (OSError, ValueError):
            got = {}
    if status != 0 or got.get("result") != "passed":
        return None, None, secs, "explorer: " + (got.get("message") or got.get("why") or first_error(out))
    return got["executions"], got["schedules"], secs, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build_dir", help="a build of the test preset (its tests/explore/explore_*_stepNN)")
    ap.add_argument("--genmc", required=True, help="the genmc binary (GenMC v0.11, built with LLVM 16)")
    ap.add_argument("--genmc-include", help="GenMC's headers (default: the include folder beside the binary)")
    ap.add_argument("--clang", default=shutil.which("clang-16") or "clang", help="clang of GenMC's LLVM (clang-16)")
    ap.add_argument("--opt", default=shutil.which("opt-16") or "opt", help="opt of GenMC's LLVM (opt-16)")
    ap.add_argument("--step", type=int, action="append", help="only this step (repeatable)")
    ap.add_argument("--only", help="only the scenarios whose name matches this regular expression")
    ap.add_argument("--cflags", action="append", default=[],
                    help="one more flag for the program's compile (a -D switch of the step, say)")
    ap.add_argument("--source", default=ROOT,
                    help="the tree whose steps, common and tests/support GenMC checks (default: this checkout; "
                         "a copy with a step changed, to see GenMC's verdict on it)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed each run (default 600)")
    args = ap.parse_args()
    args.genmc_include = args.genmc_include or os.path.join(os.path.dirname(os.path.abspath(args.genmc)), "include")

    steps = step_dirs(args.source)
    rows, bad = [], 0
    with tempfile.TemporaryDirectory(prefix="lockstep-genmc-") as workdir:
        for program, defines, component, scenario, first, last in PAIRS:
            if args.only and not re.search(args.only, scenario):
                continue
            for step in range(first, last + 1):
                if step not in steps or (args.step and step not in args.step):
                    continue
                ex, sched, ex_secs, ex_note = explorer_count(args, component, scenario, step)
                gm, gm_secs, gm_note = genmc_count(args, program, defines, step, steps[step], workdir)
                equal = ex is not None and ex == gm
                bad += not equal
                rows.append([f"{program} {' '.join(defines)}".strip(), f"{component}.{scenario}", f"{step:02d}",
                             "-" if ex is None else f"{ex} / {sched}", f"{ex_secs:.2f}",
                             "-" if gm is None else str(gm), f"{gm_secs:.2f}",
                             "yes" if equal else "NO", "; ".join(n for n in (ex_note, gm_note) if n)])
                print(f"{rows[-1][0]} step {step:02d}: explorer {rows[-1][3]}, GenMC {rows[-1][5]}",
                      file=sys.stderr, flush=True)

    head = ["program", "scenario", "step", "explorer executions / schedules", "s", "GenMC executions", "s",
            "equal", "note"]
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    for r in [head, ["-" * w for w in widths]] + rows:
        print(" | ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    if not rows:
        print("nothing to compare (check --step and --only)")
        return 1
    print(f"\n{len(rows) - bad} of {len(rows)} equal")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
