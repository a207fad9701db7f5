#!/usr/bin/env python3
"""The site's generated HTML pages that Doxygen does not write.

  docs_render.py sources SITE STEPS_LIST FILE...
      SITE/src/<path>.html for each FILE, given as <path>=<file on disk>:
      the file with its line numbers, each line an anchor #L<n> (the
      GitHub form the repository's links use). Highlighted by Pygments
      when it is installed; plain text otherwise.

  docs_render.py diff SITE STEPS_LIST PREV=DIR THIS=DIR
      SITE/diffs/<prev>..<this>.html: `diff -ruN` of the two step
      directories, one section per file, the code first and the README
      last, each beside what the step README's "Files changed" list says of
      it; coloured by Pygments' diff lexer (required: without Pygments
      configure does not ask for diff pages).

  docs_render.py prep PAGE PAGE_DIR [SITE_PATH=DISK...]
      Rewrites the Markdown page PAGE (a copy in the build tree) into what
      Doxygen 1.9 renders as written: a heading holding `code` becomes an
      HTML heading (Doxygen prints a heading's markup as text: "<tt>"); a
      ``double-backtick`` span becomes <code> (one that quotes Markdown,
      backticks and all, becomes that Markdown: what a table cell shows); straight quotes around a
      code span become curly ones (Doxygen reads nothing inside "..."); a
      "file:" that is no link is escaped (Doxygen makes `file:line` an
      href); and a code span naming a source file the site shows
      (`src/task.c`, `event.c:55`) becomes a link to its source page, line
      anchor included. PAGE_DIR is the page's directory from the site's
      root; each SITE_PATH=DISK is a directory or a file the site has
      source pages for; those marked +SITE_PATH=DISK are the page's own
      step (and coro.h), where a short name (`task.c`) is looked up.

  docs_render.py verdicts-first PAGE
      Reorders the columns of the mutation table's Markdown (a copy in the
      build tree) so that each mutant's verdicts come right after it.

STEPS_LIST is every step's name, `,`-separated, for the navigation bar.
Standard library plus Pygments only: a diff or a C file is highlighted by a
tool made for it, not by this script.
"""
import functools
import html
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docs_glossary  # noqa: E402 (beside this file in cmake/)
import step_readme  # noqa: E402
from lockstep_site.book import pager_html as pager  # noqa: E402 (the one pager)

try:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import DiffLexer, get_lexer_for_filename
    from pygments.util import ClassNotFound
