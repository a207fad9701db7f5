"""The explorer's traces as the pages show them: a table, one row per
numbered line, one column per thread (the header `T0 ... | T1 ...`), the
lines before and after it preformatted. walkthrough_trace: a run of the
explorer a walkthrough's marker asked for; trace_table: a trace a page
quotes in a code block, its `file.c:NN` citations linked.
"""
import html
import posixpath
import re


TRACE_HEAD = re.compile(r"^      (T0 .*[^ ]) +\| (T1 .*)$")


def cited(text, sources, page_dir):
    """A trace cell's text as HTML, each `file.c:NN` it cites a link to that
    line of its source page (when the site shows the file)."""
    def link(m):
        found = sources.find(m.group(1)) if sources else None
        if not found:
            return m.group(0)
        return f'<a href="{posixpath.relpath(f"src/{found}.html", page_dir)}#L{m.group(2)}">{m.group(0)}</a>'
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
