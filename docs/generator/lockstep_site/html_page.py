"""The pages the site writes itself, not Doxygen (the source pages, the
diff pages): one HTML document each, with the site's bar at the top and
the look of the Doxygen pages (the bar's and the pager's rules read from
docs/lockstep.css, never repeated here). The bar is built here for every
page, the Doxygen pages' too (pages_header.py puts it in their header).
"""
import argparse
import functools
import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path


# The bar and the pager look as on the Doxygen pages: their rules are read
# from docs/lockstep.css (site_nav_css), never repeated here.
STYLE = """
body { font-family: Roboto, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #222; font-size: 15.6px; }
a { color: #1f5fad; }
main { max-width: 1000px; margin: 0 auto; padding: .4em 1.2rem 2em; box-sizing: border-box; }
main.wide { max-width: 1400px; }
main > p { max-width: 46rem; line-height: 1.6; }
h1 { font-size: 2rem; font-weight: 600; margin: 1.2rem 0 .6rem; }
h2 { font-size: 1rem; margin: 0 0 .4em; font-family: 'DejaVu Sans Mono', monospace; }
code, pre { font-family: 'DejaVu Sans Mono', monospace; font-size: 13px; }
pre { margin: 0; line-height: 1.4; }
.src { border: 1px solid #c4cfe5; background: #fbfcfd; overflow-x: auto; padding: .4em 0; }
.src .l { display: block; white-space: pre; padding-right: 1em; }
.src .l:target { background: #fff3b0; }
.src a.ln { display: inline-block; width: 3.2em; margin-right: 1em; text-align: right;
            color: #999; text-decoration: none; user-select: none; }
.src a.ln:hover { color: #1f5fad; }
.files td { padding: .15em 1.2em .15em 0; }
.file { display: grid; grid-template-columns: 17em minmax(0, 1fr); gap: 1em; align-items: start; margin-bottom: 1.2em; }
.note { position: sticky; top: 0; font-size: 90%; background: #f7f7ee; border-left: 3px solid #cc9; padding: .4em .7em; }
.diff { border: 1px solid #c4cfe5; overflow-x: auto; padding: .3em .5em; background: #fbfcfd; }
.toc td { padding: .1em .8em .1em 0; }
.add { color: #1a7f37; } .del { color: #cf222e; }
/* A file the step adds: its own code, highlighted, on a green rule. */
.file.added .diff { border-left: 4px solid #2da44e; }
.badge { display: inline-block; font-size: 80%; background: #dafbe1; color: #116329; border: 1px solid #2da44e;
  border-radius: 3px; padding: 0 .4em; margin-bottom: .3em; }
/* The README half (lockstep_site/readme_diff.py): the README as a reader
   reads it, section by section. A section's rule says what became of it:
   grey unchanged (folded), amber changed, green new, red removed (folded);
   in a changed section a block on a green or red rule is new or removed,
   and in a block changed in place its words are marked, <del> and <ins>. */
.readme-diff { font-size: 15.6px; line-height: 1.6; min-width: 0; }
.readme-diff p, .readme-diff li { max-width: 46rem; }
.readme-diff p.legend { font-size: 90%; color: #555; margin-top: 0; }
.readme-diff code { font-size: 13px; background: #f1f3f6; padding: 0 .2em; border-radius: 3px; overflow-wrap: break-word; }
.readme-diff pre.md-code { background: #f6f8fa; border: 1px solid #d8dee4; padding: .5em .7em; overflow-x: auto; }
.readme-diff pre.md-code code { background: none; padding: 0; overflow-wrap: normal; }
.readme-diff pre.md-code del, .readme-diff pre.md-code ins { display: block; }
.readme-diff ins { background: #ccf5d6; text-decoration: none; border-radius: 2px; }
.readme-diff del { background: #ffd7d5; color: #82071e; text-decoration: line-through; text-decoration-color: #cf222e99;
  border-radius: 2px; }
.readme-diff .key { padding: 0 .3em; border-radius: 2px; }
.readme-diff .key.ins { background: #dafbe1; } .readme-diff .key.del { background: #ffebe9; }
.sec { border-left: 4px solid #d0d7de; padding: .1em 0 .1em .9em; margin: 0 0 1.1em; }
.sec.changed { border-left-color: #d4a72c; }
.sec.added { border-left-color: #2da44e; }
.sec.removed { border-left-color: #cf222e; }
.sec h3, .sec h4 { display: inline; font-size: 1.15rem; margin: 0; font-weight: 600; }
.sec h4 { font-size: 1.02rem; }
.sec > summary { cursor: pointer; padding: .15em 0; }
.sec > summary::marker { color: #888; }
.sec .sec-body { margin-top: .3em; }
.sec .sec-body h3, .sec .sec-body h4, .sec .sec-body h5, .sec .sec-body h6 { display: block; margin: .8em 0 .3em; }
.sec p.was { font-size: 90%; color: #555; margin: .2em 0; }
.tag { display: inline-block; font-size: 72%; font-weight: normal; line-height: 1.5; padding: 0 .45em; margin-left: .6em;
  border-radius: 3px; border: 1px solid #d0d7de; color: #57606a; background: #f6f8fa; vertical-align: .15em;
  font-family: Roboto, -apple-system, "Segoe UI", sans-serif; letter-spacing: .02em; }
.tag.changed { border-color: #d4a72c; color: #7d4e00; background: #fff8c5; }
.tag.added { border-color: #2da44e; color: #116329; background: #dafbe1; }
.tag.removed { border-color: #cf222e; color: #82071e; background: #ffebe9; }
.tag.moved { border-color: #8c959f; }
.blk { margin: .5em 0; }
div.blk, ul.blk, ol.blk, details.blk { padding: .05em .7em; border-left: 3px solid transparent; }
div.blk.ins { background: #f0fff4; border-left: 3px solid #2da44e; }
div.blk.del, details.blk.del { background: #fff5f5; border-left: 3px solid #cf222e; color: #444; }
details.blk.del > summary { cursor: pointer; color: #82071e; font-size: 90%; padding: .2em 0; }
div.blk.mod, ul.blk.mod, ol.blk.mod, h3.blk.mod, h4.blk.mod, h5.blk.mod { border-left: 3px solid #d4a72c; }
ul.blk, ol.blk { padding-left: 2.2em; }
details.same-run { margin: .5em 0; }
details.same-run > summary { cursor: pointer; color: #666; font-size: 90%; }
.md-table { margin: .6em 0; }
.md-table table { border-collapse: collapse; font-size: 14px; line-height: 1.45; }
.md-table th, .md-table td { border: 1px solid #d0d7de; padding: .3em .55em; vertical-align: top; text-align: left; }
.md-table th { background: #f1f3f6; }
.md-table tr.ins td { background: #e6ffec; }
.md-table tr.del td { background: #ffebe9; color: #555; }
/* The README's list of its sections, beside it (the file's note). */
.note ul.sections { list-style: none; padding: 0; margin: .6em 0 0; font-size: 95%; line-height: 1.5; }
.note ul.sections li.sub { padding-left: 1em; }
.note ul.sections .tag { font-size: 68%; margin-left: .3em; }
.note ul.sections li.same a, .note ul.sections li.removed a { color: #57606a; }
/* A phone: a table's rows become cards, each cell under its column's name. */
@media (max-width: 700px) {
  .md-table table, .md-table thead, .md-table tbody, .md-table tr, .md-table td { display: block; }
  .md-table thead { display: none; }
  .md-table tr { border: 1px solid #d0d7de; margin: 0 0 .6em; }
  .md-table td { border: none; border-top: 1px solid #eaeef2; }
  .md-table td:first-child { border-top: none; font-weight: 600; }
  .md-table td[data-label]::before { content: attr(data-label); display: block; font-size: 80%; color: #666;
    font-weight: normal; }
  .sec { padding-left: .6em; }
}
/* Printed: a long line wraps at the paper's edge instead of being cut. */
@media print { .src .l, .diff pre { white-space: pre-wrap; overflow-wrap: anywhere; }
  .src, .diff { overflow: visible; } }
/* One column: the note above its file, in the flow (sticky, it would lie over the diff). */
@media (max-width: 900px) { .file { grid-template-columns: 1fr; } .note { position: static; } }
h1 { overflow-wrap: anywhere; }
/* A phone: the margins shrink, and a source line still does not wrap (a
   comment's aligned columns would fall apart): .src scrolls sideways in its
   own box. Printed, a line wraps (@media print above). */
@media (max-width: 700px) { main { padding: .4em .5rem 2em; } }
"""


