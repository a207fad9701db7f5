"""The mutation table's page: each step's table folded from the ten columns
tests/mutants/table.py writes (docs/MUTANTS.md, read as it is on GitHub)
into the three that carry its lesson, so that it fits the reading column
with the test that catches each mutant in view:

  mutant                      the function, the change (acq_rel → acquire,
                              or the logic slip), and under them where:
                              file:line and the atomic call (or the README
                              section)
  killed by, TSan/ASan        the test that killed it, and under it the
                              verdict and what the mutant broke ("killed:
                              TSan data race ×3")
  explorer alone              the same for the explorer's own memory model:
                              its scenario, what it found, its time

Nothing is dropped: a column folded is a line of a cell (the step is the
table's heading). The row's anchor (m-...) stays in its first cell, where
the READMEs' links and docs/lockstep.css find it. A cell whose text is not
of the shape table.py writes is shown as it is; a table whose header is not
table.py's is left alone (docs.browser then finds it too wide).
"""
import re
from pathlib import Path

from lockstep_site.markdown import cells


# table.py's header names (the two verdict columns by their first words).
COLUMNS = ("step", "file:line", "function", "original", "mutant", "killed by", "result",
           "explorer alone", "explorer", "explorer time")
ANCHOR = re.compile(r'<a id="[^"]*"></a>')


def column_index(header):
    """{name of COLUMNS: its index in HEADER (a row's cells)}, or None if one is missing."""
    names = [c.strip() for c in header]
    found = {}
    for name in COLUMNS:
        at = [i for i, c in enumerate(names)
              if c == name or name in ("killed by", "explorer alone") and c.startswith(name)]
        if len(at) != 1:
            return None
        found[name] = at[0]
    return found


def div(cls, text):
    return f'<div class="{cls}">{text}</div>' if text else ""


def mutant_cell(c):
    """The function, the change, where: one cell."""
    anchor = "".join(ANCHOR.findall(c["step"]))
    order = re.fullmatch(r"(`[^`]+`) \((`[^`]+`)\)", c["original"])
    logic = re.fullmatch(r"logic: (`[^`]+`) \(README: (.*)\)", c["original"])
    if order:  # a memory order weakened: acq_rel → acquire, on its atomic call
        change, where = f"{order.group(1)} → {c['mutant']}", f"{c['file:line']}, {order.group(2)}"
    elif logic:  # a logic slip the README teaches: its name, what it does, the README's section
        change, where = f"logic, {logic.group(1)}: {c['mutant']}", f"{c['file:line']}, README: {logic.group(2)}"
    else:
        change, where = f"{c['original']} → {c['mutant']}", c["file:line"]
    return anchor + c["function"] + div("mut-change", change) + div("mut-where", where)


VERDICT_CLASS = {"killed": "mut-ok", "caught": "mut-ok", "not run": "mut-none", "no code change": "mut-none"}


def verdict(status):
    """The verdict as the first words of a cell: killed and caught quiet,
    survived or a failed build loud, not run and no code change grey."""
    return f'<span class="mut-verdict {VERDICT_CLASS.get(status, "mut-bad")}">{status}</span>'


def runs_named(numbers):
    """"run 2", "runs 1 and 3", "runs 1, 2 and 3"."""
    n = [str(k) for k in numbers]
    return f"run {n[0]}" if len(n) == 1 else f"runs {', '.join(n[:-1])} and {n[-1]}"


def catch_cell(status, runs, shape, after=""):
    """The test or scenario that caught the mutant, and under it the verdict
    and what it found ("killed: TSan data race ×3"); or, when the runs
    differ, the verdict and under it what each run found ("runs 1 and 3:
    ..."), under the test if one test caught it every time. RUNS: the cell
    table.py wrote (the runs joined by " / ", or one run and ×N); SHAPE: a
    run's pattern, (test)(what it found); AFTER: the verdict's end (the
    explorer's time)."""
    status, runs = status.strip(), runs.strip()
    if status in ("not run", "no code change") or not runs or runs == "(not run)":
        return verdict(status or "not run")
    times = re.search(r" ×\d+$", runs)
    parts = [runs[:times.start()]] if times else runs.split(" / ")
    times = times.group(0) if times else ""
    found = [re.fullmatch(shape, p) for p in parts]
    one_test = all(found) and len({m.group(1) for m in found}) == 1
    if one_test and len(parts) == 1:
        return found[0].group(1) + div("mut-how", f"{verdict(status)}: {found[0].group(2)}{times}{after}")
    if len(parts) == 1:  # (a cell of another shape: a build's error, every run passed)
        return verdict(status) + after + div("mut-how", parts[0] + times)
    seen = {}  # {what a run found: the runs that found it}, in run order
    for n, (p, m) in enumerate(zip(parts, found), 1):
        seen.setdefault(m.group(2) if one_test else f"{m.group(1)} {m.group(2)}" if m else p, []).append(n)
    lines = "".join(div("mut-how", f"{runs_named(n)}: {what}") for what, n in seen.items())
    if one_test:
        return found[0].group(1) + div("mut-how", verdict(status) + after) + lines
    return verdict(status) + after + lines


def folded(row, at):
    """A row of table.py's table as the site's three cells."""
    c = {name: row[i].strip() for name, i in at.items()}
    time = f", in&nbsp;{c['explorer time'].replace(' ', '&nbsp;')}" if c["explorer time"] else ""  # (in 0.0 s: one line)
    return [mutant_cell(c),
            catch_cell(c["result"], c["killed by"], r"(`[^`]+`) \((.*)\)"),
            catch_cell(c["explorer"], c["explorer alone"], r"(`[^`]+`): (.*)", time)]


def verdicts_first(path):
    """The mutation table (PATH, the page's Markdown) folded into the three
    columns that carry its lesson: the mutant, the test that killed it under
    the sanitizers, the explorer's scenario that caught it; each with what
    the mutant broke."""
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    at, head = None, None
    for n, line in enumerate(lines):
        if not line.startswith("|"):
            at = head = None
            continue
        row = cells(line)
        if head is None:  # a table's header row: table.py's, or another table
            head = row
            at = column_index(row)
            if at:
                killed, alone = (head[at["killed by"]].strip(), head[at["explorer alone"]].strip())
                lines[n] = f"| mutant | {killed} | {alone} |"
        elif at and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line.strip()):
            lines[n] = "|---|---|---|"
        elif at and len(row) == len(head):
            lines[n] = "| " + " | ".join(folded(row, at)) + " |"
    path.write_text("\n".join(lines), encoding="utf-8")
