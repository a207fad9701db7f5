#!/usr/bin/env python3
"""check_browser.py SITE: the site's pages as a browser shows them.

Loads in one headless Chromium, at 1280 px and again at 390 px (a phone),
every kind of page the site has: the home page, every step's page,
walkthrough and lab, the challenge answers, every diff page, the course's
pages (errata, mutation table, explorer, glossary, litmus tests...), one
API page per step, and every source page; and fails on:
  - a script error or a console.error (the page's own scripts),
  - a resource that does not load (an image, a script, a style sheet, a
    diagram),
  - an image or a diagram drawn at zero size, or a diagram cut by its frame,
    or a step's state diagram wider than the text column at 1280 px,
  - raw markup a reader sees: `<tt>` in the text, a `**`, a `*word*`, a
    `[text](link)` or a backtick outside code, an inline code span that
    starts or ends with a backtick,
  - a page wider than the window: the reader would have to scroll the page
    sideways,
  - a box that hides what it holds, by kind (tables, traces, lab outputs and
    other text blocks, program tables, graphs): on the course's pages every
    box fits its width (a trace wraps, a table wraps its cells), but a table
    whose words do not fit may scroll in its own box if its first column
    stays in view (sticky); the source and diff pages' code may scroll in
    its own box,
  - a word of a table cell broken across two lines though it would fit on
    one ("comple ted"), or a word of a paragraph or a list item broken
    across two lines: text wraps at spaces (and after - or /), and a long
    name at the break points the site's generator put in it (after a dot,
    an underscore, a slash, a ::, a < or a (), nowhere else; a break point
    anywhere else,
  - on a phone (390 px), a table that scrolls in its box whose sticky
    first column takes more than 45% of the box (the figures scroll under
    it, out of reach), or holds a word wider than itself (it lies over
    them); on a small phone (360 px, the course's pages only) the same
    45%,
  - a source page whose line wraps on screen (the aligned columns of a
    comment table fall apart): its box scrolls sideways instead; printed,
    it wraps (below),
  - a diagram (a step's state diagram, a walkthrough's execution graph)
    wider than its box, scrolling rather than scaling to it, or without a
    link to its full-size image,
  - a table whose last columns carry the lesson (the mutation table, rows
    anchored m-...; a step's memory-order table, mo-N) wider than its
    column, at 1280 px (or as cards on a phone); the mutation table's
    columns naming the test that catches each mutant ("killed by...",
    "explorer alone...") out of the window or under 200 px wide; no
    mutation table on mutants.html, or no memory-order table on any
    step's README page (the anchors lost: nothing measured),
  - a graph whose node text, as drawn, is smaller than the page's body text
    (an execution graph shrunk to fit, or drawn in a small font); on a
    phone, a diagram linked to its full-size image may be smaller,
  - on a phone (390 px), a diagram or graph in a figure (a walkthrough's,
    the litmus chapter's) whose text is drawn under PHONE_TEXT_PX (11 CSS
    px): every one is reported with its size, and fails the check on the
    pages of PHONE_TEXT_PAGES,
  - a course page without its previous and next (the reading order: home,
    the steps with their walkthroughs and labs, the memory-order chapter,
    the explorer and its reference, the mutation table, the errata, the
    glossary; the diff pages in step order), or a next whose page does not
    lead back,
  - on a source page, a printed line that does not read as the file's line.

And the litmus playground (playground.html), driven as a reader drives it:
the tests of PLAYGROUND_TESTS picked and run in the page (a data race, a
forbidden outcome, four threads), each of which must show what the native
explore_litmus --json says for the same file: its final states and their
counts, Positive and Negative, the race verdict and its report, the
forbidden candidate and why, and every graph the native program draws
(--graph g.svg), the same text in it; each file of tests/explore/litmus/refused typed
in and run must show the native program's message, exactly; the page laid
out again with its results at 1280 and 390 px (the checks above); and the
explorer's script with the page's under PLAYGROUND_BYTES. Each run's time
in Chromium is printed, and IRIW+sc's compared with PLAYGROUND_IRIW_SECONDS
(a figure, never a failure: a busy machine is slow). Without
explore_litmus for the browser in the site (no Emscripten) or without the
native program (--litmus-explorer), that part says it is skipped and why.

How: Chromium runs headless with its DevTools protocol on a pipe
(--remote-debugging-pipe), one process for every page: each page is loaded
from the site as it is, a script added before its own (check_browser.js,
beside this file) records errors from the start; once the page and its
images have loaded, the script checks the laid-out page at 1280 px, then
at 390 px (and 360 px), and returns what it found. The pipe's client is
the few lines of Browser below, not a library: the maintained DevTools
clients (pychrome, pyppeteer, Playwright, Selenium's CDP) come from PyPI
or npm, and the check must run with Debian's packages alone (chromium and
Python's standard library; no Debian package carries a CDP client).

A source page is also printed to PDF (A4) by the same Chromium and read back
with `pdftotext -tsv` (poppler-utils): each word as its glyphs were laid
out, with its page and place, not as the DOM holds it; the printed rows are
the words side by side (printed_rows). A style that moves a name out of its
line, hides it, or cuts a long line at the paper's edge shows there, as the
reader sees it. Each printed line (from its number to the next) must be the
file's line, blanks collapsed (a long line wraps). The pages of steps 03 and
07, coro.h and the mutation results are printed (every kind of file the site
shows); every source page with LOCKSTEP_BROWSER_PRINT_ALL=1. The file each
page shows is read from src/.sources (written by
docs/generator/pages_source.py). Without pdftotext this part is skipped and
the summary says so.

LOCKSTEP_BROWSER_PAGES=REGEX loads only the pages whose path matches (the
playground's runs when it matches playground.html).

Without Chromium the test says it is skipped, and why (exit 77). Standard
library only.
"""
import argparse
import base64
import csv
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

