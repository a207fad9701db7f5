#!/usr/bin/env python3
"""check_stepper.py SITE: the trace steppers, and the walkthroughs' figures on a phone.

A stepper (docs/generator/lockstep_site/stepper.py, docs/stepper.js) ties a trace
table to an execution graph: the reader steps through the trace row by row
and sees each row's event lit in the graph. For every page of the site that
has one (a walkthrough's graph, the litmus chapter's), and for every
walkthrough page, this fails on:

  In the pages as written (HTML and SVG files):
  - a stepper with no trace or no graph, a page with a stepper but not
    its script (stepper.js, loaded by the page and beside it), or the site
    with no stepper at all;
  - a trace row that is an event of the graph (the SVG has a node of class
    line-N, N the row's line) without a mark in that layout of the graph
    (wide, and phone), or a mark of a line that is no row of the trace or
    no event of that layout.

  In headless Chromium, at 1280 px and at 390 px (a phone):
  - the script not started (the controls, one bar per part, not there);
  - stepping: the keys (j, the arrows, k, Home, End) from the trace, each
    row made current in turn, a click on a row, the "next step" and
    "previous step" buttons, j from anywhere else on the page, and the
    address #step=NAME:N each make the expected row the current one, lit
    alone, and light exactly the marks of its line in the layout the
    browser shows, each lying on its event's box as the browser draws that
    SVG (the SVG itself laid over the image, its node of class line-N
    measured), to 1.5 px;
  - at 390 px, a control bar or a button wider than the window or the
    column, or cut off;
  - without script: a control shown, a mark shown, a row lit; printed
    (after stepping): the same;
  - on a walkthrough page at 390 px, a diagram or a graph (div.dotgraph)
    whose smallest text, as drawn (the font-size of the SVG the browser
    shows, scaled as the image is), is under 11 CSS px: the issue's "text
    at 11 px or more on a phone, or a phone layout of its own"
    (measured, so what fonts the machine has cannot change the verdict:
    the size is the SVG's, the scale the image's box).

Chromium is driven over its DevTools pipe by tests/docs/check_browser.py's
Chromium class (imported, not copied). Without Chromium the test says it
is skipped, and why (exit 77). Standard library only.
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_browser import Chromium, find_chromium, log_skip  # noqa: E402 (beside this file)

WIDTHS = (1280, 390)
LEAST_TEXT_PX = 11.0
TOLERANCE_PX = 1.5
SVG_NS = "{http://www.w3.org/2000/svg}"


# ---- the pages as written ---------------------------------------------------------------------

class Steppers(HTMLParser):
    """A page's steppers: {name: {"rows": [line], "marks": {layout: [line]}, "trace": n, "figure": n}},
    and the scripts it loads."""

    def __init__(self):
        super().__init__()
        self.found, self.scripts = {}, []
        self.open = []  # [(tag, stepper name or None)] of the elements open
        self.layout = None

    def current(self):
        return next((name for _, name in reversed(self.open) if name), None)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("data-stepper")
        if tag == "script" and a.get("src"):
            self.scripts.append(a["src"])
        if name:
            s = self.found.setdefault(name, {"rows": [], "marks": {}, "trace": 0, "figure": 0})
            s["trace" if "trace" in a.get("class", "").split() else "figure"] += 1
        if tag in ("br", "img", "source", "meta", "link", "input", "hr"):
            return
        self.open.append((tag, name))
        where = self.current()
        if not where:
            return
        if tag == "tr" and a.get("data-line"):
            self.found[where]["rows"].append(int(a["data-line"]))
        if "stepper-marks" in a.get("class", "").split():
            self.layout = a.get("data-for", "")
            self.found[where]["marks"].setdefault(self.layout, [])
        if "stepper-mark" in a.get("class", "").split() and self.layout is not None:
            self.found[where]["marks"][self.layout].append(int(a.get("data-line", "0")))

    def handle_endtag(self, tag):
        while self.open:
            t, _ = self.open.pop()
            if t == tag:
                break
        if tag == "span" and not any(t == "span" for t, _ in self.open):
            self.layout = None


def svg_events(path):
    """The trace lines an SVG drawn from graph.c's DOT has a box for (its nodes' class line-N)."""
    lines = set()
    for g in ET.parse(path).getroot().iter(SVG_NS + "g"):
        classes = (g.get("class") or "").split()
        if "node" in classes:
            lines |= {int(c[5:]) for c in classes if c.startswith("line-") and c[5:].isascii() and c[5:].isdigit()}
    return lines


def check_written(site, page):
    """The problems of PAGE's steppers as written, and their names."""
    parser = Steppers()
    parser.feed(page.read_text(encoding="utf-8"))
    rel, problems = page.relative_to(site), []
    for name, s in parser.found.items():
        if not s["trace"] or not s["figure"]:
            problems.append(f"{rel}: stepper {name} has {'no trace' if not s['trace'] else 'no graph'}")
        if not s["marks"]:
            problems.append(f"{rel}: stepper {name}'s graph has no marks")
        rows = set(s["rows"])
        for layout, marked in s["marks"].items():
            svg = page.parent / unquote(layout)
            if not svg.is_file():
                problems.append(f"{rel}: stepper {name}: no {layout} beside the page")
                continue
            events = svg_events(svg)
            for line in sorted(rows & events - set(marked)):
                problems.append(f"{rel}: stepper {name}: trace line {line} is an event of {layout}, and has no mark")
            for line in sorted(set(marked) - rows):
                problems.append(f"{rel}: stepper {name}: a mark of line {line} in {layout}, which is no row of its trace")
            for line in sorted(set(marked) - events):
                problems.append(f"{rel}: stepper {name}: a mark of line {line} in {layout}, which has no box of it")
    if parser.found:
        scripts = [s for s in parser.scripts if s.split("/")[-1] == "stepper.js"]
        if not scripts:
            problems.append(f"{rel}: has a stepper and does not load stepper.js")
        elif not (page.parent / unquote(scripts[0])).is_file():
            problems.append(f"{rel}: loads {scripts[0]}, which is not beside it")
    return list(parser.found), problems


