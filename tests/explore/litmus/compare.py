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
Then which files CMakeLists.txt registers as ctests, and for the others the
reason it gives (`# waiting: NAME REASON` lines). Exits 1 on an
unexplained difference with herd7, or on a registered file the explorer
does not match. Standard library only.
"""
import glob
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_HERD = "/tmp/herd7-install/bin/herd7"  # ../shared/tools/herd7/build.sh installs it there


def stated(path):
    """The file's expect lines, expect-c11 lines and herd-differs reason."""
    rc11, c11, reason = [], [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("expect "):
                rc11.append(line[len("expect "):].strip())
            elif line.startswith("expect-c11 "):
                c11.append(line[len("expect-c11 "):].strip())
            elif line.startswith("herd-differs "):
                reason = line[len("herd-differs "):].strip()
    return rc11, c11, reason


def counts_reason(path):
    """The file's herd-counts-differ reason, or None."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip().startswith("herd-counts-differ "):
                return line.strip()[len("herd-counts-differ "):]
    return None


def counts(output):
    """The `Positive: P Negative: N` line of herd7's shape, or None."""
    return next((l for l in output.splitlines() if l.startswith("Positive: ")), None)


def herd_states(herd, path, model="rc11.cat"):
    """herd7's states for the file, `Flag *undef*` if it flags a race, and
    its counts line."""
    out = subprocess.run([herd, "-model", model, "-macros", "c11.def", path],
                         capture_output=True, text=True, timeout=600)
    lines = out.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("States ")), None)
    if start is None:
        raise RuntimeError(f"herd7 gave no states:\n{out.stdout}{out.stderr}")
    n = int(lines[start].split()[1])
    states = lines[start + 1:start + 1 + n]
    if "Flag *undef*" in lines:
        states.append("Flag *undef*")
    return states, counts(out.stdout)


def registered():
    """The names CMakeLists.txt registers, and its `# waiting: NAME REASON` lines."""
    with open(os.path.join(HERE, "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"set\(litmus_registered(.*?)\)", text, re.S)
    names = block.group(1).split() if block else []
    waiting = dict(re.findall(r"^# waiting: (\S+)\s+(.*)$", text, re.M))
    return names, waiting


def explorer_check(explorer, path):
    start = time.monotonic()
    out = subprocess.run([explorer, "--check", path], capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - start
    verdict = [l for l in (out.stdout + out.stderr).splitlines()
               if l.startswith("explore_litmus:") or re.match(r".*\.litmus:\d+:", l) or "FAILED" in l]
    return out.returncode, seconds, verdict, counts(out.stdout)


def main():
    args = sys.argv[1:]
    herd, explorer = os.environ.get("HERD7", DEFAULT_HERD), None
    while args and args[0].startswith("--"):
        if args[0] == "--herd" and len(args) > 1:
            herd, args = args[1], args[2:]
        elif args[0] == "--explorer" and len(args) > 1:
            explorer, args = args[1], args[2:]
        else:
            sys.exit(__doc__)
    files = args or sorted(glob.glob(os.path.join(HERE, "tests", "*.litmus")))
    if not os.access(herd, os.X_OK):
        sys.exit(f"compare: no herd7 at {herd}: build it with ../shared/tools/herd7/build.sh, or pass --herd")
    names, waiting = registered()
    agree, explained, unexplained, explorer_bad = 0, [], [], []
    counts_equal, counts_explained = 0, []
    for path in files:
        name = os.path.basename(path)[:-len(".litmus")]
        rc11, c11, reason = stated(path)
        herd_set, herd_counts = herd_states(herd, path)
        missing = [s for s in rc11 if s not in herd_set]
        extra = [s for s in herd_set if s not in rc11]
        if not missing and not extra:
            agree += 1
            line = f"{name}: herd7 agrees ({len(rc11)} stated)"
        else:
            what = "; ".join([f"stated, herd7 does not give: {s}" for s in missing] +
                             [f"herd7 gives, not stated: {s}" for s in extra])
            (explained if reason else unexplained).append(f"{name}: {what}" + (f" (why: {reason})" if reason else ""))
            line = f"{name}: herd7 DIFFERS: {what}" + (f"\n    why: {reason}" if reason else "  UNEXPLAINED")
        if c11:
            # The file's set under C11 proper: RC11's plus its expect-c11 lines,
            # against herd7's c11_orig.cat (Batty et al., POPL 2016: N1570's
            # contiguous release sequences).
            c11_herd, _ = herd_states(herd, path, "c11_orig.cat")
            c11_set = rc11 + c11
            if sorted(c11_herd) == sorted(c11_set):
                line += f"; under C11 (c11_orig.cat) herd7 agrees too ({len(c11_set)} stated)"
            else:
                what = f"C11 set stated {sorted(c11_set)}, c11_orig.cat gives {sorted(c11_herd)}"
                unexplained.append(f"{name}: {what}")
                line += f"; C11 DIFFERS: {what}"
        print(line)
        if explorer:
            rc, seconds, verdict, ours = explorer_check(explorer, path)
            status = "registered" if name in names else f"not registered: {waiting.get(name, 'no reason given')}"
            print(f"    explore_litmus: {'exact' if rc == 0 else 'refused' if rc == 2 else 'differs'} "
                  f"in {seconds:.1f} s; {status}")
            if rc != 2:
                why = counts_reason(path)
                if ours == herd_counts:
                    counts_equal += 1
                    print(f"    executions: {ours}, as herd7's")
                elif why:
                    counts_explained.append(f"{name}: {ours}, herd7 {herd_counts} (why: {why})")
                    print(f"    executions: {ours}, herd7 {herd_counts}\n    why: {why}")
                else:
                    unexplained.append(f"{name}: executions {ours}, herd7 {herd_counts}")
                    print(f"    executions: {ours}, herd7 {herd_counts}  UNEXPLAINED")
            for v in verdict:
                print(f"      {v}")
            if name in names and rc != 0:
                explorer_bad.append(name)
    print(f"\ncompare: {len(files)} files; herd7 rc11.cat agrees with {agree}, "
          f"differs on {len(explained)} (explained) + {len(unexplained)} (unexplained)")
    for d in explained:
        print(f"  explained: {d}")
    if explorer:
        print(f"compare: explore_litmus's counts of executions equal herd7's on {counts_equal} files, "
              f"differ on {len(counts_explained)} (explained)")
        for d in counts_explained:
            print(f"  explained: {d}")
    for d in unexplained:
        print(f"  UNEXPLAINED: {d}")
    listed = [os.path.basename(p)[:-len(".litmus")] for p in files]
    print(f"compare: ctests registered in CMakeLists.txt: {len([n for n in names if n in listed])} of {len(files)}")
    for n in listed:
        if n not in names:
            print(f"  not registered: {n}: {waiting.get(n, 'no reason given in CMakeLists.txt')}")
    if explorer_bad:
        print(f"compare: registered but not exact under the explorer: {', '.join(explorer_bad)}")
    sys.exit(1 if unexplained or explorer_bad else 0)


if __name__ == "__main__":
    main()
