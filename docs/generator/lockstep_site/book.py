"""The course read as a book: every page's previous and next.

The reading order, which the home page's list follows too (pages_course.py):

  - the home page;
  - each step: its README; then the chapters the step first needs
    (sitemap.STEP_CHAPTERS: the memory-model chapter after step 01's
    README); from step 02 on, the diff from the step before (the code
    first, the README last), right after the README: the README says
    what changes and why, and lists the files changed, and the diff then
    shows those files' changes, each beside its line of that list, before
    the deep page, the walkthrough and the lab take the new code apart;
    then its deep page, walkthrough and lab (those it has);
  - the course's pages after the steps (sitemap.COURSE_READING).

Each page carries the pager at its top, right under its title, and at its
bottom; the site's bar (pages_header.py, the Doxygen header) has the rest.
The reference pages off this path (a step's source pages, its API pages)
have pagers of their own kind: source_pages.py, api_pages.py.
"""
import html
import importlib.util
import posixpath
import re
from pathlib import Path

from lockstep_site import sitemap

STEP_KINDS = (  # (kind, the page's source under the step's dir or docs/, its page)
    ("readme", None, "index.html"),
    ("deep", "in-depth", "deep.html"),
    ("walkthrough", "walkthroughs", "walkthrough.html"),
    ("lab", "labs", "lab.html"),
)

HOME = ("home", "index.html", "lockstep: the course")


def diff_pages_default():
    """Whether the site has diff pages: docs/CMakeLists.txt writes them when
    the interpreter that writes every page (LOCKSTEP_DOCS_PYTHON, the first
    with Pygments) has Pygments, so this interpreter knows."""
    return importlib.util.find_spec("pygments") is not None


def breakable(title):
    """A title as HTML, a long name in it (a file's path, a struct's name:
    tests/explore/litmus/tests/MP+rel+acq.litmus) with a break point after
    each slash, dot, underscore and + (a phone's half-width link wraps it
    there, instead of running over the page's edge)."""
    return " ".join(re.sub(r"(?<=[/._+])(?=[^/._+])", "<wbr>", html.escape(w)) if len(w) > 14 else html.escape(w)
                    for w in title.split(" "))


def pager_html(prev, nxt, next_label="next", prev_label="previous"):
    """Previous and next, each (href, title) or None, as HTML Doxygen passes through."""
    links = []
    for which, label, target in (("prev", prev_label, prev), ("next", next_label, nxt)):
        if target:
            links.append(f'<a class="{which}" href="{html.escape(target[0])}"><span>{label}</span>'
                         f'{breakable(target[1])}</a>')
    return f'<nav class="pager">{"".join(links)}</nav>' if links else ""


def doxygen_pager(prev, nxt, next_label="next"):
    """The pager as a Doxygen page holds it: a raw HTML block."""
    return "\\htmlonly[block]" + pager_html(prev, nxt, next_label) + "\\endhtmlonly"


def with_pager(text, pager):
    """The page's text with the pager (its own line) right after the first
    line, its "# " title, and again at its end."""
    title, _, rest = text.partition("\n")
    return f"{title}\n\n{pager}\n{rest.rstrip(chr(10))}\n\n{pager}\n"


def step_page_source(kind, step, step_dir, docs):
    """The Markdown file of a step's page of that kind."""
    for k, directory, _ in STEP_KINDS:
        if k == kind:
            return Path(step_dir) / "README.md" if directory is None else Path(docs) / directory / f"{step}.md"
    raise ValueError(kind)


def diff_href(prev, step):
    """The diff page of STEP against PREV, from the site's root."""
    return f"diffs/{prev}..{step}.html"


def step_book(steps, docs, root=None, diff_pages=None):
    """[(id, href from the site's root, title)]: the steps' pages in reading
    order, id "STEP/kind", a chapter's id its label, a diff's "diff/STEP";
    steps is [(name, dir)]; ROOT, the repository (its chapters), by default
    docs/'s parent; DIFF_PAGES, whether the site has diff pages (by default:
    diff_pages_default())."""
    root = Path(root) if root else Path(docs).parent
    diffs = diff_pages_default() if diff_pages is None else diff_pages
    out = []
    for n, (step, step_dir) in enumerate(steps):
        for kind, _, page in STEP_KINDS:
            src = step_page_source(kind, step, step_dir, docs)
            if src.exists():
                out.append((f"{step}/{kind}", f"{step}/html/{page}", sitemap.md_title(src)))
            if kind == "readme":
                out += [(label, f"{label}.html", title) for label, title in sitemap.step_chapters(root, n, kind)]
                if n and diffs:
                    prev = steps[n - 1][0]
                    out.append((f"diff/{step}", diff_href(prev, step), f"The diff from {prev} to {step}"))
    return out


def neighbours(order, key):
    """(previous, next) of key in order, a list of (key, href, title): each (href, title) or None."""
    keys = [k for k, _, _ in order]
    if key not in keys:
        return None
    i = keys.index(key)
    pick = lambda j: order[j][1:] if 0 <= j < len(order) else None
    return pick(i - 1), pick(i + 1)


def whole_book(steps, docs, root, diff_pages=None):
    """The home page, the steps' pages, the course's pages: [(id, href, title)] from the site's root.
    Without course pages, the last step's lab leads home ("end")."""
    course = [(label, f"{label}.html", title) for label, title in sitemap.course_reading(root)]
    book = [HOME] + step_book(steps, docs, root, diff_pages) + course
    if not course:
        book.append(("end", "index.html", HOME[2]))
    return book


def relative(target, here):
    """TARGET, (href from the site's root, title) or None, as a link from the page HERE (from the site's root)."""
    if not target:
        return None
    return posixpath.relpath(target[0], posixpath.dirname(here) or "."), target[1]


def step_pager(steps, docs, root, page_id, diff_pages=None):
    """The pager of a step's page (id "STEP/kind"), its links from the step's html/ directory."""
    ends = neighbours(whole_book(steps, docs, root, diff_pages), page_id)
    here = f"{page_id.split('/')[0]}/html/index.html"
    return doxygen_pager(*[relative(e, here) for e in ends])


def course_pager(steps, docs, root, label, diff_pages=None):
    """The pager of a course page (an id of the reading order: a chapter's or
    a course page's label; else None), its links from the site's root."""
    ends = neighbours(whole_book(steps, docs, root, diff_pages), label)
    return doxygen_pager(*ends) if ends else None


def site_pager(site, here, page_id):
    """The pager of a page the site writes itself (a diff page) at HERE
    (from the site's root), by its id in the reading order; "" if it has none."""
    dirs = site.dirs or {s: Path(site.docs).parent / "steps" / s for s in site.steps}
    book = whole_book([(s, dirs[s]) for s in site.steps], site.docs, Path(site.docs).parent, diff_pages=True)
    ends = neighbours(book, page_id)
    return pager_html(*[relative(e, here) for e in ends]) if ends else ""