# ---- in the browser ---------------------------------------------------------------------------

# Added to the page (Runtime.evaluate): what the check reads of it (check_stepper.js, beside this file).
PROBE = (Path(__file__).resolve().parent / "check_stepper.js").read_text(encoding="utf-8")

KEYS = {  # (key, code, Windows key code)
    "j": ("j", "KeyJ", 74), "k": ("k", "KeyK", 75), "ArrowDown": ("ArrowDown", "ArrowDown", 40),
    "ArrowRight": ("ArrowRight", "ArrowRight", 39), "ArrowUp": ("ArrowUp", "ArrowUp", 38),
    "Home": ("Home", "Home", 36), "End": ("End", "End", 35),
}


class Page:
    """One tab of the browser, on one page."""

    def __init__(self, browser):
        self.b = browser
        self.s = browser.new_tab()

    def width(self, w):
        self.b.call("Emulation.setDeviceMetricsOverride",
                    {"width": w, "height": 900, "deviceScaleFactor": 1, "mobile": w < 600}, session=self.s)

    def load(self, url, script=True):
        self.b.call("Emulation.setScriptExecutionDisabled", {"value": not script}, session=self.s)
        # (by way of a blank page: from the same page, an address that differs
        # in its #fragment only would not load it again)
        for u in ("about:blank", url):
            self.b.events = [e for e in self.b.events if e.get("sessionId") != self.s]
            self.b.call("Page.navigate", {"url": u}, session=self.s)
            self.b.wait_event("Page.loadEventFired", self.s, timeout=30)
        # (evaluated as DevTools' own script: it runs where the page's scripts are disabled too)
        self.js(PROBE + "; document.fonts ? document.fonts.ready.then(function () { return 1; }) : 1")

    def js(self, expr):
        r = self.b.call("Runtime.evaluate", {"expression": expr, "awaitPromise": True, "returnByValue": True},
                        session=self.s)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("exception", {}).get("description") or
                               r["exceptionDetails"].get("text", "the probe failed"))
        return r["result"].get("value")

    def probe(self, call):
        return self.js(f"window.__stepperProbe.{call}")

    def key(self, name):
        key, code, vk = KEYS[name]
        text = {"text": key} if len(key) == 1 else {}
        for kind in ("keyDown", "keyUp"):
            self.b.call("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code,
                                                   "windowsVirtualKeyCode": vk, **(text if kind == "keyDown" else {})},
                        session=self.s)

    def click(self, xy):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.b.call("Input.dispatchMouseEvent", {"type": kind, "x": xy[0], "y": xy[1], "button": "left",
                                                     "clickCount": 1}, session=self.s)

    def media(self, kind):
        self.b.call("Emulation.setEmulatedMedia", {"media": kind}, session=self.s)