# Printed, no bar and no pager: links a sheet of paper cannot follow (as
# docs/lockstep.css has it for the Doxygen pages, in a rule site_nav_css does
# not copy); after the bar's and the pager's rules, which it overrides.
PRINT = "@media print { nav.lockstep-bar, nav.pager { display: none; } }\n"

LOCKSTEP_CSS = Path(__file__).resolve().parents[2] / "lockstep.css"


def css_rules(text):
    """The top-level rules of a style sheet, (selector, whole rule) each, comments dropped."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rules, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                rule = text[start:i + 1].strip()
                rules.append((rule.split("{", 1)[0].strip(), rule))
                start = i + 1
    return rules


@functools.lru_cache(maxsize=None)
def site_nav_css():
    """docs/lockstep.css's rules for the bar and the pager (and the widths they use)."""
    rules = css_rules(LOCKSTEP_CSS.read_text(encoding="utf-8"))
    return "\n".join(rule for sel, rule in rules
                     if sel == "html" or sel.startswith(("nav.lockstep-bar", "nav.pager"))) + "\n"


WIDE = ' class="wide"'
HERE = ' class="here"'


@dataclass
class Site:
    """The site being written: its root, every step's name in order, the
    repository's docs/; and {step: its directory} (None: steps/<step> beside docs/)."""
    root: Path
    steps: list
    docs: Path
    dirs: dict = None


