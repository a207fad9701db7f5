"""A step README's "## Files changed from <step>" list: its one parser.

The list is Markdown: an item ("- `path`: what changed", or "* ...") names
a file; lines indented under an item continue its note; any other text in
the section is a paragraph after the list. step_diff.py (the test that
the list is the real diff) and lockstep_site/diff_page.py (the diff pages'
notes) both read the list here. Standard library only.
"""
import re
from pathlib import Path

ITEM = re.compile(r"^[-*] *`([^`]+)`:? *(.*)")


def files_changed(readme):
    """({path: note}, the text after the list) of README's "Files changed" section."""
    notes, after, current = {}, [], None
    section = False
    for line in Path(readme).read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line.startswith("## Files changed from")
            continue
        if not section:
            continue
        m = ITEM.match(line)
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


def has_section(readme):
    """Whether README has a "## Files changed from" heading."""
    return any(line.startswith("## Files changed from")
               for line in Path(readme).read_text(encoding="utf-8").splitlines())