WIDTHS = (1280, 390)
SMALL_PHONE = 360  # the course's pages only, and only a sticky first column's share of its box

# On a phone (the 390 px of WIDTHS) a diagram or graph in a figure draws its
# text at PHONE_TEXT_PX CSS px or more: its SVG's smallest font-size scaled
# as the image is drawn (check_browser.js, phoneText), on every page (a
# regex of a page's path in the site). The walkthroughs' state diagrams and
# the explorer's graphs have phone layouts of their own for it (issue 37,
# item 5: phone_diagram.py, and the explorer's --graph-width).
PHONE_TEXT_PX = 11
PHONE_TEXT_PAGES = (".*",)

# Runs in every page before its own scripts (Page.addScriptToEvaluateOnNewDocument):
# check_browser.js, beside this file.
CHECK = (Path(__file__).resolve().parent / "check_browser.js").read_text(encoding="utf-8")


class Chromium:
    """One headless Chromium driven over --remote-debugging-pipe: JSON
    messages ending in NUL, ours on its fd 3, its on its fd 4."""

    def __init__(self, exe, profile):
        to_child, self._to = os.pipe()
        self._from, from_child = os.pipe()

        def fds():  # (either end may be fd 3 or 4 already: copy both first)
            a, b = os.dup(to_child), os.dup(from_child)
            os.dup2(a, 3)
            os.dup2(b, 4)
        argv = [exe, "--headless", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                "--allow-file-access-from-files", "--remote-debugging-pipe", f"--user-data-dir={profile}",
                "--font-render-hinting=none", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            argv.insert(1, "--no-sandbox")  # root (a container): Chromium's sandbox refuses to start
        self.proc = subprocess.Popen(argv, preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError
            chunk = os.read(self._from, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=120):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})
            self.events.append(m)

    def new_tab(self):
        """A fresh tab on about:blank: its session, with its Page and Runtime
        domains on (check_stepper.py opens its tabs here too)."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable"):
            self.call(m, session=session)
        return session

    def wait_event(self, method, session, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    del self.events[i]
                    return m
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Tab:
    def __init__(self, browser):
        self.b = browser
        self.s = browser.new_tab()
        browser.call("Page.addScriptToEvaluateOnNewDocument", {"source": CHECK}, session=self.s)

    def width(self, w):
        self.b.call("Emulation.setDeviceMetricsOverride",
                    {"width": w, "height": 900, "deviceScaleFactor": 1, "mobile": w < 600}, session=self.s)

    def load(self, url):
        self.b.events = [e for e in self.b.events if e.get("sessionId") != self.s]
        self.b.call("Page.navigate", {"url": url}, session=self.s)
        self.b.wait_event("Page.loadEventFired", self.s)

    def check(self, width, course):
        small = json.dumps(width == SMALL_PHONE)
        r = self.b.call("Runtime.evaluate", {"expression": f"window.__lockstepCheck({width}, {json.dumps(course)}, {small})",
                                             "awaitPromise": True, "returnByValue": True}, session=self.s)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("text", "the check failed"))
        return json.loads(r["result"]["value"])

    def exceptions(self):
        out = [e for e in self.b.events if e.get("sessionId") == self.s and e.get("method") == "Runtime.exceptionThrown"]
        return [e["params"]["exceptionDetails"].get("exception", {}).get("description", "exception").split("\n")[0]
                for e in out]

    def pdf(self):
        r = self.b.call("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69, "marginTop": 0.4,
                                            "marginBottom": 0.4, "marginLeft": 0.4, "marginRight": 0.4,
                                            "displayHeaderFooter": False}, session=self.s)
        return base64.b64decode(r["data"])


# The source pages printed and read back: every kind of file (C, header,
# CMake, results table) of two steps, the common header and the mutation
# results; all of them with LOCKSTEP_BROWSER_PRINT_ALL=1.
PRINTED = r"src/(steps/(03|07)-|common/|tests/mutants/)"
PRINT_ALL = os.environ.get("LOCKSTEP_BROWSER_PRINT_ALL") == "1"

# A step's pages, in its reading order (deep: a README's depths), and the
# API page loaded for each step.
STEP_PAGES = ("index.html", "deep.html", "walkthrough.html", "lab.html")
API_PAGE = "task_8h.html"


# The playground's runs: a data race, a forbidden outcome, four threads
# (issue 39). IRIW+sc, the biggest, is timed in the page (the worker's
# start and the module's compile included) and said against
# PLAYGROUND_IRIW_SECONDS, the page's target (never a failure); the
# explorer's script (its WebAssembly inside) and the page's own script
# under PLAYGROUND_BYTES together.
PLAYGROUND_TESTS = ("MP+na+rlx", "SB+sc", "IRIW+sc")
PLAYGROUND_IRIW_SECONDS = 1.0
PLAYGROUND_BYTES = 2 * 1024 * 1024
PLAYGROUND_SCRIPTS = ("explore_litmus_page.js", "playground.js")
PLAYGROUND_WAIT_MS = 30000  # (the page stops a run at 20 s)
LITMUS = Path(__file__).resolve().parents[1] / "explore" / "litmus"


def log_skip(line):
    """LINE in the skip log ctest's summary reads (LOCKSTEP_SKIP_LOG), if any."""
    log = os.environ.get("LOCKSTEP_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write(line + "\n")


def skip(reason):
    line = f"docs.browser: {reason}"
    print(f"SKIPPED {line}")
    log_skip(line)
    sys.exit(77)


def is_step(path):
    """A step's directory of the site (NN-name, its Doxygen pages in html/)."""
    return re.match(r"\d\d-", path.name) and (path / "html").is_dir()


def step_dirs(site):
    """Every step's Doxygen directory, SITE/NN-name/html, in step order."""
    return [d / "html" for d in sorted(site.iterdir()) if is_step(d)]


def pages(site):
    """Every page to load: the site's Markdown pages, one API page per step,
    the challenge answers, the diffs, the source pages."""
    found = ["index.html"]
    for must in ("litmus.html",):
        if not (site / must).is_file():
            sys.exit(f"check_browser: no {site}/{must}: the course has lost a page")
    for path in sorted(site.iterdir()):
        if is_step(path):
            found += step_pages(path / "html")
        elif is_course_page(path):
            found.append(path.name)
    for sub in ("diffs", "src"):
        found += sorted(p.relative_to(site).as_posix() for p in (site / sub).rglob("*.html") if p.is_file())
    return found


def step_pages(html_dir):
    """The pages loaded of one step: its own (STEP_PAGES), its API page, its challenge answers."""
    name = html_dir.parent.name
    found = [f"{name}/html/{page}" for page in STEP_PAGES + (API_PAGE,) if (html_dir / page).is_file()]
    return found + [f"{name}/html/{n}" for n in sorted(p.name for p in html_dir.iterdir())
                    if n.startswith("md_docs_labs_answers_") and n.endswith(".html")]


def is_course_page(path):
    """A top-level page of the course (errata.html, mutants.html, ...)."""
    name = path.name
    return name.endswith(".html") and name != "index.html" and not name.startswith(("dir_", "graph_legend"))


def kind(rel):
    """The page's kind, for the pager's rules and the box checks."""
    if rel.startswith("src/"):
        return "source"
    if rel.startswith("diffs/"):
        return "diff"
    if re.match(r"\d\d-[^/]+/html/(index|deep|walkthrough|lab)\.html$", rel):
        return "step"
    if re.match(r"\d\d-[^/]+/html/", rel):
        return "api" if not rel.split("/")[-1].startswith("md_docs_labs_answers_") else "answers"
    return "course"


def linked_page(site, href):
    """The page a pager's file:// HREF names, relative to SITE (None: no link).
    A URL's path, not a file's: os.path.relpath, which walks up too."""
    return os.path.relpath(href[len("file://"):].split("#")[0], site) if href else None


def check_pagers(site, pagers):
    """The pagers as drawn agree along the reading path: from the home page,
    each page's next names a page whose previous names it back. A page off
    the path (a source file, a lab's answers) points back to the page that
    presents it, which goes on along the path: its pager is check_links.py's
    to judge, with the book's order itself (the litmus chapter after step
    01's README, each diff after its README, every page on it once), which
    it reads from the same HTML; here, that the rendered pager shows it."""
    problems, seen, page = [], set(), "index.html"
    while page in pagers and page not in seen:
        seen.add(page)
        nxt = linked_page(site, pagers[page][1])
        if nxt is None:
            break
        if nxt not in pagers:
            problems.append(f"{page}: next is {nxt}, which was not loaded or shows no pager")
            break
        back = linked_page(site, pagers[nxt][0])
        if back != page:
            problems.append(f"{page}: next is {nxt}, whose previous is {back or 'missing'}")
        page = nxt
    return problems


def source_files(site):
    """{source page: the file it shows}, from src/.sources (pages_source.py)."""
    listing = site / "src" / ".sources"
    if not listing.is_file():
        return {}
    with listing.open(encoding="utf-8") as f:
        return dict(line.rstrip("\n").split("\t", 1) for line in f if "\t" in line)


def printed_rows(tsv):
    """The rows of words as printed, from `pdftotext -tsv` of a PDF: each
    row's words (level 5) left to right, the rows page by page, top to
    bottom. A row is the words whose middles lie within the height of its
    topmost: poppler's own lines (line_num) are no help here, as it puts a
    line's number and its code in different flows (columns)."""
    words = []
    for w in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        if w["level"] == "5":
            words.append((int(w["page_num"]), float(w["top"]), float(w["height"]), float(w["left"]), w["text"]))
    rows = []  # [page, top, bottom, [(left, text)]]
    for page, top, height, left, text in sorted(words):
        if not rows or rows[-1][0] != page or top + height / 2 > rows[-1][2]:
            rows.append([page, top, top + height, []])
        rows[-1][3].append((left, text))
    return [[text for _, text in sorted(row[3])] for row in rows]


def rendered_lines(rows):
    """{n: the text of rendered line n} from the printed rows of a source
    page (printed_rows): a line starts with its number (n+1 after n); a
    row that does not is the rest of the line before, wrapped by the
    layout. The rows before line 1 (the file's name) are not lines."""
    lines, n = {}, 0
    for words in rows:
        if words[0].isdecimal() and int(words[0]) == n + 1:
            n += 1
            lines[n] = " ".join(words[1:])
        elif n:
            lines[n] += " " + " ".join(words)
    return lines


def squeeze(s):
    return " ".join(s.split())


def same_line(shown, line):
    """A wrapped line may break inside a word: compare without blanks then."""
    return squeeze(shown) == squeeze(line) or "".join(shown.split()) == "".join(line.split())


def check_printed(tab, disk, rel, scratch):
    """The problems of one source page as printed on A4, or None without pdftotext."""
    pdftotext = shutil.which("pdftotext")
    if not pdftotext:
        return None
    pdf = scratch / "page.pdf"
    pdf.write_bytes(tab.pdf())
    out = subprocess.run([pdftotext, "-tsv", pdf, "-"], capture_output=True, text=True, encoding="utf-8")
    shown = rendered_lines(printed_rows(out.stdout))
    want = Path(disk).read_text(encoding="utf-8", errors="replace").split("\n")
    if want and want[-1] == "":
        want.pop()
    problems = []
    for n, line in enumerate(want, 1):
        if n not in shown:
            problems.append(f"{rel}: printed, line {n} is not on the page (want: {squeeze(line)!r})")
        elif not same_line(shown[n], line):
            problems.append(f"{rel}: printed, line {n} reads {squeeze(shown[n])!r}, the file has {squeeze(line)!r}")
        if len(problems) >= 5:
            problems.append(f"{rel}: (and maybe more lines; the first 5 shown)")
            break
    return problems


class Run:
    """One Chromium's pass over the site's pages: what it found and counted."""

    def __init__(self, site, tab, scratch):
        self.site, self.tab, self.scratch = site, tab, scratch
        self.sources = source_files(site)
        self.failures, self.pagers = [], {}
        self.checked = self.images = self.diagrams = self.printed = self.unprinted = 0
        self.lesson = {"m": 0, "mo": 0, "ls": 0}  # the lesson tables measured, by kind (anchors' prefix; ls: litmus-summary)
        self.figures, self.small_text = 0, []  # figures measured on a phone; (fails, line) of those under PHONE_TEXT_PX
        self.readmes = 0  # the steps' README pages loaded

    def check_page(self, rel):
        """REL loaded and checked at every width; printed, if a source page to print."""
        k = kind(rel)
        try:
            seen = self.load(rel, k in ("course", "step", "answers"))
        except (RuntimeError, TimeoutError) as e:
            self.failures.append(f"{rel}: the check did not run: {e or 'timed out'}")
            return
        self.checked += 1
        self.images += seen[0]["images"]
        self.diagrams += seen[0]["diagrams"]
        for what in self.lesson:
            self.lesson[what] += seen[0]["lesson"][what]
        self.readmes += bool(re.fullmatch(r"\d\d-[^/]+/html/index\.html", rel))  # (a README, where the table is)
        if rel == "mutants.html" and not seen[0]["lesson"]["m"]:
            self.failures.append(f"{rel}: no mutation table (rows anchored m-...) to measure at {WIDTHS[0]} px")
        if rel == "litmus.html" and not seen[0]["lesson"]["ls"]:
            self.failures.append(f"{rel}: no family summary (table.litmus-summary) to measure at {WIDTHS[0]} px")
        for result in seen:
            self.failures += [f"{rel}: {p}" for p in dict.fromkeys(result["problems"])]
        self.figure_text(rel, seen[WIDTHS.index(390)].get("figureText", []))
        self.failures += [f"{rel}: console: {e}" for e in self.tab.exceptions()]
        self.pagers[rel] = (seen[0]["pager"]["prev"], seen[0]["pager"]["next"])
        if k == "source" and rel[4:-5] in self.sources and (PRINT_ALL or re.match(PRINTED, rel)):
            self.print_page(rel)

    def figure_text(self, rel, figures):
        """The figures of REL whose text is under PHONE_TEXT_PX at 390 px:
        failures on the pages of PHONE_TEXT_PAGES, elsewhere only reported."""
        self.figures += len(figures)
        fails = any(re.fullmatch(p, rel) for p in PHONE_TEXT_PAGES)
        for f in figures:
            if f["px"] >= PHONE_TEXT_PX:
                continue
            how = (f"its font-size {f['font']:g} in a drawing {f['units']:g} units wide, shown {f['drawn']:.0f} px wide"
                   if "units" in f else f"shown {f['drawn']:.0f} px wide")
            line = (f"{rel}: on a phone (390 px) {f['src']} draws its text at {f['px']:.1f} px, under {PHONE_TEXT_PX} "
                    f"(\"{f['text']}\", {how})")
            self.small_text.append((fails, line))
            if fails:
                self.failures.append(line)

    def load(self, rel, course):
        """The page's check results at each of WIDTHS (loaded at the first), a course page's at SMALL_PHONE too."""
        self.tab.width(WIDTHS[0])
        self.tab.load(f"file://{self.site / rel}")
        seen = []
        for w in WIDTHS + ((SMALL_PHONE,) if course else ()):
            self.tab.width(w)
            seen.append(self.tab.check(w, course))
        return seen

    def print_page(self, rel):
        self.tab.width(WIDTHS[0])
        problems = check_printed(self.tab, self.sources[rel[4:-5]], rel, self.scratch)
        if problems is None:
            self.unprinted += 1
        else:
            self.printed += 1
            self.failures += problems


class Playground:
    """The playground's pass: each run's problems and times, the scripts' size."""

    def __init__(self, site, explorer, scratch):
        self.site, self.explorer, self.scratch = site, explorer, scratch
        self.failures, self.times, self.errors, self.graphs = [], [], 0, 0
        self.size = sum((site / f).stat().st_size for f in PLAYGROUND_SCRIPTS if (site / f).is_file())

    def native(self, path):
        """explore_litmus --candidates --json --graph g.svg on PATH, run in its folder on its name alone (as
        the page names it): (exit status, the test's JSON or None, stderr)."""
        out, graphs = self.scratch / "native.json", self.scratch / "graphs"
        out.unlink(missing_ok=True)
        shutil.rmtree(graphs, ignore_errors=True)
        graphs.mkdir()
        p = subprocess.run([self.explorer, "--candidates", "--json", str(out), "--graph", str(graphs / "g.svg"),
                            path.name], cwd=path.parent, capture_output=True, text=True, timeout=120)
        test = json.loads(out.read_text(encoding="utf-8"))["tests"][0] if p.returncode == 0 else None
        return p.returncode, test, p.stderr.strip()

    def play(self, tab, name, text):
        """Runs a test in the page (a chapter's by NAME, or TEXT typed in): what the page shows."""
        expr = f"window.__lockstepPlayground({json.dumps(name)}, {json.dumps(text)}, {PLAYGROUND_WAIT_MS})"
        r = tab.b.call("Runtime.evaluate", {"expression": expr, "awaitPromise": True, "returnByValue": True},
                       session=tab.s, timeout=PLAYGROUND_WAIT_MS / 1000 + 30)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("text", "the playground's run failed"))
        return json.loads(r["result"]["value"])

    def test(self, tab, name):
        """A chapter's test run in the page against the native program's JSON."""
        status, want, err = self.native(LITMUS / "tests" / f"{name}.litmus")
        got = self.play(tab, name, None)
        where = f"playground.html: {name}"
        if got["seconds"] is None:
            self.failures.append(f"{where}: no result after {PLAYGROUND_WAIT_MS / 1000:.0f} s ({got['other'] or got['status']})")
            return
        self.times.append((name, got["seconds"]))
        if want is None:
            self.failures.append(f"{where}: the native program failed (exit {status}): {err}")
            return
        self.compare(where, want, got)
        if name == "IRIW+sc" and got["seconds"] > PLAYGROUND_IRIW_SECONDS:  # (a timing: said, not failed)
            print(f"check_browser: note: {where}: {got['seconds']:.2f} s in the page, over the target of "
                  f"{PLAYGROUND_IRIW_SECONDS:g} s (a busy machine?)")

    def compare(self, where, want, got):
        """The page's states, counts, Positive/Negative, race and forbidden candidate against the JSON's."""
        shown = {row[0]: row[1] for row in got["rows"]}
        native = {s["state"]: str(s["executions"]) for s in want["states"]}
        for state in sorted(set(shown) | set(native)):
            if shown.get(state) != native.get(state):
                self.failures.append(f"{where}: the state {state!r} shows {shown.get(state, 'nowhere')} executions, "
                                     f"the native program counts {native.get(state, 'none')}")
        for what in ("positive", "negative"):
            if got[what] != str(want[what]):
                self.failures.append(f"{where}: {what.capitalize()} shows {got[what]}, the native program says {want[what]}")
        self.compare_graphs(where, want, got["graphs"])
        race = want["race_report"] if want["race"] else None
        if got["race"] != race or got["norace"] == bool(want["race"]):
            self.failures.append(f"{where}: the race verdict shows {got['race'] or 'no race'!r}, "
                                 f"the native program says {race or 'no race'!r}")
        f = want["forbidden"]
        if bool(f) != bool(got["forbidden"]) or f and (f["state"] not in got["forbidden"] or f["why"] not in got["forbidden"]):
            self.failures.append(f"{where}: the forbidden candidate shows {got['forbidden']!r}, the native program "
                                 f"says {f and f['state'] + ': ' + f['why']!r}")

    def compare_graphs(self, where, want, shown):
        """Each graph the native program drew (a state's, the forbidden candidate's) is in the page, the
        same text in it (its boxes' and edges' labels, the legend), and no other."""
        drawn = {s["state"]: s["graph"] for s in want["states"] if s["graph"]}
        if want["forbidden"] and want["forbidden"]["graph"]:
            drawn["forbidden"] = want["forbidden"]["graph"]
        for key in sorted(set(drawn) | set(shown)):
            if key not in drawn or key not in shown:
                self.failures.append(f"{where}: the graph of {key!r}: " +
                                     ("the page shows none, the native program drew one" if key in drawn else
                                      "the page shows one, the native program drew none"))
                continue
            self.graphs += 1
            text = "".join("".join(ElementTree.parse(drawn[key]).getroot().itertext()).split())
            if shown[key] != text:
                self.failures.append(f"{where}: the graph of {key!r} in the page is not the native program's "
                                     f"(its text: {shown[key][:60] if shown[key] else 'no SVG'!r}..., native: "
                                     f"{text[:60]!r}...)")

    def refused(self, tab, path):
        """A malformed test typed in: the page shows the native program's message, exactly. The page names
        its file after the test's first line (C NAME), so the native program reads a copy of that name."""
        text = path.read_text(encoding="utf-8")
        copy = self.scratch / (re.match(r"\s*C\s+(\S+)", text).group(1) + ".litmus")
        copy.write_text(text, encoding="utf-8")
        status, _, err = self.native(copy)
        got = self.play(tab, None, text)
        where = f"playground.html: {path.name} typed in"
        self.errors += 1
        if got["error"] != err:
            self.failures.append(f"{where}: the page shows {got['error']!r}, the native program (exit {status}) "
                                 f"says {err!r}")

    def layout(self, tab):
        """The page with its results, checked as every page is, at each width."""
        for w in WIDTHS:
            tab.width(w)
            result = tab.check(w, True)
            self.failures += [f"playground.html, with IRIW+sc's result: {p}" for p in dict.fromkeys(result["problems"])]
            small = [f for f in result.get("figureText", []) if f["px"] < PHONE_TEXT_PX]
            self.failures += [f"playground.html, with a result: a graph's text at {f['px']:.1f} px on a phone"
                              for f in small]


