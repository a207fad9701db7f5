"""table.py: the results files, and docs/MUTANTS.md written from them.

Each mode keeps its results in a file of its own, one row per mutant id,
after "# key: value" lines that describe its last run. A row's fields are
tab-separated and hold what the runs found as data, never a cell of the
table: the cells are written here from the fields (cell()), and the site's
page folds its own from the same values (rows(), which
docs/generator/lockstep_site/mutants.py reads).

  tsan.tsv      id, status, then two fields per run: the test that failed
                first and what it found ("TSan data race", "Check: " and
                Check's message, ...), both empty for a run that passed
  explorer.tsv  id, status, seconds of the explorer runs, then three
                fields per run: the scenario that failed first, the kind
                of failure and the schedules it took; a run that passed
                has no scenario or kind, and the schedules of every
                scenario (no schedules: the explorer did not say)

The status is killed (explorer.tsv: caught) or survived (k/N), and the
runs after it say the same; no code change has no field after it, does
not build one: the compiler's first error line. No field holds a tab or a
line break (a run's text has each made a space). A row of another shape
stops the reader, which says where.

A run merges its rows into its mode's file (a partial run, --only or
--steps, replaces only its own rows), and the table is written from both
files, so a run of one mode leaves the other's columns as they were. The
table's prose is the template MUTANTS.md.in beside this file.
"""
import os
from dataclasses import dataclass, field
from string import Template

import scan

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
LOGIC = os.path.join(HERE, "logic.tsv")
MODES = ("tsan", "explorer")
KEYS = ("command", "date", "machine", "settings", "runs", "wall time")
DEFAULT_RUNS = 3  # run.py's --runs: the summary's N/N when a results file does not say


def code(text):
    """TEXT as a code span the site renders: ``...`` when it holds a ' (Doxygen
    reads `...' as a quotation, not as code; the site's renderer turns ``...``
    into <code> itself)."""
    return f"``{text}``" if "'" in text else f"`{text}`"


def one_line(text):
    """TEXT as a field: its tabs and line breaks made spaces."""
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


# ---- a row's values --------------------------------------------------------------

@dataclass
class Run:
    """One run of a mutant: the test (the explorer: the scenario) that
    failed first and what it found, both "" if every one passed; in the
    explorer mode the schedules of the failing scenario, or on a pass of
    them all (None: not said)."""
    test: str = ""
    found: str = ""
    schedules: int = None

    def __post_init__(self):
        self.test, self.found = one_line(self.test), one_line(self.found)


@dataclass
class Result:
    """A mutant's row of one mode: its status, its runs, the compiler's
    first error line (does not build), the seconds of its explorer runs."""
    status: str
    runs: list = field(default_factory=list)
    error: str = ""
    seconds: str = ""

    def __post_init__(self):
        self.error = one_line(self.error)


def status_of(mode, runs):
    """The status RUNS give: every run failed a test, or how many did."""
    kills = sum(1 for r in runs if r.test)
    if kills == len(runs):
        return "caught" if mode == "explorer" else "killed"
    return f"survived ({kills}/{len(runs)})"


class RowError(Exception):
    pass


FIELDS_PER_RUN = {"tsan": 2, "explorer": 3}


def parse_row(mode, fields):
    """(id, Result) of a results file's row (its tab-separated FIELDS)."""
    if len(fields) < 2 or not fields[0] or not fields[1]:
        raise RowError("no id and status")
    mid, status, rest = fields[0], fields[1], fields[2:]
    seconds = ""
    if mode == "explorer":
        if not rest:
            raise RowError(f"{mid}: no seconds field")
        seconds, rest = rest[0], rest[1:]
        if seconds and not seconds.replace(".", "", 1).isdigit():
            raise RowError(f"{mid}: seconds {seconds!r} is not a number")
    if status == "no code change":
        if rest:
            raise RowError(f"{mid}: {status} has no run, but {len(rest)} fields follow")
        return mid, Result(status, seconds=seconds)
    if status == "does not build":
        if len(rest) != 1:
            raise RowError(f"{mid}: {status} has one field after it, the compiler's error, not {len(rest)}")
        return mid, Result(status, error=rest[0], seconds=seconds)
    size = FIELDS_PER_RUN[mode]
    if not rest or len(rest) % size:
        raise RowError(f"{mid}: {len(rest)} fields of runs, not {size} for each run")
    runs = []
    for k in range(0, len(rest), size):
        test, found = rest[k], rest[k + 1]
        schedules = rest[k + 2] if mode == "explorer" else ""
        if schedules and not schedules.isdigit():
            raise RowError(f"{mid}: run {k // size + 1}: schedules {schedules!r} is not a number")
        if bool(test) != bool(found):
            raise RowError(f"{mid}: run {k // size + 1}: " + ("a failed test without what it found" if test
                                                                else "what was found without its test"))
        runs.append(Run(test, found, int(schedules) if schedules else None))
    if status != status_of(mode, runs):
        raise RowError(f"{mid}: status {status!r}, but its runs say {status_of(mode, runs)!r}")
    return mid, Result(status, runs, seconds=seconds)


