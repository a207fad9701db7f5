"""The mutation table's page: its columns reordered so that each mutant's
verdicts come right after it.
"""
from pathlib import Path

from lockstep_site.markdown import cells


VERDICTS = ("step", "file:line", "original", "mutant", "result", "explorer")


def verdicts_first(path):
    """The mutation table's columns reordered so that its verdicts ("result",
    "explorer") come right after the mutant: in view without scrolling."""
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    order = None
    for n, line in enumerate(lines):
        if not line.startswith("|"):
            order = None
            continue
        row = [c.strip() for c in cells(line)]
        if order is None:
            if not all(v in row for v in VERDICTS):
                order = []
                continue
            order = [row.index(v) for v in VERDICTS] + [i for i, c in enumerate(row) if c not in VERDICTS]
        if order and len(row) == len(order):
            lines[n] = "| " + " | ".join(row[i] for i in order) + " |"
    path.write_text("\n".join(lines), encoding="utf-8")