except ImportError:  # the source pages then come out plain
    highlight = None

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
/* The README's diff, rendered: lines wrap. */
.diff.md { font-size: 15px; line-height: 1.5; }
.diff.md div { white-space: pre-wrap; overflow-wrap: anywhere; padding: 0 .4em 0 1.6em; text-indent: -1.2em; }
.diff.md div.add { background: #e6ffec; color: inherit; }
.diff.md div.del { background: #ffebe9; color: inherit; }
.diff.md div.hunk { color: #777; font-family: monospace; font-size: 12px; }
.diff.md .mark { display: inline-block; width: 1.2em; text-indent: 0; font-family: monospace; color: #777; }
.diff.md code { font-size: 13px; }
.diff.md div.code code { white-space: pre-wrap; background: none; }
/* Printed: a long line wraps at the paper's edge instead of being cut. */
@media print { .src .l, .diff pre { white-space: pre-wrap; overflow-wrap: anywhere; }
  .src, .diff { overflow: visible; } }
@media (max-width: 900px) { .file { grid-template-columns: 1fr; } }
h1 { overflow-wrap: anywhere; }
/* A phone: a long line wraps under itself rather than widen the page. */
@media (max-width: 700px) { main { padding: .4em .5rem 2em; }
  .src .l { white-space: pre-wrap; overflow-wrap: anywhere; } }
"""


LOCKSTEP_CSS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs", "lockstep.css")


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
    with open(LOCKSTEP_CSS, encoding="utf-8") as f:
        rules = css_rules(f.read())
    return "\n".join(rule for sel, rule in rules
                     if sel == "html" or sel.startswith(("nav.lockstep-bar", "nav.pager"))) + "\n"


WIDE = ' class="wide"'
HERE = ' class="here"'


def page(path, title, nav, body, extra_css="", wide=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"<title>lockstep: {html.escape(title)}</title>\n<style>{STYLE}{site_nav_css()}{extra_css}</style>\n"
                f"</head><body>\n<nav class=\"lockstep-bar\">{nav}</nav>\n"
                f"<main{WIDE if wide else ''}>\n<h1>{html.escape(title)}</h1>\n"
                f"{body}\n</main>\n</body></html>\n")


def rel(site, frm, to):
    """The link from page `frm` to page `to`, both paths from the site's root."""
    return os.path.relpath(os.path.join(site, to), os.path.dirname(os.path.join(site, frm)))


def nav(site, here, steps, step=None):
    """The site's bar (the Doxygen pages' is docs/CMakeLists.txt's): home, the
    steps, and the step's own pages."""
    r = lambda to: rel(site, here, to)
    items = [f'<a class="brand" href="{r("index.html")}">lockstep</a>']
    links = " ".join(f'<a{HERE if s == step else ""} href="{r(s + "/html/index.html")}" '
                     f'title="{html.escape(s)}">{s[:2]}</a>' for s in steps)
    items.append(f'<span class="steps">steps {links}</span>')
    if step in steps:
        i = steps.index(step)
        pages = [f'<b>{html.escape(step)}</b>:', f'<a href="{r(step + "/html/index.html")}">README</a>']
        for name, label in (("walkthrough.html", "walkthrough"), ("lab.html", "lab")):
            if os.path.isfile(os.path.join(site, step, "html", name)) or os.path.isdir(os.path.join(site, step)):
                pages.append(f'<a href="{r(step + "/html/" + name)}">{label}</a>')
        if i > 0:
            pages.append(f'<a href="{r("diffs/" + steps[i - 1] + ".." + step + ".html")}">diff</a>')
        pages.append(f'<a href="{r("src/steps/" + step + "/index.html")}">sources</a>')
        pages.append(f'<a href="{r(step + "/html/files.html")}">API</a>')
        items.append(f'<span class="pages">{" ".join(pages)}</span>')
    else:
        items.append(f'<span class="pages"><a href="{r("errata.html")}">errata</a> '
                     f'<a href="{r("mutants.html")}">mutation table</a> <a href="{r("explorer.html")}">explorer</a></span>')
    return "".join(items)


def inline_md(text, link=None):
    """A README's Markdown line as HTML: escaped, with its `code` spans,
    **bold**, *emphasis* and [links](url) (LINK(url) gives the href, or None
    for the text alone); a heading's #s become bold."""
    out = []
    for is_code, t in spans(text):
        if is_code:
            inner = t.strip("`").strip()
            if t.startswith("``") and "`" in inner:  # Markdown quoted as the reader sees it rendered (as prep does)
                out.append(inline_md(inner, link))
            else:
                out.append("<code>" + html.escape(inner, quote=False) + "</code>")
            continue
        t = html.escape(t, quote=False).replace("`", "")  # (a code span over two lines: plain)
        t = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t).replace("**", "")  # (bold over two lines: plain)
        t = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"<em>\1</em>", t)

        def anchor(m):
            href = link(html.unescape(m.group(2))) if link else None
            return f'<a href="{html.escape(href)}">{m.group(1)}</a>' if href else m.group(1)
        t = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", anchor, t)
        out.append(t)
    line = "".join(out)
    m = re.match(r"^(#{1,6}) +(.*)$", line)
    return f"<b>{m.group(2)}</b>" if m else line


def sources(site, steps, files):
    css = HtmlFormatter().get_style_defs(".src") if highlight else ""
    shown = []  # src/.sources: each page and its file, for tests/docs/check_browser.py
    by_step = {}
    for spec in files:
        path, disk = spec.split("=", 1)
        with open(disk, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if highlight:
            try:
                lexer = get_lexer_for_filename(disk, stripnl=False)
            except ClassNotFound:
                lexer = None
        lines = None
        if highlight and lexer is not None:
            # nowrap: one line of output per line of input, each line's
            # spans closed at its end (Pygments' HtmlFormatter does so).
            lines = highlight(text, lexer, HtmlFormatter(nowrap=True)).split("\n")
        if lines is None:
            lines = [html.escape(l) for l in text.split("\n")]
        if lines and lines[-1] == "":
            lines.pop()
        # The line number's class is not Pygments' (which gives .n to
        # every name in the code): ln.
        body = "".join(f'<span class="l" id="L{n}"><a class="ln" href="#L{n}">{n}</a>{l}</span>'
                       for n, l in enumerate(lines, 1))
        m = re.match(r"steps/([^/]+)/", path)
        out = f"src/{path}.html"
        listing = f"src/steps/{m.group(1)}/index.html" if m else None
        up = (f'<p>From <a href="{rel(site, out, listing)}">the sources of step {html.escape(m.group(1))}</a>. '
              f'Each line number is a link (<code>#L48</code>).</p>' if m else "")
        page(os.path.join(site, out), path, nav(site, out, steps, m.group(1) if m else None),
             f'{up}<pre class="src">{body}</pre>', css)
        shown.append(f"{path}\t{os.path.abspath(disk)}\n")
        if m:
            by_step.setdefault(m.group(1), []).append(path)
    with open(os.path.join(site, "src", ".sources"), "w", encoding="utf-8") as f:
        f.writelines(shown)
    # Each step's list of its files: src/steps/<step>/index.html.
    for step, paths in by_step.items():
        out = f"src/steps/{step}/index.html"
        order = lambda p: (not p.startswith(f"steps/{step}/include/"), not p.startswith(f"steps/{step}/src/"), p)
        rows = "".join(f'<tr><td><a href="{rel(site, out, "src/" + p + ".html")}"><code>'
                       f'{html.escape(p.split("/", 2)[2])}</code></a></td></tr>' for p in sorted(paths, key=order))
        body = (f'<p>Every file of step {html.escape(step)} but its '
                f'<a href="{rel(site, out, step + "/html/index.html")}">README</a>: the headers, the code, '
                f'the build. The code every step shares is <a href="{rel(site, out, "src/common/include/lockstep/coro.h.html")}">'
                f'<code>common/include/lockstep/coro.h</code></a>.</p><table class="files">{rows}</table>')
        page(os.path.join(site, out), f"The sources of step {step}", nav(site, out, steps, step), body)


def diff(site, steps, prev_spec, this_spec):
    prev, prev_dir = prev_spec.split("=", 1)
    this, this_dir = this_spec.split("=", 1)
    # diff runs in a directory holding both steps under their names, so that
    # the headers read `--- 05-intrusive-list/src/event.c`, as in the README's command.
    a, b = os.path.abspath(prev_dir), os.path.abspath(this_dir)
    parent = os.path.dirname(b)
    if os.path.dirname(a) == parent and os.path.basename(a) == prev and os.path.basename(b) == this:
        args, cwd = [prev, this], parent
    else:  # a student's copy somewhere else
        args, cwd = [a, b], None
    run = subprocess.run(["diff", "-ruN"] + args, cwd=cwd, capture_output=True, text=True)
    if run.returncode > 1:
        sys.exit(f"diff failed: {run.stderr}")
    # One chunk per file: each starts at its "diff -ruN" line.
    chunks = {}
    for chunk in re.split(r"(?m)^(?=diff -ruN )", run.stdout):
        m = re.match(r"diff -ruN \S+? (\S+)\n", chunk)
        if not m:
            continue
        name = os.path.relpath(m.group(1), args[1]) if cwd is None else m.group(1).split("/", 1)[1]
        # The headers' timestamps are the checkout's, not the step's: out.
        chunks[name] = re.sub(r"(?m)^((?:---|\+\+\+) \S+)\t.*$", r"\1", chunk)
    notes, after = step_readme.files_changed(os.path.join(this_dir, "README.md"))
    # The code first (headers, then sources, then the rest), the README last.
    def order(name):
        return (name == "README.md", not name.startswith("include/"), not name.startswith("src/"), name)
    names = sorted(chunks, key=order)
    out = f"diffs/{prev}..{this}.html"

    def note_link(url):  # a README's link, from the diff page: its step's page or the web
        if re.match(r"https?:", url):
            return url
        return None
    fmt = HtmlFormatter(nowrap=True)
    toc, sections = [], []
    for n, name in enumerate(names):
        text = chunks[name]
        added = sum(1 for l in text.split("\n") if l.startswith("+") and not l.startswith("+++"))
        removed = sum(1 for l in text.split("\n") if l.startswith("-") and not l.startswith("---"))
        anchor = "f-" + re.sub(r"[^A-Za-z0-9]+", "-", name)
        title = html.escape(name)
        if name != "README.md" and os.path.isfile(os.path.join(this_dir, name)):  # its source page
            title = f'<a href="{rel(site, out, f"src/steps/{this}/{name}.html")}">{title}</a>'
        toc.append(f'<tr><td><a href="#{anchor}"><code>{html.escape(name)}</code></a></td>'
                   f'<td class="add">+{added}</td><td class="del">-{removed}</td></tr>')
        new_file = not os.path.exists(os.path.join(prev_dir, name))
        if name == "README.md":
            note = "The step's README: the article, the idea, what the step fixes and how its tests show it."
            rendered = markdown_diff(text, os.path.join(prev_dir, name), os.path.join(this_dir, name))
            shown = f'<div class="diff md">{rendered}</div>'
        elif new_file and os.path.isfile(os.path.join(this_dir, name)):
            note = notes.get(name, "(The README's list says nothing of this file.)")
            shown = f'<div class="diff new"><pre>{highlight_file(os.path.join(this_dir, name), name)}</pre></div>'
        else:
            note = notes.get(name, "(The README's list says nothing of this file.)")
            shown = f'<div class="diff"><pre>{highlight(text, DiffLexer(stripnl=False), fmt)}</pre></div>'
        badge = '<span class="badge">new file</span>' if new_file else ""
        sections.append(f'<section class="file{" added" if new_file else ""}" id="{anchor}">'
                        f'<div class="note"><h2>{title}</h2>{badge}{inline_md(note, note_link)}</div>'
                        f'{shown}</section>')
    plain = (f'Plain text: <a href="{prev}..{this}.code.diff">the code</a>, '
             f'<a href="{prev}..{this}.diff">with the README</a>. '
             f'The same from a shell: <code>diff -ruN steps/{prev} steps/{this}</code>.')
    body = (f"<p>What step {this} changes in step {prev}, file by file: the headers and the code first, "
            f"the README last. Beside each file, what the README's "
            f"<a href=\"../{this}/html/index.html\">Files changed</a> list says of it. {plain}</p>\n"
            + (f"<p>{inline_md(after)}</p>\n" if after else "")
            + f'<table class="toc">{"".join(toc)}</table>\n' + "\n".join(sections))
    bar = nav(site, out, steps, this)
    # Previous and next: the diffs in step order.
    i = steps.index(this) if this in steps else -1
    before = (f"{steps[i - 2]}..{steps[i - 1]}.html", f"The diff from {steps[i - 2]} to {steps[i - 1]}") if i > 1 else None
    after_ = (f"{this}..{steps[i + 1]}.html", f"The diff from {this} to {steps[i + 1]}") if 0 <= i < len(steps) - 1 else None
    links = pager(before, after_)
    page(os.path.join(site, out), f"The diff from {prev} to {this}", bar, links + body + links,
         HtmlFormatter().get_style_defs(".diff") + HtmlFormatter().get_style_defs(".new"), wide=True)


def fenced(path):
    """The numbers of the lines of a Markdown file inside a fenced code block."""
    inside, out = False, set()
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip().startswith(("```", "~~~")):
                    inside = not inside
                elif inside:
                    out.add(n)
    return out


def markdown_diff(text, old_path, new_path):
    """A README's diff as the reader reads the README: each line rendered
    (code, emphasis, links, headings), wrapping, marked added, removed or
    unchanged; a line of a code block (in its file: a hunk may start inside
    one) as code, a fence as nothing."""
    rows, code = [], (fenced(old_path), fenced(new_path))
    old_n = new_n = 0
    for line in text.rstrip("\n").split("\n"):
        if line.startswith(("diff -ruN", "--- ", "+++ ")):
            continue
        m = re.match(r"^@@ -(\d+)(?:,\d+)? \+(\d+)", line)
        if m:
            old_n, new_n = int(m.group(1)), int(m.group(2))
            rows.append(f'<div class="hunk">{html.escape(line)}</div>')
            continue
        kind = {"+": "add", "-": "del"}.get(line[:1], "ctx")
        fence = old_n in code[0] if kind == "del" else new_n in code[1]
        if kind != "add":
            old_n += 1
        if kind != "del":
            new_n += 1
        body = line[1:]
        if body.strip().startswith(("```", "~~~")):
            body = ""
        elif fence or body.startswith("    ") and not body.lstrip().startswith(("-", "*")):
            body = f"<code>{html.escape(body)}</code>"
        else:
            body = inline_md(body, lambda u: u if re.match(r"https?:", u) else None)
        rows.append(f'<div class="{kind}{" code" if fence or body.startswith("<code>") else ""}">'
                    f'<span class="mark">{html.escape(line[:1] or " ")}</span>{body or "&nbsp;"}</div>')
    return "\n".join(rows)


def highlight_file(path, name):
    """A file the step adds, highlighted as its own language (not as a
    block of + lines)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        lexer = get_lexer_for_filename(name, stripnl=False)
    except ClassNotFound:
        return html.escape(text)
    return highlight(text, lexer, HtmlFormatter(nowrap=True))


# --- prep: a Markdown page as Doxygen 1.9 will render it -----------------------

CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")


def spans(line):
    """[(is_code, text)]: the line cut into code spans (with their backticks) and text."""
    out, at = [], 0
    for m in CODE_SPAN.finditer(line):
        out.append((False, line[at:m.start()]))
        out.append((True, m.group(0)))
        at = m.end()
    out.append((False, line[at:]))
    return out


class Sources:
    """The source pages a code span may name: {site path: ...} and how to find one."""

    def __init__(self, entries):
        self.paths, self.own, self.own_dir = set(), [], ""
        for entry in entries:
            own = entry.startswith("+")  # the page's own step (and coro.h): short names are looked up there
            site_path, disk = entry.lstrip("+").split("=", 1)
            if os.path.isdir(disk):
                self.own_dir = self.own_dir or (site_path if own else "")
                for d, _, names in os.walk(disk):
                    for n in names:
                        if n != "README.md":
                            self.add(f"{site_path}/{os.path.relpath(os.path.join(d, n), disk)}", own)
            elif os.path.isfile(disk):
                self.add(site_path, own)

    def add(self, path, own):
        self.paths.add(path)
        if own:
            self.own.append(path)

    def find(self, name):
        """The site path a name in a code span means, or None."""
        if name in self.paths:
            return name
        if self.own_dir and f"{self.own_dir}/{name}" in self.paths:
            return f"{self.own_dir}/{name}"
        if "/" not in name:  # a short name: unique among the page's own step (and coro.h)
            found = [p for p in self.own if os.path.basename(p) == name]
            if len(found) == 1:
                return found[0]
        return None


def link_code(code, sources, page_dir):
    """A code span `src/task.c` or `event.c:55` as a link to its source page, else unchanged."""
    m = re.match(r"^`([A-Za-z0-9_./-]+\.(?:c|h|txt|tsv))(?::(\d+)(?:-\d+)?)?`$", code)
    if not m or sources is None:
        return code
    found = sources.find(m.group(1))
    if not found:
        return code
    target = os.path.relpath(f"src/{found}.html", page_dir)
    return f"[{code}]({target}{'#L' + m.group(2) if m.group(2) else ''})"


def html_code(text):
    """Markdown text with code spans as HTML (for a heading Doxygen prints raw)."""
    out = []
    for is_code, part in spans(text):
        if is_code:
            inner = part.strip("`").strip()
            out.append(f"<code>{html.escape(inner, quote=False)}</code>")
        else:
            out.append(html.escape(part, quote=False))
    return "".join(out)


def prep_line(line, sources, page_dir):
    # A heading with code in it: an HTML heading (## is Doxygen's <h1> in a page).
    m = re.match(r"^(#{2,4}) +(.*?)(?: +\{#([\w-]+)\})? *$", line)
    if m and "`" in m.group(2):
        level = len(m.group(1)) - 1
        ident = f' id="{m.group(3)}"' if m.group(3) else ""
        title = html_code(m.group(2).replace('"', "\u201c", 1).replace('"', "\u201d", 1))
        return f"<h{level}{ident}>{title}</h{level}>"
    parts = spans(line)
    # Straight quotes around a code span: curly (Doxygen renders nothing between "...").
    quotes = [(i, j) for i, (is_code, t) in enumerate(parts) if not is_code for j, c in enumerate(t) if c == '"']
    parts = [list(p) for p in parts]
    for k in range(0, len(quotes) - 1, 2):
        (i1, j1), (i2, j2) = quotes[k], quotes[k + 1]
        if any(parts[i][0] for i in range(i1, i2 + 1)):
            t1 = parts[i1][1]
            parts[i1][1] = t1[:j1] + "\u201c" + t1[j1 + 1:]
            t2 = parts[i2][1]
            parts[i2][1] = t2[:j2] + "\u201d" + t2[j2 + 1:]
    out, depth = [], 0
    for is_code, t in parts:
        if is_code:
            if t.startswith("``"):  # Doxygen 1.9 has no ``...``
                inner = t[2:-2].strip()
                if "`" in inner:  # Markdown quoted as the reader sees it rendered (a table cell): render it
                    t = inner
                else:
                    t = "<code>" + html.escape(inner, quote=False) + "</code>"
            elif depth == 0:
                t = link_code(t, sources, page_dir)
            t = re.sub(r"(?<![%\w/])file:(?!//)", "%file:", t)
        else:
            depth += t.count("[") - t.count("]")
            t = re.sub(r"(?<![%\w/])file:(?!//)", "%file:", t)
        out.append(t)
    return "".join(out)


TRACE_HEAD = re.compile(r"^      (T0 .*[^ ]) +\| (T1 .*)$")


def cited(text, sources, page_dir):
    """A trace cell's text as HTML, each `file.c:NN` it cites a link to that
    line of its source page (when the site shows the file)."""
    def link(m):
        found = sources.find(m.group(1)) if sources else None
        if not found:
            return m.group(0)
        return f'<a href="{os.path.relpath(f"src/{found}.html", page_dir)}#L{m.group(2)}">{m.group(0)}</a>'
    return re.sub(r"\b([A-Za-z0-9_]+\.[ch]):(\d+)", link, html.escape(text))


def trace_table(block, sources=None, page_dir="."):
    """An explorer trace quoted in a page (a code block holding the header
    `T0 ... | T1 ...`) as the walkthroughs show theirs
    (the walkthroughs' tables: walkthrough_trace): one row per numbered line, one column
    per thread, each cell wrapping in its column; the lines before and
    after stay preformatted. None if the block is no trace."""
    col, head, rows, tail = -1, [], [], []
    for line in block:
        m = TRACE_HEAD.match(line)
        if col < 0 and m:
            col = line.index("|")
            rows.append(f'<tr><th class="n">line</th><th>{html.escape(m.group(1))}</th>'
                        f'<th>{html.escape(m.group(2))}</th></tr>')
            continue
        m = re.match(r"^ *([0-9]+)  (.*)$", line)
        if col > 0 and not tail and m:
            left, right = m.group(2), ""
            if len(line) > col and line[col] == "|":
                left, right = line[6:col], line[col + 2:]
            left = left.strip()
            left, right = cited(left, sources, page_dir), cited(right, sources, page_dir)
            if left.startswith("main: "):
                rows.append(f'<tr class="main"><td class="n">{m.group(1)}</td>'
                            f'<td colspan="2">{left}</td></tr>')
            else:
                rows.append(f'<tr><td class="n">{m.group(1)}</td><td>{left}</td><td>{right}</td></tr>')
        elif col > 0:
            tail.append(line)
        else:
            head.append(line)
    if col < 0:
        return None
    pre = lambda ls: f'<pre class="trace-text">{html.escape(chr(10).join(ls).strip(chr(10)))}</pre>' \
        if "".join(ls).strip() else ""
    return (["\\htmlonly[block]", f'<div class="trace">{pre(head)}<table class="trace">'] + rows
            + [f"</table>{pre(tail)}</div>", "\\endhtmlonly"])


# A walkthrough's trace reaches Doxygen as HTML, where ; [ ] must not be
# read as Markdown either: they go as character references too.
TRACE_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", ";": "&#59;", "[": "&#91;", "]": "&#93;"})


def walkthrough_trace(command, trace):
    """The explorer's trace as a walkthrough shows it: the command and the
    lines before the `T0 ... | T1 ...` header preformatted, then a table
    (one row per numbered line, a `main:` line across both columns), then
    the lines after it (a failure, the replay command) preformatted."""
    esc = lambda text: text.translate(TRACE_TEXT)
    head, rows, tail, col = [f"$ {html.escape(command, quote=False)}"], [], [], -1
    for line in trace.split("\n"):
        m = TRACE_HEAD.match(line)
        n = re.match(r"^ *([0-9]+)  (.*)$", line)
        if col < 0 and m:
            col = line.index("|")
            rows.append(f'<tr><th class="n">line</th><th>{esc(m.group(1))}</th><th>{esc(m.group(2))}</th></tr>')
        elif col > 0 and not tail and n:
            left, right = n.group(2), ""
            if len(line) > col and line[col] == "|":
                left, right = line[6:col], line[col + 2:]
            left, right = esc(left.strip(" \t\r\f\v")), esc(right)
            if left.startswith("main: "):
                rows.append(f'<tr class="main"><td class="n">{n.group(1)}</td><td colspan="2">{left}</td></tr>')
            else:
                rows.append(f'<tr><td class="n">{n.group(1)}</td><td>{left}</td><td>{right}</td></tr>')
        else:
            (tail if col > 0 else head).append(esc(line))
    out = '<div class="trace"><pre class="trace-text">' + "\n".join(head).rstrip("\n") + "</pre>"
    if rows:
        out += '\n<table class="trace">\n' + "".join(r + "\n" for r in rows) + "</table>"
    if "\n".join(tail).rstrip("\n"):
        out += '\n<pre class="trace-text">' + "\n".join(tail).rstrip("\n") + "</pre>"
    return "\\htmlonly\n" + out + "</div>\n\\endhtmlonly"


def prep(path, page_dir, entries):
    sources = Sources(entries) if entries else None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence, out, block = None, [], []
    for line in lines:
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m and (fence is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            if fence is None:
                fence, block = m.group(1), [line]
            else:  # the block's end: a trace becomes a table
                fence = None
                table = trace_table(block[1:], sources, page_dir)
                out += table if table else block + [line]
            continue
        if fence is not None:
            block.append(line)
        elif "\\htmlonly" not in line:
            out.append(prep_line(line, sources, page_dir))
        else:
            out.append(line)
    out += block if fence is not None else []
    if os.path.basename(path) != "glossary.md":  # each memory-model term linked at its first use
        out = docs_glossary.link_lines(out, os.path.relpath("glossary.html", page_dir))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


def cells(row):
    """A Markdown table row's cells: split at the | outside code spans."""
    out, cur, tick = [], "", False
    for c in row.strip()[1:-1] if row.strip().endswith("|") else row.strip()[1:]:
        if c == "`":
            tick = not tick
        if c == "|" and not tick and not cur.endswith("\\"):
            out.append(cur)
            cur = ""
        else:
            cur += c
    return out + [cur]


VERDICTS = ("step", "file:line", "original", "mutant", "result", "explorer")


def verdicts_first(path):
    """The mutation table's columns reordered so that its verdicts ("result",
    "explorer") come right after the mutant: in view without scrolling."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    order = None
    for n, line in enumerate(lines):
        if not line.startswith("|"):
            order = None
            continue
        row = [c.strip() for c in cells(line)]
        if order is None:
            if not all(v in row for v in VERDICTS):
                order = []
                continue
            order = [row.index(v) for v in VERDICTS] + [i for i, c in enumerate(row) if c not in VERDICTS]
        if order and len(row) == len(order):
            lines[n] = "| " + " | ".join(row[i] for i in order) + " |"
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main(argv):
    if len(argv) == 3 and argv[1] == "verdicts-first":
        verdicts_first(argv[2])
        return
    if len(argv) < 4:
        sys.exit(__doc__)
    if argv[1] == "prep":
        prep(argv[2], argv[3], argv[4:])
        return
    mode, site, steps = argv[1], argv[2], [s for s in re.split("[,;]", argv[3]) if s]
    if mode == "sources":
        sources(site, steps, argv[4:])
    elif mode == "diff" and len(argv) == 6:
        if highlight is None:
            sys.exit("docs_render.py diff: Pygments is not installed (apt install python3-pygments)")
        diff(site, steps, argv[4], argv[5])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
