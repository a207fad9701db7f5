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

STEPS_LIST is every step's name, `,`-separated, for the navigation bar.
Standard library plus Pygments only: a diff or a C file is highlighted by a
tool made for it, not by this script.
"""
import html
import os
import re
import subprocess
import sys

try:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import DiffLexer, get_lexer_for_filename
    from pygments.util import ClassNotFound
except ImportError:  # the source pages then come out plain
    highlight = None

STYLE = """
body { font-family: Roboto, sans-serif; margin: 0; color: #222; }
header { background: #f2f4f8; border-bottom: 1px solid #c4cfe5; padding: .6em 1.2em; }
header a { margin-right: .8em; }
main { padding: .4em 1.2em 2em; }
h1 { font-size: 150%; margin: .4em 0; }
h2 { font-size: 115%; margin: 1.4em 0 .4em; font-family: monospace; }
code, pre { font-family: 'DejaVu Sans Mono', monospace; font-size: 13px; }
pre { margin: 0; line-height: 1.35; }
.src { border: 1px solid #c4cfe5; background: #fbfcfd; overflow-x: auto; }
.src .l { display: block; white-space: pre; }
.src .l:target { background: #fff3b0; }
.src .n { display: inline-block; width: 4em; padding-right: .8em; text-align: right;
          color: #888; text-decoration: none; user-select: none; }
.file { display: grid; grid-template-columns: 17em minmax(0, 1fr); gap: 1em; align-items: start; }
.note { position: sticky; top: 0; font-size: 90%; background: #f7f7ee; border-left: 3px solid #cc9; padding: .4em .7em; }
.diff { border: 1px solid #c4cfe5; overflow-x: auto; padding: .3em .5em; background: #fbfcfd; }
.toc td { padding: .1em .8em .1em 0; }
.add { color: #1a7f37; } .del { color: #cf222e; }
@media (max-width: 900px) { .file { grid-template-columns: 1fr; } }
"""


def page(path, title, nav, body, extra_css=""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                f"<title>{html.escape(title)}</title>\n<style>{STYLE}{extra_css}</style>\n"
                f"</head><body>\n<header>{nav}</header>\n<main>\n<h1>{html.escape(title)}</h1>\n"
                f"{body}\n</main>\n</body></html>\n")


def rel(site, frm, to):
    """The link from page `frm` to page `to`, both paths from the site's root."""
    return os.path.relpath(os.path.join(site, to), os.path.dirname(os.path.join(site, frm)))


def nav(site, here, steps, step=None):
    items = [f'<a href="{rel(site, here, "index.html")}">lockstep: the course</a>']
    if step in steps:
        i = steps.index(step)
        items.append(f'<a href="{rel(site, here, step + "/html/index.html")}">step {html.escape(step)}</a>')
        if i > 0:
            items.append(f'previous: <a href="{rel(site, here, steps[i - 1] + "/html/index.html")}">{steps[i - 1]}</a>')
        if i + 1 < len(steps):
            items.append(f'next: <a href="{rel(site, here, steps[i + 1] + "/html/index.html")}">{steps[i + 1]}</a>')
    return " · ".join(items)


def inline_md(text):
    """A README note as HTML: escaped, with its `code` spans and **bold**."""
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


def sources(site, steps, files):
    css = HtmlFormatter().get_style_defs(".src") if highlight else ""
    shown = []  # src/.sources: each page and its file, for tests/docs/check_browser.py
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
        body = "".join(f'<span class="l" id="L{n}"><a class="n" href="#L{n}">{n}</a>{l}</span>'
                       for n, l in enumerate(lines, 1))
        m = re.match(r"steps/([^/]+)/", path)
        out = f"src/{path}.html"
        page(os.path.join(site, out), path, nav(site, out, steps, m.group(1) if m else None),
             f'<pre class="src">{body}</pre>', css)
        shown.append(f"{path}\t{os.path.abspath(disk)}\n")
    with open(os.path.join(site, "src", ".sources"), "w", encoding="utf-8") as f:
        f.writelines(shown)


def files_changed_notes(readme):
    """{path: note} from the README's "## Files changed from ..." list, and the text after the list."""
    notes, after, current = {}, [], None
    section = False
    with open(readme, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## "):
                section = line.startswith("## Files changed from")
                continue
            if not section:
                continue
            m = re.match(r"^[-*] *`([^`]+)`:? *(.*)", line)
            if m:
                current = m.group(1)
                notes[current] = m.group(2)
            elif line.strip() and current and line.startswith("  "):
                notes[current] += " " + line.strip()
            elif line.strip():
                current = None
                after.append(line.strip())
            else:
                current = None
    return notes, " ".join(after)


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
    notes, after = files_changed_notes(os.path.join(this_dir, "README.md"))
    # The code first (headers, then sources, then the rest), the README last.
    def order(name):
        return (name == "README.md", not name.startswith("include/"), not name.startswith("src/"), name)
    names = sorted(chunks, key=order)
    out = f"diffs/{prev}..{this}.html"
    fmt = HtmlFormatter(nowrap=True)
    toc, sections = [], []
    for n, name in enumerate(names):
        text = chunks[name]
        added = sum(1 for l in text.split("\n") if l.startswith("+") and not l.startswith("+++"))
        removed = sum(1 for l in text.split("\n") if l.startswith("-") and not l.startswith("---"))
        anchor = "f-" + re.sub(r"[^A-Za-z0-9]+", "-", name)
        toc.append(f'<tr><td><a href="#{anchor}"><code>{html.escape(name)}</code></a></td>'
                   f'<td class="add">+{added}</td><td class="del">-{removed}</td></tr>')
        if name == "README.md":
            note = "The step's README: the article, the idea, what the step fixes and how its tests show it."
        else:
            note = notes.get(name, "(The README's list says nothing of this file.)")
        sections.append(f'<section class="file" id="{anchor}">'
                        f'<div class="note"><h2>{html.escape(name)}</h2>{inline_md(note)}</div>'
                        f'<div class="diff"><pre>{highlight(text, DiffLexer(stripnl=False), fmt)}</pre></div>'
                        f'</section>')
    plain = (f'Plain text: <a href="{prev}..{this}.code.diff">the code</a>, '
             f'<a href="{prev}..{this}.diff">with the README</a>. '
             f'The same from a shell: <code>diff -ruN steps/{prev} steps/{this}</code>.')
    body = (f"<p>What step {this} changes in step {prev}, file by file: the headers and the code first, "
            f"the README last. Beside each file, what the README's "
            f"<a href=\"../{this}/html/index.html\">Files changed</a> list says of it. {plain}</p>\n"
            + (f"<p>{inline_md(after)}</p>\n" if after else "")
            + f'<table class="toc">{"".join(toc)}</table>\n' + "\n".join(sections))
    bar = nav(site, out, steps, this)
    i = steps.index(this) if this in steps else -1
    if i > 1:
        bar += f' · <a href="{steps[i - 2]}..{steps[i - 1]}.html">the diff before</a>'
    if 0 <= i < len(steps) - 1:
        bar += f' · <a href="{this}..{steps[i + 1]}.html">the next diff</a>'
    page(os.path.join(site, out), f"The diff from {prev} to {this}", bar, body,
         HtmlFormatter().get_style_defs(".diff"))


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
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
