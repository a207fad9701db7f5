#!/usr/bin/env python3
"""graph_check.py EXPLORE_LITMUS TESTS_DIR: the execution graphs draw what
the litmus chapter says they draw (tests/explore/report/graph.c).

Runs explore_litmus --json on a few litmus files and reads each state's
graph as data (graph.c's graph_json: the boxes and edges the .dot and the
SVG draw, as drawings_check.py proves): a mutex's unlock joined to the next lock by a synchronizes-with
edge (Mutex), the modification-order edges that close 2+2W's cycle, fences
as boxes of their own and the fence-to-fence synchronization (MP+fences),
nothing of the harness (no main column, no setup's frees), every box at
body text size and the graph within a page's column, happens-before drawn
where it orders two stores of one location (S+rel+acq); and the forbidden
candidates of explore_litmus --candidates: the cycle RC11 rejects, each
edge named, the axiom under the graph (MP+rel+acq's
coherence, SB+sc's sc, FetchAdd+rlx's atomicity), and LB+rlx's none (its
only candidates break no-thin-air). Standard library only.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

FONT_MIN = 12        # points: 16 px, the pages' body text
WIDTH_MAX = 540 + 72  # points: graph.c's page width, and the "initially" label beside it


def run(exe, test, scratch, *options):
    """explore_litmus's --json result for one test file."""
    out = scratch / (test.stem + ".json")
    subprocess.run([exe, *options, "--json", str(out), str(test)], capture_output=True, text=True, check=True)
    return json.loads(out.read_text())["tests"][0]


def graphs(exe, test, scratch):
    """{final state: its graph, as data} of every state explore_litmus finds."""
    result = run(exe, test, scratch)
    if not result["states"]:
        sys.exit(f"graph_check: {test.name}: explore_litmus found no state")
    return {s["state"]: s["execution"]["graph"] for s in result["states"]}


def candidate(exe, test, scratch):
    """(the forbidden candidate's "why", or "none"; its graph, or None)."""
    f = run(exe, test, scratch, "--candidates")["forbidden"]
    return (f["why"], f["execution"]["graph"]) if f else ("none", None)


def cycle(g):
    """The red cycle's edges, (from, to, name), as graph.c draws a candidate's."""
    return [(e["from"], e["to"], e["relation"]) for e in g["edges"] if e["cycle"]]


def nodes(g):
    """{box id: its text}."""
    return {b["id"]: " ".join(b["text"].split()) for b in g["boxes"]}


def edges(g, relation, style=None):
    """The edges of one relation (po, rf, "rf, sw", sw, mo, fr, hb), (from, to)."""
    return [(e["from"], e["to"]) for e in g["edges"]
            if e["relation"] == relation and not e["cycle"] and (style is None or e["style"] == style)]


def column(g, node):
    """A box's column (None: an initial value's row)."""
    return next(b["column"] for b in g["boxes"] if b["id"] == node)


