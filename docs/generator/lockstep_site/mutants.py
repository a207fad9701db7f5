"""The mutation table's page: each step's table, ten columns in
docs/MUTANTS.md, folded into the three that carry its lesson, so that it
fits the reading column with the test that catches each mutant in view:

  mutant                      the function, the change (acq_rel → acquire,
                              or the logic slip), and under them where:
                              file:line and the atomic call (or the README
                              section)
  killed by, TSan/ASan        the test that killed it, and under it the
                              verdict and what the mutant broke ("killed:
                              TSan data race ×3")
  explorer alone              the same for the explorer's own memory model:
                              its scenario, what it found, its time

The folded rows are made from the table's data, not from its Markdown:
tests/mutants/table.py's rows() gives each mutant (tests/mutants/scan.py's,
from the steps' sources and logic.tsv) with its results (tsan.tsv,
explorer.tsv), each run as its fields. Of docs/MUTANTS.md the page keeps
the prose and where the tables are: a table whose header is table.py's, its
rule under it, then one row per mutant, each in the data's order and
starting with the mutant's anchor. A row the data has not, or one it has
that the page lacks, stops the build: docs/MUTANTS.md is older than the
data (tests/mutants/run.py --table-only writes it again). Nothing is
dropped: a column folded is a line of a cell (the step is the table's
heading); the row's anchor (m-...) stays in its first cell, where the
READMEs' links and docs/lockstep.css find it.
"""
import posixpath
import sys
from pathlib import Path

from lockstep_site.sitemap import site_href

# The repository whose tests/mutants/ this page comes from (the one these
# generators belong to: pages_course.py's --src), and the page's place, as
# pages_course.py rewrites its links (sitemap.site_links).
REPO = Path(__file__).resolve().parents[3]
PAGE, HTML_DIR = "docs/MUTANTS.md", "."


def mutation_table(repo):
    """tests/mutants/table.py of REPO, imported (with scan.py beside it)."""
    here = str(repo / "tests" / "mutants")
    sys.path.insert(0, here)
    try:
        import table
    finally:
        sys.path.remove(here)
    return table


def div(cls, text):
    return f'<div class="{cls}">{text}</div>' if text else ""


def mutant_cell(table, row):
    """The function, the change, where: one cell."""
    m, (text, target) = row.mutant, row.source()
    where = f"[{text}]({site_href(target, posixpath.dirname(PAGE), HTML_DIR)})"
    if m.kind == "order":  # a memory order weakened: acq_rel → acquire, on its atomic call
        change, where = f"`{m.original}` → `{m.mutant}`", f"{where}, `{m.call}`"
    else:  # a logic slip the README teaches: its name, what it does, the README's section
        change, where = f"logic, `{m.original}`: {table.md_escape(m.mutant).strip()}", f"{where}, README: {m.section}"
    return f'<a id="{m.id}"></a>`{m.function}`' + div("mut-change", change) + div("mut-where", where)


VERDICT_CLASS = {"killed": "mut-ok", "caught": "mut-ok", "not run": "mut-none", "no code change": "mut-none"}


def verdict(status):
    """The verdict as the first words of a cell: killed and caught quiet,
    survived or a failed build loud, not run and no code change grey."""
    return f'<span class="mut-verdict {VERDICT_CLASS.get(status, "mut-bad")}">{status}</span>'


def runs_named(numbers):
    """"run 2", "runs 1 and 3", "runs 1, 2 and 3"."""
    n = [str(k) for k in numbers]
    return f"run {n[0]}" if len(n) == 1 else f"runs {', '.join(n[:-1])} and {n[-1]}"


def catch_cell(table, mode, result, after=""):
    """The test or scenario that caught the mutant, and under it the verdict
    and what it found ("killed: TSan data race ×3"); or, when the runs
    differ, the verdict and under it what each run found ("runs 1 and 3:
    ..."), under the test if one test caught it every time. RESULT: the
    mode's table.Result (None: not run); AFTER: the verdict's end (the
    explorer's time)."""
    if result is None or result.status == "no code change":
        return verdict(result.status if result else "not run")
    esc = table.md_escape
    if result.status == "does not build":
        error = esc(result.error).strip()
        return verdict(result.status) + after + div("mut-how", error) if error else verdict(result.status)
    shown = [tuple(esc(x) for x in table.shown(mode, r)) for r in result.runs]
    cells = [esc(table.run_cell(mode, r)) for r in result.runs]
    one_test = all(test for test, _ in shown) and len({test for test, _ in shown}) == 1
    if len(set(cells)) == 1:  # every run found the same: once, ×N
        times = f" ×{len(cells)}"
        if one_test:
            return shown[0][0] + div("mut-how", f"{verdict(result.status)}: {shown[0][1]}{times}{after}")
        return verdict(result.status) + after + div("mut-how", cells[0] + times)  # every run passed
    seen = {}  # {what a run found: the runs that found it}, in run order
    for n, ((test, what), text) in enumerate(zip(shown, cells), 1):
        seen.setdefault(what if one_test else f"{test} {what}" if test else text, []).append(n)
    lines = "".join(div("mut-how", f"{runs_named(n)}: {what}") for what, n in seen.items())
    if one_test:
        return shown[0][0] + div("mut-how", verdict(result.status) + after) + lines
    return verdict(result.status) + after + lines


def folded(table, row):
    """A row of table.py's table (a table.Row) as the site's three cells."""
    seconds = row.explorer.seconds if row.explorer else ""
    time = f", in&nbsp;{seconds}&nbsp;s" if seconds else ""  # (in 0.0 s: one line)
    return [mutant_cell(table, row), catch_cell(table, "tsan", row.tsan),
            catch_cell(table, "explorer", row.explorer, time)]


def verdicts_first(path, repo=REPO):
    """The mutation table (PATH, the page's Markdown) folded into the three
    columns that carry its lesson: the mutant, the test that killed it under
    the sanitizers, the explorer's scenario that caught it; each with what
    the mutant broke. Made from REPO's tests/mutants data (table.rows())."""
    table = mutation_table(Path(repo))
    try:
        rows = table.rows()
    except (table.RowError, table.scan.ScanError) as e:
        sys.exit(f"the mutation table's page: {e}")
    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    at, state = 0, None  # the next row of the data; None (no table), "header", "rows"
    for n, line in enumerate(lines):
        if line == table.HEADER_LINE:
            lines[n], state = f"| mutant | {table.KILLED_BY} | {table.EXPLORER_ALONE} |", "header"
        elif state == "header" and line == table.RULE_LINE:
            lines[n], state = "|---|---|---|", "rows"
        elif state == "rows" and line.startswith("|"):
            if at == len(rows) or not line.startswith(f'| <a id="{rows[at].mutant.id}"></a>'):
                expected = f"mutant {rows[at].mutant.id}'s" if at < len(rows) else "no further"
                sys.exit(f"the mutation table's page: line {n + 1} of {path} is not {expected} row, as the data "
                         f"has it: {line[:120]}\ndocs/MUTANTS.md is older than tests/mutants' data: "
                         "tests/mutants/run.py --table-only writes it again")
            lines[n] = "| " + " | ".join(folded(table, rows[at])) + " |"
            at += 1
        else:
            state = None
    if at < len(rows):
        sys.exit(f"the mutation table's page: {path} has no row for mutant {rows[at].mutant.id} (and "
                 f"{len(rows) - at - 1} more): docs/MUTANTS.md is older than tests/mutants' data: "
                 "tests/mutants/run.py --table-only writes it again")
    path.write_text("\n".join(lines), encoding="utf-8")
