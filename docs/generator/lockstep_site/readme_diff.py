"""A diff page's README half: the step's README against the step before's,
as a reader reads a rewrite.

Each step's README is a new article's, and a line diff of two of them is
one hunk from the first line to the last: every line removed, every line
added, tables as raw pipes. A reviewer of prose wants something else: which
sections stayed, which changed and how, which are new and which are gone.
So both READMEs are cut into their sections (the opening, then each `##`
and `###`), a section of the new README is paired with the old section of
the same heading (step names aside: "Files changed from 07-..." is "Files
changed from 08-..."), else with the one whose heading or text is closest;
and each pair is compared block by block (a paragraph, a list item, a
table, a code block), rendered as the README page renders it:

  - a section both have, unchanged: folded, its heading in view;
  - a section that changed: its blocks in order, unchanged ones as they are
    (a run of several folded), a new block on a green rule, a removed one on
    a red rule, and a block that changed in place (most of its words kept)
    once, its removed words struck through in red and its new ones in green;
    a table row by row, the same way; a code block line by line;
  - a new section: on a green rule, whole; a removed one: folded, on a red rule.

The sections come in the new README's order; a removed one after the
section that followed it in both, a moved one marked. A table of the
sections, with what happened to each, sits beside the README (the file's
note). Standard library only.
"""
import difflib
import html
import re
from dataclasses import dataclass, field

from lockstep_site.markdown import (CODE_SPAN, HEADING, Block, blocks, inline_md, item_body, render_blocks,
                                    render_table, table_html, table_rows)

# A block whose words are at least this much the other's (difflib's ratio)
# is the same block changed in place, shown once with its words marked;
# below it, the old block is removed and the new one added.
SAME_BLOCK = 0.5
# Two sections of different headings are one section renamed when their
# headings are this close, or their words this close.
SAME_HEADING, SAME_TEXT = 0.6, 0.5


@dataclass
class Section:
    """A README's section: its heading's text (the opening's: the page title),
    its level (1 for the opening), its key, its blocks."""
    title: str
    level: int
    key: str
    body: list = field(default_factory=list)

    def words(self):
        return [w for b in self.body for w in b.words()]


def key_of(title, level):
    """A section's key: its heading, lower case, without step names or code
    marks; the opening's is its own (each README's title names its step)."""
    if level == 1:
        return "(opening)"
    key = re.sub(r"\b\d\d-[a-z0-9-]+", "", title.lower().replace("`", ""))
    return " ".join(key.split())


def sections(text):
    """The README's sections: the opening (the title and what precedes the
    first `##`), then each `##` and `###` with the blocks under it."""
    out = []
    for b in blocks(text):
        if b.kind == "heading" and b.level <= 3 and (b.level > 1 or not out):
            title = HEADING.match(b.lines[0]).group(2)
            out.append(Section(title, b.level, key_of(title, b.level)))
        elif not out:
            out.append(Section("", 1, "(opening)", [b]))
        else:
            out[-1].body.append(b)
    return out


def ratio(a, b):
    """How much two word lists have in common, 0 to 1."""
    if not a and not b:
        return 1.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def closeness(o, s):
    """How close two sections of different headings are: their headings'
    closeness if at least SAME_HEADING, or their words' if at least
    SAME_TEXT; else 0 (not the same section)."""
    h, w = ratio(list(o.key), list(s.key)), ratio(o.words(), s.words())
    return max(h if h >= SAME_HEADING else 0, w if w >= SAME_TEXT else 0)


def pair_sections(old, new):
    """{new index: old index}: the same heading first (in order), then the
    closest heading or text among the sections of its level left."""
    pairs, used = {}, set()
    for j, s in enumerate(new):
        i = next((i for i, o in enumerate(old) if i not in used and o.key == s.key), None)
        if i is not None:
            pairs[j] = i
            used.add(i)
    for j, s in enumerate(new):
        if j in pairs:
            continue
        best = max(((closeness(o, s), i) for i, o in enumerate(old) if i not in used and o.level == s.level),
                   default=(0, None))
        if best[0] > 0:
            pairs[j] = best[1]
            used.add(best[1])
    return pairs


def moved(pairs):
    """The new sections whose old ones come out of order (not on the longest
    run of old sections kept in order): moved."""
    seq = sorted(pairs.items())  # (new, old) in the new order
    chains = []  # chains[k]: a run of k + 1 old indexes in order, its last the least possible
    for j, i in seq:
        k = next((n for n, c in enumerate(chains) if c[-1][0] > i), len(chains))
        chain = (chains[k - 1] if k else []) + [(i, j)]
        if k == len(chains):
            chains.append(chain)
        else:
            chains[k] = chain
    best = chains[-1] if chains else []
    return {j for j, _ in seq} - {j for _, j in best}


# --- Words ---------------------------------------------------------------

