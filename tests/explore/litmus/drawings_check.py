#!/usr/bin/env python3
"""drawings_check.py EXPLORE_LITMUS DOT FILE.litmus...: the two drawings of
each execution graph show what the explorer decided to draw. For every
state of every file, and every forbidden candidate, explore_litmus --json
gives the graph as data (its boxes, edges, notes and legend: graph.c's
graph_json); then

  - the Graphviz file (--graph g.dot, the pages' graphs), read back by
    Graphviz itself (DOT -Tjson0: its own parser, no pattern of ours), and
  - the SVG the explorer draws itself (--graph g.svg, the playground's
    graphs, report/graph_svg.c), read as XML,

must each have the same boxes with the same text, the same edges (the
same two boxes, the same relation named, as many of each), the same notes
and legend rows; and every box, edge end and text of the SVG lies inside
its viewBox (nothing drawn where a page cuts it off). DOT missing (no
Graphviz): the .dot side is skipped, said so. Standard library only.
"""
import json
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

SVG = "{http://www.w3.org/2000/svg}"


def words(s):
    return " ".join((s or "").split())


def data_graph(graph):
    """(boxes {id: text}, edges Counter of (from, to, relation), legend, notes) of a --json graph."""
    boxes = {b["id"]: words(b["text"] + " " + (b.get("where") or "")) for b in graph["boxes"]}
    edges = Counter((e["from"], e["to"], e["relation"] or "") for e in graph["edges"])
    return boxes, edges, [words(t) for t in graph["legend"]], [words(t) for t in graph["notes"]]