def same_box(a, b):
    return all(abs(x - y) <= TOLERANCE_PX for x, y in zip(a, b))


class Stepping:
    """One stepper of one page at one width, stepped as a reader does: its problems."""

    def __init__(self, tab, where, name):
        self.tab, self.where, self.name, self.problems = tab, where, name, []
        self.lines = tab.probe(f"lines({json.dumps(name)})")

    def expect(self, k, how, st=None):
        """Row K (None: none) is the current one, alone, and its line's
        marks show, alone, each on its box (ST: the state read, if it was)."""
        st = st or self.tab.probe(f"state({json.dumps(self.name)})")
        line = self.lines[k] if k is not None else None
        said = f"{self.where}: stepper {self.name}, {how}"
        if st["lit"] != ([line] if line else []):
            self.problems.append(f"{said}: want row {line or 'none'} lit, lit: {st['lit'] or 'none'}")
            return False
        boxes = st["boxes"].get(line, []) if line else []
        shown = st["marks"]
        if sorted(m["line"] for m in shown) != [line] * len(boxes):
            self.problems.append(f"{said}: want {len(boxes)} mark(s) of line {line} shown in {st['layout']}, "
                                 f"shown: {[m['line'] for m in shown] or 'none'}")
            return False
        for m in shown:
            if not any(same_box(m["rect"], b) for b in boxes):
                self.problems.append(f"{said}: the mark of line {line} lies at {[round(x, 1) for x in m['rect']]} "
                                     f"(from the image's corner), its box in {st['layout']} at "
                                     f"{[[round(x, 1) for x in b] for b in boxes]}")
                return False
        return True

    def run(self):
        """The keys from the trace, then every row (its marks on their boxes),
        a click on a row, the graph's buttons, j from elsewhere."""
        t, n, name = self.tab, len(self.lines), json.dumps(self.name)
        if not n:
            self.problems.append(f"{self.where}: stepper {self.name} has no rows")
            return self.problems
        if not self.expect(None, "before any step"):
            return self.problems
        if not t.probe(f"focusTrace({name})"):
            self.problems.append(f"{self.where}: stepper {self.name}'s trace cannot take the focus (for its keys)")
            return self.problems
        keys = ("j", "ArrowDown", "ArrowRight")
        for k in range(min(n, len(keys))):  # the keys that go forward, from the start
            t.key(keys[k])
            if not self.expect(k, f"after {', '.join(keys[:k + 1])} in its trace"):
                return self.problems
        for key, k, how in (("End", n - 1, "End"), ("j", n - 1, "End, j (past the last row: it stays)"),
                            ("k", max(0, n - 2), "End, j, k"), ("ArrowUp", max(0, n - 3), "End, j, k, the up arrow"),
                            ("Home", 0, "Home")):
            t.key(key)
            if not self.expect(k, f"after {how} in its trace"):
                return self.problems
        # every row: made current (as a click does, in the page: one call for all)
        for k, st in enumerate(t.probe(f"sweep({name})")):
            if not self.expect(k, f"at row {self.lines[k]}", st):
                return self.problems
        k = n // 2
        t.click(t.probe(f"rowAt({name}, {k})"))
        if not self.expect(k, f"after a click on row {self.lines[k]}"):
            return self.problems
        for which, step in ((".stepper-next", 1), (".stepper-prev", -1)):
            at = t.probe(f"buttonAt({name}, {json.dumps(which)})")
            if not at:
                self.problems.append(f"{self.where}: stepper {self.name}'s graph has no {which[9:]} button")
                return self.problems
            k = min(max(k + step, 0), n - 1)
            t.click(at)
            if not self.expect(k, f"after a click on the graph's {which[9:]} button"):
                return self.problems
        t.probe(f"away({name})")
        t.key("j")
        self.expect(min(k + 1, n - 1), "after j, nothing focused, the graph in view")
        return self.problems


