"""A walkthrough's markers, filled in at build time (HTML comments, so
GitHub shows nothing):

  <!-- diagram -->                     the step's docs/diagrams/<STEP>.dot
  <!-- trace TARGET ARGS... | expect WHAT -->
      runs the explorer binary TARGET with ARGS and puts its trace in the
      page. WHAT is what the prose says the run shows, checked against the
      explorer's --json: `failed KIND` (it fails, with that kind), `failed
      KIND: WORDS` (and its message holds WORDS), or `step WORDS` (a step of
      its trace holds WORDS). If the run does not show it, the build fails:
      the prose beside the trace no longer describes it. (Not strict, for a student's
      copy of the step, the page says so instead: a copy under repair must
      not stop its own build.) TARGET not built: the page says so.
  <!-- graph TARGET ARGS... -->
      runs TARGET with ARGS and --graph, and draws the execution graph of
      the failure it finds (po, rf, sw, the race). No failure, no graph:
      the build fails (a copy's page says so instead).

A diagram or a graph is drawn by Graphviz (dot -Tsvg) into the step's HTML
folder as dot_<NAME>.svg and shown as a linked image: it scales down to a
narrow box and a tap opens it at full size. Doxygen's \\dotfile would put
it in a fixed-size frame, which cannot scale. Where scaling would take its
text under 11 px (a phone), the browser shows a layout of its own instead
(<picture>): a diagram's from lockstep_site/phone_diagram.py, a graph's
drawn by the explorer for a phone's column (--graph-width).

A graph is a stepper's (lockstep_site/stepper.py, docs/stepper.js): the
reader steps through the trace of the run that drew it and sees each row's
event lit in the graph. Its trace is the page's trace marker of the same
run before it (its rows then carry their line numbers), or, with none, the
graph's block shows it under the graph.
"""
import html
import itertools
import json
import re
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from lockstep_site import phone_diagram, stepper
from lockstep_site.traces import Trace, from_json, table_html, walkthrough_trace

# The legend, before a page's first trace.
LEGEND = ("<b>How to read a trace.</b> The explorer runs the scenario's threads one step at a time, in the "
          "order its schedule chooses, and prints one numbered line per step: the text cites the lines by "
          "these numbers. The <b>T0</b> and <b>T1</b> columns say which thread took the step (each named by "
          "its role). A step that touches shared memory names its source line (<code>event.c:55</code>), "
          "the operation, the object and the value read or written; <code>(took out: ...)</code> is the "
          "value an exchange replaced, <code>(found: ...)</code> the value a compare-exchange found; "
          "<code>[acquire]</code>, <code>[release]</code>, <code>[acq_rel]</code>, <code>[relaxed]</code> "
          "are the memory orders the code asks for, and the explorer runs each under the C11 memory model: "
          "<code>(syncs with line 5)</code> marks an acquire that synchronized with the release on line 5, "
          "<code>(stale: reads line 3's store, not line 7's)</code> a load that read an older store than "
          "the newest, which C11 allows, and <code>[relaxed, weakened from acq_rel]</code> an order changed "
          "by <code>--weaken</code>. A data race names both accesses and the synchronization that is "
          "missing. <code>main:</code> lines (shaded) run on the main thread after both threads finished: "
          "the scenario's clean-up and final checks. <code>(finished)</code> ends a thread. Addresses print "
          "as <code>0x...</code>. <code>explore: FAILED</code> names the check a schedule broke, and "
          "<code>--replay ID</code> runs that one schedule again.")

TIMEOUT = 120  # seconds for one explorer run
PHONE_GRAPH_WIDTH = 340  # points: the explorer's --graph-width for a graph's phone layout

# The markers' forms: the one parser of them (pages_step.py fills them in,
# walkthrough_explorers.py lists the explorers they run for the build's
# dependencies).
TRACE = re.compile(r"<!-- trace ([A-Za-z0-9_]+) ([^|]*)[|] expect (failed|step) (.*) -->")
GRAPH = re.compile(r"<!-- graph ([A-Za-z0-9_]+) (.*) -->")


