#!/usr/bin/env python3
"""check_browser.py SITE: the site's pages as a browser shows them.

Loads in headless Chromium, at 1280 px, every kind of page the site has:
the home page, every step's page, walkthrough and lab, the challenge
answers, every diff page, the course's pages (errata, mutation table,
explorer, glossary, litmus tests...), one API page per step, and every source page; and
fails on:
  - a script error or a console.error (the page's own scripts),
  - a resource that does not load (an image, a script, a style sheet, a
    diagram),
  - an image or a diagram drawn at zero size, or a diagram cut by its frame,
  - raw markup a reader sees: `<tt>` in the text, a `**` or a backtick
    outside code, an inline code span that starts or ends with a backtick,
  - a page wider than the window (1280 px): the reader would have to scroll
    the page sideways (a wide table or code block must scroll in its own box),
  - on a source page, a line that does not read as the file's line.

How: each page is copied into a scratch directory with, first in its head,
a <base> pointing at the page's real directory (so everything it loads is
the site's) and a small script that records errors from the start, then
checks the laid-out page once it and its frames have loaded and writes what
it found into the DOM; `chromium --headless --dump-dom` prints that DOM.
Chromium's own console log (--enable-logging=stderr) is read too.

A source page is also printed to PDF by the same Chromium, on paper 1280 px
wide, and read back with `pdftotext -layout` (poppler-utils): the text as
the glyphs were laid out, not as the DOM holds it. A style that moves a
name out of its line (a grey 4em box around every identifier) or hides it
shows there, as the reader sees it; the DOM's text would still be right.
Each rendered line (from its number to the next) must be the file's line,
blanks collapsed (a line wider than its box may stop at the box's edge,
where the reader scrolls it). The pages of steps 03 and 07, coro.h and the
mutation results are printed (every kind of file the site shows); every
source page with LOCKSTEP_BROWSER_PRINT_ALL=1. The file each page shows is read from src/.sources
(written by cmake/docs_render.py). Without pdftotext this part is skipped
and the summary says so.

LOCKSTEP_BROWSER_PAGES=REGEX loads only the pages whose path matches.

Without Chromium the test says it is skipped, and why (exit 77). Standard
library only.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CHECK = r"""<script>
(function () {
  var found = [];
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href || t.data))
      found.push('did not load: ' + (t.src || t.href || t.data));
    else
      found.push('script error: ' + e.message + ' (' + e.filename + ':' + e.lineno + ')');
  }, true);
  var consoleError = console.error;
  console.error = function () {
    found.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };
  function size(el) { var r = el.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; }
  function shown(el) { return el.getClientRects().length > 0; }
  // Text a reader sees that is markup nobody rendered. Code (pre, code, the
  // source and diff pages, Doxygen's declarations) may hold ** and `.
  var CODE = 'pre, code, tt, kbd, samp, script, style, .fragment, .memItemLeft, .memItemRight, ' +
             '.memname, .memproto, .params, .trace, #lockstep-check';
  function rawMarkup() {
    var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), node, seen = 0;
    while ((node = walk.nextNode()) && seen < 8) {
      var el = node.parentElement, t = node.data;
      if (!el || !el.getClientRects().length) continue;
      var what = null;
      if (/<\/?tt>/.test(t) && !el.closest('code, pre.src, .diff')) what = 'raw <tt>';
      else if (!el.closest(CODE) && t.indexOf('**') >= 0) what = 'a literal **';
      else if (!el.closest(CODE) && t.indexOf('`') >= 0) what = 'a backtick outside code';
      if (what) {
        seen++;
        var at = el.closest('h1, h2, h3, h4, th, td, li, p, div');
        found.push('visible raw markup (' + what + '): "' + (at || el).textContent.trim().slice(0, 90) + '"');
      }
    }
    document.querySelectorAll('code, tt').forEach(function (c) {
      var t = c.textContent;
      if (seen < 8 && !c.closest('pre') && /^`|`$/.test(t) && c.getClientRects().length) {
        seen++;
        found.push('visible raw markup (a backtick inside inline code): "' + t.slice(0, 90) + '"');
      }
    });
  }
  function settled(img) { // an image still loading: wait for it (a busy machine is slow)
    if (img.complete) return Promise.resolve();
    return new Promise(function (done) {
      img.addEventListener('load', done); img.addEventListener('error', done); setTimeout(done, 4000);
    });
  }
  window.addEventListener('load', function () {
    var imgs = Array.prototype.slice.call(document.querySelectorAll('img'));
    Promise.all(imgs.map(settled)).then(check);
  });
  function check() {
    var images = 0, diagrams = 0;
    document.querySelectorAll('img').forEach(function (img) {
      images++;
      var src = img.getAttribute('src');
      if (!img.complete) found.push('image still loading after 4 s: ' + src);
      else if (img.naturalWidth === 0) found.push('image not loaded: ' + src);
      else if (shown(img) && (size(img)[0] === 0 || size(img)[1] === 0)) found.push('image at zero size: ' + src);
    });
    document.querySelectorAll('div.dotgraph iframe, div.dotgraph object, div.dotgraph img, iframe[src$=".svg"], object[type="image/svg+xml"]').forEach(function (frame) {
      if (frame.tagName === 'IMG') return; // counted above
      diagrams++;
      var src = frame.getAttribute('src') || frame.getAttribute('data');
      var s = size(frame);
      if (s[0] === 0 || s[1] === 0) { found.push('diagram at zero size: ' + src); return; }
      var doc = frame.contentDocument;
      var svg = doc && doc.querySelector('svg');
      if (!svg) { found.push('diagram not loaded: ' + src); return; }
      var r = svg.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) found.push('diagram drawn at zero size: ' + src);
      else if (r.width > frame.clientWidth + 2 || r.height > frame.clientHeight + 2)
        found.push('diagram cut by its frame: ' + src + ' is ' + Math.round(r.width) + 'x' + Math.round(r.height) +
                   ' in ' + frame.clientWidth + 'x' + frame.clientHeight);
    });
    rawMarkup();
    var doc = document.documentElement, wide = doc.scrollWidth;
    if (wide > window.innerWidth + 1) {
      var widest = null;
      document.body.querySelectorAll('*').forEach(function (el) {
        var r = el.getBoundingClientRect();
        if (r.right > window.innerWidth + 1 && !widest) widest = el;
      });
      found.push('the page is ' + wide + ' px wide in a ' + window.innerWidth + ' px window (scrolls sideways)' +
                 (widest ? ': first too wide: <' + widest.tagName.toLowerCase() +
                  (widest.className ? ' class="' + widest.className + '"' : '') + '> ' +
                  Math.round(widest.getBoundingClientRect().right) + ' px' : ''));
    }
    var out = document.createElement('pre');
    out.id = 'lockstep-check';
    out.textContent = JSON.stringify({problems: found, images: images, diagrams: diagrams});
    document.body.appendChild(out);
  }
})();
</script>
"""


# The source pages printed and read back: every kind of file (C, header,
# CMake, results table) of two steps, the common header and the mutation
# results (the explorer's files and the litmus tests are loaded, not printed); all of them
# with LOCKSTEP_BROWSER_PRINT_ALL=1 (a print takes a second or two).
PRINTED = r"src/(steps/(03|07)-|common/|tests/mutants/)"
PRINT_ALL = os.environ.get("LOCKSTEP_BROWSER_PRINT_ALL") == "1"


def skip(reason):
    line = f"docs.browser: {reason}"
    print(f"SKIPPED {line}")
    log = os.environ.get("LOCKSTEP_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write(line + "\n")
    sys.exit(77)


def pages(site):
    """Every page to load: the site's Markdown pages, one API page per step,
    the challenge answers, the diffs, the source pages."""
    found = ["index.html"]
    # The course's pages that must exist (the rest are found below).
    for must in ("litmus.html",):
        if not os.path.isfile(os.path.join(site, must)):
            sys.exit(f"check_browser: no {site}/{must}: the course has lost a page")
    for name in sorted(os.listdir(site)):
        p = os.path.join(site, name)
        if re.match(r"\d\d-", name) and os.path.isdir(os.path.join(p, "html")):
            html_dir = os.path.join(p, "html")
            for page in ("index.html", "walkthrough.html", "lab.html", "task_8h.html"):
                if os.path.isfile(os.path.join(html_dir, page)):
                    found.append(f"{name}/html/{page}")
            found += [f"{name}/html/{n}" for n in sorted(os.listdir(html_dir))
                      if n.startswith("md_docs_labs_answers_") and n.endswith(".html")]
        elif name.endswith(".html") and name != "index.html" and not name.startswith(("dir_", "graph_legend")):
            found.append(name)  # the course's pages (errata.html, mutants.html, ...)
    for sub in ("diffs", "src"):
        top = os.path.join(site, sub)
        found += sorted(os.path.relpath(os.path.join(d, n), site)
                        for d, _, names in os.walk(top) for n in names if n.endswith(".html"))
    return found


def source_files(site):
    """{source page: the file it shows}, from src/.sources (docs_render.py)."""
    listing = os.path.join(site, "src", ".sources")
    if not os.path.isfile(listing):
        return {}
    with open(listing, encoding="utf-8") as f:
        return dict(line.rstrip("\n").split("\t", 1) for line in f if "\t" in line)


def rendered_lines(text):
    """{n: the text of rendered line n} from `pdftotext -layout` of a source
    page: a line starts with its number (n+1 after n); a printed line that
    does not is the rest of the line before, pushed down by the layout."""
    lines, n = {}, 0
    started = False
    for row in text.replace("\f", "\n").split("\n"):
        m = re.match(r"^\s*(\d+)(?:\s(.*))?$", row)
        if m and int(m.group(1)) == n + 1:
            n = int(m.group(1))
            lines[n] = m.group(2) or ""
            started = True
        elif started and n and row.strip():
            lines[n] += " " + row.strip()
    return lines


def squeeze(s):
    return " ".join(s.split())


def scrolled(shown, line):
    """A line longer than its box is wide scrolls in the box: the paper
    shows it up to the box's right edge (some 115 characters at 1280 px)."""
    return len(shown) >= 80 and line.startswith(shown)


