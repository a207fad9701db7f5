#!/usr/bin/env python3
"""tour.py: every benchmark workload on every step, one table.

Runs every step's benchmark, and the articles' C++ (tests/bench/cxx) if it
was built, interleaved: for each workload, one run (one process) of each
column in turn, --runs rounds, each round starting one column further on.
A burst of load then lands on every column alike, instead of on the five
runs of one column, so that the spread of a cell's runs, and the `*` that
flags a noisy one (NOISY_PERCENT), say how far its median can be trusted. Each timed run is
of a fresh copy of its program (Runner says why).

Prints, at the start, what the operations the workloads are made of cost on
this machine (--floor, tests/bench/floor.c); then one table (workload rows,
step columns, the median ns/op), the spread of the runs, a check of the
columns whose code is identical, what each workload is made of on each step
in those operations (counted by --counter, the steps built again with
tests/bench/count_hook.h) and each cell's ratio to that floor; with --peer
(another program, e.g. cppcoro's workloads, named by --peer-name), each
column's median over the peer's. The terminal
tables are padded to fit --width columns (or $COLUMNS); the same goes to
OUT_DIR/tour.md as Markdown, every figure to OUT_DIR/tour.csv, and a bar
chart to OUT_DIR/tour.svg when gnuplot is installed.

--save-raw FILE keeps every program's output (JSON); --from-raw FILE formats
such a file again instead of running anything: the same timings, the same
report. SOURCE_DATE_EPOCH, when set, is the report's date.

Exits 1 only if a step's result or leak check failed: timings never fail
anything, and neither does the C++ column (its crash on the 1,000,000
backlog is the articles' erratum 5, shown as such). `cmake --build --preset
tour` calls it (cmake/tour.cmake). Standard library only.
"""
import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# The floor's operations, in the order a cell's make-up lists them, and the
# letter each has in the tables. bench_floor names two of them differently.
OPS = ["exchange", "compare_exchange", "fetch_op", "mutex", "alloc_free"]
MADE_ORDER = ["alloc_free", "exchange", "compare_exchange", "fetch_op", "mutex"]
LETTER = {"exchange": "X", "compare_exchange": "C", "fetch_op": "F", "mutex": "M", "alloc_free": "A"}
FLOOR_NAMES = {"fetch_add": "fetch_op", "mutex_pair": "mutex"}
# What the counting builds count per op (their note: tests/bench/count_hook.h).
COUNTED_KINDS = ["exchange", "compare_exchange", "fetch_op", "mutex", "cond", "alloc", "free", "load", "store"]
COMPONENTS = ["task", "event", "sequencer"]
CXX_COLUMN = "C++ (articles)"
PEER_COLUMN = "peer"  # --peer-name renames it (cppcoro, ...)


# ---- numbers -----------------------------------------------------------------
# A figure is kept as an integer count of 10^-digits ("19.34" with 2 digits
# -> 1934) and printed back from it, rounded half up: the printed figures do
# not depend on binary floating point.

def to_fixed(text, digits):
    """'19.345' -> 1934 (digits=2): the decimals beyond `digits` dropped."""
    m = re.fullmatch(r"([0-9]+)(\.([0-9]*))?", text)
    if not m:
        return 0
    frac = ((m[3] or "") + "0" * digits)[:digits]
    return int(m[1]) * 10**digits + int(frac or "0")


def from_fixed(v, digits, shown):
    """v (in 10^-digits) printed with `shown` decimals, rounded half up."""
    drop = digits - shown
    if drop > 0:
        v = (v + 5 * 10 ** (drop - 1)) // 10**drop
    if shown == 0:
        return str(v)
    return f"{v // 10**shown}.{v % 10**shown:0{shown}d}"


def count_text(v):
    """A count (in 10^-4) as few digits as it needs: 20000 -> 2, 70080 -> 7.01; 0 -> ''."""
    t = re.sub(r"\.?0+$", "", from_fixed(v, 4, 2))
    return "" if t in ("", "0") else t


# ---- the report: the terminal and tour.md ----------------------------------------
# A table is a list of rows, each a list of cells; the first row is the
# header. On the terminal the first column is left-aligned, the rest right,
# and a table wider than the terminal is printed in parts that fit, each
# with the first column. Cells are ASCII, so len() is what the terminal shows.

