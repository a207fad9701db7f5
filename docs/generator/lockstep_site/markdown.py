"""Markdown as the site reads it: a line cut into code spans and text, a
line rendered inline as HTML, a table row's cells; and a page cut into its blocks (paragraphs, list items, tables, code,
headings), each rendered as HTML, for the pages the site writes itself
(the diff pages' README half: lockstep_site/readme_diff.py). Doxygen
renders the other pages (prep.py prepares them).
"""
import html
import re
from dataclasses import dataclass, field


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


# The inline HTML a README writes and a reader sees rendered (Doxygen
# passes it through): <b>`code` ...</b> where Markdown bold cannot open.
INLINE_TAGS = re.compile(r"&lt;(/?)(b|i|em|strong|sub|sup|small|br)\s*/?&gt;")


def inline_md(text, link=None, tags=False):
    """A README's Markdown line as HTML: escaped, with its `code` spans,
    **bold**, *emphasis* and [links](url) (LINK(url) gives the href, or None
    for the text alone; a link's text may hold code spans); a heading's #s
    become bold. TAGS: the inline HTML of INLINE_TAGS is kept as HTML
    (outside code spans)."""
    codes = []

    def code(m):  # a code span, out of the way of the rest (its text is never a link or bold): a mark \0N\0
        inner = m.group(0).strip("`").strip()
        if m.group(0).startswith("``") and "`" in inner:  # Markdown quoted as the reader sees it rendered (as prep does)
            codes.append(inline_md(inner, link, tags))
        else:
            codes.append("<code>" + html.escape(inner, quote=False) + "</code>")
        return f"\0{len(codes) - 1}\0"
    t = html.escape(CODE_SPAN.sub(code, text), quote=False).replace("`", "")  # (a code span over two lines: plain)
    if tags:
        t = INLINE_TAGS.sub(lambda m: f"<{m.group(1)}{m.group(2)}>", t)
    t = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", t).replace("**", "")  # (bold over two lines: plain)
    t = re.sub(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])", r"<em>\1</em>", t)

    def anchor(m):
        href = link(html.unescape(m.group(2))) if link else None
        return f'<a href="{html.escape(href)}">{m.group(1)}</a>' if href else m.group(1)
    t = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", anchor, t)
    t = re.sub(r"\0(\d+)\0", lambda m: codes[int(m.group(1))], t)
    m = re.match(r"^(#{1,6}) +(.*)$", t)
    return f"<b>{m.group(2)}</b>" if m else t


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


# --- A page's blocks ------------------------------------------------------