def check_playground(site, chromium, explorer):
    """The playground's pass, in a Chromium of its own: (Playground, None) or (None, why it is skipped)."""
    if not (site / "playground.html").is_file():
        return None, "the site has no playground.html"
    if not (site / PLAYGROUND_SCRIPTS[0]).is_file():
        return None, ("the site has no explorer for the browser (apt install emscripten, then configure again: "
                      "tests/explore/playground)")
    if not explorer:
        return None, "no native explore_litmus to compare with (the tests are off)"
    with tempfile.TemporaryDirectory(prefix="lockstep-playground-") as scratch:
        browser = Chromium(chromium, Path(scratch) / "profile")
        pg = Playground(site, explorer, Path(scratch))
        try:
            tab = Tab(browser)
            tab.width(WIDTHS[0])
            tab.load(f"file://{site / 'playground.html'}")
            for name in PLAYGROUND_TESTS:
                pg.test(tab, name)
            for path in sorted((LITMUS / "refused").glob("*.litmus")):
                pg.refused(tab, path)
            pg.play(tab, "IRIW+sc", None)  # (its result on the page, for the layout's check)
            pg.layout(tab)
            pg.failures += [f"playground.html: console: {e}" for e in tab.exceptions()]
        except (RuntimeError, TimeoutError) as e:
            pg.failures.append(f"playground.html: the playground's check did not run: {e or 'timed out'}")
        finally:
            browser.close()
    if pg.size > PLAYGROUND_BYTES:
        pg.failures.append(f"playground.html: its scripts ({' + '.join(PLAYGROUND_SCRIPTS)}) are {pg.size} bytes, "
                           f"over {PLAYGROUND_BYTES}")
    return pg, None