# A paragraph's atoms, for the word diff: a code span, a link, a bold or
# emphasised run, an HTML tag, whole (a change inside one shows it whole:
# its Markdown is never cut); then words, spaces and single marks.
ATOM = re.compile(r"\[[^\]]*\]\([^)\s]*\)|\*\*[^*]+\*\*|(?<![\w*])\*[^*\s][^*]*?\*(?![\w*])|<[^>\s][^>]*>"
                  r"|\s+|[\w'\u2019-]+|.", re.S)


def atoms(text):
    """TEXT (a block's Markdown, its lines joined) as atoms."""
    out, at = [], 0
    for m in CODE_SPAN.finditer(text):
        out += ATOM.findall(text[at:m.start()])
        out.append(m.group(0))
        at = m.end()
    return out + ATOM.findall(text[at:])


def word_diff(old, new, link):
    """Two versions of a block's text as one, inline: its removed atoms in
    <del>, its new ones in <ins>, each run rendered as the page renders it.
    A short run kept between two changes (a space, a mark, a word of two
    letters) goes into both: "a <del>b c</del><ins>d e</ins>", not a
    patchwork of single words."""
    a, b = atoms(old), atoms(new)
    # A link is compared by its text: one whose target alone changed (the
    # next step's anchor) reads the same, and is shown as the new one.
    key = lambda atom: re.sub(r"^\[([^\]]*)\]\([^)]*\)$", r"[\1]", atom)
    ops = difflib.SequenceMatcher(None, [key(x) for x in a], [key(y) for y in b], autojunk=False).get_opcodes()
    runs = []  # [kind, old text, new text]
    for n, (op, i1, i2, j1, j2) in enumerate(ops):
        x, y = "".join(a[i1:i2]), "".join(b[j1:j2])
        inner = 0 < n < len(ops) - 1
        if op == "equal" and inner and len(x.strip()) <= 2 and runs and runs[-1][0] == "change":
            runs[-1][1] += x
            runs[-1][2] += y
            continue
        if op != "equal" and runs and runs[-1][0] == "change":
            runs[-1][1] += x
            runs[-1][2] += y
            continue
        runs.append(["equal" if op == "equal" else "change", x, y])
    out = []
    for kind, x, y in runs:
        if kind == "equal":
            out.append(inline_md(y, link, tags=True))
            continue
        if x.strip():
            out.append(f"<del>{inline_md(x, link, tags=True)}</del>")
        if y.strip():
            out.append(f"<ins>{inline_md(y, link, tags=True)}</ins>")
        elif (x + y) and not (x + y).strip():  # (spacing alone changed: a space)
            out.append(" ")
    return "".join(out)


def joined(text):
    return " ".join(line.strip() for line in text.split("\n"))


# --- Blocks --------------------------------------------------------------

def block_ops(old, new):
    """The two block lists aligned: [(op, old block or None, new block or
    None)], op "same", "del", "ins" or "mod" (changed in place)."""
    keys = lambda bs: [" ".join(b.words()) for b in bs]
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, keys(old), keys(new), autojunk=False).get_opcodes():
        if op == "equal":
            out += [("same", old[i], new[j1 + k]) for k, i in enumerate(range(i1, i2))]
            continue
        # Within a replaced run, each new block takes the closest old one of
        # its kind still ahead (in order), if close enough; the rest are
        # removed or added where they stood.
        i = i1
        for j in range(j1, j2):
            best = max(((ratio(old[k].words(), new[j].words()), k) for k in range(i, i2)
                        if old[k].kind == new[j].kind), default=(0, None))
            if best[0] >= SAME_BLOCK:
                out += [("del", old[k], None) for k in range(i, best[1])]
                out.append(("mod", old[best[1]], new[j]))
                i = best[1] + 1
            else:
                out.append(("ins", None, new[j]))
        out += [("del", old[k], None) for k in range(i, i2)]
    return out


def table_diff(old, new, link):
    """A table that changed, row by row: one table, a kept row as it is, a
    removed row red, a new one green, a row changed in place with its
    words marked cell by cell. Tables of different widths: both, whole."""
    a, b = table_rows(old), table_rows(new)
    if not a or not b or len(a[0]) != len(b[0]):
        return (f'<div class="blk del">{render_table(old, link)}</div>'
                f'<div class="blk ins">{render_table(new, link)}</div>')
    cell = lambda c: inline_md(c, link, tags=True)
    changed = lambda c0, c1: word_diff(c0, c1, link) if c0 != c1 else cell(c1)
    # Each row a block of its cells' text, for block_ops; ROW finds its cells again.
    as_blocks = lambda rows: [Block("para", [" \u241f ".join(r)]) for r in rows]
    old_rows, new_rows = as_blocks(a[1:]), as_blocks(b[1:])
    row = {id(blk): r for blk, r in list(zip(old_rows, a[1:])) + list(zip(new_rows, b[1:]))}
    body = []
    for op, x, y in block_ops(old_rows, new_rows):
        xs, ys = row.get(id(x)), row.get(id(y))
        if op == "same":
            body.append(("", [cell(c) for c in ys]))
        elif op == "mod" and len(xs) == len(ys):
            body.append(("mod", [changed(c0, c1) for c0, c1 in zip(xs, ys)]))
        elif op == "mod":
            body += [("del", [cell(c) for c in xs]), ("ins", [cell(c) for c in ys])]
        else:
            body.append((op, [cell(c) for c in (ys or xs)]))
    head = [changed(h0, h1) for h0, h1 in zip(a[0], b[0])]
    return f'<div class="blk mod">{table_html(head, body)}</div>'


