"""Markdown as the site reads it: a line cut into code spans and text, a
line rendered inline as HTML, a table row's cells, a file's fenced lines.
"""
import html
import re


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


def fenced(path):
    """The numbers of the lines of a Markdown file inside a fenced code block."""
    inside, out = False, set()
    if path.is_file():
        with path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip().startswith(("```", "~~~")):
                    inside = not inside
                elif inside:
                    out.add(n)
    return out