def report_playground(pg, skipped):
    if skipped:
        line = f"docs.browser: the playground's runs: skipped: {skipped}"
        print(f"SKIPPED {line}")
        log_skip(line)
        return
    for f in pg.failures:
        print("failed:", f)
    times = ", ".join(f"{name} {s:.2f} s" for name, s in pg.times)
    print(f"check_browser: playground: {len(pg.times)} chapter tests run in the page ({times}), {pg.graphs} graphs, {pg.errors} malformed "
          f"tests' messages, scripts {pg.size / 1024:.0f} kB (explore_litmus with its WebAssembly, and the page's; "
          f"limit {PLAYGROUND_BYTES // 1024} kB), {len(pg.failures)} problems")


def find_chromium():
    return next((shutil.which(c) for c in ("chromium", "chromium-browser", "google-chrome") if shutil.which(c)), None)


def check_site(site, chromium, only):
    """Every page (those matching the regex ONLY, if given) loaded and checked in one Chromium."""
    with tempfile.TemporaryDirectory(prefix="lockstep-browser-") as scratch:
        browser = Chromium(chromium, Path(scratch) / "profile")
        try:
            run = Run(site, Tab(browser), Path(scratch))
            for rel in [p for p in pages(site) if not only or re.search(only, p)]:
                run.check_page(rel)
        finally:
            browser.close()
    if not only:
        run.failures += check_pagers(site, run.pagers)
    if run.readmes and not run.lesson["mo"]:
        run.failures.append(f"no step's README page has a memory-order table (rows anchored mo-N) to measure "
                            f"at {WIDTHS[0]} px")
    return run