def code_diff(old, new):
    """A code block that changed, line by line, in one block."""
    body = lambda b: b.lines if b.marker == "indented" else b.lines[1:-1]
    x, y = body(old), body(new)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, x, y, autojunk=False).get_opcodes():
        if op == "equal":
            out += [html.escape(line) for line in y[j1:j2]]
            continue
        out += [f"<del>{html.escape(line)}</del>" for line in x[i1:i2]]
        out += [f"<ins>{html.escape(line)}</ins>" for line in y[j1:j2]]
    return f'<div class="blk mod"><pre class="md-code"><code>{chr(10).join(out)}</code></pre></div>'


def changed_block(old, new, link):
    """A block changed in place, shown once with what changed marked."""
    if new.kind == "table":
        return table_diff(old, new, link)
    if new.kind == "code":
        return code_diff(old, new)
    if new.kind == "item":
        inner = word_diff(joined(item_body(old)), joined(item_body(new)), link)
        tag = "ol" if new.marker[:1].isdigit() else "ul"
        return f'<{tag} class="blk mod"><li>{inner}</li></{tag}>'
    if new.kind == "heading":
        level = min(6, new.level + 2)
        x, y = (HEADING.match(b.lines[0]).group(2) for b in (old, new))
        return f'<h{level} class="blk mod">{word_diff(x, y, link)}</h{level}>'
    return f'<div class="blk mod"><p>{word_diff(joined(old.text), joined(new.text), link)}</p></div>'


def count(n, what):
    return f"{n} {what}{'' if n == 1 else 's'}"


def blocks_diff(old, new, link):
    """A changed section's body: its blocks aligned, each run shown as it
    fares: unchanged blocks as they are (two or more folded), new ones
    together on a green rule, removed ones on a red rule (two or more
    folded: a section rewritten reads as its new text, the old a click
    away), a block changed in place once, its changes marked."""
    runs = []  # [op, [(old, new)]]
    for op, x, y in block_ops(old, new):
        if runs and runs[-1][0] == op and op != "mod":
            runs[-1][1].append((x, y))
        else:
            runs.append([op, [(x, y)]])
    out = []
    for op, pairs in runs:
        if op == "mod":
            out.append(changed_block(*pairs[0], link))
            continue
        shown = render_blocks([y if op != "del" else x for x, y in pairs], link)
        n = len(pairs)
        if op == "same":
            out.append(f'<details class="same-run"><summary>{count(n, "unchanged block")}</summary>{shown}</details>'
                       if n >= 2 else shown)
        elif op == "ins":
            out.append(f'<div class="blk ins">{shown}</div>')
        elif n >= 2:
            out.append(f'<details class="blk del"><summary>{count(n, "block")} of the old text removed here</summary>'
                       f'{shown}</details>')
        else:
            out.append(f'<div class="blk del">{shown}</div>')
    return "".join(out)


# --- Sections ------------------------------------------------------------

def slug(title, taken):
    """A section's anchor on the diff page: readme-<its heading's words>, unique."""
    base = "readme-" + (re.sub(r"[^a-z0-9]+", "-", re.sub(CODE_SPAN, lambda m: m.group(2), title.lower())).strip("-")
                        or "opening")
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    taken.add(name)
    return name


def title_html(title, link):
    """A section's heading as HTML (a README without a title: "The opening")."""
    return inline_md(title, link, tags=True) if title else "The opening"


@dataclass
class Shown:
    """A section as the README half shows it: its status, anchor, heading's HTML, body's HTML."""
    status: str  # same, changed, added, removed
    anchor: str
    title: str
    level: int
    body: str
    moved: bool = False
    was: str = ""


