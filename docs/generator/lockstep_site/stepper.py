"""A trace stepper: an execution graph and the trace of the run that drew
it, which a reader steps through row by row (docs/stepper.js), the graph's
box of the current row's event lit.

The graph is Graphviz's SVG of the explorer's DOT, shown as an <img>
(it scales to its column; a tap opens it at full size), so a script cannot
reach into it from file://. Instead the page carries, over the image, one
mark per event box: an absolutely placed <span>, its left, top, width and
height in % of the SVG's viewBox, read here from the SVG at build time
(tests/explore/report/graph.c gives each event's box the class line-N, N
its trace line). The marks scale with the image, with no script; they are
`hidden` until the script shows the current row's. Without script, and
printed, the page reads as it did: a figure and a trace table, nothing
hidden, no controls (the script adds them).

The API (the walkthroughs' graph markers use it through walkthrough.py; the
litmus chapter calls it straight):

    block(svg, href, alt, trace, ident, caption="", phone=None, command=None, script="stepper.js")
        The figure and its trace, as HTML (figure() then table_html()).
    figure(svg, href, alt, ident, caption="", phone=None)
        The figure alone: the image (linked to itself at full size), its
        marks, its caption.
    table_html(trace, ident, command=None)   (lockstep_site/traces.py)
        The trace alone, as a table whose rows carry their line numbers.
    from_json(data, text="")                 (lockstep_site/traces.py)
        The explorer's trace from its --json as a Trace: the lines before
        its table (from TEXT, its printed output), its threads, its rows
        (line number, thread, text), the lines after.
    event_boxes(svg)
        {trace line: [Box]} of an SVG drawn from graph.c's DOT.

The figure and the trace are tied by IDENT (data-stepper="IDENT", unique in
its page): a page may show them apart (a walkthrough's trace, then prose,
then its graph), and steps both from either. PHONE, (svg, href, media): the
same graph laid out for a phone (the explorer's --graph-width), shown through
<picture> when MEDIA matches (media_query() gives the query), with marks of
its own; the script lights the marks of the image the browser chose.
"""
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from lockstep_site.traces import esc, from_json, table_html  # noqa: F401 (from_json: the API's)

SVG_NS = "{http://www.w3.org/2000/svg}"

# The smallest text a reader should have to read, in CSS px (the issue's
# 11 px): a figure whose smallest text would be smaller at some width shows
# its phone layout there (media_query).
LEAST_TEXT_PX = 11.0
# The page's margins either side of the column (docs/lockstep.css): 32 px on
# a phone, 38 px above 700 px; the larger, to be safe.
PAGE_MARGINS_PX = 38


# ---- the SVG ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Box:
    """A box in % of an SVG's viewBox (left, top, width, height)."""
    left: float
    top: float
    width: float
    height: float

    def style(self):
        # (&#59;, not ;, between the declarations: Doxygen may read a ; as Markdown, traces.TRACE_TEXT)
        return "&#59;".join(f"{k}:{v:.3f}%" for k, v in
                            (("left", self.left), ("top", self.top), ("width", self.width), ("height", self.height)))


def _floats(text):
    """The numbers of an SVG attribute as Graphviz writes them (a viewBox,
    a polygon's points, a path's absolute M and C commands): separated by
    blanks, commas or a command letter, never run together by their signs."""
    return [float(x) for x in "".join(c if c in "0123456789.-+eE" else " " for c in text).split()]


def _transform(text):
    """Graphviz's `scale(S S) rotate(0) translate(X Y)` as (sx, sy, tx, ty):
    a point (x, y) of the graph is (sx*(x+tx), sy*(y+ty)) in the viewBox."""
    sx = sy = 1.0
    tx = ty = 0.0
    for part in (text or "").split(")"):
        name, _, args = part.partition("(")
        name, v = name.strip(), _floats(args)
        if name == "scale" and v:
            sx, sy = v[0], v[1] if len(v) > 1 else v[0]
        elif name == "translate" and v:
            tx, ty = v[0], v[1] if len(v) > 1 else 0.0
        elif name == "rotate" and v and v[0] % 360:
            raise ValueError(f"a rotated graph (rotate({args})): its boxes cannot be marked")
    return sx, sy, tx, ty


def trace_lines(classes):
    """The trace lines a node's classes name (line-N: graph.c's)."""
    return [int(c[5:]) for c in classes if c.startswith("line-") and c[5:].isascii() and c[5:].isdigit()]


