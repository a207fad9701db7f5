"""A Markdown page (a copy in the build tree) rewritten into what Doxygen 1.9
renders as written: a heading holding `code` becomes an HTML heading
(Doxygen prints a heading's markup as text: "<tt>"); a ``double-backtick``
span becomes <code> (one that quotes Markdown, backticks and all, becomes
that Markdown: what a table cell shows); straight quotes around a code span
become curly ones (Doxygen reads nothing inside "..."); a "file:" that is no
link is escaped (Doxygen makes `file:line` an href); a code span naming a
source file the site shows (`src/task.c`, `event.c:55`) becomes a link to
its source page, line anchor included; a quoted explorer trace becomes a
table; each memory-model term is linked to the glossary at its first use;
a long name in a table cell gets break points after its dots and
underscores (where a phone's narrow column may wrap it).
"""
import html
import posixpath
import re
from pathlib import Path

import docs_glossary
from lockstep_site.markdown import html_code, spans
from lockstep_site.traces import trace_table


class Sources:
    """The source pages a code span may name: {site path: ...} and how to find one."""

    def __init__(self, entries):
        self.paths, self.own, self.own_dir = set(), [], ""
        for entry in entries:
            own = entry.startswith("+")  # the page's own step (and coro.h): short names are looked up there
            site_path, disk = entry.lstrip("+").split("=", 1)
            disk = Path(disk)
            if disk.is_dir():
                self.own_dir = self.own_dir or (site_path if own else "")
                for f in disk.rglob("*"):
                    if f.is_file() and f.name != "README.md":
                        self.add(f"{site_path}/{f.relative_to(disk).as_posix()}", own)
            elif disk.is_file():
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
            found = [p for p in self.own if posixpath.basename(p) == name]
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
    target = posixpath.relpath(f"src/{found}.html", page_dir)
    return f"[{code}]({target}{'#L' + m.group(2) if m.group(2) else ''})"


def code_heading(line):
    """A heading with code in it as an HTML heading (## is Doxygen's <h1> in a page), else None."""
    m = re.match(r"^(#{2,4}) +(.*?)(?: +\{#([\w-]+)\})? *$", line)
    if not (m and "`" in m.group(2)):
        return None
    level = len(m.group(1)) - 1
    ident = f' id="{m.group(3)}"' if m.group(3) else ""
    title = html_code(m.group(2).replace('"', "\u201c", 1).replace('"', "\u201d", 1))
    return f"<h{level}{ident}>{title}</h{level}>"


def curly_quotes(parts):
    """[[is_code, text]]: straight quotes around a code span made curly
    (Doxygen renders nothing between "...")."""
    quotes = [(i, j) for i, (is_code, t) in enumerate(parts) if not is_code for j, c in enumerate(t) if c == '"']
    parts = [list(p) for p in parts]
    for k in range(0, len(quotes) - 1, 2):
        (i1, j1), (i2, j2) = quotes[k], quotes[k + 1]
        if any(parts[i][0] for i in range(i1, i2 + 1)):
            t1 = parts[i1][1]
            parts[i1][1] = t1[:j1] + "\u201c" + t1[j1 + 1:]
            t2 = parts[i2][1]
            parts[i2][1] = t2[:j2] + "\u201d" + t2[j2 + 1:]
    return parts


def code_span(t, sources, page_dir, in_link):
    """A code span as Doxygen 1.9 shows it: ``...`` (which it lacks) as
    <code> (or the Markdown it quotes), a source file's name as a link."""
    if t.startswith("``"):
        inner = t[2:-2].strip()
        if "`" in inner:  # Markdown quoted as the reader sees it rendered (a table cell): render it
            return inner
        return "<code>" + html.escape(inner, quote=False) + "</code>"
    return t if in_link else link_code(t, sources, page_dir)


def prep_line(line, sources, page_dir):
    """A line of Markdown text (not code, not HTML) as Doxygen 1.9 renders it as written."""
    heading = code_heading(line)
    if heading:
        return heading
    out, depth = [], 0
    for is_code, t in curly_quotes(spans(line)):
        if is_code:
            t = code_span(t, sources, page_dir, depth > 0)
        else:
            depth += t.count("[") - t.count("]")
        out.append(re.sub(r"(?<![%\w/])file:(?!//)", "%file:", t))
    return "".join(out)


