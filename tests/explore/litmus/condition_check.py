#!/usr/bin/env python3
"""condition_check.py EXPLORE_LITMUS FILE.litmus...: condition.py, the
evaluator the Python tools use (the litmus page's shaded states and
answers), judges each file's condition on each state as outcome.c does.

The states: each file's stated ones (`expect`, `expect-c11`) and, while
there are at most MAX_STATES of them, every combination of the values they
give each register and location (so that a forbidden state is judged too).
For each state a probe, a litmus test of its own: threads that only set the
state's registers, its locations initialized to the state's values, and the
file's condition. explore_litmus runs all the probes at once (they have one
final state each, so they take no time); outcome.c's Observation on a probe
is Always when the condition's proposition holds in the state and Never
when it does not, and condition.py must say the same. Exits 1 on a
disagreement. Standard library only.
"""
import argparse
import itertools
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
import condition  # noqa: E402  (the parsers beside this file)
import herd  # noqa: E402
import litmus_file  # noqa: E402

MAX_STATES = 64  # the combinations judged per file
BATCH = 200      # probes per run of explore_litmus (it takes at most 256 files)


def states_of(test):
    """The states to judge the file's condition on, as {key: value} (key `1:r0` or `x`)."""
    stated = [condition.parse_state(s) for s in test.expect + test.expect_c11 if s != herd.RACE]
    keys = sorted({k for s in stated for k in s})
    values = [sorted({s[k] for s in stated if k in s}) for k in keys]
    combinations = 1
    for v in values:
        combinations *= len(v)
    if combinations > MAX_STATES:
        return stated
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)]


def probe(name, test, state):
    """A litmus test whose one final state is `state`, with the file's condition."""
    locations = sorted(k for k in state if ":" not in k)
    params = ", ".join(f"atomic_int* {x}" for x in locations)
    threads = {}
    for key in sorted(k for k in state if ":" in k):
        thread, reg = key.split(":")
        threads.setdefault(int(thread), []).append(f"  int {reg} = {state[key]};")
    body = "".join(f"P{t}({params}) {{\n" + "\n".join(threads.get(t, [])) + "\n}\n\n"
                   for t in range(max(threads, default=0) + 1))
    init = " ".join(f"{x} = {state[x]};" for x in locations)
    quantifier, proposition = test.condition
    return f"C {name}\n{{ {init} }}\n\n{body}{quantifier} ({proposition})\n"


def observations(explorer, probes, scratch):
    """{probe's name: its Observation's kind} from explore_litmus's runs."""
    paths = []
    for name, text in probes.items():
        paths.append(scratch / f"{name}.litmus")
        paths[-1].write_text(text, encoding="utf-8")
    kinds = {}
    for at in range(0, len(paths), BATCH):
        out = subprocess.run([explorer] + [str(p) for p in paths[at:at + BATCH]],
                             capture_output=True, text=True, timeout=600)
        if out.returncode != 0:
            sys.exit(f"condition_check: explore_litmus exited with {out.returncode}:\n{out.stdout}{out.stderr}")
        for block in re.split(r"\n(?=Test )", out.stdout):
            kinds[block.split()[1]] = herd.parse(block).observation[0]
    return kinds


def cases(tests):
    """{probe's name: (file, state)} over every file's states."""
    pairs = [(t, s) for t in tests if t.condition for s in states_of(t)]
    return {f"probe{i}": pair for i, pair in enumerate(pairs)}


def disagreements(cases, kinds):
    """The states where condition.py and outcome.c judge a file's condition differently."""
    bad = []
    for name, (test, state) in cases.items():
        ours = condition.holds(test.condition[1], state)
        theirs = {"Always": True, "Never": False}.get(kinds.get(name))
        if ours != theirs:
            shown = " ".join(f"{k if ':' in k else f'[{k}]'}={v};" for k, v in state.items())
            bad.append(f"{test.name}: {shown} condition.py: {'holds' if ours else 'fails'}, "
                       f"outcome.c's Observation: {kinds.get(name)}")
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("explorer", help="explore_litmus")
    p.add_argument("files", nargs="+", type=Path, help="litmus files")
    args = p.parse_args()
    tests = [litmus_file.read(path) for path in args.files]
    judged = cases(tests)
    with tempfile.TemporaryDirectory() as scratch:
        kinds = observations(args.explorer, {n: probe(n, t, s) for n, (t, s) in judged.items()}, Path(scratch))
    bad = disagreements(judged, kinds)
    for line in bad:
        print(f"DIFFERS: {line}")
    print(f"condition_check: condition.py agrees with outcome.c on {len(judged) - len(bad)} of {len(judged)} states "
          f"of {len(tests)} files")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
