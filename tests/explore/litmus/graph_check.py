#!/usr/bin/env python3
"""graph_check.py EXPLORE_LITMUS TESTS_DIR: the execution graphs draw what
the litmus chapter says they draw (tests/explore/report/graph.c).

Runs explore_litmus --graph on a few litmus files and reads the Graphviz it
writes: a mutex's unlock joined to the next lock by a synchronizes-with
edge (Mutex), the modification-order edges that close 2+2W's cycle, fences
as boxes of their own and the fence-to-fence synchronization (MP+fences),
nothing of the harness (no main column, no setup's frees), every box at
body text size and the graph within a page's column, happens-before drawn
where it orders two stores of one location (S+rel+acq); and the forbidden
candidates of explore_litmus --candidates: the cycle RC11 rejects, thick
and red, each edge named, the axiom under the graph (MP+rel+acq's
coherence, SB+sc's sc, FetchAdd+rlx's atomicity), and LB+rlx's none (its
only candidates break no-thin-air). Standard library only.
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing written into the source tree
import herd  # noqa: E402  (herd7's output, which explore_litmus prints)

FONT_MIN = 12        # points: 16 px, the pages' body text
WIDTH_MAX = 540 + 72  # points: graph.c's page width, and the "initially" label beside it


def graphs(exe, test, scratch):
    """{final state: the dot text} of every state explore_litmus finds."""
    base = scratch / (test.stem + ".dot")
    out = subprocess.run([exe, "--graph", str(base), str(test)], capture_output=True, text=True, check=True).stdout
    result = herd.parse(out)
    if result is None or not result.graphs:
        sys.exit(f"graph_check: {test.name}: explore_litmus wrote no graph:\n{out}")
    return {state: pathlib.Path(path).read_text() for state, path in result.graphs.items()}


def candidate(exe, test, scratch):
    """(the Forbidden line's words after the test's name, the forbidden candidate's dot text or None)."""
    base = scratch / (test.stem + ".c.dot")
    out = subprocess.run([exe, "--candidates", "--graph", str(base), str(test)], capture_output=True, text=True,
                         check=True).stdout
    line = next((l for l in out.splitlines() if l.startswith("Forbidden ")), "")
    words = line.split(" ", 2)
    path = scratch / (test.stem + ".c.forbidden.dot")
    return (words[2] if len(words) == 3 else "(no Forbidden line)"), (path.read_text() if path.is_file() else None)


def cycle(dot):
    """The red cycle's edges, (from, to, name), as graph.c draws a candidate's."""
    return re.findall(r'^  (e\d+) -> (e\d+) \[color=red, penwidth=3.5, headlabel="([\w-]+)"', dot, re.M)


def nodes(dot):
    """{node id: its label's text}, HTML tags removed."""
    out = {}
    for m in re.finditer(r"^  (e\d+) \[.*?label=<(.*)>\];$", dot, re.M):
        out[m.group(1)] = re.sub(r"<[^>]*>", " ", m.group(2)).replace("&lt;", "<").replace("&gt;", ">")
    return out


def edges(dot, color):
    return re.findall(r"^  (e\d+) -> (e\d+) \[color=" + color + r"\b", dot, re.M)


def column(dot, node):
    """A box's x, from its pinned position: its column."""
    return re.search(r"^  " + node + r' \[pos="([-\d.]+),', dot, re.M).group(1)


def check_common(name, state, dot, problems):
    where = f"{name} {state}"
    labels = " ".join(nodes(dot).values())
    if re.search(r"\bfree\b|\bmain\b|exec\.c", labels) or 'label="main' in dot:
        problems.append(f"{where}: draws the harness (main, its frees or the interpreter's reads)")
    size = re.search(r"fontsize=([\d.]+)", dot)
    if not size or float(size.group(1)) < FONT_MIN:
        problems.append(f"{where}: box text under {FONT_MIN} pt")
    xs = [float(x) * 72 for x in re.findall(r'pos="([-\d.]+),', dot)]
    if xs and max(xs) - min(xs) > WIDTH_MAX:
        problems.append(f"{where}: {max(xs) - min(xs):.0f} pt wide, more than a page's column")
    unlabelled = [m.group(0) for m in re.finditer(r"^  e\d+ -> e\d+ \[.*\];$", dot, re.M) if "label=" not in m.group(0)]
    if unlabelled:
        problems.append(f"{where}: {len(unlabelled)} edges without a label, e.g. {unlabelled[0]}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("explore_litmus")
    ap.add_argument("tests", type=pathlib.Path)
    args = ap.parse_args(argv[1:])
    problems = []
    with tempfile.TemporaryDirectory() as d:
        scratch = pathlib.Path(d)
        got = {name: graphs(args.explore_litmus, args.tests / f"{name}.litmus", scratch)
               for name in ("Mutex", "2+2W+rlx", "MP+fences", "MP+na+rel+acq", "SB+rlx", "MP+rlx", "S+rel+acq")}
    for name, states in got.items():
        for state, dot in states.items():
            check_common(name, state, dot, problems)

    # Mutex: the second holder read 1, so P0's unlock synchronized with P1's lock.
    dot = got["Mutex"]["1:r0=1;"]
    labels = nodes(dot)
    sw = [(a, b) for a, b in edges(dot, "darkgreen")
          if labels[a].startswith("unlock") and labels[b].startswith("lock") and column(dot, a) != column(dot, b)]
    if len(sw) != 1:
        problems.append(f"Mutex 1:r0=1;: {len(sw)} unlock-to-lock synchronizes-with edges, not 1")

    # 2+2W: in [x]=1; [y]=1; each location's modification order runs from
    # the other thread's store of 2 to this thread's store of 1: two mo
    # edges, both across the threads.
    dot = got["2+2W+rlx"]["[x]=1; [y]=1;"]
    mo = edges(dot, "blue")
    labels = nodes(dot)
    if (len(mo) != 2 or any(column(dot, a) == column(dot, b) for a, b in mo)
            or not all("<- 2" in labels[a] and "<- 1" in labels[b] for a, b in mo)):  # the final value is mo's last
        problems.append(f"2+2W+rlx [x]=1; [y]=1;: modification order {mo}, not two edges across the threads")

    # MP+fences: two fences in every graph; where the reader saw the flag,
    # the release fence synchronizes with the acquire fence.
    for state, dot in got["MP+fences"].items():
        fences = [n for n, text in nodes(dot).items() if text.startswith("fence")]
        if len(fences) != 2:
            problems.append(f"MP+fences {state}: {len(fences)} fence boxes, not 2")
    dot = got["MP+fences"]["1:r0=1; 1:r1=1;"]
    labels = nodes(dot)
    if not any(labels[a].startswith("fence") and labels[b].startswith("fence") for a, b in edges(dot, "darkgreen")):
        problems.append("MP+fences 1:r0=1; 1:r1=1;: no synchronizes-with edge from fence to fence")

    # SB+rlx, both loads reading 0: each load's fr edge to the other
    # thread's store closes the cycle po; fr; po; fr, and the initial
    # values, read and drawn, are each joined to their store by mo.
    dot = got["SB+rlx"]["0:r0=0; 1:r0=0;"]
    labels = nodes(dot)
    fr = [(a, b) for a, b in edges(dot, "sienna") if labels[a].startswith("load") and labels[b].startswith("store")]
    if len(fr) != 2 or any(column(dot, a) == column(dot, b) for a, b in fr):
        problems.append(f"SB+rlx 0:r0=0; 1:r0=0;: from-read edges {fr}, not two across the threads")
    if len([(a, b) for a, b in edges(dot, "blue") if labels[a].split()[1:2] == ["="]]) != 2:
        problems.append("SB+rlx 0:r0=0; 1:r0=0;: not two mo edges from the initial values")

    # MP+rlx, the stale read: the load of x that read 0 has its fr edge to the store of x.
    dot = got["MP+rlx"]["1:r0=1; 1:r1=0;"]
    labels = nodes(dot)
    if not any(labels[a].startswith("load x") and labels[b].startswith("store x") for a, b in edges(dot, "sienna")):
        problems.append("MP+rlx 1:r0=1; 1:r1=0;: no from-read edge from the stale load of x to the store of x")

    # S+rel+acq, where P1 read the flag: the store of x <- 2 happens before
    # P1's store of x <- 1 (release, acquire, po), which is why mo orders them so.
    dot = got["S+rel+acq"]["1:r0=1; [x]=1;"]
    labels = nodes(dot)
    if not any(labels[a].startswith("store x <- 2") and labels[b].startswith("store x <- 1")
               for a, b in edges(dot, "darkgreen, style=dotted")):
        problems.append("S+rel+acq 1:r0=1; [x]=1;: no hb edge from the store of 2 to the store of 1")

    # The forbidden candidates: the cycle of each, and the axiom it breaks.
    with tempfile.TemporaryDirectory() as d:
        scratch = pathlib.Path(d)
        wanted = {  # test: (the axiom, the cycle's edges by name, in a cycle's order from some edge)
            "MP+rel+acq": ("coherence", ["hb", "fr"]),
            "SB+sc": ("sc", ["po", "fr", "po", "fr"]),
            "FetchAdd+rlx": ("atomicity", ["fr", "mo"]),
        }
        for name, (axiom, names) in wanted.items():
            said, dot = candidate(args.explore_litmus, args.tests / f"{name}.litmus", scratch)
            if dot is None or f"| {axiom}: " not in said:
                problems.append(f"{name}: forbidden candidate {said!r}, not one breaking {axiom}")
                continue
            check_common(name, "(forbidden)", dot, problems)
            got_cycle = cycle(dot)
            ring = [n for _, _, n in got_cycle]
            closed = all(got_cycle[k][1] == got_cycle[(k + 1) % len(got_cycle)][0] for k in range(len(got_cycle)))
            if not closed or len(ring) != len(names) or not any(ring[k:] + ring[:k] == names for k in range(len(ring))):
                problems.append(f"{name}: the red cycle is {got_cycle}, not a closed {' ; '.join(names)}")
            if f"FORBIDDEN, {axiom}:" not in dot:
                problems.append(f"{name}: the axiom ({axiom}) is not named under the graph")
        said, dot = candidate(args.explore_litmus, args.tests / "LB+rlx.litmus", scratch)
        if said != "none" or dot is not None:
            problems.append(f"LB+rlx: forbidden candidate {said!r}: its only candidates have sb ∪ rf cyclic")

    # MP+na+rel+acq: the outcome the chapter draws has its graph.
    if "1:r0=1; 1:r1=1;" not in got["MP+na+rel+acq"]:
        problems.append("MP+na+rel+acq: no graph of 1:r0=1; 1:r1=1;")

    for p in problems:
        print("graph_check:", p)
    if problems:
        sys.exit(1)
    print(f"graph_check: {sum(len(s) for s in got.values())} graphs of {len(got)} tests draw what the chapter says")


if __name__ == "__main__":
    main(sys.argv)