def report(run, chromium, seconds):
    for fails, line in run.small_text:
        if not fails:
            print("small text (not failing: the page is not in PHONE_TEXT_PAGES):", line)
    for f in run.failures:
        print("failed:", f)
    small = len(run.small_text)
    print(f"check_browser: {run.figures} figures measured on a phone, {small} with text under {PHONE_TEXT_PX} px "
          f"({sum(fails for fails, _ in run.small_text)} of them on a page of PHONE_TEXT_PAGES, failing)")
    print(f"check_browser: {run.checked} pages loaded in {Path(chromium).name} at {' and '.join(map(str, WIDTHS))} px "
          f"(the course's tables at {SMALL_PHONE} px too) "
          f"in {seconds:.0f} s, {run.images} images, {run.diagrams} diagrams, "
          f"{run.lesson['m']} mutation tables, {run.lesson['mo']} memory-order tables and {run.lesson['ls']} litmus "
          "summaries measured, "
          f"{run.printed} source pages read back from print, {len(run.failures)} problems")
    if run.unprinted:
        line = f"docs.browser: {run.unprinted} source pages not read back: no pdftotext (apt install poppler-utils)"
        print(line)
        log_skip(line)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("site", metavar="SITE", type=lambda s: Path(os.path.abspath(s)),
                   help="the generated site, build/<preset>/docs")
    p.add_argument("--litmus-explorer", type=os.path.abspath, help="the native explore_litmus, which the playground's runs must agree with")
    return p.parse_args()


def main():
    args = parse_args()
    site = args.site
    if not (site / "index.html").is_file():
        sys.exit(f"check_browser: no {site}/index.html: build the docs first")
    chromium = find_chromium()
    if not chromium:
        skip("no Chromium to load the pages in (apt install chromium)")
    only = os.environ.get("LOCKSTEP_BROWSER_PAGES")  # a regex: load only those (while you work on them)
    started = time.monotonic()
    run = check_site(site, chromium, only)
    report(run, chromium, time.monotonic() - started)
    failed = bool(run.failures)
    if not only or re.search(only, "playground.html"):
        pg, skipped = check_playground(site, chromium, args.litmus_explorer)
        report_playground(pg, skipped)
        failed |= bool(pg and pg.failures)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