# A long name in a table cell (an explorer scenario,
# `sequencer.queue_vs_queue_vs_completion_then_destroy`) would hold its
# column as wide as itself: on a phone, a sticky first column as wide as the
# screen, the figures scrolling under it. It may wrap after a dot, an
# underscore, a slash, a ::, a < or a (, never inside a word: each such point
# gets an empty <small>, which docs/lockstep.css gives a zero-width space
# (a break a copy of the name leaves out). Doxygen 1.9 drops <wbr>, and in
# a link's text it keeps no <span> and no attribute: an empty <small> is the
# one mark it keeps everywhere. The code span becomes HTML <code>, which
# Doxygen shows as the span, when it holds nothing Doxygen would read as
# markup (a backslash but \|, @, a quote, a word starting with * or _; a ~
# before a name, a destructor to Doxygen, which then prints the name's
# marks as text, is kept apart from it by an empty <em>). A name that fits
# a phone's first column is left whole. On a step's page a bare identifier
# is cut only in a row's first cell, the sticky column a phone needs
# narrow: elsewhere Doxygen may link it to its API page
# (`awaitable_event_node`), which it cannot do once the name is in parts.
# A course page (at the site's root) has no API for Doxygen to link to.
BREAK = "<small></small>"
PLAIN_CODE = re.compile(r"(?:[A-Za-z0-9_./:<>(){}\[\],;=!&*'+→~ -]|\\\|)+")
BREAK_AFTER = re.compile(r"(?:(?<=[._/<(])|(?<=::))(?=[A-Za-z0-9]\w{3})")  # (not before a file's .c)
LONG_WORD, LONG_NAME = 16, 12


def is_long(word, cut_any):
    """A word to cut: a name with a dot, slash, ::, < or ( of LONG_NAME
    characters or more; any word of LONG_WORD where CUT_ANY (a row's first
    cell, a course page)."""
    if re.search(r"[./:<(]", word):
        return len(word) >= LONG_NAME
    return cut_any and len(word) >= LONG_WORD


def breakable(code, cut_any):
    """CODE (a code span's text) as <code>, a break opportunity after each
    dot, underscore, slash, ::, < or ( inside its long words."""
    def word(w):
        parts = BREAK_AFTER.split(w) if is_long(w, cut_any) else [w]
        return BREAK.join(html.escape(p, quote=False) for p in parts)
    text = "".join(word(w) for w in re.split(r"(\s+)", code))
    return "<code>" + re.sub(r"~(?=\w)", "~<em></em>", text) + "</code>"


def needs_breaks(code, cut_any):
    """A code span's text with a long word in it, and nothing Doxygen would read as markup."""
    words = code.split()
    return (PLAIN_CODE.fullmatch(code) is not None and not any(w.startswith(("_", "*")) for w in words)
            and any(is_long(w, cut_any) and BREAK_AFTER.search(w) for w in words))


def text_word(word, cut_any):
    """A word of a table row's text (not code): a long name (sequencer_chain/1000) made breakable."""
    if re.fullmatch(r"[A-Za-z0-9_./]+", word) and is_long(word, cut_any):
        return BREAK.join(BREAK_AFTER.split(word))
    return word


def text_part(text, cut_any, code_next):
    """A stretch of a table row's text: its long names made breakable; in a
    first cell, a break after a slash before a code span (`waiter`/`waiting`)
    or a parenthesis before a long one ((`lambda_complete`)). CODE_NEXT: the
    code span that follows, with its backticks, or None."""
    text = re.sub(r"\S+", lambda m: text_word(m.group(0), cut_any), text)
    if code_next and (text.endswith("/") or text.endswith("(") and len(code_next.strip("`")) >= LONG_NAME):
        text += BREAK
    return text


def break_long_names(line, api=True):
    """A table row's long names (in its code spans or its text) made
    breakable; other lines unchanged. API: the page has an API Doxygen links
    names to (a step's page), so that a bare identifier is cut in the first
    cell only."""
    if not line.lstrip().startswith("|"):
        return line
    parts, cell, out = spans(line), 0, []
    for k, (is_code, t) in enumerate(parts):
        code = t[1:-1] if is_code and not t.startswith("``") else ""
        if code and needs_breaks(code, cell == 1 or not api):
            t = breakable(code, cell == 1 or not api)
        elif not is_code:
            cell += t.count("|")
            code_next = parts[k + 1][1] if k + 1 < len(parts) and cell == 1 else None
            t = text_part(t, cell == 1 or not api, code_next)
        out.append(t)
    return "".join(out)


def table_rows_broken(lines, api):
    """Every table row's long names made breakable, outside code blocks and \\htmlonly blocks."""
    out, fence, raw = [], None, False
    for line in lines:
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m and (fence is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            fence = None if fence else m.group(1)
        elif "\\htmlonly" in line or raw:
            raw = "\\endhtmlonly" not in line
        elif fence is None:
            line = break_long_names(line, api)
        out.append(line)
    return out


def prep(path, page_dir, entries):
    """Rewrites the page at path (its directory from the site's root: page_dir); entries are
    the source pages its code spans may name, SITE_PATH=DISK, +SITE_PATH=DISK for its own step."""
    sources = Sources(entries) if entries else None
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
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
    if path.name != "glossary.md":  # each memory-model term linked at its first use
        out = docs_glossary.link_lines(out, posixpath.relpath("glossary.html", page_dir))
    out = table_rows_broken(out, page_dir != ".")  # (last: the glossary would link a term inside a name's parts)
    path.write_text("\n".join(out), encoding="utf-8")
