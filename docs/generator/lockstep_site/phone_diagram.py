"""A step's state diagram (docs/diagrams/NN-name.dot) laid out for a phone.

Drawn for a wide column, a diagram scaled to a phone's (358 px at 390)
shows its text at 5-7 px. Rewrapping its labels does not save it: three
states side by side, each with its edge's label, stay wider than a phone.
So the phone's layout is a diagram of its own, made from the same .dot
(nothing to keep in step by hand):

  - every text is FONT points, and each state's label wraps at a width
    chosen so that the whole diagram fits PHONE_WIDTH points (the
    narrowest of WRAPS that does, at worst the narrowest): scaled to the
    column, its text stays at 11 px or more;
  - an edge's label becomes its number, and the edges are listed under
    the diagram in that order, "1. running -> awaiting: client_await_suspend:
    exchange(handle) took out NULL: suspend", at the page's body size
    (key_html);
  - a line `//phone: STATEMENT` of the .dot, a comment for the wide
    layout, is STATEMENT in the phone's (an invisible edge that stacks two
    clusters, a rank): for a diagram the rules above lay out badly.

The .dot files are hand-written one statement a line (`a -> b [...];`,
`a [...];`, a cluster's `label="..."; ...;`), which is all this reads.
"""
import re
import textwrap

from lockstep_site.traces import esc

FONT = 11            # points: every text of the phone's layout (14.7 px; 11 px at 75%)
PHONE_WIDTH = 350    # points: the widest phone layout (467 px: at 75%, 350 px, within 390 px's 358 px column)
WRAPS = (24, 22, 20, 18, 16, 14, 12)  # characters: a state's label lines, widest first

LABEL = re.compile(r'label="((?:[^"\\]|\\.)*)"')
EDGE = re.compile(r"^\s*(\w+)\s*->\s*(\w+)\s*\[")
NODE = re.compile(r"^\s*(\w+)\s*\[")


def lines_of(label):
    """A DOT label's lines, its escapes read (\\n, \\", \\\\)."""
    text = re.sub(r"\\(.)", lambda m: {"n": "\n", "l": "\n", "r": "\n"}.get(m.group(1), m.group(1)), label)
    return text.split("\n")


def dot_label(lines):
    return "\\n".join(line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)


def wrapped(label, width):
    """LABEL (DOT's text) with each line wrapped at WIDTH characters, at spaces only."""
    out = []
    for line in lines_of(label):
        out += textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False) or [""]
    return dot_label(out)


def names(dot):
    """{node: its name, the first line of its label} of a .dot's text."""
    found = {}
    for line in dot.split("\n"):
        n, lab = NODE.match(line), LABEL.search(line)
        if n and lab and not EDGE.match(line) and n.group(1) not in ("node", "edge", "graph"):
            found[n.group(1)] = lines_of(lab.group(1))[0]
    return found


def edges(dot):
    """[(from, to, its label's lines)] of a .dot's labelled edges, in order."""
    found = []
    for line in dot.split("\n"):
        e, lab = EDGE.match(line), LABEL.search(line)
        if e and lab:
            found.append((e.group(1), e.group(2), lines_of(lab.group(1))))
    return found


def phone_dot(dot, wrap):
    """The phone's layout of the .dot text DOT, its states' labels wrapped at WRAP."""
    out, k = [], 0
    for line in re.sub(r"(?m)^(\s*)//phone: ?", r"\1", dot).split("\n"):
        line = re.sub(r"fontsize=[0-9.]+", f"fontsize={FONT}", line)
        if EDGE.match(line) and LABEL.search(line):
            k += 1
            line = LABEL.sub(f'xlabel="{k}"', line, count=1)
        else:
            line = LABEL.sub(lambda m: f'label="{wrapped(m.group(1), wrap)}"', line)
        out.append(line)
    return "\n".join(out)


def fitted(dot, width_of):
    """The phone's layout of DOT: the widest wrap (WRAPS) whose drawing
    WIDTH_OF(text) says is at most PHONE_WIDTH points, else the narrowest."""
    for wrap in WRAPS:
        text = phone_dot(dot, wrap)
        if width_of(text) <= PHONE_WIDTH:
            return text
    return text


def key_html(dot):
    """The list under the phone's diagram: each numbered edge, from and to,
    and its label (escaped as a trace is: Doxygen passes it as HTML)."""
    name = names(dot)
    items = "".join(
        f"<li><b>{esc(name.get(a, a))} &rarr; {esc(name.get(b, b))}</b>: "
        f"{esc(' '.join(' '.join(lines).split()))}</li>" for a, b, lines in edges(dot))
    return f'<ol class="diagram-key">{items}</ol>' if items else ""