def _outline(node):
    """The bounding box (x0, y0, x1, y1) of a node's drawn shapes, in the
    graph's coordinates (its text left out: it lies inside)."""
    xs, ys = [], []
    for el in node.iter():
        tag = el.tag.replace(SVG_NS, "")
        if tag in ("polygon", "polyline"):
            v = _floats(el.get("points", ""))
        elif tag == "path":  # Graphviz writes absolute M and C commands only
            v = _floats(el.get("d", ""))
        elif tag == "ellipse":
            cx, cy, rx, ry = (float(el.get(a, 0)) for a in ("cx", "cy", "rx", "ry"))
            v = [cx - rx, cy - ry, cx + rx, cy + ry]
        else:
            continue
        xs += v[0::2]
        ys += v[1::2]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def event_boxes(svg):
    """{trace line: [Box, ...]} of the SVG file SVG: each node whose class
    names a trace line (line-N), its outline in % of the viewBox."""
    root = ET.parse(svg).getroot()
    vb = _floats(root.get("viewBox", ""))
    if len(vb) != 4 or not vb[2] or not vb[3]:
        raise ValueError(f"{svg}: no viewBox")
    graph = next((g for g in root.iter(SVG_NS + "g") if "graph" in (g.get("class") or "").split()), root)
    sx, sy, tx, ty = _transform(graph.get("transform"))
    found = {}
    for g in graph.iter(SVG_NS + "g"):
        classes = (g.get("class") or "").split()
        lines = trace_lines(classes)
        box = _outline(g) if "node" in classes and lines else None
        if not box:
            continue
        x0, y0 = sx * (box[0] + tx) - vb[0], sy * (box[1] + ty) - vb[1]
        x1, y1 = sx * (box[2] + tx) - vb[0], sy * (box[3] + ty) - vb[1]
        mark = Box(100 * min(x0, x1) / vb[2], 100 * min(y0, y1) / vb[3],
                   100 * abs(x1 - x0) / vb[2], 100 * abs(y1 - y0) / vb[3])
        for n in lines:
            found.setdefault(n, []).append(mark)
    return found


def natural_size(svg):
    """(width, height) of an SVG in its own units (Graphviz's points)."""
    vb = _floats(ET.parse(svg).getroot().get("viewBox", ""))
    return (vb[2], vb[3]) if len(vb) == 4 else (0.0, 0.0)


def least_text(svg):
    """The smallest font-size of the SVG's text, in its own units (points)."""
    sizes = [float(t.get("font-size")) for t in ET.parse(svg).getroot().iter(SVG_NS + "text") if t.get("font-size")]
    return min(sizes) if sizes else 0.0


def media_query(svg):
    """The media query under which SVG, scaled to the column, would show
    its smallest text under LEAST_TEXT_PX: the screens its phone layout is
    for. (At its natural size, 1 pt = 4/3 px; scaled to a column of c px, a
    font of f pt is f * c / width px.)"""
    width, _ = natural_size(svg)
    least = least_text(svg)
    if not width or not least or least * 4 / 3 < LEAST_TEXT_PX:
        return "screen"  # (its text is too small even at its own size: the phone layout on every screen)
    column = LEAST_TEXT_PX * width / least
    if column >= width * 4 / 3:
        return None  # (never scaled below its natural size enough to matter)
    # (screen: printed, a page shows the wide layout, as it always did)
    return f"screen and (max-width: {math.ceil(column) + PAGE_MARGINS_PX - 1}px)"


# ---- the figure ---------------------------------------------------------------------------------

def marks(svg, href):
    """The marks over the image HREF (drawn from SVG): one per event box,
    hidden until the script shows it."""
    spans = "".join(f'<span class="stepper-mark" data-line="{line}" hidden style="{b.style()}"></span>'
                    for line, boxes in sorted(event_boxes(svg).items()) for b in boxes)
    return f'<span class="stepper-marks" data-for="{esc(href)}">{spans}</span>'


def picture(href, alt, phone=None):
    """The image HREF, linked to itself at full size; with PHONE, (href,
    media), the phone's layout chosen by the browser under MEDIA."""
    source = f'<source media="{esc(phone[1])}" srcset="{esc(phone[0])}">' if phone and phone[1] else ""
    img = f'<img src="{esc(href)}" alt="{esc(alt)}">'
    return f'<a href="{esc(href)}">' + (f"<picture>{source}{img}</picture>" if source else img) + "</a>"


def figure(svg, href, alt, ident, caption="", phone=None):
    """The graph: the image (its phone layout beside it when PHONE is
    (svg, href, media)), its marks, CAPTION (HTML) under it."""
    layers = marks(svg, href) + (marks(phone[0], phone[1]) if phone and phone[2] else "")
    pic = picture(href, alt, (phone[1], phone[2]) if phone else None)
    under = f'<div class="caption">{caption}</div>' if caption else ""
    return (f'<div class="dotgraph" data-stepper="{esc(ident)}"><div class="dotframe">{pic}{layers}</div>'
            f"{under}</div>")


def script_tag(src="stepper.js"):
    """The script the steppers need, once per page (a second is harmless:
    the script starts once)."""
    return f'<script src="{esc(src)}" defer></script>'


def block(svg, href, alt, trace, ident, caption="", phone=None, command=None, script="stepper.js"):
    """A graph with its trace, for a page: the figure (figure()), then the
    trace (table_html()), tied by IDENT, and the script (SCRIPT, its URL
    from the page; None if the page loads it otherwise).

      svg      the SVG file (Path or str) the image shows, read for its event boxes
      href     the image's URL from the page (its src and its full-size link)
      alt      its alt text
      trace    the run's trace, a Trace (from_json() of the explorer's --json)
      ident    the stepper's name, unique in its page
      caption  HTML under the image, or ""
      phone    (svg, href, media): the graph laid out for a phone
               (--graph-width), shown under MEDIA (media_query(svg) of the
               wide one), or None
      command  the command line shown above the trace, or None
    """
    return (figure(Path(svg), href, alt, ident, caption, phone) + "\n" + table_html(trace, ident, command) +
            (script_tag(script) if script else ""))