class Report:
    """Everything said goes to the terminal, wrapped, and to tour.md, whole."""

    def __init__(self, width):
        self.width = width
        self.md = ""

    def wrap(self, text):
        m = re.match(r" +", text)
        indent = m[0] if m else ""
        words = text.lstrip(" ").split(" ") if text.lstrip(" ") else []
        cont = indent + "  " if indent else indent
        line = indent
        for word in words:
            if len(line + " " + word) > self.width and line != indent:
                print(line)
                line = cont + word
            elif line == indent:
                line = indent + word
            else:
                line = line + " " + word
        print(line)

    def say(self, text=""):
        self.wrap(text)
        self.md += text + "\n"

    def table(self, title, rows, left_last=False):
        self.wrap(title)
        for part in table_parts(column_widths(rows), self.width):
            print()
            print_part(rows, column_widths(rows), part, left_last)
        print()
        self.md += f"{title}\n\n{markdown(rows, left_last)}\n"


def column_widths(rows):
    return [max(len(row[c]) for row in rows if c < len(row)) for c in range(max(map(len, rows)))]


def table_parts(widths, width):
    """[first, end) ranges of the columns after the first that fit in `width`."""
    parts, start, used = [], 1, widths[0]
    for c in range(1, len(widths)):
        used += 2 + widths[c]
        if used > width and c > start:
            parts.append((start, c))
            start, used = c, widths[0] + 2 + widths[c]
    parts.append((start, len(widths)))
    return parts


def print_part(rows, widths, part, left_last):
    last = len(widths) - 1
    for r, row in enumerate(rows):
        line = row[0].ljust(widths[0])
        for c in range(*part):
            if left_last and c == last:
                line += "  " + row[c]
            else:
                line += row[c].rjust(widths[c] + 2)
        print(line)
        if r == 0:
            print("-" * len(line))


def markdown(rows, left_last):
    lines = ["| " + " | ".join(cell.replace("*", "\\*") for cell in row) + " |" for row in rows]
    rule = "--:|" * (len(rows[0]) - 1)
    if left_last:
        rule = rule[: -len("--:|")] + "---|"
    lines.insert(1, "|---|" + rule)
    return "".join(line + "\n" for line in lines)


# ---- running the programs, or reading what they printed ---------------------------

def describe_rc(rc):
    """A child's exit as CMake's execute_process said it: the number, or the signal."""
    if rc >= 0:
        return str(rc)
    try:
        return signal.strsignal(-rc) or f"signal {-rc}"
    except ValueError:
        return f"signal {-rc}"


