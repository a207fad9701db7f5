#!/usr/bin/env python3
"""A step README's "## Files changed from <step>" list: its one parser.

The list is Markdown: an item ("- `path`: what changed", or "* ...") names
a file; lines indented under an item continue its note; any other text in
the section is a paragraph after the list. step_diff.cmake (the test that
the list is the real diff) and lockstep_site/diff_page.py (the diff pages' notes) both
read the list here.

  step_readme.py files-changed README
      Prints the paths the list names, one a line, in the README's order.
"""
import argparse
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    listed = sub.add_parser("files-changed", help="print the paths the list names")
    listed.add_argument("readme", type=Path)
    args = parser.parse_args()
    if not has_section(args.readme):
        parser.exit(1, f"{args.readme} has no '## Files changed from ...' section\n")
    for path in files_changed(args.readme)[0]:
        print(path)


if __name__ == "__main__":
    main()