@dataclass
class Walk:
    """What a walkthrough's markers need: the step, its explorers, where graphs go."""
    source: Path            # docs/walkthroughs/<STEP>.md, for messages
    step: str
    docs: Path              # docs/
    graphs: Path            # where the graphs' .dot files go
    html: Path              # the step's HTML folder (Doxygen's), where their .svg files go
    explorers: dict         # {target: binary}
    dot: str                # Graphviz's dot, or "" without it
    strict: bool
    legend_done: bool = False
    steppers: dict = field(default_factory=dict)  # {trace marker: its graph's stepper}
    shown: dict = field(default_factory=dict)     # {stepper: the trace its trace marker showed}


def fail(walk, msg):
    sys.exit(f"{walk.source}: {msg}")


def draw(walk, dot, svg):
    """The .dot file DOT drawn as SVG (a name) in the step's HTML folder: its path."""
    walk.html.mkdir(parents=True, exist_ok=True)
    run = subprocess.run([walk.dot, "-Tsvg", str(dot), "-o", str(walk.html / svg)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
    if run.returncode != 0:
        fail(walk, f"Graphviz could not draw {dot}:\n{run.stdout.decode('utf-8', errors='replace')}")
    return walk.html / svg


def drawn(walk, dot, alt):
    """The state diagram DOT as the page shows it: the image, scaled to its
    box, linking to itself at full size; where scaled it would show its text
    under 11 px, its phone layout (phone_diagram.py) and, under it, the key
    to its numbered edges (shown there only: a <style> of its own, for the
    same screens as the <picture>'s source)."""
    svg = draw(walk, dot, f"dot_{dot.stem}.svg")
    media, phone, key, style = stepper.media_query(svg), None, "", ""
    if media:
        text = dot.read_text(encoding="utf-8")
        walk.graphs.mkdir(parents=True, exist_ok=True)
        small = walk.graphs / f"{dot.stem}.phone.dot"
        small.write_text(phone_diagram.fitted(text, lambda t: graphviz_width(walk, t)), encoding="utf-8")
        phone = (f"dot_{small.stem}.svg", media)
        draw(walk, small, phone[0])
        key = phone_diagram.key_html(text)
        style = f"<style>@media {media} {{ #diagram-{walk.step} .diagram-key {{ display: block; }} }}</style>"
    box = f'<div class="dotgraph" id="diagram-{walk.step}">' if key else '<div class="dotgraph">'
    return (f"\\htmlonly[block]{style}{box}<div class=\"dotframe\">{stepper.picture(svg.name, alt, phone)}</div>"
            f"{key}</div>\\endhtmlonly")


def graphviz_width(walk, text):
    """The width in points of the .dot text TEXT as Graphviz draws it."""
    run = subprocess.run([walk.dot, "-Tsvg"], input=text.encode("utf-8"), stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, timeout=TIMEOUT)
    try:
        return float(ET.fromstring(run.stdout).get("viewBox").split()[2])
    except (ET.ParseError, AttributeError, IndexError, ValueError):
        return float("inf")


def described(dot):
    """What a .dot file draws, for its image's alt text: its opening // comment, on one line."""
    lines = dot.read_text(encoding="utf-8").splitlines()
    said = [line[2:].strip() for line in itertools.takewhile(lambda line: line.startswith("//"), lines)]
    return " ".join(said) or f"The state diagram of step {dot.stem}"


def diagram(walk):
    """The <!-- diagram --> marker's replacement."""
    dot = walk.docs / "diagrams" / f"{walk.step}.dot"
    if not dot.exists():
        return f"*(No state diagram for this step yet: it goes in `docs/diagrams/{walk.step}.dot`.)*"
    if walk.dot:
        return drawn(walk, dot, described(dot))
    return f"*(The diagram is `docs/diagrams/{walk.step}.dot`: install Graphviz to see it here.)*"


@dataclass
class Run:
    """One run of an explorer: what it printed (stdout and stderr, as
    produced), its exit status, and its result as data (its --json; None if
    it wrote none: it crashed, or is a copy's that does not write it)."""
    out: str
    rc: int
    data: dict

    def trace(self):
        """Its trace (a Trace; empty if it gave none)."""
        got = (self.data or {}).get("trace")
        return from_json(got, self.out) if got else Trace(before=self.out.strip("\n").split("\n"))


def run_explorer(walk, target, argv):
    """TARGET run with ARGV, and --json: a Run."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        run = subprocess.run([walk.explorers[target]] + argv + ["--json", str(result)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=TIMEOUT)
        data = json.loads(result.read_text(encoding="utf-8")) if result.is_file() else None
    return Run(run.stdout.decode("utf-8", errors="replace"), run.returncode, data)


def tidy(trace, binary):
    """The trace (a Trace) as the page shows it: the replay hint names
    ./TARGET, not this machine's path; addresses (different each run, and
    meaningless on a page) as 0x...; no blanks at line ends."""
    def line(text):
        return masked(text.replace(str(Path(binary).parent) + "/", "./")).rstrip(" ")
    return Trace([line(t) for t in trace.before], trace.threads,
                 [type(r)(r.line, r.thread, line(r.text)) for r in trace.rows], [line(t) for t in trace.after])


def masked(text):
    """TEXT with each address (0x and lower-case hex digits) as 0x...."""
    out, at = [], 0
    while (start := text.find("0x", at)) >= 0:
        end = start + 2
        while end < len(text) and text[end] in "0123456789abcdef":
            end += 1
        out.append(text[at:start] + ("0x..." if end > start + 2 else "0x"))
        at = end
    return "".join(out) + text[at:]


def shows(run, kind, words):
    """Whether the run shows what a trace marker expects (its --json):
    `failed KIND[: WORDS]` or `step WORDS` (KIND, WORDS: the marker's)."""
    data = run.data or {}
    if kind == "failed":
        want, _, words = words.partition(": ")
        return data.get("result") == "failed" and data.get("kind") == want and words in data.get("message", "")
    return any(words in s["text"] for s in data.get("trace", {}).get("steps", []))


def trace_block(walk, marker, prose=""):
    """A <!-- trace ... --> marker's replacement: the legend (first trace
    only), the trace as a table, and a note if a copy's trace differs from
    what the prose before it says (its REGEX, and the lines it cites)."""
    m = TRACE.fullmatch(marker)
    if not m:
        fail(walk, f"a trace marker is `<!-- trace TARGET ARGS... | expect failed KIND[: WORDS] -->` or `... | expect step WORDS -->`, not: {marker}")
    target, args, kind, words = m.group(1), m.group(2).strip(), m.group(3), m.group(4)
    if target not in walk.explorers:
        return (f"*(This trace is generated from `{target} {args}`, which this build does not have: "
                "configure with `-DLOCKSTEP_TESTS=ON`, or the explorer scenario is still to be written.)*")
    run = run_explorer(walk, target, shlex.split(args))
    note = ""
    if not shows(run, kind, words):
        if walk.strict:
            fail(walk, f"`{target} {args}` (exit {run.rc}) no longer shows `{kind} {words}`, "
                       f"which the walkthrough's prose relies on. Its output:\n{run.out}")
        note = ("\n\n*(This step is built from a copy, whose trace does not show what the text "
                f"describes: `{kind} {words}`.)*")
    trace = tidy(run.trace(), walk.explorers[target])
    wrong = cited_lines(prose, trace)
    if wrong and walk.strict:
        fail(walk, f"the prose before `{target} {args}` cites its trace wrongly:\n  " + "\n  ".join(wrong) +
             f"\nThe trace:\n{run.out}")
    if wrong and not note:
        note = ("\n\n*(This step is built from a copy, whose trace's lines are not those the text "
                "cites.)*")
    # HTML the page passes through untouched (\htmlonly): Doxygen must not read a trace as Markdown.
    tied = walk.steppers.get(marker)
    if tied:
        walk.shown[tied] = trace
    block = walkthrough_trace(f"./{target} {args}", trace, tied)
    if not walk.legend_done:
        block = f'\\htmlonly\n<p class="trace-legend">{LEGEND}</p>\n\\endhtmlonly\n\n{block}'
        walk.legend_done = True
    return block + note


def graph_block(walk, marker, n):
    """The n-th <!-- graph ... --> marker's replacement: the failing
    execution drawn, with a phone layout, as a stepper's figure (its trace:
    the trace marker's before it, else its own, under it)."""
    m = GRAPH.fullmatch(marker)
    if not m:
        fail(walk, f"a graph marker is `<!-- graph TARGET ARGS... -->`, not: {marker}")
    target, args = m.group(1), m.group(2).strip()
    name = f"{walk.step}-graph-{n}.dot"
    walk.graphs.mkdir(parents=True, exist_ok=True)
    if target not in walk.explorers:
        return f"*(The execution graph of `{target} {args}` needs the explorer: configure with `-DLOCKSTEP_TESTS=ON`.)*"
    (walk.graphs / name).unlink(missing_ok=True)  # (an earlier build's must not pass for this one's)
    run = run_explorer(walk, target, shlex.split(args) + ["--graph", str(walk.graphs / name)])
    if not (walk.graphs / name).exists():
        if walk.strict:
            fail(walk, f"`{target} {args}` wrote no execution graph: it no longer fails")
        return f"*(This step is built from a copy, where `{target} {args}` does not fail: no graph to draw.)*"
    if not walk.dot:
        return f"*(The execution graph is written by `{target} {args} --graph FILE.dot`: install Graphviz to see it here.)*"
    ident, trace = graph_stepper(n, walk), tidy(run.trace(), walk.explorers[target])
    shown = walk.shown.get(ident)
    if shown is not None and shown.rows != trace.rows:
        # (the explorer is deterministic: a difference is a bug, in it or here)
        fail(walk, f"`{target} {args} --graph` gave another trace than the same run without --graph:\n"
                   f"{trace.rows}\nnot\n{shown.rows}")
    svg = draw(walk, walk.graphs / name, f"dot_{Path(name).stem}.svg")
    figure = stepper.figure(svg, svg.name, f"The execution graph of ./{target} {args}", ident,
                            "The failing execution, one column per thread: the legend under it says what each edge "
                            "is", phone_graph(walk, target, args, name, svg))
    own = "" if shown is not None else "\n" + table_html(trace, ident, f"./{target} {args}")
    return f"\\htmlonly[block]{figure}{own}{stepper.script_tag()}\\endhtmlonly"


def phone_graph(walk, target, args, name, svg):
    """(svg, href, media) of the graph NAME laid out for a phone (the
    explorer's --graph-width), for the screens where SVG, scaled, would show
    its text under 11 px; None if it never would."""
    media = stepper.media_query(svg)
    if not media:
        return None
    small = walk.graphs / name.replace(".dot", ".phone.dot")
    small.unlink(missing_ok=True)
    run_explorer(walk, target, shlex.split(args) + ["--graph", str(small), "--graph-width", str(PHONE_GRAPH_WIDTH)])
    if not small.exists():
        fail(walk, f"`{target} {args} --graph {small.name} --graph-width {PHONE_GRAPH_WIDTH}` wrote no graph")
    phone = draw(walk, small, f"dot_{small.stem}.svg")
    return phone, phone.name, media


def graph_stepper(n, walk):
    """The name of the n-th graph's stepper, unique in its page."""
    return f"stepper-{walk.step}-{n}"


# A trace line the prose cites, "(line 8)", "(lines 4-6)", "(line 3:
# running, ...)": what it says of the line is checked against the trace
# (cited_lines). The words that say what a line shows, and the trace's
# words for it: the nearest of them before the citation, in its sentence,
# must be on a cited line; after a colon, the first code span (or word)
# must be. A citation with neither says nothing a reader can check.
CITATION = re.compile(r"\(lines?\s+([0-9]+)(?:-([0-9]+))?(?::([^)]*))?\)")
#
# The trace's side is what a row's text (its --json's) must hold: ("word",
# W) a word W of it, ("starts", W) a word that starts with W, ("text", W,
# ...) any of the W anywhere in it. The prose's side is read with regular
# expressions: it is prose people write, not a program's output.
CITED_WORDS = (
    (r"\bunlock", ("word", "unlock")),
    (r"\block", ("word", "lock")),
    (r"\bresume", ("text", "resume", "continues")),
    (r"\bcomplet", ("text", "complet", "co_return")),
    (r"\bdecrement|\bto zero\b", ("text", "fetch_sub")),
    (r"\bexchange|\btakes? out\b", ("text", "exchange")),
    (r"\bstores?\b|\braises\b", ("word", "store")),
    (r"\bloads?\b|\breads?\b|\blooks again\b|\bfinds\b", ("word", "load")),
    (r"\bfree[sd]?\b", ("starts", "free")),
    (r"\bpush", ("text", "exchange")),
)


def holds(row, want):
    """Whether a trace row's text holds WANT (CITED_WORDS' trace side)."""
    how, *words = want
    if how == "text":
        return any(w in row for w in words)
    tokens = "".join(c if c.isalnum() or c == "_" else " " for c in row).split()
    return any(t == w if how == "word" else t.startswith(w) for t in tokens for w in words)


def cited_lines(prose, trace):
    """What is wrong with the prose's citations of the trace's lines (prose:
    the text since the last heading or marker, which the trace follows;
    trace: a Trace, its rows' texts as the explorer's --json gave them)."""
    rows, wrong = {r.line: " ".join(r.text.split()) for r in trace.rows}, []
    for c in CITATION.finditer(prose):
        first, last = int(c.group(1)), int(c.group(2) or c.group(1))
        cited = [rows.get(n) for n in range(first, last + 1)]
        if None in cited:
            wrong.append(f"{c.group(0)}: the trace has no line {first + cited.index(None)}")
            continue
        said = re.split(r"[.;:!?]\**\s|\)[\s,;]", prose[:c.start()])[-1]
        if c.group(3):  # (line 3: running, ...): its first code span, or its first word
            m = re.search(r"`([^`]+)`", c.group(3)) or re.search(r"[\w.:-]+", c.group(3))
            want, what = ("text", m.group(1) if m.lastindex else m.group(0)), "what it names"
        else:
            hits = [(m.end(), shows) for words, shows in CITED_WORDS for m in re.finditer(words, said)]
            if not hits:
                wrong.append(f"{c.group(0)} after \"{said[-50:].strip()}\": say what the line shows "
                             "(\"(line 8: exchange)\", or a verb the check knows before it)")
                continue
            want, what = max(hits)[1], "what the words before it say"
        if not any(holds(row, want) for row in cited):
            wrong.append(f"{c.group(0)} after \"{said[-50:].strip()}\": {what} is not on "
                         f"{'that line' if first == last else 'those lines'}: " + " / ".join(cited))
    return wrong


def fill_markers(walk, page):
    """The walkthrough's text with every marker replaced (whole-text
    replacement, marker by marker: the page's other text stays as written)."""
    prose = {marker: prose_before(page, marker) for marker in markers(page, "trace")}  # (as written)
    walk.steppers = tied_traces(walk, page)
    page = page.replace("<!-- diagram -->", diagram(walk))
    for marker in markers(page, "trace"):
        page = page.replace(marker, trace_block(walk, marker, prose[marker]))
    for n, marker in enumerate(markers(page, "graph"), 1):
        page = page.replace(marker, graph_block(walk, marker, n))
    return page


def tied_traces(walk, page):
    """{trace marker: the stepper of the graph it shows the trace of}: for
    each graph marker, the last trace marker before it of the same run (the
    same explorer, the same arguments), if any."""
    tied = {}
    for n, marker in enumerate(markers(page, "graph"), 1):
        g = GRAPH.fullmatch(marker)
        at = page.index(marker)
        for t in reversed(markers(page[:at], "trace")):
            m = TRACE.fullmatch(t)
            if g and m and (m.group(1), shlex.split(m.group(2))) == (g.group(1), shlex.split(g.group(2))):
                tied[t] = graph_stepper(n, walk)
                break
    return tied


def prose_before(page, marker):
    """The text a trace marker follows: since the last heading or marker before it."""
    before = page[:page.index(marker)]
    return before[max(before.rfind("\n#"), before.rfind("-->") + 3, 0):]


def markers(page, kind):
    """The page's <!-- KIND ... --> markers (KIND trace or graph), whole, in order."""
    return re.findall(rf"<!-- {kind} [^\n]* -->", page)


def explorers_run(page):
    """The explorer targets the page's trace and graph markers run, in order,
    each once (a marker not of its form is left to fill_markers to report)."""
    found = [m.group(1) for kind, form in (("trace", TRACE), ("graph", GRAPH))
             for m in map(form.fullmatch, markers(page, kind)) if m]
    return list(dict.fromkeys(found))


def explorers(listing):
    """{target: binary} from the build's list (target=path lines), or {} without one."""
    if not listing or not Path(listing).exists():
        return {}
    lines = Path(listing).read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)