class HtmlText(HTMLParser):
    """A Graphviz HTML-like label's text: its character data, a <BR/> a space."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "tr"):
            self.parts.append(" ")

    handle_startendtag = handle_starttag


def html_text(label):
    p = HtmlText()
    p.feed(label)
    p.close()
    return words("".join(p.parts))


def read_dots(dot, paths):
    """{path: Graphviz's JSON of it} for .dot files, read by one Graphviz
    process (which writes one JSON document after another)."""
    run = subprocess.run([dot, "-Tjson0"] + [str(p) for p in paths], capture_output=True, text=True)
    if run.returncode != 0:
        raise ValueError(f"Graphviz cannot read them: {run.stderr.strip()}")
    docs, at, decoder = [], 0, json.JSONDecoder()
    while run.stdout[at:].strip():
        at += len(run.stdout[at:]) - len(run.stdout[at:].lstrip())
        doc, at = decoder.raw_decode(run.stdout, at)
        docs.append(doc)
    if len(docs) != len(paths):
        raise ValueError(f"Graphviz read {len(docs)} graphs of {len(paths)} files")
    return dict(zip(paths, docs))


def dot_graph(g):
    """The same of a .dot, as Graphviz read it (read_dots)."""
    objects = g.get("objects", [])
    names = [o["name"] for o in objects]
    boxes = {o["name"]: html_text(o.get("label", "")) for o in objects
             if o["name"].startswith("e") and o["name"][1:].isdigit() or o["name"] == "never"}
    edges = Counter((names[e["tail"]], names[e["head"]], e.get("label") or e.get("headlabel") or "")
                    for e in g.get("edges", []))
    legend = next((html_text(o["label"]) for o in objects if o["name"] == "legend"), "")
    notes = [html_text(o["label"]) for o in objects if o["name"] in ("failure", "cycle")]
    return boxes, edges, legend, notes


def text_of(el):
    return words(" ".join(el.itertext()))


def numbers(path_d):
    """The numbers of an SVG path's data ("M1,2 Q3,4 5,6"): its commands dropped."""
    out = []
    for token in path_d.replace(",", " ").split():
        token = token.lstrip("MLQCHVZ")
        if token:
            out.append(float(token))
    return out


def svg_graph(text):
    """The same of an SVG, and the problems of its extent."""
    root = ET.fromstring(text)
    x, y, w, h = (float(v) for v in root.get("viewBox").split())
    problems = []

    def inside(px, py, what):
        if not (x - 0.5 <= px <= x + w + 0.5 and y - 0.5 <= py <= y + h + 0.5):
            problems.append(f"{what} at ({px:.1f}, {py:.1f}) outside the viewBox {x} {y} {w} {h}")

    boxes, edges, legend, notes = {}, Counter(), [], []
    for g in root.iter(SVG + "g"):
        cls = (g.get("class") or "").split()
        if "node" in cls:
            boxes[g.get("id")] = text_of(g)
            r = g.find(SVG + "rect")
            rx, ry, rw, rh = (float(r.get(k)) for k in ("x", "y", "width", "height"))
            inside(rx, ry, f"box {g.get('id')}")
            inside(rx + rw, ry + rh, f"box {g.get('id')}")
        elif "edge" in cls:
            edges[(g.get("data-from"), g.get("data-to"), g.get("data-label"))] += 1
            d = numbers(g.find(SVG + "path").get("d"))
            inside(d[0], d[1], f"edge {g.get('data-from')}->{g.get('data-to')}")
            inside(d[-2], d[-1], f"edge {g.get('data-from')}->{g.get('data-to')}")
        elif "note" in cls:
            notes.append(text_of(g))
    for t in root.findall(SVG + "text"):
        if t.find(SVG + "tspan") is not None:  # a legend row: its mark, then what it is
            legend.append(words(t.find(SVG + "tspan").tail))
        inside(float(t.get("x")), float(t.get("y")), f"the text \"{text_of(t)}\"")
    return (boxes, edges, legend, notes), problems


WHAT = ("boxes", "edges", "legend rows", "notes")


def differences(want, got, drawing):
    out = []
    for k in range(4):
        if want[k] == got[k]:
            continue
        if k == 1:
            diff = f"only in the data: {dict(want[1] - got[1])}; only in the {drawing}: {dict(got[1] - want[1])}"
        else:
            diff = f"data: {want[k]}\n    {drawing}: {got[k]}"
        out.append(f"its {drawing}'s {WHAT[k]} differ from the data's: {diff}")
    return out


def executions(result):
    """(name, the execution's graph data, its graph file) of every state and the forbidden candidate."""
    for t in result["tests"]:
        for s in t["states"]:
            yield f"{t['test']} {s['state']}", s["execution"]["graph"], s["graph"]
        f = t.get("forbidden")
        if f:
            yield f"{t['test']} (forbidden) {f['state']}", f["execution"]["graph"], f["graph"]


def check_file(exe, dot, f, scratch):
    """[problems], graphs compared: f's graphs as data, as .dot and as SVG."""
    runs = {}
    for ext in ("dot", "svg"):
        out = scratch / f"{f.stem}.{ext}.json"
        subprocess.run([exe, "--candidates", "--json", str(out), "--graph", str(scratch / f"{f.stem}.{ext}"), str(f)],
                       capture_output=True, text=True, check=True)
        runs[ext] = json.loads(out.read_text())
    problems, count = [], 0
    dots = {}
    if dot:
        try:
            dots = read_dots(dot, [g for _, _, g in executions(runs["dot"])])
        except (OSError, ValueError) as e:
            problems.append(f"{f.name}: {e}")
    for (name, graph, dot_file), (_, _, svg_file) in zip(executions(runs["dot"]), executions(runs["svg"])):
        count += 1
        want = data_graph(graph)
        if not want[0]:
            problems.append(f"{name}: the data has no box (the check would compare nothing)")
        try:
            got, extent = svg_graph(Path(svg_file).read_text())
            problems += [f"{name}: {p}" for p in differences(want, got, "SVG") + extent]
        except (OSError, ET.ParseError, AttributeError, ValueError) as e:
            problems.append(f"{name}: the SVG {svg_file}: {e}")
        if dot_file in dots:
            got = dot_graph(dots[dot_file])
            # (the .dot's legend is one table: its rows' text, joined)
            got = (got[0], got[1], [r for r in want[2] if r in got[2]] if got[2] else [], got[3])
            problems += [f"{name}: {p}" for p in differences(want, got, ".dot")]
        elif dot:
            problems.append(f"{name}: Graphviz did not read its .dot {dot_file}")
    return problems, count


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__.split("\n\n")[0])
    exe, dot, files = argv[1], shutil.which(argv[2]), [Path(p) for p in argv[3:]]
    if not dot:
        print(f"drawings_check: no Graphviz ({argv[2]}): the .dot files are not compared (apt install graphviz)")
    problems, graphs = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            p, n = check_file(exe, dot, f, Path(tmp))
            problems += p
            graphs += n
    for p in problems:
        print(f"drawings_check: {p}")
    drawings = "the SVG and the .dot" if dot else "the SVG"
    print(f"drawings_check: {graphs} graphs of {len(files)} files: {drawings} "
          f"{'show' if not problems else 'do NOT show'} what the explorer decided to draw")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main(sys.argv)