def name_and_path(text):
    """NAME=PATH, an option's value, as (NAME, Path(PATH))."""
    name, sep, path = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=PATH")
    return name, Path(path)


def add_site_arguments(parser):
    """The command-line options naming the site, for the entry points that write its own pages."""
    parser.add_argument("--site", type=Path, required=True, help="the site's root, build/<preset>/docs")
    parser.add_argument("--docs", type=Path, required=True,
                        help="the repository's docs/ (which steps have a walkthrough, a lab)")
    parser.add_argument("--steps", nargs="+", type=name_and_path, required=True, metavar="NAME=DIR",
                        help="every step as NAME=DIR, in order")


def site_of(args):
    """The Site the options name; and {step: its directory}."""
    dirs = dict(args.steps)
    return Site(args.site, list(dirs), args.docs, dirs), dirs


def page(path, title, nav, body, extra_css="", wide=False):
    """Writes one page at PATH: its title, the bar (nav's HTML), the body in the reading column."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>lockstep: {html.escape(title)}</title>\n<style>{STYLE}{site_nav_css()}{PRINT}{extra_css}</style>\n"
            f"</head><body>\n<nav class=\"lockstep-bar\">{nav}</nav>\n"
            f"<main{WIDE if wide else ''}>\n<h1>{html.escape(title)}</h1>\n"
            f"{body}\n</main>\n</body></html>\n")
    path.write_text(text, encoding="utf-8")


def rel(site, frm, to):
    """The link from page `frm` to page `to`, both paths from the site's root
    (URL paths, not files: posixpath, whose relpath climbs with ..)."""
    return posixpath.relpath(to, posixpath.dirname(frm) or ".")


def step_links(site, r, step, diff_pages=True):
    """The bar's links to a step's own pages: README, walkthrough and lab
    (those docs/ has), diff (from the second step on, when the site has
    diff pages), sources, API."""
    i = site.steps.index(step)
    pages = [f'<b>{html.escape(step)}</b>:', f'<a href="{r(step + "/html/index.html")}">README</a>']
    for directory, name, label in (("walkthroughs", "walkthrough.html", "walkthrough"), ("labs", "lab.html", "lab")):
        if (site.docs / directory / f"{step}.md").is_file():
            pages.append(f'<a href="{r(step + "/html/" + name)}">{label}</a>')
    if i > 0 and diff_pages:
        pages.append(f'<a href="{r("diffs/" + site.steps[i - 1] + ".." + step + ".html")}">diff</a>')
    pages.append(f'<a href="{r("src/steps/" + step + "/index.html")}">sources</a>')
    pages.append(f'<a href="{r(step + "/html/files.html")}">API</a>')
    return f'<span class="pages">{" ".join(pages)}</span>'


# The course's main pages, as the bar of a course page links them: all of
# them on the Doxygen pages, the first ones on a source page outside the steps.
COURSE_LINKS = (("errata.html", "errata"), ("mutants.html", "mutation table"), ("litmus.html", "litmus tests"),
                ("explorer.html", "explorer"), ("labs.html", "labs"), ("glossary.html", "glossary"))
SOURCE_PAGE_LINKS = tuple(link for link in COURSE_LINKS if link[0] in ("errata.html", "mutants.html", "explorer.html"))


def course_links(r, links=COURSE_LINKS):
    """The bar's links to the course's pages, (page, label) each."""
    anchors = " ".join(f'<a href="{r(to)}">{label}</a>' for to, label in links)
    return f'<span class="pages">{anchors}</span>'


def bar(r, steps, here, pages):
    """The site's bar: home, every step (`here` marked), then `pages`'s
    HTML; r(path from the site's root) is a link to that page."""
    links = " ".join(f'<a{HERE if s == here else ""} href="{r(s + "/html/index.html")}" '
                     f'title="{html.escape(s)}">{s[:2]}</a>' for s in steps)
    return f'<a class="brand" href="{r("index.html")}">lockstep</a><span class="steps">steps {links}</span>{pages}'


def nav(site, here, step=None):
    """The site's bar on page `here` (a Doxygen page's: pages_header.py):
    home, the steps, and the step's own pages (else the course's main pages)."""
    r = lambda to: rel(site, here, to)
    pages = step_links(site, r, step) if step in site.steps else course_links(r, SOURCE_PAGE_LINKS)
    return bar(r, site.steps, step, pages)
