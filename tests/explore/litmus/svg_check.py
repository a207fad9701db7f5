#!/usr/bin/env python3
"""svg_check.py EXPLORE_LITMUS FILE.litmus...: the SVG the explorer draws
itself (--graph g.svg, report/graph_svg.c) shows what its Graphviz file
shows (--graph g.dot), on every graph of every file, the forbidden
candidates' too:

  - the same boxes (an event's id each) with the same text, and the box of
    a lost wake-up's resume that never came;
  - the same edges: the same two boxes, the same relation named
    (po, rf, sw, mo, fr, hb, a cycle's), as many of each;
  - the same legend rows and notes (the forbidden cycle's axiom);
  - and every box, edge end and label inside the SVG's viewBox: nothing
    drawn where the page would cut it off.

The .dot is the reference: graph_check.py checks that it draws what the
litmus chapter says. The browser's playground shows the SVG. Standard
library only.
"""
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from html import unescape
from pathlib import Path

SVG = "{http://www.w3.org/2000/svg}"


def dot_graph(text):
    """(boxes {id: text}, edges Counter of (from, to, relation), legend rows, notes) of a .dot."""
    boxes = {}
    for m in re.finditer(r"^  (e\d+|never) \[.*?label=<(.*)>\];$", text, re.M):
        boxes[m.group(1)] = words(re.sub(r"<[^>]*>", " ", m.group(2)))
    edges = Counter()
    for m in re.finditer(r"^  (e\d+|never) -> (e\d+|never) \[(.*)\];$", text, re.M):
        name = re.search(r'(?:^|, )(?:head)?label="([^"]*)"', m.group(3))
        edges[(m.group(1), m.group(2), name.group(1) if name else "")] += 1
    legend = [words(re.sub(r"<[^>]*>", " ", r)) for r in re.findall(r"<TD ALIGN=\"LEFT\">(.*?)</TD>", text)]
    notes = [words(re.sub(r"<[^>]*>", " ", m)) for m in re.findall(r"^  (?:failure|cycle) \[shape=note.*?label=<(.*)>\];$",
                                                                     text, re.M)]
    return boxes, edges, legend, notes


def words(s):
    return " ".join(unescape(s).split())


def text_of(el):
    return words(" ".join(t for t in el.itertext()))


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
            path = g.find(SVG + "path")
            nums = [float(n) for n in re.findall(r"-?[\d.]+", path.get("d"))]
            inside(nums[0], nums[1], f"edge {g.get('data-from')}->{g.get('data-to')}")
            inside(nums[-2], nums[-1], f"edge {g.get('data-from')}->{g.get('data-to')}")
        elif "note" in cls:
            notes.append(text_of(g))
    for t in root.findall(SVG + "text"):
        if t.find(SVG + "tspan") is not None:  # a legend row: its mark, then what it is
            legend.append(text_of(t))
        inside(float(t.get("x")), float(t.get("y")), f"the text \"{text_of(t)}\"")
    return (boxes, edges, legend, notes), problems


def compare(name, dot_text, svg_text):
    want = dot_graph(dot_text)
    try:
        got, problems = svg_graph(svg_text)
    except (ET.ParseError, AttributeError, ValueError) as e:
        return [f"{name}: the SVG does not parse: {e}"]
    what = ("boxes", "edges", "legend rows", "notes")
    for k in range(4):
        if want[k] != got[k]:
            if k == 1:
                diff = f"only in the .dot: {dict(want[1] - got[1])}; only in the SVG: {dict(got[1] - want[1])}"
            else:
                diff = f".dot: {want[k]}\n    SVG: {got[k]}"
            problems.append(f"its {what[k]} differ from the .dot's: {diff}")
    if not want[0]:
        problems.append("the .dot has no box (the check would compare nothing)")
    return [f"{name}: {p}" for p in problems]


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.split("\n\n")[0])
    exe, files = argv[1], [Path(p) for p in argv[2:]]
    problems, graphs = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for f in files:
            for ext in ("dot", "svg"):
                subprocess.run([exe, "--candidates", "--graph", str(scratch / f"{f.stem}.{ext}"), str(f)],
                               capture_output=True, text=True, check=True)
            dots = sorted(scratch.glob(f"{glob_escape(f.stem)}.*.dot"))
            if not dots:
                problems.append(f"{f.name}: explore_litmus --graph wrote no graph")
            for dot in dots:
                svg = dot.with_suffix(".svg")
                if not svg.is_file():
                    problems.append(f"{f.name}: {dot.name} has no {svg.name} beside it")
                    continue
                graphs += 1
                problems += compare(f"{f.name} {dot.stem[len(f.stem) + 1:]}", dot.read_text(), svg.read_text())
    for p in problems:
        print(f"svg_check: {p}")
    print(f"svg_check: {graphs} graphs of {len(files)} files: the SVG draws {'what' if not problems else 'NOT what'} "
          f"the .dot draws")
    sys.exit(1 if problems else 0)


def glob_escape(s):
    return re.sub(r"([*?\[])", r"[\1]", s)


if __name__ == "__main__":
    main(sys.argv)