FENCE = re.compile(r"^\s*(```+|~~~+)")
ITEM = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{#[\w-]+\})?\s*$")
RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")


@dataclass
class Block:
    """One block of a Markdown page: KIND is heading, para, item, table,
    code, quote, html or rule; LINES its source lines; for a heading its
    level, for a list item its marker ("-", "3.")."""
    kind: str
    lines: list = field(default_factory=list)
    level: int = 0
    marker: str = ""

    @property
    def text(self):
        return "\n".join(self.lines)

    def words(self):
        """The block's text as words, for comparing two blocks."""
        return " ".join(self.lines).split()


def starts_block(line):
    """Whether LINE starts a block of its own (ends a paragraph)."""
    s = line.strip()
    return bool(FENCE.match(line) or HEADING.match(line) or s.startswith(("|", ">"))
                or ITEM.match(line) and not re.match(r"^\s*\d+[.)]", line) or RULE.match(line)
                or re.match(r"^\s*<(?:!--|/?(?:details|summary|div|table|figure|p)\b)", line))


def blocks(text):
    """The page's blocks, in order; blank lines and nothing else between them."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        line, s = lines[i], lines[i].strip()
        m = FENCE.match(line)
        if not s:
            i += 1
        elif m:  # a fenced code block, to the fence that closes it
            fence, j = m.group(1), i + 1
            while j < len(lines) and not (FENCE.match(lines[j]) and lines[j].strip().startswith(fence[0] * len(fence))):
                j += 1
            out.append(Block("code", lines[i:j + 1], marker=line.strip()[len(fence):].strip()))
            i = j + 1
        elif HEADING.match(line):
            out.append(Block("heading", [line], len(HEADING.match(line).group(1))))
            i += 1
        elif line.startswith(("    ", "\t")) and not (out and out[-1].kind == "item"):
            j = i
            while j < len(lines) and (lines[j].startswith(("    ", "\t")) or not lines[j].strip()
                                      and j + 1 < len(lines) and lines[j + 1].startswith(("    ", "\t"))):
                j += 1
            out.append(Block("code", lines[i:j], marker="indented"))
            i = j
        elif ITEM.match(line):
            i = list_item(lines, i, out)
        else:
            kind = ("table" if s.startswith("|") else "quote" if s.startswith(">") else "rule" if RULE.match(line)
                    else "html" if s.startswith("<") and starts_block(line) else "para")
            j = i + 1
            while j < len(lines) and lines[j].strip() and kind != "rule":
                if kind == "table" and not lines[j].strip().startswith("|"):
                    break
                if kind == "para" and starts_block(lines[j]):
                    break
                j += 1
            if kind == "html" and s.startswith("<!--"):  # a comment, to its end
                while j < len(lines) and "-->" not in "\n".join(lines[i:j]):
                    j += 1
            out.append(Block(kind, lines[i:j]))
            i = j
    return out


def list_item(lines, i, out):
    """A list item from line I (its marker's line, and every line after it
    that is indented under it, blank lines between them included) into
    OUT; the index after it."""
    m = ITEM.match(lines[i])
    indent, j = len(m.group(1)), i + 1
    while j < len(lines):
        line = lines[j]
        if not line.strip():  # a blank line: the item goes on if what follows is indented under it
            if j + 1 < len(lines) and lines[j + 1].strip() and len(lines[j + 1]) - len(lines[j + 1].lstrip()) > indent:
                j += 1
                continue
            break
        deeper = len(line) - len(line.lstrip()) > indent
        if not deeper and (ITEM.match(line) or starts_block(line)):
            break
        j += 1
    out.append(Block("item", lines[i:j], indent, m.group(2)))
    return j


def item_body(block):
    """A list item's own text, its marker off and its lines dedented."""
    first = ITEM.sub("", block.lines[0], count=1)
    rest = block.lines[1:]
    cut = min((len(x) - len(x.lstrip()) for x in rest if x.strip()), default=0)
    return "\n".join([first] + [x[cut:] for x in rest])


def table_rows(block):
    """A table block's rows, each its cells' Markdown, without the |---| row."""
    return [[c.strip().replace("\\|", "|") for c in cells(line)] for line in block.lines
            if not re.match(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", line)]


def render_inline(text, link):
    """A block's Markdown text (its lines joined) as inline HTML."""
    return inline_md(" ".join(x.strip() for x in text.split("\n")), link, tags=True)


def render_block(block, link):
    """One block as HTML. LINK(url): a link's href, or None for its text alone."""
    if block.kind == "heading":
        level = min(6, block.level + 2)  # (the page's own h1 and h2 come first)
        return f"<h{level}>{render_inline(HEADING.match(block.lines[0]).group(2), link)}</h{level}>"
    if block.kind == "para":
        return f"<p>{render_inline(block.text, link)}</p>"
    if block.kind == "item":
        return render_blocks(blocks(item_body(block)), link, tight=True)
    if block.kind == "table":
        return render_table(block, link)
    if block.kind == "code":
        body = block.lines if block.marker == "indented" else block.lines[1:-1]
        cut = 4 if block.marker == "indented" else 0
        return f'<pre class="md-code"><code>{html.escape(chr(10).join(x[cut:] for x in body))}</code></pre>'
    if block.kind == "quote":
        inner = "\n".join(re.sub(r"^\s*> ?", "", x) for x in block.lines)
        return f"<blockquote>{render_blocks(blocks(inner), link)}</blockquote>"
    if block.kind == "rule":
        return "<hr>"
    if block.text.lstrip().startswith("<!--"):
        return ""  # a comment: nothing a reader sees
    return f"<p>{html.escape(block.text)}</p>"


def plain(html_text):
    """HTML's text alone (a column's name as a card shows it: an attribute)."""
    return html.escape(html.unescape(re.sub(r"<[^>]+>", "", html_text)))


def table_html(head, rows):
    """A table: HEAD, its header cells' HTML; ROWS, (class or "", [cell HTML]).
    Each cell carries its column's name (data-label), by which a phone shows
    a row as a card (the diff pages' style)."""
    labels = [plain(h) for h in head]
    body = "".join(f'<tr{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>'
                   + "".join(f'<td data-label="{labels[i] if i < len(labels) else ""}">{c}</td>' for i, c in enumerate(cs))
                   + "</tr>" for cls, cs in rows)
    return (f'<div class="md-table"><table><thead><tr>{"".join(f"<th>{h}</th>" for h in head)}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def render_table(block, link):
    """A table block as an HTML table (its head, its rows)."""
    rows = table_rows(block)
    if not rows:
        return ""
    cell = lambda text: inline_md(text, link, tags=True)
    return table_html([cell(c) for c in rows[0]], [("", [cell(c) for c in row]) for row in rows[1:]])


def list_tag(block):
    """A list item's list: ("ol", its start) or ("ul", None)."""
    m = re.match(r"(\d+)", block.marker)
    return ("ol", int(m.group(1))) if m else ("ul", None)


def render_blocks(items, link, tight=False, classes=None):
    """Blocks as HTML, consecutive list items in one list. CLASSES[i]: a
    class for block i (its <li> for an item, a <div> around it otherwise).
    TIGHT: a lone paragraph without its <p> (a list item's text)."""
    out, open_list = [], None
    for i, b in enumerate(items):
        cls = classes[i] if classes else None
        if b.kind == "item":
            tag, start = list_tag(b)
            if open_list != tag:
                if open_list:
                    out.append(f"</{open_list}>")
                out.append(f'<{tag}{f" start={chr(34)}{start}{chr(34)}" if start and start != 1 else ""}>')
                open_list = tag
            out.append(f'<li{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>{render_block(b, link)}</li>')
            continue
        if open_list:
            out.append(f"</{open_list}>")
            open_list = None
        shown = render_block(b, link)
        out.append(f'<div class="{cls}">{shown}</div>' if cls and shown else shown)
    if open_list:
        out.append(f"</{open_list}>")
    text = "".join(out)
    if tight and len(items) == 1 and items[0].kind == "para":
        return text[len("<p>"):-len("</p>")]
    return text