def check_common(name, state, g, problems):
    where = f"{name} {state}"
    labels = " ".join(nodes(g).values())
    words = set(labels.replace("(", " ").split())
    if {"free", "main", "exec.c"} & words or any(c["thread"] == "main" for c in g["columns"]):
        problems.append(f"{where}: draws the harness (main, its frees or the interpreter's reads)")
    if g["font_size"] < FONT_MIN:
        problems.append(f"{where}: box text under {FONT_MIN} pt")
    xs = [b["x"] for b in g["boxes"]]
    if xs and max(xs) - min(xs) > WIDTH_MAX:
        problems.append(f"{where}: {max(xs) - min(xs):.0f} pt wide, more than a page's column")
    unlabelled = [e for e in g["edges"] if not e["relation"]]
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
        for state, g in states.items():
            check_common(name, state, g, problems)

    # Mutex: the second holder read 1, so P0's unlock synchronized with P1's lock.
    g = got["Mutex"]["1:r0=1;"]
    labels = nodes(g)
    sw = [(a, b) for a, b in edges(g, "sw")
          if labels[a].startswith("unlock") and labels[b].startswith("lock") and column(g, a) != column(g, b)]
    if len(sw) != 1:
        problems.append(f"Mutex 1:r0=1;: {len(sw)} unlock-to-lock synchronizes-with edges, not 1")

    # 2+2W: in [x]=1; [y]=1; each location's modification order runs from
    # the other thread's store of 2 to this thread's store of 1: two mo
    # edges, both across the threads.
    g = got["2+2W+rlx"]["[x]=1; [y]=1;"]
    mo = edges(g, "mo")
    labels = nodes(g)
    if (len(mo) != 2 or any(column(g, a) == column(g, b) for a, b in mo)
            or not all("<- 2" in labels[a] and "<- 1" in labels[b] for a, b in mo)):  # the final value is mo's last
        problems.append(f"2+2W+rlx [x]=1; [y]=1;: modification order {mo}, not two edges across the threads")

    # MP+fences: two fences in every graph; where the reader saw the flag,
    # the release fence synchronizes with the acquire fence.
    for state, g in got["MP+fences"].items():
        fences = [n for n, text in nodes(g).items() if text.startswith("fence")]
        if len(fences) != 2:
            problems.append(f"MP+fences {state}: {len(fences)} fence boxes, not 2")
    g = got["MP+fences"]["1:r0=1; 1:r1=1;"]
    labels = nodes(g)
    if not any(labels[a].startswith("fence") and labels[b].startswith("fence") for a, b in edges(g, "sw")):
        problems.append("MP+fences 1:r0=1; 1:r1=1;: no synchronizes-with edge from fence to fence")

    # SB+rlx, both loads reading 0: each load's fr edge to the other
    # thread's store closes the cycle po; fr; po; fr, and the initial
    # values, read and drawn, are each joined to their store by mo.
    g = got["SB+rlx"]["0:r0=0; 1:r0=0;"]
    labels = nodes(g)
    fr = [(a, b) for a, b in edges(g, "fr") if labels[a].startswith("load") and labels[b].startswith("store")]
    if len(fr) != 2 or any(column(g, a) == column(g, b) for a, b in fr):
        problems.append(f"SB+rlx 0:r0=0; 1:r0=0;: from-read edges {fr}, not two across the threads")
    if len([(a, b) for a, b in edges(g, "mo") if column(g, a) is None]) != 2:
        problems.append("SB+rlx 0:r0=0; 1:r0=0;: not two mo edges from the initial values")

    # MP+rlx, the stale read: the load of x that read 0 has its fr edge to the store of x.
    g = got["MP+rlx"]["1:r0=1; 1:r1=0;"]
    labels = nodes(g)
    if not any(labels[a].startswith("load x") and labels[b].startswith("store x") for a, b in edges(g, "fr")):
        problems.append("MP+rlx 1:r0=1; 1:r1=0;: no from-read edge from the stale load of x to the store of x")

    # S+rel+acq, where P1 read the flag: the store of x <- 2 happens before
    # P1's store of x <- 1 (release, acquire, po), which is why mo orders them so.
    g = got["S+rel+acq"]["1:r0=1; [x]=1;"]
    labels = nodes(g)
    if not any(labels[a].startswith("store x <- 2") and labels[b].startswith("store x <- 1")
               for a, b in edges(g, "hb", "dotted")):
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
            said, g = candidate(args.explore_litmus, args.tests / f"{name}.litmus", scratch)
            if g is None or not said.startswith(f"{axiom}: "):
                problems.append(f"{name}: forbidden candidate {said!r}, not one breaking {axiom}")
                continue
            check_common(name, "(forbidden)", g, problems)
            got_cycle = cycle(g)
            ring = [n for _, _, n in got_cycle]
            closed = all(got_cycle[k][1] == got_cycle[(k + 1) % len(got_cycle)][0] for k in range(len(got_cycle)))
            if not closed or len(ring) != len(names) or not any(ring[k:] + ring[:k] == names for k in range(len(ring))):
                problems.append(f"{name}: the red cycle is {got_cycle}, not a closed {' ; '.join(names)}")
            if not any(n.startswith(f"FORBIDDEN, {axiom}:") for n in g["notes"]):
                problems.append(f"{name}: the axiom ({axiom}) is not named under the graph")
        said, g = candidate(args.explore_litmus, args.tests / "LB+rlx.litmus", scratch)
        if said != "none" or g is not None:
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
