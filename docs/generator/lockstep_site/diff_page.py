"""The diff pages: SITE/diffs/<prev>..<this>.html, `diff -ruN` of two step
directories, one section per file (diff run on each file of either step,
its header lines labelled as `diff -ruN` names them, without timestamps), the code first and the README last,
each beside what the step README's "Files changed" list says of it;
coloured by Pygments' diff lexer (required), a new file highlighted as its
own language; the README shown section by section, rendered as the reader
reads it, with what changed marked (lockstep_site/readme_diff.py). Each
page is on the reading path, right after its step's README (book.py).
"""
import html
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import step_readme
from lockstep_site import book, sitemap
from step_diff import files_of
from lockstep_site.html_page import nav, page, rel
from lockstep_site.markdown import inline_md
from lockstep_site.readme_diff import readme_half

try:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import DiffLexer, get_lexer_for_filename
    from pygments.util import ClassNotFound
except ImportError:  # no diff pages: configure asks for them only with Pygments
    highlight = None


def file_chunks(prev, prev_dir, this, this_dir):
    """{file: its part of `diff -ruN` of the two steps}, the headers without timestamps.

    diff runs once per file of either step (step_diff.files_of, the list
    the README check compares), -N for a file one step lacks: what
    `diff -ruN` prints for that file, each header line given its name
    (--label) as the README's command prints it (`--- 05-intrusive-list/src/event.c`,
    a student's copy elsewhere by its absolute path), so no timestamp (the
    checkout's, not the step's) is printed. Its own first line is the one
    `diff -ruN` puts before each file."""
    a, b = prev_dir.absolute(), this_dir.absolute()
    for step in (a, b):
        if not step.is_dir():
            sys.exit(f"diff page {prev}..{this}: no step directory {step}")
    if a.parent == b.parent and a.name == prev and b.name == this:
        left, right = prev, this
    else:  # a student's copy somewhere else
        left, right = str(a), str(b)
    chunks = {}
    for name in sorted(files_of(a) | files_of(b)):
        for side in (a / name, b / name):
            if side.exists() and not side.is_file():
                sys.exit(f"diff page {prev}..{this}: {name} is a file in one step, and {side} is not")
        labels = [f"{left}/{name}", f"{right}/{name}"]
        run = subprocess.run(["diff", "-uN", "--label", labels[0], "--label", labels[1], a / name, b / name],
                             capture_output=True, text=True)
        if run.returncode > 1:
            sys.exit(f"diff failed on {name} ({run.returncode}): {run.stderr}")
        if run.returncode == 1:  # they differ (0: the same)
            chunks[name] = f"diff -ruN {labels[0]} {labels[1]}\n" + run.stdout
    return chunks


def code_first(name):
    """The order of a diff's files: the headers, then the sources, then the rest, the README last."""
    return (name == "README.md", not name.startswith("include/"), not name.startswith("src/"), name)


def web_link(url):
    """A README's link, from the diff page: the web's only."""
    return url if re.match(r"https?:", url) else None


def readme_link(step):
    """A link of step STEP's README, from the diff page: the web's as it is;
    a relative one to the site's page of its target (as on the README's own
    page); one to a heading of the README itself, none (the diff page has
    not its anchors)."""
    def link(url):
        if re.match(r"^[a-zA-Z][a-zA-Z+.-]*:", url):
            return url if re.match(r"https?:", url) else None
        if url.startswith("#"):
            return None
        return sitemap.site_href(url, f"steps/{step}", "diffs")
    return link


def file_section(d, name, text, notes):
    """One file's section: its name (a link to its source page), what the README says of it, its diff."""
    anchor = "f-" + re.sub(r"[^A-Za-z0-9]+", "-", name)
    title = html.escape(name)
    if name != "README.md" and (d.this_dir / name).is_file():  # its source page
        title = f'<a href="{rel(d.site, d.out, f"src/steps/{d.this}/{name}.html")}">{title}</a>'
    new_file = not (d.prev_dir / name).exists()
    note = notes.get(name, "(The README's list says nothing of this file.)")
    toc = ""
    if name == "README.md":
        old, new = ((p / name).read_text(encoding="utf-8") if (p / name).is_file() else "" for p in (d.prev_dir, d.this_dir))
        shown, toc, summary = readme_half(old, new, readme_link(d.prev), readme_link(d.this))
        note = (f"The step's README: the article, the idea, what the step fixes and how its tests show it. "
                f"Against step {d.prev}'s: {summary}.")
    elif new_file and (d.this_dir / name).is_file():
        shown = f'<div class="diff new"><pre>{highlight_file(d.this_dir / name, name)}</pre></div>'
    else:
        shown = f'<div class="diff"><pre>{highlight(text, DiffLexer(stripnl=False), HtmlFormatter(nowrap=True))}</pre></div>'
    badge = '<span class="badge">new file</span>' if new_file else ""
    return (f'<section class="file{" added" if new_file else ""}" id="{anchor}">'
            f'<div class="note"><h2>{title}</h2>{badge}{inline_md(note, web_link)}{toc}</div>'
            f'{shown}</section>')


def toc_row(name, text):
    """The table of contents' row of a file: its name, lines added and removed."""
    lines = text.split("\n")
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++"))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("---"))
    anchor = "f-" + re.sub(r"[^A-Za-z0-9]+", "-", name)
    return (f'<tr><td><a href="#{anchor}"><code>{html.escape(name)}</code></a></td>'
            f'<td class="add">+{added}</td><td class="del">-{removed}</td></tr>')


@dataclass
class Diff:
    """The two steps a diff page compares, and where it goes."""
    site: object
    prev: str
    prev_dir: Path
    this: str
    this_dir: Path

    @property
    def out(self):
        return f"diffs/{self.prev}..{self.this}.html"


def diff_page(site, prev, prev_dir, this, this_dir):
    """SITE/diffs/<prev>..<this>.html."""
    d = Diff(site, prev, prev_dir, this, this_dir)
    chunks = file_chunks(prev, prev_dir, this, this_dir)
    notes, after = step_readme.files_changed(this_dir / "README.md")
    names = sorted(chunks, key=code_first)
    plain = (f'Plain text: <a href="{prev}..{this}.code.diff">the code</a>, '
             f'<a href="{prev}..{this}.diff">with the README</a>. '
             f'The same from a shell: <code>diff -ruN steps/{prev} steps/{this}</code>.')
    body = (f"<p>What step {this} changes in step {prev}, file by file: the headers and the code first, "
            f"the README last. Beside each file, what the README's "
            f"<a href=\"../{this}/html/index.html\">Files changed</a> list says of it. {plain}</p>\n"
            + (f"<p>{inline_md(after)}</p>\n" if after else "")
            + f'<table class="toc">{"".join(toc_row(n, chunks[n]) for n in names)}</table>\n'
            + "\n".join(file_section(d, n, chunks[n], notes) for n in names))
    links = book.site_pager(site, d.out, f"diff/{this}")
    page(site.root / d.out, f"The diff from {prev} to {this}", nav(site, d.out, this), links + body + links,
         HtmlFormatter().get_style_defs(".diff") + HtmlFormatter().get_style_defs(".new"), wide=True)


def highlight_file(path, name):
    """A file the step adds, highlighted as its own language (not as a
    block of + lines)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        lexer = get_lexer_for_filename(name, stripnl=False)
    except ClassNotFound:
        return html.escape(text)
    return highlight(text, lexer, HtmlFormatter(nowrap=True))