def check_page(tab, site, page, names, width):
    """PAGE's steppers at WIDTH, in one load of the page (a page may have
    many): each stepped, then started from the address (#step=NAME:N: the
    first as the page loads, the others as the address changes), then, on
    a phone, its controls' fit at each of its rows."""
    rel, problems = page.relative_to(site), []
    url, where = page.resolve().as_uri(), f"{rel} at {width} px"
    tab.width(width)
    tab.load(url)
    if not tab.probe(f"state({json.dumps(names[0])})")["bars"]:
        return [f"{where}: the stepper's script did not start (no controls)"]
    for name in names:
        problems += Stepping(tab, where, name).run()
    for i, name in enumerate(names):
        lines = tab.probe(f"lines({json.dumps(name)})")
        if len(lines) < 2:
            continue
        address = f"#step={name}:{lines[1]}"
        if i == 0:
            tab.load(url + address)
        else:
            tab.js(f"window.location.hash = {json.dumps(address)}; new Promise(function (r) {{ setTimeout(r, 50); }})")
        s = Stepping(tab, where, name)
        s.expect(1, f"{'loaded at' if i == 0 else 'the address changed to'} {address}")
        problems += s.problems
    if width < 600:
        problems += [f"{where}: stepper {name}: {p}" for name in names
                     for p in tab.probe(f"controlsFit({json.dumps(name)})")]
    return problems


def check_quiet(tab, site, page, names):
    """Without script, and printed after stepping: no control, no mark, no row lit."""
    rel, url = page.relative_to(site), page.resolve().as_uri()
    tab.width(WIDTHS[0])
    tab.load(url, script=False)
    problems = [f"{rel} without script: {p}" for p in tab.probe("quiet()")]
    if tab.js("document.documentElement.classList.contains('stepper-ready')"):
        problems.append(f"{rel}: loaded without script, the stepper started all the same (the check cannot "
                        "see the page without script)")
    tab.load(f"{url}#step={names[0]}:{tab.probe(f'lines({json.dumps(names[0])})')[0]}")
    tab.media("print")
    problems += [f"{rel} printed: {p}" for p in tab.probe("quiet()")]
    tab.media("")
    return problems


def check_text(tab, site, page):
    """A walkthrough's diagrams and graphs at a phone's width: their text at LEAST_TEXT_PX or more."""
    rel = page.relative_to(site)
    tab.width(390)
    tab.load(page.resolve().as_uri())
    found = tab.probe("textSizes()")
    problems = [f"{rel} at 390 px: {f['image']}'s text is {f['px']:.1f} px (\"{f['text'][:30]}\"; the image "
                f"{f['natural']:.0f} pt wide, shown {f['shown']} px), under {LEAST_TEXT_PX:.0f} px"
                for f in found if f["px"] < LEAST_TEXT_PX - 0.05]
    return len(found), problems


def stepper_pages(site):
    """Every page of the site with a stepper (data-stepper), and every walkthrough page."""
    pages = sorted(p for p in site.rglob("*.html") if "/src/" not in p.as_posix() and "/diffs/" not in p.as_posix())
    with_steppers = [p for p in pages if "data-stepper=" in p.read_text(encoding="utf-8", errors="replace")]
    walkthroughs = sorted(site.glob("[0-9][0-9]-*/html/walkthrough.html"))
    return with_steppers, walkthroughs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("site", type=lambda s: Path(os.path.abspath(s)), help="the generated site, build/<preset>/docs")
    site = p.parse_args().site
    with_steppers, walkthroughs = stepper_pages(site)
    problems, names = [], {}
    if not with_steppers:
        problems.append(f"no page of {site} has a stepper (data-stepper): a walkthrough's graph should")
    for page in with_steppers:
        names[page], found = check_written(site, page)
        problems += found
    chromium = find_chromium()
    if not chromium:
        for line in problems:
            print("failed:", line)
        line = "docs.stepper: the pages not loaded in a browser: no Chromium (apt install chromium)"
        print(f"SKIPPED {line}")
        log_skip(line)
        sys.exit(1 if problems else 77)
    started, figures = time.monotonic(), 0
    with tempfile.TemporaryDirectory(prefix="lockstep-stepper-") as scratch:
        browser = Chromium(chromium, Path(scratch) / "profile")
        try:
            tab = Page(browser)
            for page in with_steppers:
                for w in WIDTHS:
                    problems += check_page(tab, site, page, names[page], w)
                problems += check_quiet(tab, site, page, names[page])
            for page in walkthroughs:
                n, found = check_text(tab, site, page)
                figures += n
                problems += found
        finally:
            browser.close()
    for line in problems:
        print("failed:", line)
    steppers = sum(len(n) for n in names.values())
    print(f"check_stepper: {steppers} steppers on {len(with_steppers)} pages stepped at "
          f"{' and '.join(map(str, WIDTHS))} px, without script and printed; {figures} figures of "
          f"{len(walkthroughs)} walkthroughs measured at 390 px; {time.monotonic() - started:.0f} s; "
          f"{len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
