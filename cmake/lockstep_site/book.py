"""The course read as a book: every page's previous and next.

The order: the home page, then each step's README, deep page, walkthrough
and lab (those it has), then the course's pages (sitemap.COURSE_READING).
Each page carries the pager at its top, right under its title, and at its
bottom; the site's bar (pages_header.py, the Doxygen header) has the rest.
"""
import html
from pathlib import Path

from lockstep_site import sitemap

STEP_KINDS = (  # (kind, the page's source under the step's dir or docs/, its page)
    ("readme", None, "index.html"),
    ("deep", "deep", "deep.html"),
    ("walkthrough", "walkthroughs", "walkthrough.html"),
    ("lab", "labs", "lab.html"),
)


def pager_html(prev, nxt, next_label="next"):
    """Previous and next, each (href, title) or None, as HTML Doxygen passes through."""
    links = []
    for which, label, target in (("prev", "previous", prev), ("next", next_label, nxt)):
        if target:
            links.append(f'<a class="{which}" href="{html.escape(target[0])}"><span>{label}</span>'
                         f'{html.escape(target[1])}</a>')
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


def step_book(steps, docs):
    """[(id, href from the site's root, title)]: the steps' pages in reading
    order, id "STEP/kind"; steps is [(name, dir)]."""
    out = []
    for step, step_dir in steps:
        for kind, _, page in STEP_KINDS:
            src = step_page_source(kind, step, step_dir, docs)
            if src.exists():
                out.append((f"{step}/{kind}", f"{step}/html/{page}", sitemap.md_title(src)))
    return out


def neighbours(order, key):
    """(previous, next) of key in order, a list of (key, href, title): each (href, title) or None."""
    keys = [k for k, _, _ in order]
    if key not in keys:
        return None
    i = keys.index(key)
    pick = lambda j: order[j][1:] if 0 <= j < len(order) else None
    return pick(i - 1), pick(i + 1)


def whole_book(steps, docs, root):
    """The home page, the steps' pages, the course's pages: [(id, href, title)] from the site's root."""
    course = [(label, f"{label}.html", title) for label, title in sitemap.course_reading(root)]
    return [("home", "index.html", "lockstep: the course")] + step_book(steps, docs) + course


def step_pager(steps, docs, root, page_id):
    """The pager of a step's page (id "STEP/kind"), its links from the step's html/ directory."""
    book = whole_book(steps, docs, root)
    if not sitemap.course_reading(root):  # no course pages: the last page leads home
        book.append(("end", "index.html", "lockstep: the course"))
    ends = neighbours(book, page_id)
    return doxygen_pager(*[(f"../../{e[0]}", e[1]) if e else None for e in ends])


def course_pager(steps, docs, root, label):
    """The pager of a course page (a label of the reading order; else None), its links from the site's root."""
    if label not in dict(sitemap.course_reading(root)):
        return None
    return doxygen_pager(*neighbours(whole_book(steps, docs, root), label))
