"""The explorer's traces as the pages show them: a table, one row per
numbered line, one column per thread (the header `T0 ... | T1 ...`), the
lines before and after it preformatted. from_json takes the trace from
the explorer's --json (explore_<component>_stepNN's, or explore_litmus's
for each state), never from its printed columns; table_html writes it;
walkthrough_trace: a run of the explorer a walkthrough's marker asked for
(its rows carry their line numbers, data-line="N", for a stepper:
lockstep_site/stepper.py); trace_table: a trace a page quotes in a code
block (Markdown a writer pasted, checked by docs.samples), its `file.c:NN`
citations linked.
"""
import html
import posixpath
import re
from dataclasses import dataclass, field


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
TRACE_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", ";": "&#59;", "[": "&#91;",
                            "]": "&#93;"})


def esc(text):
    return str(text).translate(TRACE_TEXT)


MAIN = -1  # a row of the main thread (`main: ...`, across the columns)


@dataclass
class Row:
    line: int
    thread: int      # its column, 0 for T0; MAIN for a main: line
    text: str


@dataclass
class Trace:
    before: list = field(default_factory=list)   # the lines before the table
    threads: list = field(default_factory=list)  # the header's cells: "T0 completer", ...
    rows: list = field(default_factory=list)     # [Row]
    after: list = field(default_factory=list)    # the lines after it (a failure, the replay command)


def from_json(data, text=""):
    """The explorer's trace as a Trace, from its --json (DATA: the `trace`
    object, {"threads", "steps", "printed"}): the threads and the rows as
    data; the lines before and after the table from TEXT, the output it
    printed, around its table, which the JSON names (its header line, and
    how many lines it took), so that the table is found by equality, not
    read back from its columns."""
    trace = Trace(threads=list(data["threads"]),
                  rows=[Row(s["line"], MAIN if s["thread"] is None else s["thread"], s["text"].strip())
                        for s in data["steps"]])
    printed = data.get("printed")
    if text and printed:
        lines = text.split("\n")
        at = lines.index(printed["head"])
        trim = lambda ls: "\n".join(ls).strip("\n").split("\n") if "".join(ls).strip() else []
        trace.before, trace.after = trim(lines[:at]), trim(lines[at + printed["lines"]:])
    return trace


def table_html(trace, stepper=None, command=None):
    """The trace (a Trace) as the walkthroughs show theirs: the command and the lines before the table preformatted,
    the table (one column per thread, a main: row across them, each row
    with data-line="N"), the lines after preformatted. With STEPPER, the
    stepper's trace (data-stepper="IDENT": lockstep_site/stepper.py)."""
    cols = max(1, len(trace.threads))
    tie = f' data-stepper="{esc(stepper)}"' if stepper else ""
    head = ([f"$ {command}"] if command else []) + trace.before
    out = f'<div class="trace"{tie}>'
    out += '<pre class="trace-text">' + "\n".join(map(esc, head)).strip("\n") + "</pre>" if head else ""
    if trace.threads or trace.rows:
        out += ('\n<table class="trace">\n<tr><th class="n">line</th>' +
                "".join(f"<th>{esc(t)}</th>" for t in trace.threads) + "</tr>\n")
        for r in trace.rows:
            if r.thread == MAIN:
                out += (f'<tr class="main" data-line="{r.line}"><td class="n">{r.line}</td>'
                        f'<td colspan="{cols}">main: {esc(r.text)}</td></tr>\n')
            else:
                cells = "".join(f"<td>{esc(r.text) if c == r.thread else ''}</td>" for c in range(cols))
                out += f'<tr data-line="{r.line}"><td class="n">{r.line}</td>{cells}</tr>\n'
        out += "</table>"
    if "\n".join(trace.after).strip():
        out += '\n<pre class="trace-text">' + "\n".join(map(esc, trace.after)) + "</pre>"
    return out + "</div>"


def walkthrough_trace(command, trace, stepper=None):
    """The explorer's trace (a Trace) as a walkthrough shows it (table_html),
    for Doxygen to pass through untouched: it must not read a trace as Markdown."""
    return "\\htmlonly\n" + table_html(trace, stepper, command) + "\n\\endhtmlonly"