class Runner:
    """Runs programs; keeps what each printed, keyed by what it was, for --save-raw.

    A timed run (fresh=True) runs a copy of the program made for it. What a
    program measures depends on where the kernel put its file's pages, not
    only on its code: on the machine this was written on, one copy of a
    step 08 benchmark took 20.5 ns per task_suspend in every run, and
    other copies of the very same file 16; the slow one was fast again once
    its pages were dropped and read anew. A copy written for each run lands
    somewhere new, so a cell's median is taken over placements as well as
    over runs, and no column keeps a lucky or an unlucky one."""

    def __init__(self):
        self.raw = []

    def run(self, key, argv, fresh=False):
        with tempfile.TemporaryDirectory(prefix="tour-") as tmp:
            program = shutil.copy2(argv[0], Path(tmp) / Path(argv[0]).name) if fresh else argv[0]
            proc = subprocess.run([program, *argv[1:]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                  errors="replace")
        self.raw.append({"key": key, "argv": [str(a) for a in argv], "rc": proc.returncode, "out": proc.stdout})
        return proc.returncode, proc.stdout

    def save(self, path):
        Path(path).write_text(json.dumps(self.raw, indent=1) + "\n")


class Replay:
    """What a --save-raw file says each program printed, in the order it ran."""

    def __init__(self, path):
        self.queues = defaultdict(list)
        for entry in json.loads(Path(path).read_text()):
            self.queues[entry["key"]].append(entry)

    def run(self, key, argv, fresh=False):
        entry = self.queues[key].pop(0)
        return entry["rc"], entry["out"]


# ---- the floor: what each operation costs here -------------------------------------

def parse_floor(out):
    """bench_floor's lines -> ({op: cost in 1/100 ns}, table rows, how it was timed)."""
    costs, rows, how = {}, [["operation", "ns", "what was timed"]], ""
    for line in out.split("\n"):
        m = re.fullmatch(r"([a-z_]+) +([0-9.]+) +# (.*)", line)
        if m:
            op = FLOOR_NAMES.get(m[1], m[1])
            what = re.sub(r":.*", "", re.sub(r"; min .*", "", m[3]))
            costs[op] = to_fixed(m[2], 2)
            rows.append([f"{op} ({LETTER.get(op, '')})", m[2], what])
        m = re.search(r" of ([0-9]+) rounds of ([0-9]+)$", line)
        if m:
            how = f"the fastest of {m[1]} rounds of {m[2]}"
    return costs, rows, how


def floor_section(report, runner, floor):
    """Prints the floor's table; returns the costs, or None without a whole floor."""
    rc, out = runner.run("floor", [floor])
    if rc != 0:
        print(f"tour: bench_floor failed ({describe_rc(rc)}): no floor, no ratios")
        return None
    costs, rows, how = parse_floor(out)
    title = f"The operations the workloads are made of, each timed alone on this machine (bench_floor, ns, {how}):"
    report.table(title, rows, left_last=True)
    return costs if all(op in costs for op in OPS) else None


# ---- run, interleaved --------------------------------------------------------------

@dataclass
class Cell:
    """One workload in one column: its runs' timings (1/100 ns) and what became of it."""
    status: str = ""
    ns: list = field(default_factory=list)
    allocs: str = ""
    counts: dict = None  # kind -> count per op in 10^-4, from the counting build

    def ran_ok(self):
        return self.status == "ok"


def parse_run(cell, name, rc, out):
    """One run's report line (bench.c's format) into the cell."""
    status = "not run"
    for line in out.split("\n"):
        if not line.startswith(name + " "):
            continue
        m = re.match(re.escape(name) + r" +([0-9.]+) +([0-9.]+) +# min", line)
        if m:
            cell.ns.append(to_fixed(m[1], 2))
            cell.allocs = re.sub(r"\.0*$", "", re.sub(r"(\.[0-9]*[1-9])0+$", r"\1", m[2]))
            status = "ok"
        elif re.match(re.escape(name) + r" +- +-", line):
            status = "-"
        elif "CRASH" in line:
            status = crash_status(line)
        elif "FAIL " in line:
            status = "failed"
        if "CHECK FAILED" in line:
            status = "check failed"
    if status == "not run" and rc < 0:  # the benchmark program itself died
        status = f"crashed ({describe_rc(rc)})"
    cell.status = status


def crash_status(line):
    if "stack overflow" in line:
        return "crashed (stack overflow)"
    m = re.search(r"signal [0-9]+ \(([^)]*)\)", line)
    return f"crashed ({m[1]})" if m else "crashed"


def run_interleaved(runner, names, columns, programs, runs, n):
    """cells[w][i]: every workload w in every column i, `runs` rounds."""
    cells = [[Cell() for _ in columns] for _ in names]
    for w, name in enumerate(names):
        print(f"tour: {name}: {runs} rounds of {len(columns)} columns")
        for rnd in range(1, runs + 1):
            for k in range(len(columns)):
                i = (k + rnd - 1) % len(columns)
                cell = cells[w][i]
                if cell.status and not cell.ran_ok():  # lacks it, crashed or failed: not again
                    continue
                rc, out = runner.run(f"{columns[i]}: {name}", [programs[i], "-n", str(n), "-r", "1", f"{name}$"],
                                     fresh=True)
                parse_run(cell, name, rc, out)
    return cells


# ---- each cell: median, spread --------------------------------------------------------

# A cell is noisy (marked *) when the middle half of its runs, from its
# first quartile to its third, spans more than NOISY_PERCENT of its median.
# Not the fastest to the slowest run: that range only widens with more runs
# (one run in twenty that met a timer interrupt or a cold page widens it,
# however the other nineteen agree), so that 21 runs on an idle machine
# marked nearly every cell. The quartiles move with the runs' typical
# spread, whatever their number.
NOISY_PERCENT = 10


def quartile(v, k):
    """The k-th quartile (k = 1, 2, 3) of the sorted runs v: linear between
    the two runs nearest to it, in v's units."""
    i, r = divmod((len(v) - 1) * k, 4)
    return v[i] if r == 0 else v[i] + (v[i + 1] - v[i]) * r // 4


@dataclass
class Stats:
    """A timed cell's median, fastest and slowest run and quartiles, in 1/100 ns."""
    med: int
    min: int
    max: int
    q1: int
    q3: int

    def spread(self):
        return f"{from_fixed(self.min, 2, 1)}-{from_fixed(self.max, 2, 1)}"

    def noisy(self):
        """The middle half of its runs spans more than NOISY_PERCENT of the median."""
        return (self.q3 - self.q1) * 100 > NOISY_PERCENT * self.med


def stats_of(cell):
    if not cell.ran_ok():
        return None
    v = sorted(cell.ns)
    return Stats(med=v[len(v) // 2], min=v[0], max=v[-1], q1=quartile(v, 1), q3=quartile(v, 3))


def cell_text(cell, st):
    """(the main table's cell, the spread table's cell)."""
    if st:
        mark = "*" if st.med > 0 and st.noisy() else ""
        return from_fixed(st.med, 2, 1) + mark, st.spread()
    if cell.status == "-":
        return "-", "-"
    if cell.status.startswith("crashed"):
        return "crashed", "crashed"
    return "FAILED", "FAILED"


def csv_status(cell):
    return "lacks the component" if cell.status == "-" else cell.status


# ---- what each workload is made of, counted ---------------------------------------------

def parse_counts(names, out):
    """A counting build's report -> {name: {kind: count per op in 10^-4}}."""
    counted = {}
    lines = out.replace(";", ",").split("\n")  # the note ends in ';'
    for name in names:
        for line in lines:
            m = re.match(re.escape(name) + r" .*counted per op: ([^,]*),", line)
            if m:
                fields = m[1].split(" ")
                counted[name] = {kind: to_fixed(value, 4) for kind, value in zip(fields[::2], fields[1::2])}
    return counted


def count_steps(runner, cells, names, counters, steps, n):
    print("tour: counting the operations of each workload on each step (one run each, untimed)")
    for i, counter in enumerate(counters):
        _, out = runner.run(f"count: {steps[i]}", [counter, "-n", str(n), "-r", "1"])
        counted = parse_counts(names, out)
        for w, name in enumerate(names):
            if name in counted:
                counts = counted[name]
                # An allocation and a free each count half an A (a malloc+free
                # pair): task_race frees in its timed region what it allocated before it.
                counts["alloc_free"] = (counts.get("alloc", 0) + counts.get("free", 0)) // 2
                cells[w][i].counts = counts


def made_of(counts):
    """'1A 2X': a cell's operations per op, with their letters ('0': none)."""
    made = [count_text(counts.get(op, 0)) + LETTER[op] for op in MADE_ORDER if count_text(counts.get(op, 0))]
    if count_text(counts.get("cond", 0)):
        made.append(count_text(counts["cond"]) + "W")
    return " ".join(made) or "0"


def floor_of(counts, costs):
    """What the cell's operations cost alone, in 10^-6 ns (1/100 ns times 10^-4)."""
    return sum(costs[op] * counts.get(op, 0) for op in OPS)


# ---- steps whose code for a workload is identical -----------------------------------------
# The same sources give the same code: what differs between such columns is
# the machine (and each binary's layout), which shows how far to trust a
# difference between steps whose code does differ. They agree when their
# spreads overlap: some figure lies within every one of their runs' ranges.
# task_wait.c (simple_task_wait) is not linked into a benchmark that never
# waits, so it does not count: step 06's assert there (a maker must not block
# its thread) changes no code the tour runs.

def component_files(step_dir, component, skip_task_wait):
    d = Path(step_dir)
    files = list(d.glob(f"include/lockstep/{component}.h")) + list(d.glob(f"src/{component}*.c"))
    if not files:
        return []
    if component == "sequencer":  # its workloads run tasks too
        files += list(d.glob("include/lockstep/task.h")) + list(d.glob("src/task*.c"))
    if skip_task_wait:
        files = [f for f in files if f.name != "task_wait.c"]
    return sorted(files, key=str)


def identical_groups(step_dirs, component):
    """Lists of the indexes of the steps whose sources of `component` are identical."""
    skip = not any("simple_task_wait" in f.read_text() for f in HERE.glob("*.c"))
    groups = {}
    for idx, step_dir in enumerate(step_dirs):
        files = component_files(step_dir, component, skip)
        if files:
            key = tuple((f.name, hashlib.sha256(f.read_bytes()).hexdigest()) for f in files)
            groups.setdefault(key, []).append(idx)
    return [members for members in groups.values() if len(members) >= 2]


def agreement(name, members, stats, short, spreads, runs):
    """One line: the medians of a workload on identical steps, and whether their spreads overlap."""
    if any(stats[i] is None for i in members):
        return None
    lo_col = max(members, key=lambda i: (stats[i].min, -members.index(i)))
    hi_col = min(members, key=lambda i: (stats[i].max, members.index(i)))
    meds = [stats[i].med for i in members]
    a, b = from_fixed(min(meds), 2, 1), from_fixed(max(meds), 2, 1)
    if runs < 3:
        verdict = f"too few runs ({runs}) to tell noise from a difference"
    elif stats[lo_col].min > stats[hi_col].max:
        verdict = (f"DIFFER beyond their spreads: {short[lo_col]}'s runs {spreads[lo_col]} and "
                   f"{short[hi_col]}'s {spreads[hi_col]} do not overlap, so here the spreads understate the noise")
    else:
        verdict = "agree within their spreads"
    steps_text = ", ".join(short[i] for i in members)
    return f"  {name} on {steps_text}: medians {a} to {b} ns, {verdict}."


def identical_section(report, tour):
    lines = []
    for component in COMPONENTS:
        for members in identical_groups(tour.step_dirs, component):
            for w, name in enumerate(tour.names):
                if name.startswith(component + "_"):
                    stats = {i: tour.stats[w][i] for i in members}
                    spreads = {i: tour.spreads[w][i] for i in members}
                    line = agreement(name, members, stats, tour.short, spreads, tour.runs)
                    if line:
                        lines.append(line)
    if lines:
        report.say("Identical code, different columns: any difference between them is the machine's noise "
                   "(and each binary's layout), the yardstick for every other difference.")
        for line in lines:
            report.say(line)
        report.say("")


# ---- the tour's figures, and the report ---------------------------------------------------

@dataclass
class Tour:
    names: list
    columns: list
    short: list
    step_dirs: list
    nsteps: int
    runs: int
    n: int
    cells: list
    costs: dict = None
    stats: list = None
    texts: list = None
    spreads: list = None

    def summarise(self):
        self.stats = [[stats_of(c) for c in row] for row in self.cells]
        self.texts = [[cell_text(c, s)[0] for c, s in zip(cr, sr)] for cr, sr in zip(self.cells, self.stats)]
        self.spreads = [[cell_text(c, s)[1] for c, s in zip(cr, sr)] for cr, sr in zip(self.cells, self.stats)]

    def failures(self):
        """A step's failed result or check (the C++ columns never fail the tour)."""
        return [f"{self.columns[i]}: {name}: {csv_status(self.cells[w][i])}"
                for w, name in enumerate(self.names) for i in range(self.nsteps)
                if csv_status(self.cells[w][i]) not in ("ok", "lacks the component")]

    def counted(self, w, i):
        return i < self.nsteps and self.cells[w][i].counts is not None

    def ratio(self, w, i):
        """(floor in ns, ratio) texts of a counted, timed cell, or None."""
        st = self.stats[w][i]
        if not (self.costs and self.counted(w, i) and st):
            return None
        floor = floor_of(self.cells[w][i].counts, self.costs)
        if floor <= 0:
            return None
        return from_fixed(floor, 6, 1), from_fixed(st.med * 1000000 // floor, 2, 1)


def busy(noisy, timed):
    """Most cells noisy: the machine, not a cell, was busy."""
    return noisy * 2 > timed


def main_tables(report, tour):
    header = ["workload"] + tour.short
    report.say("")
    rows = [header] + [[name] + tour.texts[w] for w, name in enumerate(tour.names)]
    report.table(f"ns/op, the median of {tour.runs} runs (N={tour.n}, one process per run, multi-threaded libc), "
                 "interleaved: each round runs every column once, in turn.", rows)
    legend = ", ".join(f"{s} = {c}" for s, c in zip(tour.short, tour.columns) if s != c)
    report.say(f"Columns: {legend}.")
    timed = [st for row in tour.stats for st in row if st and st.med > 0]
    noisy = sum(st.noisy() for st in timed)
    if noisy:
        report.say(f"*: noisy: the middle half of its {tour.runs} runs (from the first quartile to the third) spans "
                   f"more than {NOISY_PERCENT}% of the median. The middle half, not the fastest to the slowest run "
                   "(the spread below): that range widens with every run added, however the others agree.")
    if busy(noisy, len(timed)):  # say so where the reader looks first
        report.say(f"THE MACHINE WAS BUSY: {noisy} of {len(timed)} cells noisy. Other programs took the CPUs in the "
                   "middle of the timed passes, so every median is inflated and every ratio to the floor too. Trust "
                   "a difference between two cells only where their spreads do not overlap, and run the tour again "
                   "on a quiet machine for figures worth keeping.")
    report.say("-: the step lacks the component.")
    crash_notes(report, tour)
    report.say("")
    if tour.runs > 1:
        rows = [header] + [[name] + tour.spreads[w] for w, name in enumerate(tour.names)]
        report.table(f"Spread: the fastest and the slowest of the {tour.runs} runs, ns/op. The runs of all columns "
                     "were interleaved, so load fell on every column alike.", rows)


def crash_notes(report, tour):
    """Why a column crashed, where the tour knows: the articles' C++ (erratum 5); a peer's own program."""
    crashed = [i for i in range(len(tour.columns)) if any(row[i].status.startswith("crashed") for row in tour.cells)]
    for i in crashed:
        if tour.columns[i] == CXX_COLUMN:
            report.say("crashed in C++: the articles' task_sequencer resumes each queued task inside its "
                       "predecessor's completion, so a 1,000,000-task backlog nests a million frames deep and "
                       "overflows the stack (erratum 5 in docs/ERRATA.md). Step 06 drains any backlog in constant "
                       "stack.")
        elif i >= tour.nsteps:
            report.say(f"crashed in {tour.short[i]}: that program's own crash, as it reported it (its output: "
                       "--save-raw); the tour does not know its code.")


def peer_section(report, tour):
    """Each column's median over the peer's, when there is a peer: the table a reader compares with."""
    peer = len(tour.columns) - 1
    if peer < tour.nsteps or tour.columns[peer] == CXX_COLUMN:
        return
    name = tour.short[peer]
    rows = [["workload"] + tour.short[:peer] + ["best step", "best / " + name]]
    for w, wname in enumerate(tour.names):
        base = tour.stats[w][peer]
        cells = [over(tour.stats[w][i], base) for i in range(peer)]
        timed = [(tour.stats[w][i].med, i) for i in range(tour.nsteps) if tour.stats[w][i]]
        best = min(timed) if timed else None
        rows.append([wname] + cells + ([tour.short[best[1]], over(tour.stats[w][best[1]], base)] if best else ["-", "-"]))
    report.table(f"Each column over {name}: its median divided by {name}'s, in the same run (below 1.00: faster). "
                 "Two cells differ beyond the noise only where their spreads (above) do not overlap.", rows)


def over(st, base):
    """A median over another, two decimals, or '-' when either is missing."""
    if not (st and base and base.med > 0):
        return "-"
    return from_fixed(st.med * 1000 // base.med, 3, 2)


def made_sections(report, tour):
    steps = range(tour.nsteps)
    cxx = tour.columns.index(CXX_COLUMN) if CXX_COLUMN in tour.columns else None
    made = [["workload"] + tour.short[: tour.nsteps] + (["C++ allocs"] if cxx is not None else [])]
    ratios = [["workload"] + tour.short[: tour.nsteps]]
    for w, name in enumerate(tour.names):
        row = [made_of(tour.cells[w][i].counts) if tour.counted(w, i) else "-" for i in steps]
        if cxx is not None:
            allocs = tour.cells[w][cxx].allocs
            row.append(f"{allocs}A" if allocs else "-")
        made.append([name] + row)
        ratios.append([name] + [ratio_text(tour, w, i) for i in steps])
    report.table("What one op is made of on each step, counted (a build of each step with tests/bench/count_hook.h, "
                 "one untimed run): A an allocation and a free (the steps' allocator, a free alone counts half), X an "
                 "atomic exchange, C a compare-exchange, F a fetch_add/fetch_sub, M a mutex lock/unlock pair.", made)
    if any(tour.counted(w, i) and count_text(tour.cells[w][i].counts.get("cond", 0))
           for w in range(len(tour.names)) for i in steps):
        report.say("W: a condition variable wait, signal or broadcast (not in the floor).")
    report.say("Atomic loads and stores are counted too (tour.csv) but not priced: on x86-64 they are plain moves.")
    if cxx is not None:
        report.say("C++ allocs: operator new calls per op, counted by the same allocator (its atomics are not counted).")
    report.say("")
    if tour.costs:
        report.table("Each cell over its floor: the median above divided by the sum of its operations' prices (the "
                     "first table). 1.0x would be nothing but those operations, the rest is the step's own code, its "
                     "cache misses, and, in task_race, the wait for the other thread.", ratios)
        report.say("The prices are measured one operation at a time, in a loop that does nothing else: a cell that is "
                   "nothing but its operations reads about 1.0x, give or take a tenth (its operations may overlap with "
                   "each other a little, or pay a little more than alone). task_race's counts depend on which thread "
                   "comes second to each task, so they vary a little from run to run.")


def ratio_text(tour, w, i):
    r = tour.ratio(w, i)
    if r:
        return r[1] + "x"
    return "?" if tour.counted(w, i) and tour.stats[w][i] else "-"


# ---- files a reader can keep ---------------------------------------------------------------

def report_time():
    """Now, or SOURCE_DATE_EPOCH (reproducible output), as CMake's string(TIMESTAMP) says it."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    t = time.gmtime(int(epoch)) if epoch and epoch.isdigit() else time.gmtime()
    return time.strftime("%Y-%m-%d %H:%M UTC", t)


def machine():
    """'2 core AMD EPYC, 2 logical CPUs, Linux 6.1': what CMake's
    cmake_host_system_information says of this machine."""
    return f"{cpu_description()}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def cpu_description():
    """The physical cores and the model, from /proc/cpuinfo where there is one."""
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists():
        return platform.processor()
    text = cpuinfo.read_text()
    model = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    cores = set(re.findall(r"^physical id\s*:\s*(\d+)\n(?:.*\n)*?core id\s*:\s*(\d+)$", text, re.M))
    return f"{len(cores) or os.cpu_count()} core {model[1].strip() if model else platform.processor()}"


def write_md(out_dir, when, report):
    (out_dir / "tour.md").write_text(f"# lockstep tour, {when}\n\nMachine: {machine()}.\n\n{report.md}")


def write_csv(out_dir, tour):
    head = ["workload", "column", "median_ns_per_op", "min_ns_per_op", "max_ns_per_op", "allocs_per_op", "runs", "n",
            "status"] + COUNTED_KINDS + ["floor_ns", "ratio_to_floor", "q1_ns_per_op", "q3_ns_per_op"]
    lines = [",".join(head)]
    for w, name in enumerate(tour.names):
        for i, col in enumerate(tour.columns):
            cell, st = tour.cells[w][i], tour.stats[w][i]
            figures = [from_fixed(v, 2, 2) for v in (st.med, st.min, st.max)] if st else ["", "", ""]
            counts = [from_fixed(cell.counts[k], 4, 4) if tour.counted(w, i) else "" for k in COUNTED_KINDS]
            ratio = list(tour.ratio(w, i) or ("", ""))
            quartiles = [from_fixed(v, 2, 2) for v in (st.q1, st.q3)] if st else ["", ""]
            lines.append(",".join([name, col] + figures + [cell.allocs, str(tour.runs), str(tour.n), csv_status(cell)]
                                  + counts + ratio + quartiles))
    (out_dir / "tour.csv").write_text("".join(line + "\n" for line in lines))


def write_plot(out_dir, when, tour):
    """Grouped bars, one group per workload, one bar per column, log scale (the
    figures span 10 ns to several hundred). A missing bar: the step lacks the
    component, or the run crashed (tour.md says which). Returns the SVG's path or None."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("tour: no plot (gnuplot is not installed)")
        return None
    head = "workload" + "".join(f' "{col}"' for col in tour.columns)
    rows = [name + "".join(f" {from_fixed(st.med, 2, 2)}" if st else " ?" for st in tour.stats[w])
            for w, name in enumerate(tour.names)]
    (out_dir / "tour.dat").write_text(head + "\n" + "".join(row + "\n" for row in rows))
    (out_dir / "tour.gp").write_text(f"""\
set terminal svg size 1200,560 dynamic font 'sans,11' noenhanced
set output '{out_dir}/tour.svg'
set title 'lockstep tour, {when}: ns/op, median of {tour.runs} interleaved runs (log scale; no bar: the step lacks the component or the run crashed)'
set datafile missing '?'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set yrange [5:*]
set ylabel 'ns/op'
set grid ytics
set xtics rotate by 30 right scale 0
set key outside right top vertical
plot for [i=2:{len(tour.columns) + 1}] '{out_dir}/tour.dat' using i:xtic(1) title columnheader(i)
""")
    gp = subprocess.run([gnuplot, str(out_dir / "tour.gp")], stderr=subprocess.PIPE, text=True)
    if gp.returncode != 0:
        print(f"tour: gnuplot failed, no plot: {gp.stderr}")
        return None
    return out_dir / "tour.svg"


# ---- the program ------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description="Every benchmark workload on every step, one table.")
    p.add_argument("--bench", action="append", default=[], metavar="PROGRAM", help="a step's benchmark (one per step, in order)")
    p.add_argument("--step", action="append", default=[], metavar="NAME", help="its step's name (01-mutex, ...)")
    p.add_argument("--step-dir", action="append", default=[], metavar="DIR", help="its step's directory")
    p.add_argument("--cxx", help="the articles' C++ benchmark (tests/bench/cxx), a column")
    p.add_argument("--peer", help="any program with bench.c's options and report line, one more column")
    p.add_argument("--peer-name", default=PEER_COLUMN, help="that column's name (default: peer), e.g. cppcoro")
    p.add_argument("--floor", help="bench_floor: what each operation costs alone")
    p.add_argument("--counter", action="append", default=[], metavar="PROGRAM", help="a step's counting build (one per step)")
    p.add_argument("--runs", type=int, default=5, help="runs (processes) per workload and column")
    p.add_argument("-n", type=int, default=1000000, help="operations per timed pass")
    p.add_argument("--width", type=int, help="terminal width (default: $COLUMNS if above 60, else 100)")
    p.add_argument("--out-dir", type=Path, default=Path.cwd(), help="where tour.md, tour.csv and tour.svg go")
    p.add_argument("--save-raw", type=Path, help="keep every program's output in this file (JSON)")
    p.add_argument("--from-raw", type=Path, help="report from such a file instead of running the programs")
    args = p.parse_args()
    if not (len(args.bench) == len(args.step) == len(args.step_dir) >= 1):
        p.error("need one --bench, --step and --step-dir per step")
    if args.width is None:
        cols = os.environ.get("COLUMNS", "")
        args.width = int(cols) if cols.isdigit() and int(cols) > 60 else 100
    return args


def columns_of(args):
    """(column names, their short headers, their programs): the steps, then the C++ column(s)."""
    columns, short, programs = list(args.step), [s[:2] for s in args.step], list(args.bench)
    for name, head, program in ((CXX_COLUMN, "C++", args.cxx), (args.peer_name, args.peer_name, args.peer)):
        if program:
            columns.append(name)
            short.append(head)
            programs.append(program)
    return columns, short, programs


def main():
    args = parse_args()
    runner = Replay(args.from_raw) if args.from_raw else Runner()
    report = Report(args.width)
    columns, short, programs = columns_of(args)
    _, listed = runner.run("list", [args.bench[0], "--list"])
    names = listed.strip("\n").split("\n")

    costs = floor_section(report, runner, args.floor) if args.floor else None
    cells = run_interleaved(runner, names, columns, programs, args.runs, args.n)
    tour = Tour(names, columns, short, args.step_dir, len(args.step), args.runs, args.n, cells, costs)
    have_counts = len(args.counter) == len(args.step)
    if have_counts:
        count_steps(runner, cells, names, args.counter, args.step, args.n)
    tour.summarise()

    main_tables(report, tour)
    peer_section(report, tour)
    identical_section(report, tour)
    if have_counts:
        made_sections(report, tour)

    when = report_time()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_md(args.out_dir, when, report)
    write_csv(args.out_dir, tour)
    written = [args.out_dir / "tour.md", args.out_dir / "tour.csv", write_plot(args.out_dir, when, tour)]
    print("tour: written " + ", ".join(str(p) for p in written if p))
    if args.save_raw:
        runner.save(args.save_raw)

    failed = tour.failures()
    if failed:
        print("a benchmark check failed:\n" + "\n".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
