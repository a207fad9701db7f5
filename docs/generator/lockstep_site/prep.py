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
a long name in a table cell or a sentence gets break points after its
dots and underscores (where a phone's narrow column may wrap it); a
sample's comment line and the indented block under it are kept apart.
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
        self.paths, self.own, self.own_dir, self.own_disk = set(), [], "", []
        for entry in entries:
            own = entry.startswith("+")  # the page's own step (and coro.h): short names are looked up there
            site_path, disk = entry.lstrip("+").split("=", 1)
            disk = Path(disk)
            if own:
                self.own_disk.append(disk)
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

    def api_names(self):
        """Every identifier of the headers Doxygen documents the page's API
        from: the own step's, and those beside coro.h (common/'s). A name
        Doxygen may link to its API page (more than it links: it links the
        documented ones)."""
        headers = set()
        for disk in self.own_disk:
            headers.update(disk.rglob("*.h") if disk.is_dir() else disk.parent.glob("*.h"))
        return frozenset(w for h in headers for w in re.findall(r"\w+", h.read_text(encoding="utf-8")))


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
# screen, the figures scrolling under it; in a sentence, the phone breaks it
# anywhere (queue_vs_..._dest / roy). It may wrap after a dot, an
# underscore, a slash, a ::, a < or a (, never inside a word: each such point
# gets an empty <small>, which docs/lockstep.css gives a zero-width space
# (a break a copy of the name leaves out). Doxygen 1.9 drops <wbr>, and in
# a link's text it keeps no <span> and no attribute: an empty <small> is the
# one mark it keeps everywhere. The code span becomes HTML <code>, which
# Doxygen shows as the span, when it holds nothing Doxygen would read as
# markup (a backslash but \|, @, a quote, a word starting with * or _; a ~
# before a name, a destructor to Doxygen, which then prints the name's
# marks as text, is kept apart from it by an empty <em>, as are the dashes
# of a --, an en dash to Doxygen outside a code span). A name that fits
# a phone's first column is left whole. On a step's page a bare identifier
# is cut only in a row's first cell, the sticky column a phone needs
# narrow: elsewhere Doxygen may link it to its API page
# (`awaitable_event_node`), which it cannot do once the name is in parts;
# in a sentence, any name but those of the step's headers (api_names). A
# course page (at the site's root) has no API for Doxygen to link to.
BREAK = "<small></small>"
PLAIN_CODE = re.compile(r"(?:[A-Za-z0-9_./:<>(){}\[\],;=!&*'+→…~ -]|\\\|)+")  # (… : an argument list cut short)
BREAK_AFTER = re.compile(r"(?:(?<=[._/<(])|(?<=::))(?=[A-Za-z0-9]\w{3})")  # (not before a file's .c)
LONG_WORD, LONG_FIRST, LONG_NAME = 16, 15, 12


def cuts(word, keep):
    """Where WORD may wrap: after its dots, underscores, slashes, ::, < and
    (, but not inside an identifier of KEEP (an API name Doxygen links), nor
    between two of them (task_result.error: Doxygen links the member)."""
    kept = [m.span() for m in re.finditer(r"\w+", word) if m.group(0) in keep]

    def ok(at):
        before, after = re.search(r"(\w*)\W*$", word[:at]).group(1), re.match(r"\w*", word[at:]).group(0)
        return not any(a < at < b for a, b in kept) and not (before in keep and after in keep)
    return [m.start() for m in BREAK_AFTER.finditer(word) if ok(m.start())]


def cut(word, keep):
    """WORD with a break point at each of its cuts."""
    at = [0] + cuts(word, keep) + [len(word)]
    return [word[a:b] for a, b in zip(at, at[1:])]


def is_long(word, cut_any, first=False):
    """A word to cut: a name with a dot, slash, ::, < or ( of LONG_NAME
    characters or more; any word of LONG_WORD where CUT_ANY (a row's first
    cell, a course page), of LONG_FIRST where FIRST (a name in parentheses
    in a row's first cell). (The sticky first column at 390 px holds 16
    characters of DejaVu Sans Mono, the widest of the usual monospace fonts
    and the one a Debian machine with the README's packages has; a name
    with its closing parenthesis, step 09's `lambda_complete`), needs one
    more.)"""
    if re.search(r"[./:<(]", word):
        return len(word) >= LONG_NAME
    return cut_any and len(word) >= (LONG_FIRST if first else LONG_WORD)


def breakable(code, cut_any, keep=frozenset(), prose=False, first=False):
    """CODE (a code span's text) as <code>, a break opportunity after each
    dot, underscore, slash, ::, < or ( inside its long words (not inside a
    name of KEEP). A -- is kept apart by an empty <em> (Doxygen makes it an
    en dash outside a code span); in PROSE, a backslash is Doxygen's \\ (a
    table's \\| is its escaped |, a sentence's its two characters)."""
    def word(w):
        parts = cut(w, keep) if is_long(w, cut_any, first) else [w]
        return BREAK.join(html.escape(p, quote=False) for p in parts)
    text = "".join(word(w) for w in re.split(r"(\s+)", code))
    text = re.sub(r"~(?=\w)", "~<em></em>", text).replace("--", "-<em></em>-").replace("--", "-<em></em>-")  # (---)
    return "<code>" + (text.replace("\\", "\\\\") if prose else text) + "</code>"


def needs_breaks(code, cut_any, keep=frozenset(), first=False):
    """A code span's text with a long word in it, and nothing Doxygen would read as markup."""
    words = code.split()
    return (PLAIN_CODE.fullmatch(code) is not None
            and not any(w.startswith(("_", "*")) for w in words)
            and any(is_long(w, cut_any, first) and cuts(w, keep) for w in words))


def text_word(word, cut_any, keep=frozenset()):
    """A word of a row's or a sentence's text (not code): a long name
    (sequencer_chain/1000) made breakable; not _emphasis_."""
    if re.fullmatch(r"[A-Za-z0-9./]\w*(?:[./]+\w+)*[./]?", word) and is_long(word, cut_any):
        return BREAK.join(cut(word, keep))
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
        # (a name in parentheses in a first cell: its closing one is a character more to fit)
        paren = cell == 1 and k > 0 and parts[k - 1][1].endswith("(")
        if code and needs_breaks(code, cell == 1 or not api, first=paren):
            t = breakable(code, cell == 1 or not api, first=paren)
        elif not is_code:
            cell += t.count("|")
            code_next = parts[k + 1][1] if k + 1 < len(parts) and cell == 1 else None
            t = text_part(t, cell == 1 or not api, code_next)
        out.append(t)
    return "".join(out)


def prose_broken(line, keep):
    """A line of prose (a paragraph's, a list item's) with its long names
    made breakable, in code spans and in the text, but for the names of KEEP
    (an API name Doxygen links, which it cannot link in parts). A sentence
    is as narrow as a phone: any word of a long name may need to wrap."""
    out = []
    for is_code, t in spans(line):
        code = t[1:-1] if is_code and not t.startswith("``") else ""
        if code and needs_breaks(code, True, keep):
            t = breakable(code, True, keep, prose=True)
        elif not is_code:
            t = re.sub(r"\S+", lambda m: sentence_word(m.group(0), keep), t)
        out.append(t)
    return "".join(out)


def sentence_word(word, keep):
    """A word of a sentence's text: its long name made breakable, the
    parenthesis or quote before it and the punctuation after it aside."""
    m = re.fullmatch(r"([(\"\u201c]*)(.*?)([,;:)!?\"\u201d]*)", word)
    return m.group(1) + text_word(m.group(2), True, keep) + m.group(3)


def names_broken(lines, api, keep):
    """Every table row's and sentence's long names made breakable, outside
    code blocks, \\htmlonly blocks, HTML and comments; headings left whole.
    API, KEEP: break_long_names's, prose_broken's."""
    out, fence, raw, comment, code = [], None, False, False, False
    for line in lines:
        stripped = line.strip()
        # (an indented line after a blank one is a code block's, not a list item's next line)
        code = line.startswith(("    ", "\t")) and (code or not (out and out[-1].strip()))
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m and (fence is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            fence = None if fence else m.group(1)
        elif "\\htmlonly" in line or raw:
            raw = "\\endhtmlonly" not in line
        elif fence is None and stripped.startswith("|"):
            line = break_long_names(line, api)
        elif "<!--" in line or comment:  # (as docs_glossary reads a page)
            comment = "-->" not in line.split("<!--")[-1] if "<!--" in line else "-->" not in line
        elif fence is None and not (code or stripped.startswith(("#", "<", "\\", "@"))
                                    or re.match(r"\[[^\]]+\]:", stripped)):  # (a link's definition)
            line = prose_broken(line, keep)
        out.append(line)
    return out


def code_after_comment(lines):
    """A blank line between a comment line (a sample's marker) and the
    indented code block under it: without it Doxygen reads the block as the
    comment's paragraph, and a program's output shows as running text."""
    out = []
    for line in lines:
        if out and re.fullmatch(r"\s*<!--.*-->\s*", out[-1]) and line.startswith(("    ", "\t")):
            out.append("")
        out.append(line)
    return out


# A step's memory-order table, "| where | operation | order | why | the
# shape it relies on |": its last columns carry the lesson. Each body row's
# first cell gets an empty anchor, mo-N, by which lockstep.css gives the
# table its column widths at 1280 px and makes each row a card on a phone
# (as the mutation table's m- anchors do).
MEMORY_ORDER_HEAD = re.compile(r"^\|\s*where\s*\|\s*operation\s*\|\s*order\s*\|\s*why\s*\|")


def memory_order_rows(lines):
    """The lines, each body row of a memory-order table marked with <a id="mo-N"></a>."""
    out, n, inside = [], 0, False
    for line in lines:
        if MEMORY_ORDER_HEAD.match(line):
            inside = True
        elif inside and not line.lstrip().startswith("|"):
            inside = False
        elif inside and not re.match(r"^\|[-: |]+\|$", line.strip()):
            n += 1
            line = re.sub(r"^(\s*\|\s*)", lambda m: f'{m.group(1)}<a id="mo-{n}"></a>', line, count=1)
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
    keep = sources.api_names() if sources and page_dir != "." else frozenset()
    out = names_broken(code_after_comment(out), page_dir != ".", keep)  # (last: the glossary would link a term inside a name's parts)
    out = memory_order_rows(out)
    path.write_text("\n".join(out), encoding="utf-8")