def readme_diff(old_text, new_text, old_link, new_link):
    """The README half's sections as shown, [Shown], in order. OLD_LINK,
    NEW_LINK: a link's href from the diff page (each README's own links are
    relative to its step)."""
    old, new = sections(old_text), sections(new_text)
    pairs = pair_sections(old, new)
    moves = moved(pairs)
    taken, shown = set(), []
    # A removed section follows the new one paired with the old section before it.
    after = {}
    for i, o in enumerate(old):
        if i in pairs.values():
            continue
        prev_old = max((k for k in range(i) if k in pairs.values()), default=None)
        at = next((j for j, k in pairs.items() if k == prev_old), -1)
        after.setdefault(at, []).append(i)

    def removed(i):
        o = old[i]
        return Shown("removed", slug(o.title, taken), title_html(o.title, old_link), o.level,
                     render_blocks(o.body, old_link))
    shown += [removed(i) for i in after.get(-1, [])]
    for j, s in enumerate(new):
        title = title_html(s.title, new_link)
        if j not in pairs:
            shown.append(Shown("added", slug(s.title, taken), title, s.level, render_blocks(s.body, new_link)))
        else:
            o = old[pairs[j]]
            same = [" ".join(b.words()) for b in o.body] == [" ".join(b.words()) for b in s.body]
            was = "" if o.key == s.key else inline_md(o.title, old_link, tags=True)
            body = render_blocks(s.body, new_link) if same else blocks_diff(o.body, s.body, new_link)
            shown.append(Shown("same" if same else "changed", slug(s.title, taken), title, s.level, body,
                               j in moves, was))
        shown += [removed(i) for i in after.get(j, [])]
    return shown


def section_html(s):
    """One section of the README half."""
    tag = "h3" if s.level <= 2 else "h4"
    label = {"same": "unchanged", "changed": "changed", "added": "new section", "removed": "removed"}[s.status]
    tags = f'<span class="tag {s.status}">{label}</span>' + ('<span class="tag moved">moved</span>' if s.moved else "")
    was = f'<p class="was">Its heading was: {s.was}</p>' if s.was else ""
    if s.status in ("same", "removed"):  # folded: the heading in view, the text a click away
        return (f'<details class="sec {s.status} l{s.level}" id="{s.anchor}"><summary><{tag}>{s.title}</{tag}>{tags}'
                f'</summary>{was}<div class="sec-body">{s.body}</div></details>')
    return (f'<section class="sec {s.status} l{s.level}" id="{s.anchor}"><{tag}>{s.title}</{tag}>{tags}{was}'
            f'<div class="sec-body">{s.body}</div></section>')


# A long name in code, `atomic_exchange_explicit(&f->m_waiting,`, may wrap
# after its underscores, dots, slashes, ( and ->, where a <wbr> is put (a
# table squeezed on a phone breaks it there, not mid-word); a short one is
# left whole.
LONG_CODE = 12
CODE_BREAK = re.compile(r"(?:(?<=[_./(,])|(?<=->)|(?<=::))(?=[A-Za-z0-9&*])")


def breakable_code(text):
    """HTML with a break point after each dot, underscore, slash, (, -> and
    :: of its long inline code spans (not a code block's lines)."""
    def code(m):
        inner = html.unescape(m.group(1))
        if len(inner) < LONG_CODE or "<" in m.group(1) or "\n" in inner:
            return m.group(0)
        at = [0] + [b.start() for b in CODE_BREAK.finditer(inner)] + [len(inner)]
        return "<code>" + "<wbr>".join(html.escape(inner[a:b], quote=False) for a, b in zip(at, at[1:])) + "</code>"
    return re.sub(r"<code>(.*?)</code>", code, text, flags=re.S)


def readme_half(old_text, new_text, old_link, new_link):
    """(The README half's HTML, the note's table of its sections, a summary line)."""
    shown = readme_diff(old_text, new_text, old_link, new_link)
    counts = {k: sum(1 for s in shown if s.status == k) for k in ("same", "changed", "added", "removed")}
    summary = (f"{count(counts['changed'], 'section')} changed, {counts['added']} new, "
               f"{counts['removed']} removed, {counts['same']} unchanged")
    toc = "".join(f'<li class="{s.status}{" sub" if s.level > 2 else ""}"><a href="#{s.anchor}">'
                  f'{re.sub(r"<[^>]+>", "", s.title)}</a> <span class="tag {s.status}">'
                  f'{ {"same": "unchanged", "changed": "changed", "added": "new", "removed": "removed"}[s.status]}'
                  f'</span></li>' for s in shown)
    legend = ('<p class="legend">The README as the step before wrote it, and as this step does, section by '
              'section. Unchanged and removed sections are folded (open one to read it). In a changed section, '
              'a block in place kept most of its words: <del>removed words</del> and <ins>new ones</ins> are '
              'marked in it; a block on a <span class="key ins">green</span> rule is new, one on a '
              '<span class="key del">red</span> rule is removed.</p>')
    body = legend + breakable_code("".join(section_html(s) for s in shown))
    return f'<div class="readme-diff">{body}</div>', f'<ul class="sections">{toc}</ul>', summary