def check_source(chromium, base_argv, text, disk, rel, scratch):
    """The problems of one source page as printed, or None without pdftotext."""
    pdftotext = shutil.which("pdftotext")
    if not pdftotext:
        return None
    pdf = os.path.join(scratch, "page.pdf")
    if os.path.exists(pdf):
        os.remove(pdf)
    # Paper as wide as the window, no margins: the page laid out as on screen.
    text = re.sub(r"(<head[^>]*>)", lambda m: m.group(1) + "<style>@page { size: 1280px 2400px; margin: 0 }</style>",
                  text, count=1, flags=re.I)
    printed = os.path.join(scratch, "print.html")
    with open(printed, "w", encoding="utf-8") as f:
        f.write(text)
    argv = base_argv + ["--no-pdf-header-footer", f"--print-to-pdf={pdf}", "file://" + printed]
    try:
        subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return [f"{rel}: Chromium did not print it in 120 s"]
    if not os.path.isfile(pdf):
        return [f"{rel}: Chromium printed no PDF"]
    out = subprocess.run([pdftotext, "-layout", pdf, "-"], capture_output=True, text=True)
    shown = rendered_lines(out.stdout)
    with open(disk, encoding="utf-8", errors="replace") as f:
        want = f.read().split("\n")
    if want and want[-1] == "":
        want.pop()
    problems = []
    for n, line in enumerate(want, 1):
        if n not in shown:
            problems.append(f"{rel}: line {n} is not on the printed page (want: {squeeze(line)!r})")
        elif squeeze(shown[n]) != squeeze(line) and not scrolled(squeeze(shown[n]), squeeze(line)):
            problems.append(f"{rel}: line {n} reads {squeeze(shown[n])!r}, the file has {squeeze(line)!r}")
        if len(problems) >= 5:
            problems.append(f"{rel}: (and maybe more lines; the first 5 shown)")
            break
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    site = os.path.abspath(sys.argv[1])
    if not os.path.isfile(os.path.join(site, "index.html")):
        sys.exit(f"check_browser: no {site}/index.html: build the docs first")
    chromium = next((shutil.which(c) for c in ("chromium", "chromium-browser", "google-chrome")
                     if shutil.which(c)), None)
    if not chromium:
        skip("no Chromium to load the pages in (apt install chromium)")
    failures, checked, images, diagrams = [], 0, 0, 0
    printed, unprinted = 0, 0
    sources = source_files(site)
    with tempfile.TemporaryDirectory(prefix="lockstep-browser-") as scratch:
        profile = os.path.join(scratch, "profile")
        only = os.environ.get("LOCKSTEP_BROWSER_PAGES")  # a regex: load only those (while you work on them)
        for rel in [p for p in pages(site) if not only or re.search(only, p)]:
            src = os.path.join(site, rel)
            with open(src, encoding="utf-8") as f:
                text = f.read()
            base = "file://" + os.path.dirname(src) + "/"
            based = re.sub(r"(<head[^>]*>)", lambda m: m.group(1) + f'<base href="{base}">', text, count=1, flags=re.I)
            head = f'<base href="{base}">' + CHECK
            text, n = re.subn(r"(<head[^>]*>)", lambda m: m.group(1) + head, text, count=1, flags=re.I)
            if not n:
                failures.append(f"{rel}: no <head>")
                continue
            copy = os.path.join(scratch, "page.html")
            with open(copy, "w", encoding="utf-8") as f:
                f.write(text)
            base_argv = [chromium, "--headless", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                         "--allow-file-access-from-files", "--window-size=1280,900",
                         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                         "--virtual-time-budget=10000"]
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                base_argv.insert(1, "--no-sandbox")  # root (a container): Chromium's sandbox refuses to start
            argv = base_argv + ["--dump-dom", "file://" + copy]
            try:
                run = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                failures.append(f"{rel}: Chromium did not finish in 120 s")
                continue
            m = re.search(r'<pre id="lockstep-check">(.*?)</pre>', run.stdout, re.S)
            if not m:
                failures.append(f"{rel}: the check did not run (exit {run.returncode}): {run.stderr.strip()[-300:]}")
                continue
            result = json.loads(m.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"'))
            checked += 1
            images += result["images"]
            diagrams += result["diagrams"]
            failures += [f"{rel}: {p}" for p in result["problems"]]
            for line in run.stderr.splitlines():
                if ":CONSOLE(" in line and re.search(r"Uncaught|Error", line):
                    failures.append(f"{rel}: console: {line.split('] ', 1)[-1]}")
            if rel.startswith("src/") and rel[4:-5] in sources and (PRINT_ALL or re.match(PRINTED, rel)):
                problems = check_source(chromium, base_argv, based, sources[rel[4:-5]], rel, scratch)
                if problems is None:
                    unprinted += 1
                else:
                    printed += 1
                    failures += problems
    for f in failures:
        print("failed:", f)
    print(f"check_browser: {checked} pages loaded in {os.path.basename(chromium)}, "
          f"{images} images, {diagrams} diagrams, {printed} source pages read back from print, {len(failures)} problems")
    if unprinted:
        line = f"docs.browser: {unprinted} source pages not read back: no pdftotext (apt install poppler-utils)"
        print(line)
        log = os.environ.get("LOCKSTEP_SKIP_LOG")
        if log:
            with open(log, "a") as f:
                f.write(line + "\n")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
