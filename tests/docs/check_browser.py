#!/usr/bin/env python3
"""check_browser.py SITE: the site's pages as a browser shows them.

Loads in headless Chromium the home page, every step's page, walkthrough
and lab, every diff page and the course's pages, and fails on:
  - a script error or a console.error (the page's own scripts: Doxygen's
    menus and search),
  - a resource that does not load (an image, a script, a style sheet, a
    diagram),
  - an image or a diagram drawn at zero size, or a diagram cut by its frame.

How: each page is copied into a scratch directory with, first in its head,
a <base> pointing at the page's real directory (so everything it loads is
the site's) and a small script that records errors from the start, then
checks every image and diagram once the page and its frames have loaded and
writes what it found into the DOM; `chromium --headless --dump-dom` prints
that DOM. Chromium's own console log (--enable-logging=stderr) is read too.

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
    var out = document.createElement('pre');
    out.id = 'lockstep-check';
    out.textContent = JSON.stringify({problems: found, images: images, diagrams: diagrams});
    document.body.appendChild(out);
  }
})();
</script>
"""


def skip(reason):
    line = f"docs.browser: {reason}"
    print(f"SKIPPED {line}")
    log = os.environ.get("LOCKSTEP_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write(line + "\n")
    sys.exit(77)


def pages(site):
    found = ["index.html"]
    for name in sorted(os.listdir(site)):
        p = os.path.join(site, name)
        if re.match(r"\d\d-", name) and os.path.isdir(os.path.join(p, "html")):
            for page in ("index.html", "walkthrough.html", "lab.html"):
                if os.path.isfile(os.path.join(p, "html", page)):
                    found.append(f"{name}/html/{page}")
        elif name.endswith(".html") and name != "index.html" and not name.startswith(("dir_", "graph_legend")):
            found.append(name)  # the course's pages (errata.html, mutants.html, ...)
    diffs = os.path.join(site, "diffs")
    if os.path.isdir(diffs):
        found += [f"diffs/{n}" for n in sorted(os.listdir(diffs)) if n.endswith(".html")]
    return found


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
    with tempfile.TemporaryDirectory(prefix="lockstep-browser-") as scratch:
        profile = os.path.join(scratch, "profile")
        for rel in pages(site):
            src = os.path.join(site, rel)
            with open(src, encoding="utf-8") as f:
                text = f.read()
            base = "file://" + os.path.dirname(src) + "/"
            head = f'<base href="{base}">' + CHECK
            text, n = re.subn(r"(<head[^>]*>)", lambda m: m.group(1) + head, text, count=1, flags=re.I)
            if not n:
                failures.append(f"{rel}: no <head>")
                continue
            copy = os.path.join(scratch, "page.html")
            with open(copy, "w", encoding="utf-8") as f:
                f.write(text)
            argv = [chromium, "--headless", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                    "--allow-file-access-from-files", "--window-size=1280,900",
                    f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                    "--virtual-time-budget=10000", "--dump-dom", "file://" + copy]
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                argv.insert(1, "--no-sandbox")  # root (a container): Chromium's sandbox refuses to start
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
    for f in failures:
        print("failed:", f)
    print(f"check_browser: {checked} pages loaded in {os.path.basename(chromium)}, "
          f"{images} images, {diagrams} diagrams, {len(failures)} problems")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