def row_fields(mode, mid, r):
    """The fields of mutant MID's row, Result R: parse_row's inverse."""
    fields = [mid, r.status] + ([r.seconds] if mode == "explorer" else [])
    if r.status == "does not build":
        return fields + [r.error]
    for run in r.runs:
        fields += [run.test, run.found]
        if mode == "explorer":
            fields.append("" if run.schedules is None else str(run.schedules))
    return fields


# ---- the results files ------------------------------------------------------------

HEADERS = {
    "tsan": "# tests/mutants/run.py: the step's tests under the sanitizers. Columns: id, status, then per run "
            "the test that failed first and what it found (both empty: the run passed).",
    "explorer": "# tests/mutants/run.py --explorer: the explorer alone. Columns: id, status, seconds of explorer "
                "runs, then per run the scenario that failed first, its kind and the schedules explored "
                "(a pass: no scenario or kind, every scenario's schedules).",
}


class Results:
    """One mode's results file: its last run's description and its rows,
    {id: Result}."""

    def __init__(self, path, mode):
        self.path, self.mode, self.meta, self.earlier, self.rows = path, mode, {}, [], {}
        if not os.path.isfile(path):
            return
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f.read().split("\n"), 1):
                if line.startswith("# earlier: "):
                    self.earlier.append(line[len("# earlier: "):])
                elif line.startswith("# "):
                    key, sep, value = line[2:].partition(": ")
                    if sep and key in KEYS and key not in self.meta:
                        self.meta[key] = value
                elif line:
                    try:
                        mid, result = parse_row(mode, line.split("\t"))
                    except RowError as e:
                        raise RowError(f"{path}:{number}: {e}") from None
                    if mid in self.rows:
                        raise RowError(f"{path}:{number}: {mid}: a second row")
                    self.rows[mid] = result

    def exists(self):
        return os.path.isfile(self.path)

    def describe_partial_run(self):
        """A partial run keeps the rows of the runs before it, so the file
        keeps their description too, as "# earlier:" lines."""
        if "command" in self.meta:
            self.earlier.append(f"{self.meta.get('date', '?')}, {code(self.meta['command'])}, "
                                f"{self.meta.get('wall time', '?')}")

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(HEADERS[self.mode] + "\n")
            for key in KEYS:
                f.write(f"# {key}: {self.meta.get(key, '')}\n")
            for e in self.earlier:
                f.write(f"# earlier: {e}\n")
            for mid in sorted(self.rows, key=lambda s: s.encode()):
                f.write("\t".join(row_fields(self.mode, mid, self.rows[mid])) + "\n")
        os.replace(tmp, self.path)


def read_results(directory):
    """{mode: its Results in DIRECTORY}."""
    return {mode: Results(os.path.join(directory, f"{mode}.tsv"), mode) for mode in MODES}


def step_dirs(repo=REPO):
    """{NN: steps/NN-name} of every step of the repository."""
    steps = os.path.join(repo, "steps")
    return {d[:2]: os.path.join(steps, d) for d in sorted(os.listdir(steps))
            if d[:2].isdigit() and d[2:3] == "-" and os.path.isdir(os.path.join(steps, d))}


# ---- the table's cells --------------------------------------------------------------

def md_escape(text):
    return text.replace("|", "\\|")


def shown(mode, run):
    """RUN as the table shows it: (its test as a code span, what it found),
    or ("", "—" and the schedules) for a run that passed."""
    n = run.schedules if mode == "explorer" else None
    if not run.test:
        return "", "—" + (f" ({n} schedules, every one passed)" if n is not None else "")
    return f"`{run.test}`", run.found + (f" (after {n} schedule{'' if n == 1 else 's'})" if n is not None else "")


def run_cell(mode, run):
    """RUN as one part of a cell: `test` (what it found), `scenario`: what it found, or —."""
    test, what = shown(mode, run)
    if not test:
        return what
    return f"{test}: {what}" if mode == "explorer" else f"{test} ({what})"


def cell(mode, result):
    """The runs' cell of RESULT: the runs joined by " / ", or one run and ×N
    when every run found the same."""
    if result.status == "no code change":
        return "(not run)"
    if result.status == "does not build":
        return result.error
    cells = [run_cell(mode, r) for r in result.runs]
    return f"{cells[0]} ×{len(cells)}" if len(set(cells)) == 1 else " / ".join(cells)


def minutes(seconds):
    seconds = int(seconds)
    return f"{seconds // 60} min {seconds % 60} s"


def verdict(status):
    if status in ("killed", "caught"):
        return "ok"
    if status.startswith("survived"):
        return "survived"
    return {"no code change": "nocode", "not run": "notrun"}.get(status, "failed")


