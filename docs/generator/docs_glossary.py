#!/usr/bin/env python3
"""docs_glossary.py PAGE.md HREF | --check GLOSSARY.md

Links each memory-model term of a Markdown page to its entry in the
glossary (the labs README's "The memory model", the site's glossary.html),
at its first use on the page only, the way a book marks a term once:

  docs_glossary.py PAGE.md HREF
      rewrites PAGE.md in place; HREF is the glossary page as the page
      reaches it (`glossary.html`, `../../glossary.html`).
  docs_glossary.py --check GLOSSARY.md
      fails if an entry this module links to has no anchor there.

The renderer calls link_lines(lines, href) on a page's lines after its own
pass (lockstep_site/prep.py). Left alone: headings, code blocks, HTML and
\\htmlonly blocks, comments, links, and code spans other than an order's
name (`relaxed`, `memory_order_acquire`, ...). Standard library only.
"""
import argparse
import re
import sys
from pathlib import Path

# The glossary's anchors, and what a page says when it uses the term: prose
# patterns (case-insensitive) and code spans. Longer terms first, so that
# "release sequence" is not taken for "release".
TERMS = [
    ("gl-candidate", r"candidate executions?", ()),
    ("gl-axioms", r"RC11's (?:four )?axioms", ()),
    ("gl-happens-before", r"happens?[- ]before", ()),
    ("gl-synchronizes-with", r"synchroni[sz](?:es|e|ed|ing)[- ]with", ()),
    ("gl-sequenced-before", r"sequenced[- ]before|program order", ()),
    ("gl-reads-from", r"reads[- ]from", ()),
    ("gl-modification-order", r"modification[- ]orders?", ()),
    ("gl-from-read", r"from[- ]reads?", ()),
    ("gl-release-sequence", r"release[- ]sequences?", ()),
    ("gl-data-race", r"data[- ]races?", ()),
    ("gl-coherence", r"coheren(?:ce|t)", ()),
    ("gl-rmw", r"read-modify-writes?|RMWs?", ()),
    ("gl-fence", r"fences?", ("atomic_thread_fence",)),
    ("gl-relaxed", r"relaxed", ("relaxed", "memory_order_relaxed")),
    ("gl-acq-rel", r"acq_rel", ("acq_rel", "memory_order_acq_rel")),
    ("gl-seq-cst", r"seq_cst|sequentially consistent|sequential consistency", ("seq_cst", "memory_order_seq_cst")),
    ("gl-acquire", r"(?<=an )acquire|acquire(?= (?:load|loads|fence|half|operation))", ("acquire", "memory_order_acquire")),
    ("gl-release", r"(?<=a )release(?! sequence)|release(?= (?:store|stores|fence|half|operation))",
     ("release", "memory_order_release")),
]
PROSE = [(ident, re.compile(r"(?<![\w`/-])(?:" + pattern + r")(?![\w-])", re.I)) for ident, pattern, _ in TERMS]
CODE = {code: ident for ident, _, codes in TERMS for code in codes}

# What a line is made of: code spans, links and images, HTML tags, the rest.
TOKENS = re.compile(r"(`+)(?:.+?)\1|!?\[[^\]]*\]\([^)]*\)|<[^>\n]*>|https?://\S+")


def link_prose(text, href, seen):
    """The first use of each unseen term in a stretch of plain text, linked."""
    out, at = [], 0
    while True:
        best = None
        for ident, rx in PROSE:
            if ident in seen:
                continue
            m = rx.search(text, at)
            if m and (best is None or m.start() < best[1].start()):
                best = (ident, m)
        if best is None:
            out.append(text[at:])
            return "".join(out)
        ident, m = best
        seen.add(ident)
        out.append(text[at:m.start()])
        out.append(f"[{m.group(0)}]({href}#{ident})")
        at = m.end()


def link_quoted(text, href, seen, shut):
    """Prose with its terms linked outside straight double quotes and bold
    only: Doxygen renders nothing between "..." (a link there shows as raw
    Markdown), nor a bold span that holds a link to code. SHUT: the marks
    ('"', '**') still open from before; returns the text and those open after."""
    out = []
    for part in re.split(r'("|\*\*)', text):
        if part in ('"', "**"):
            shut = shut ^ {part}
            out.append(part)
        else:
            out.append(part if shut else link_prose(part, href, seen))
    return "".join(out), shut


def link_line(line, href, seen, shut=frozenset()):
    """One line's terms linked; SHUT: a quote or bold opened on an earlier
    line of the paragraph and still open. Returns both."""
    out, at = [], 0
    for m in TOKENS.finditer(line):
        text, shut = link_quoted(line[at:m.start()], href, seen, shut)
        out.append(text)
        token = m.group(0)
        ident = CODE.get(token.strip("`").strip()) if token.startswith("`") and not shut else None
        if ident and ident not in seen:
            seen.add(ident)
            token = f"[{token}]({href}#{ident})"
        out.append(token)
        at = m.end()
    text, shut = link_quoted(line[at:], href, seen, shut)
    out.append(text)
    return "".join(out), shut


def link_lines(lines, href):
    """A page's lines with each term's first use linked to HREF#its-anchor."""
    seen, fence, html_block, comment, shut = set(), None, False, False, frozenset()
    out = []
    for line in lines:
        stripped = line.strip()
        shut = shut if stripped else frozenset()  # a paragraph ends an open quote or bold
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m and (fence is None or m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)):
            fence = None if fence else m.group(1)
        elif "\\htmlonly" in line or html_block:
            html_block = "\\endhtmlonly" not in line
        elif "<!--" in line or comment:
            comment = "-->" not in line.split("<!--")[-1] if "<!--" in line else "-->" not in line
        elif fence is None and not (stripped.startswith(("#", "<", "|-", "|:")) or line.startswith(("    ", "\t"))):
            line, shut = link_line(line, href, seen, shut)
        out.append(line)
    return out


def check(glossary):
    """Fails, naming them, if an entry has no anchor in GLOSSARY."""
    text = glossary.read_text(encoding="utf-8")
    missing = [ident for ident, _, _ in TERMS if f'id="{ident}"' not in text]
    if missing:
        sys.exit(f"docs_glossary.py: {glossary} has no anchor for: {', '.join(missing)}")


def link_page(page, href):
    """PAGE rewritten in place, each term's first use linked to HREF."""
    lines = link_lines(page.read_text(encoding="utf-8").split("\n"), href)
    page.write_text("\n".join(lines), encoding="utf-8")


def parse_args():
    p = argparse.ArgumentParser(description="\n\n".join(__doc__.split("\n\n")[1:3]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", metavar="GLOSSARY_MD", type=Path,
                   help="fail if an entry this module links to has no anchor in this file")
    p.add_argument("page", nargs="?", type=Path, help="the Markdown page, rewritten in place")
    p.add_argument("href", nargs="?",
                   help="the glossary page as the page reaches it (glossary.html, ../../glossary.html)")
    args = p.parse_args()
    if not args.check and not (args.page and args.href):
        p.error("PAGE and HREF, or --check GLOSSARY_MD")
    return args


def main():
    args = parse_args()
    if args.check:
        check(args.check)
    else:
        link_page(args.page, args.href)


if __name__ == "__main__":
    main()
