"""The litmus playground (docs/playground.md, the page playground.html): the
memory-model chapter's tests, run and edited in the page by explore_litmus
built for the browser (tests/explore/playground, Emscripten).

fill(text, tests, chapter, explorer) fills in the page's marker
`<!-- playground-tests -->` (inside its \\htmlonly block, beside the UI):

  - every test of the chapter's folder (tests/explore/litmus/tests/*.litmus),
    its text as the file has it, its one-line description, and the anchor
    of its block in the chapter when the chapter shows it: embedded in the
    page as JSON, read from the files at every docs build, so that the
    page never holds a stale copy and needs nothing from a server;
  - the scripts: explore_litmus_page.js (the module as a function's text,
    which docs/playground.js hands a Web Worker) when this build has it,
    then docs/playground.js. Without the first, the page says how to get it.

Standard library only.
"""
import json
import re
from pathlib import Path

MARKER = "<!-- playground-tests -->"
EXPLORER_SCRIPT = "explore_litmus_page.js"  # in the site's root, beside the page
PAGE_SCRIPT = "playground.js"


def chapter_anchors(chapter):
    """{test: its block's anchor in litmus.html} for every test the chapter
    shows (a `<!-- litmus NAME -->` marker; docs_litmus.py's slug)."""
    if not chapter.is_file():
        return {}
    names = re.findall(r"<!-- litmus ([^\s|]+)[^\n]*?-->", chapter.read_text(encoding="utf-8"))
    return {n: "litmus-" + re.sub(r"[^A-Za-z0-9]+", "-", n).strip("-").lower() for n in names}


def tests(folder, chapter, abouts):
    """[{name, about, text, anchor}] of every test of FOLDER, by name; ABOUTS:
    {name: its one-line description}, as explore_litmus read it (the one
    parser of the format: pages_course.py asks it)."""
    anchors = chapter_anchors(chapter)
    out = []
    for f in sorted(Path(folder).glob("*.litmus"), key=lambda p: p.stem.lower()):
        text = f.read_text(encoding="utf-8")
        out.append({"name": f.stem, "about": abouts.get(f.stem, ""), "text": text, "anchor": anchors.get(f.stem)})
    return out


def script_json(value):
    """VALUE as JSON that a <script> element holds as it is and Doxygen passes
    through: one line (Doxygen may read a blank line in a block as a
    paragraph), no `<`, `>` or `&` (no `</script>`, nothing an HTML reader
    would take for markup)."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def fill(text, folder, chapter, explorer, abouts):
    """The page's text with its marker replaced by the tests and the scripts;
    EXPLORER: whether the site has explore_litmus for the browser; ABOUTS:
    each test's description (tests())."""
    if MARKER not in text:
        raise ValueError(f"docs/playground.md has no {MARKER} in its \\htmlonly block")
    data = f'<script type="application/json" id="playground-tests">{script_json(tests(folder, chapter, abouts))}</script>'
    scripts = (f'<script src="{EXPLORER_SCRIPT}"></script>' if explorer else "") + f'<script src="{PAGE_SCRIPT}"></script>'
    return text.replace(MARKER, data + scripts)
