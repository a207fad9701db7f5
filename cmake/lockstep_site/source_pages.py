"""The source pages: SITE/src/<path>.html for each file the site shows,
with its line numbers, each line an anchor #L<n> (the GitHub form the
repository's links use), highlighted by Pygments when it is installed
(plain text otherwise); and each step's list of its files,
SITE/src/steps/<step>/index.html. SITE/src/.sources lists each page and
its file, for tests/docs/check_browser.py.
"""
import html
import re

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


def source_page(site, path, disk, css):
    """SITE/src/<path>.html; the step the file belongs to, or None."""
    # The line number's class is not Pygments' (which gives .n to every name in the code): ln.
    body = "".join(f'<span class="l" id="L{n}"><a class="ln" href="#L{n}">{n}</a>{line}</span>'
                   for n, line in enumerate(source_lines(disk), 1))
    m = re.match(r"steps/([^/]+)/", path)
    step = m.group(1) if m else None
    out = f"src/{path}.html"
    up = (f'<p>From <a href="{rel(site, out, f"src/steps/{step}/index.html")}">the sources of step '
          f'{html.escape(step)}</a>. Each line number is a link (<code>#L48</code>).</p>' if step else "")
    page(site.root / out, path, nav(site, out, step), f'{up}<pre class="src">{body}</pre>', css)
    return step


def step_index(site, step, paths):
    """Each step's list of its files: src/steps/<step>/index.html, the headers first, then the code."""
    out = f"src/steps/{step}/index.html"
    order = lambda p: (not p.startswith(f"steps/{step}/include/"), not p.startswith(f"steps/{step}/src/"), p)
    rows = "".join(f'<tr><td><a href="{rel(site, out, "src/" + p + ".html")}"><code>'
                   f'{html.escape(p.split("/", 2)[2])}</code></a></td></tr>' for p in sorted(paths, key=order))
    coro = rel(site, out, "src/common/include/lockstep/coro.h.html")
    body = (f'<p>Every file of step {html.escape(step)} but its '
            f'<a href="{rel(site, out, step + "/html/index.html")}">README</a>: the headers, the code, '
            f'the build. The code every step shares is <a href="{coro}">'
            f'<code>common/include/lockstep/coro.h</code></a>.</p><table class="files">{rows}</table>')
    page(site.root / out, f"The sources of step {step}", nav(site, out, step), body)


def source_pages(site, files):
    """Every file's page, each step's index, and src/.sources; files is [(site path, file on disk: a Path)]."""
    css = HtmlFormatter().get_style_defs(".src") if highlight else ""
    by_step = {}
    for path, disk in files:
        step = source_page(site, path, disk, css)
        if step:
            by_step.setdefault(step, []).append(path)
    sources = "".join(f"{path}\t{disk.absolute()}\n" for path, disk in files)
    (site.root / "src" / ".sources").write_text(sources, encoding="utf-8")
    for step, paths in by_step.items():
        step_index(site, step, paths)
