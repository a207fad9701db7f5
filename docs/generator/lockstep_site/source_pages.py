"""The source pages: SITE/src/<path>.html for each file the site shows,
with its line numbers, each line an anchor #L<n> (the GitHub form the
repository's links use), highlighted by Pygments when it is installed
(plain text otherwise); and each step's list of its files,
SITE/src/steps/<step>/index.html. SITE/src/.sources lists each page and
its file, for tests/docs/check_browser.py.

Each page has previous and next (reading_chain below says why in that order).
"""
import html
import posixpath
import re

from lockstep_site import book, sitemap
from lockstep_site.html_page import nav, page, rel

try:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound
except ImportError:  # the source pages then come out plain
    highlight = None


def source_lines(disk):
    """The file's lines as HTML: highlighted when Pygments knows the language, else escaped."""
    text = disk.read_text(encoding="utf-8", errors="replace")
    lines = None
    if highlight:
        try:
            lexer = get_lexer_for_filename(disk.name, stripnl=False)
            # nowrap: one line of output per line of input, each line's
            # spans closed at its end (Pygments' HtmlFormatter does so).
            lines = highlight(text, lexer, HtmlFormatter(nowrap=True)).split("\n")
        except ClassNotFound:
            pass
    if lines is None:
        lines = [html.escape(line) for line in text.split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# The source pages are reference, not the book: a reader arrives from a
# link in the prose (`src/task.c:42`, a step's "sources") and looks around
# the same code. So previous and next stay among the files of one place,
# in the order its list shows them: a step's files as its index lists them
# (its headers, the declarations the prose names first, then the code,
# then the build), the index first and the step's README before it; and
# the files outside the steps by the course page that presents them (the
# explorer's, the litmus tests', the mutation table's), that page before
# the first and after the last ("back to"): leaving the chain leads back to
# the prose the reader came from.
HOMES = (  # (path prefix, the page that presents those files: its label); the first that fits
    ("tests/explore/litmus/", "litmus"),
    ("tests/explore/", "explorer"),
    ("tests/mutants/", "mutants_readme"),
)


def step_order(step):
    """The order of a step's files in its index: the headers, the code, the rest."""
    return lambda p: (not p.startswith(f"steps/{step}/include/"), not p.startswith(f"steps/{step}/src/"), p)


def outside_home(site, path, titles):
    """(href from the site's root, title) of the page that presents a file
    outside the steps; TITLES: {label: title} of the course's pages."""
    for prefix, label in HOMES:
        if path.startswith(prefix) and label in titles:
            return f"{label}.html", titles[label]
    if path.startswith("common/") and site.steps:  # the shared code: each step's sources list it
        return f"src/steps/{site.steps[0]}/index.html", f"The sources of step {site.steps[0]}"
    return book.HOME[1:]


def reading_chain(site, paths):
    """{page (from the site's root): (previous, next, next's label)}, each
    (href from the site's root, title) or None, for every source page and
    step index of PATHS."""
    root = site.docs.parent
    titles = dict(sitemap.course_reading(root))
    titles.update((label, sitemap.md_title(root / doc)) for label, doc, _, _ in sitemap.STEP_CHAPTERS
                  if (root / doc).exists())
    chains = {}  # a chain's first page (its home: a course page) -> [(page, title)]
    by_step = {}
    for p in paths:
        m = re.match(r"steps/([^/]+)/", p)
        if m:
            by_step.setdefault(m.group(1), []).append(p)
        else:
            home = outside_home(site, p, titles)
            chains.setdefault(home, []).append((f"src/{p}.html", p))
    out = {}
    for step, files in by_step.items():
        dirs = site.dirs or {}
        readme = sitemap.md_title(dirs[step] / "README.md") if step in dirs else f"Step {step}"
        chain = [(f"{step}/html/index.html", readme), (f"src/steps/{step}/index.html", f"The sources of step {step}")]
        chain += [(f"src/{p}.html", p.split("/", 2)[2]) for p in sorted(files, key=step_order(step))]
        out.update(link_chain(chain, back=False))
    for home, files in chains.items():
        # (a folder's README first, then the files in path order)
        files.sort(key=lambda f: (posixpath.dirname(f[1]), not f[1].endswith("README.md"), f[1]))
        out.update(link_chain([home] + files, back=True))
    return out


def link_chain(chain, back):
    """{page: (previous, next, next's label)} along CHAIN, [(page, title)],
    whose first is a page of the prose (written elsewhere, no entry); the
    last page's next is that first page again when BACK ("back to")."""
    out = {}
    for i in range(1, len(chain)):
        nxt = chain[i + 1] if i + 1 < len(chain) else (chain[0] if back else None)
        out[chain[i][0]] = (chain[i - 1], nxt, "back to" if back and i + 1 == len(chain) else "next")
    return out


def pager(here, links):
    """The pager of the page HERE (from the site's root), from its entry of reading_chain."""
    if not links:
        return ""
    prev, nxt, label = links
    return book.pager_html(book.relative(prev, here), book.relative(nxt, here), label)


def source_page(site, path, disk, css, links):
    """SITE/src/<path>.html; the step the file belongs to, or None."""
    # The line number's class is not Pygments' (which gives .n to every name in the code): ln.
    body = "".join(f'<span class="l" id="L{n}"><a class="ln" href="#L{n}">{n}</a>{line}</span>'
                   for n, line in enumerate(source_lines(disk), 1))
    m = re.match(r"steps/([^/]+)/", path)
    step = m.group(1) if m else None
    out = f"src/{path}.html"
    up = (f'<p>From <a href="{rel(site, out, f"src/steps/{step}/index.html")}">the sources of step '
          f'{html.escape(step)}</a>. Each line number is a link (<code>#L48</code>).</p>' if step else "")
    nav_links = pager(out, links.get(out))
    page(site.root / out, path, nav(site, out, step), f'{nav_links}{up}<pre class="src">{body}</pre>{nav_links}', css)
    return step


def step_index(site, step, paths, links):
    """Each step's list of its files: src/steps/<step>/index.html, the headers first, then the code."""
    out = f"src/steps/{step}/index.html"
    rows = "".join(f'<tr><td><a href="{rel(site, out, "src/" + p + ".html")}"><code>'
                   f'{html.escape(p.split("/", 2)[2])}</code></a></td></tr>' for p in sorted(paths, key=step_order(step)))
    coro = rel(site, out, "src/common/include/lockstep/coro.h.html")
    body = (f'<p>Every file of step {html.escape(step)} but its '
            f'<a href="{rel(site, out, step + "/html/index.html")}">README</a>: the headers, the code, '
            f'the build. The code every step shares is <a href="{coro}">'
            f'<code>common/include/lockstep/coro.h</code></a>.</p><table class="files">{rows}</table>')
    nav_links = pager(out, links.get(out))
    page(site.root / out, f"The sources of step {step}", nav(site, out, step), nav_links + body + nav_links)


def source_pages(site, files):
    """Every file's page, each step's index, and src/.sources; files is [(site path, file on disk: a Path)]."""
    css = HtmlFormatter().get_style_defs(".src") if highlight else ""
    links = reading_chain(site, [path for path, _ in files])
    by_step = {}
    for path, disk in files:
        step = source_page(site, path, disk, css, links)
        if step:
            by_step.setdefault(step, []).append(path)
    sources = "".join(f"{path}\t{disk.absolute()}\n" for path, disk in files)
    (site.root / "src" / ".sources").write_text(sources, encoding="utf-8")
    for step, paths in by_step.items():
        step_index(site, step, paths, links)