def summary(statuses, word, runs):
    """The summary line of one mode, from (status, kind) pairs."""
    count = {}
    for status, kind in statuses:
        v = verdict(status)
        for key in (v, (kind, v)) + (("total", (kind, "total")) if v in ("ok", "survived", "failed") else ()):
            count[key] = count.get(key, 0) + 1
    n = count.get
    s = f"{n('total', 0)} mutants, {n('ok', 0)} {word} {runs}/{runs}, {n('survived', 0)} survived"
    if n("failed"):
        s += f", {n('failed')} did not build"
    if n("nocode"):
        s += f" ({n('nocode')} more change no code in the step's library and are not counted)"
    if n("notrun"):
        s += f"; {n('notrun')} not run"
    s += f". Memory orders: {n(('order', 'ok'), 0)} of {n(('order', 'total'), 0)} {word}"
    return s + f"; logic: {n(('logic', 'ok'), 0)} of {n(('logic', 'total'), 0)}"


def last_run(results):
    if not results.exists():
        return "- not run yet"
    lines = [f"- command: {code(results.meta.get('command', ''))}"]
    lines += [f"- {key}: {results.meta.get(key, '')}" for key in ("date", "machine", "settings", "wall time")]
    if results.earlier:
        lines.append("- rows it did not run are from earlier runs:")
        lines += [f"  - {e}" for e in results.earlier]
    return "\n".join(lines)


# The table's columns; the site's page keeps the two of the runs (KILLED_BY, EXPLORER_ALONE).
KILLED_BY, EXPLORER_ALONE = "killed by, TSan/ASan (run 1/2/3)", "explorer alone (run 1/2/3)"
COLUMNS = ("step", "file:line", "function", "original", "mutant", KILLED_BY, "result", EXPLORER_ALONE,
           "explorer", "explorer time")
HEADER_LINE = "| " + " | ".join(COLUMNS) + " |"
RULE_LINE = "|" + "---|" * len(COLUMNS)
ROW_HEADER = HEADER_LINE + "\n" + RULE_LINE + "\n"


@dataclass
class Row:
    """A row of the table as values: the mutant (scan.Mutant), its step's
    directory name, its Result in each mode (None: not run)."""
    mutant: object
    step_name: str
    tsan: Result
    explorer: Result

    def source(self):
        """(text, target) of the link to the mutant's line, as the table writes it."""
        m = self.mutant
        return f"{m.file}:{m.line}", f"../steps/{self.step_name}/{m.file}#L{m.line}"


def markdown_row(row):
    m, (text, target) = row.mutant, row.source()
    ts, tc = (row.tsan.status, cell("tsan", row.tsan)) if row.tsan else ("not run", "")
    xs, xc, xt = ((row.explorer.status, cell("explorer", row.explorer), row.explorer.seconds) if row.explorer
                  else ("not run", "", ""))
    if m.kind == "order":
        original, mutant = f"`{m.original}` (`{m.call}`)", f"`{m.mutant}`"
    else:
        original, mutant = f"logic: `{m.original}` (README: {m.section})", md_escape(m.mutant)
    return (f'| <a id="{m.id}"></a>{m.step} | [{text}]({target}) '
            f"| `{m.function}` | {original} | {mutant} | {md_escape(tc)} | {ts} | {md_escape(xc)} | {xs} "
            f"| {xt + ' s' if xt else ''} |\n")


def table_rows(mutants, step_names, tsan, explorer):
    """[Row] of MUTANTS, in their order, from the two modes' Results."""
    return [Row(m, step_names[m.step], tsan.rows.get(m.id), explorer.rows.get(m.id)) for m in mutants]


def rows(results=HERE):
    """The table's rows as values ([Row], the table's order): every mutant of
    every step of the repository, with the results files' rows in RESULTS
    (default: the committed ones). Raises scan.ScanError or RowError."""
    steps = step_dirs()
    results = read_results(results)
    return table_rows(scan.discover(steps, LOGIC), {nn: os.path.basename(d) for nn, d in steps.items()},
                      results["tsan"], results["explorer"])


def write(out, mutants, step_names, tsan, explorer, default_runs=DEFAULT_RUNS):
    """docs/MUTANTS.md (or OUT): a row for every mutant of every step, from
    both results files. Returns the two summary lines."""
    text, current = "", None
    for row in table_rows(mutants, step_names, tsan, explorer):
        if row.mutant.step != current:
            current = row.mutant.step
            text += f'\n<a id="step-{current}"></a>\n\n### {row.step_name}\n\n' + ROW_HEADER
        text += markdown_row(row)
    t_summary = summary([(tsan.rows[m.id].status if m.id in tsan.rows else "not run", m.kind) for m in mutants],
                        "killed", tsan.meta.get("runs", default_runs))
    x_summary = summary([(explorer.rows[m.id].status if m.id in explorer.rows else "not run", m.kind)
                         for m in mutants], "caught", explorer.meta.get("runs", default_runs))
    with open(os.path.join(HERE, "MUTANTS.md.in"), encoding="utf-8") as f:
        template = Template(f.read())
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write(template.substitute(tsan_last_run=last_run(tsan), tsan_summary=t_summary,
                                    explorer_last_run=last_run(explorer), explorer_summary=x_summary,
                                    rows=text))
    return t_summary, x_summary
