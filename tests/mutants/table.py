"""table.py: the results files, and docs/MUTANTS.md written from them.

Each mode keeps its results in a file of its own, one row per mutant id
(tab-separated), after "# key: value" lines that describe its last run:
  tsan.tsv      id, status (killed, survived (k/N), ...), killed-by cell
  explorer.tsv  id, status (caught, survived (k/N), ...), explorer cell,
                seconds of the explorer runs
A run merges its rows into its mode's file (a partial run, --only or
--steps, replaces only its own rows), and the table is written from both
files, so a run of one mode leaves the other's columns as they were. The
table's prose is the template MUTANTS.md.in beside this file.
"""
import os
from string import Template

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ("command", "date", "machine", "settings", "runs", "wall time")


def code(text):
    """TEXT as a code span the site renders: ``...`` when it holds a ' (Doxygen
    reads `...' as a quotation, not as code; the site's renderer turns ``...``
    into <code> itself)."""
    return f"``{text}``" if "'" in text else f"`{text}`"


HEADERS = {
    "tsan": "# tests/mutants/run.py: the step's tests under the sanitizers. "
            "Columns: id, status, first failing test and how per run.",
    "explorer": "# tests/mutants/run.py --explorer: the explorer alone. "
                "Columns: id, status, first failing scenario and kind per run, seconds of explorer runs.",
}


class Results:
    """One mode's results file: its last run's description and its rows."""

    def __init__(self, path):
        self.path, self.meta, self.earlier, self.rows = path, {}, [], {}
        if not os.path.isfile(path):
            return
        with open(path, encoding="utf-8") as f:
            for line in f.read().splitlines():
                if line.startswith("# earlier: "):
                    self.earlier.append(line[len("# earlier: "):])
                elif line.startswith("# "):
                    key, sep, value = line[2:].partition(": ")
                    if sep and key in KEYS and key not in self.meta:
                        self.meta[key] = value
                elif line:
                    fields = line.split("\t")
                    self.rows[fields[0]] = fields[1:]

    def exists(self):
        return os.path.isfile(self.path)

    def describe_partial_run(self):
        """A partial run keeps the rows of the runs before it, so the file
        keeps their description too, as "# earlier:" lines."""
        if "command" in self.meta:
            self.earlier.append(f"{self.meta.get('date', '?')}, {code(self.meta['command'])}, "
                                f"{self.meta.get('wall time', '?')}")

    def save(self, mode):
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(HEADERS[mode] + "\n")
            for key in KEYS:
                f.write(f"# {key}: {self.meta.get(key, '')}\n")
            for e in self.earlier:
                f.write(f"# earlier: {e}\n")
            for mid in sorted(self.rows, key=lambda s: s.encode()):
                f.write("\t".join([mid] + self.rows[mid]) + "\n")
        os.replace(tmp, self.path)


def minutes(seconds):
    seconds = int(seconds)
    return f"{seconds // 60} min {seconds % 60} s"


def md_escape(text):
    return text.replace("|", "\\|")


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


ROW_HEADER = ("| step | file:line | function | original | mutant | killed by, TSan/ASan (run 1/2/3) | result "
              "| explorer alone (run 1/2/3) | explorer | explorer time |\n|---|---|---|---|---|---|---|---|---|---|\n")


def row(m, step_name, tsan, explorer):
    ts, tc = (tsan + ["", ""])[:2] if tsan else ("not run", "")
    xs, xc, xt = (explorer + ["", "", ""])[:3] if explorer else ("not run", "", "")
    if m.kind == "order":
        original, mutant = f"`{m.original}` (`{m.call}`)", f"`{m.mutant}`"
    else:
        original, mutant = f"logic: `{m.original}` (README: {m.section})", md_escape(m.mutant)
    return (f'| <a id="{m.id}"></a>{m.step} | [{m.file}:{m.line}](../steps/{step_name}/{m.file}#L{m.line}) '
            f"| `{m.function}` | {original} | {mutant} | {md_escape(tc)} | {ts} | {md_escape(xc)} | {xs} "
            f"| {xt + ' s' if xt else ''} |\n")


def write(out, mutants, step_names, tsan, explorer, default_runs):
    """docs/MUTANTS.md (or OUT): a row for every mutant of every step, from
    both results files. Returns the two summary lines."""
    rows, current = "", None
    for m in mutants:
        if m.step != current:
            current = m.step
            rows += f'\n<a id="step-{m.step}"></a>\n\n### {step_names[m.step]}\n\n' + ROW_HEADER
        rows += row(m, step_names[m.step], tsan.rows.get(m.id), explorer.rows.get(m.id))
    t_summary = summary([((tsan.rows.get(m.id) or ["not run"])[0], m.kind) for m in mutants], "killed",
                        tsan.meta.get("runs", default_runs))
    x_summary = summary([((explorer.rows.get(m.id) or ["not run"])[0], m.kind) for m in mutants], "caught",
                        explorer.meta.get("runs", default_runs))
    with open(os.path.join(HERE, "MUTANTS.md.in"), encoding="utf-8") as f:
        template = Template(f.read())
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        f.write(template.substitute(tsan_last_run=last_run(tsan), tsan_summary=t_summary,
                                    explorer_last_run=last_run(explorer), explorer_summary=x_summary,
                                    rows=rows))
    return t_summary, x_summary
