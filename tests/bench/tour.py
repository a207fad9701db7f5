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

What it knows of each run it reads from the CSV the program wrote (--csv
FILE: tests/bench/harness.h names the columns, floor.c its own), never from
its text: a peer must take the benchmark's options, --csv among them (a
program on tests/bench/harness.c does).

--save-raw FILE keeps every program's output and CSV (JSON); --from-raw FILE
formats such a file again instead of running anything: the same timings, the
same report. SOURCE_DATE_EPOCH, when set, is the report's date.

Exits 1 only if a step's result or leak check failed: timings never fail
anything, and neither does the C++ column (its crash on the 1,000,000
backlog is the articles' erratum 5, shown as such). `cmake --build --preset
tour` calls it (cmake/tour.cmake). Standard library only.
"""
import argparse
import csv
import hashlib
import io
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tour_output import Report, count_text, from_fixed, report_time, shortest, write_csv, write_md, write_plot

HERE = Path(__file__).resolve().parent

# The floor's operations, in the order a cell's make-up lists them, and the
# letter each has in the tables. bench_floor names two of them differently.
OPS = ["exchange", "compare_exchange", "fetch_op", "mutex", "alloc_free"]
MADE_ORDER = ["alloc_free", "exchange", "compare_exchange", "fetch_op", "mutex"]
LETTER = {"exchange": "X", "compare_exchange": "C", "fetch_op": "F", "mutex": "M", "alloc_free": "A"}
FLOOR_NAMES = {"fetch_add": "fetch_op", "mutex_pair": "mutex"}
# What the counting builds count per op, their CSV's columns (tests/bench/meter.c).
COUNTED_KINDS = ["exchange", "compare_exchange", "fetch_op", "mutex", "cond", "alloc", "free", "load", "store"]
COMPONENTS = ["task", "event", "sequencer"]
CXX_COLUMN = "C++ (articles)"
PEER_COLUMN = "peer"  # --peer-name renames it (cppcoro, ...)


# ---- running the programs, or reading what they wrote ----------------------------
# A figure is kept as an integer count of 10^-digits ("19.34" with 2 digits
# -> 1934), read from the CSV's text and printed back from it (tour_output):
# the printed figures do not depend on binary floating point.

def to_fixed(text, digits):
    """'19.345' -> 1934 (digits=2): the decimals beyond `digits` dropped."""
    whole, _, frac = text.partition(".")
    return int(whole) * 10**digits + int((frac + "0" * digits)[:digits])


def describe_rc(rc):
    """A child's exit as CMake's execute_process said it: the number, or the signal."""
    if rc >= 0:
        return str(rc)
    try:
        return signal.strsignal(-rc) or f"signal {-rc}"
    except ValueError:
        return f"signal {-rc}"


class Runner:
    """Runs programs, each with --csv FILE, and returns the rows of that CSV;
    keeps what each printed and wrote, keyed by what it was, for --save-raw.
    Given such a file (--from-raw), returns what it kept instead, in order.

    A timed run (fresh=True) runs a copy of the program made for it. What a
    program measures depends on where the kernel put its file's pages, not
    only on its code: on the machine this was written on, one copy of a
    step 08 benchmark took 20.5 ns per task_suspend in every run, and
    other copies of the very same file 16; the slow one was fast again once
    its pages were dropped and read anew. A copy written for each run lands
    somewhere new, so a cell's median is taken over placements as well as
    over runs, and no column keeps a lucky or an unlucky one."""

    def __init__(self, replay=None):
        self.raw = []
        self.kept = defaultdict(list)
        for entry in json.loads(Path(replay).read_text()) if replay else []:
            self.kept[entry["key"]].append(entry)
        self.replay = bool(replay)

    def run(self, key, argv, fresh=False):
        """(its exit status, its CSV's rows as dicts: none if it wrote none)."""
        entry = self.kept[key].pop(0) if self.replay else self.execute(key, argv, fresh)
        return entry["rc"], list(csv.DictReader(io.StringIO(entry["csv"] or "")))

    def execute(self, key, argv, fresh):
        with tempfile.TemporaryDirectory(prefix="tour-") as tmp:
            program = shutil.copy2(argv[0], Path(tmp) / Path(argv[0]).name) if fresh else argv[0]
            written = Path(tmp) / "report.csv"
            argv = [*map(str, argv), "--csv", str(written)]
            proc = subprocess.run([program, *argv[1:]], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                  errors="replace")
            table = written.read_text(errors="replace") if written.exists() else None
        self.raw.append({"key": key, "argv": argv, "rc": proc.returncode, "out": proc.stdout, "csv": table})
        return self.raw[-1]

    def save(self, path):
        Path(path).write_text(json.dumps(self.raw, indent=1) + "\n")


# ---- the floor: what each operation costs here -------------------------------------

def floor_section(report, runner, floor):
    """Prints the floor's table; returns the costs ({op: 1/100 ns}), or None without a whole floor."""
    rc, rows = runner.run("floor", [floor])
    if rc != 0:
        print(f"tour: bench_floor failed ({describe_rc(rc)}): no floor, no ratios")
        return None
    costs, table = {}, [["operation", "ns", "what was timed"]]
    for row in rows:
        op = FLOOR_NAMES.get(row["operation"], row["operation"])
        costs[op] = to_fixed(row["ns_per_op"], 2)
        table.append([f"{op} ({LETTER.get(op, '')})", row["ns_per_op"], row["what"]])
    how = f"the fastest of {rows[-1]['rounds']} rounds of {rows[-1]['n']}" if rows else ""
    title = f"The operations the workloads are made of, each timed alone on this machine (bench_floor, ns, {how}):"
    report.table(title, table, left_last=True)
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

    def outcome(self):
        """Its status as tour.csv says it."""
        return "lacks the component" if self.status == "-" else self.status


def read_run(cell, name, rc, rows):
    """One run's row (the columns of tests/bench/harness.h) into the cell."""
    status = "not run"
    for row in (row for row in rows if row["workload"] == name):
        status = row["status"]
        if status in ("ok", "check failed"):
            cell.ns.append(to_fixed(row["ns_per_op"], 2))
            cell.allocs = shortest(row["allocs_per_op"])
        elif status == "lacking":
            status = "-"
        elif status in ("crashed", "stack overflow"):
            status = f"crashed ({describe_rc(-int(row['signal'])) if status == 'crashed' else status})"
        else:
            status = "failed"
    if status == "not run" and rc < 0:  # the benchmark program itself died
        status = f"crashed ({describe_rc(rc)})"
    cell.status = status


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
                rc, rows = runner.run(f"{columns[i]}: {name}", [programs[i], "-n", str(n), "-r", "1", f"{name}$"],
                                      fresh=True)
                read_run(cell, name, rc, rows)
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
    """The median is the upper one of an even number of runs (a run's own
    figure, as bench.c's); the quartiles are linear between the two runs
    nearest to them ('inclusive', R's type 7), rounded down to whole 1/100 ns."""
    if not cell.ran_ok():
        return None
    v = sorted(cell.ns)
    q1, _, q3 = statistics.quantiles(v, n=4, method="inclusive") if len(v) > 1 else v * 3
    return Stats(med=statistics.median_high(v), min=v[0], max=v[-1], q1=int(q1), q3=int(q3))


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


# ---- what each workload is made of, counted ---------------------------------------------

def count_steps(runner, cells, names, counters, steps, n):
    print("tour: counting the operations of each workload on each step (one run each, untimed)")
    for i, counter in enumerate(counters):
        _, rows = runner.run(f"count: {steps[i]}", [counter, "-n", str(n), "-r", "1"])
        for row in rows:
            if row["workload"] in names and row.get(COUNTED_KINDS[0]):
                counts = {kind: to_fixed(row[kind], 4) for kind in COUNTED_KINDS}
                # An allocation and a free each count half an A (a malloc+free
                # pair): task_race frees in its timed region what it allocated before it.
                counts["alloc_free"] = (counts["alloc"] + counts["free"]) // 2
                cells[names.index(row["workload"])][i].counts = counts


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


def agreement(tour, w, members):
    """One line: the medians of workload w on identical steps, and whether their spreads overlap."""
    stats, spreads, short = tour.stats[w], tour.spreads[w], tour.short
    if any(stats[i] is None for i in members):
        return None
    lo_col = max(members, key=lambda i: (stats[i].min, -members.index(i)))
    hi_col = min(members, key=lambda i: (stats[i].max, members.index(i)))
    meds = [stats[i].med for i in members]
    a, b = from_fixed(min(meds), 2, 1), from_fixed(max(meds), 2, 1)
    if tour.runs < 3:
        verdict = f"too few runs ({tour.runs}) to tell noise from a difference"
    elif stats[lo_col].min > stats[hi_col].max:
        verdict = (f"DIFFER beyond their spreads: {short[lo_col]}'s runs {spreads[lo_col]} and "
                   f"{short[hi_col]}'s {spreads[hi_col]} do not overlap, so here the spreads understate the noise")
    else:
        verdict = "agree within their spreads"
    return f"  {tour.names[w]} on {', '.join(short[i] for i in members)}: medians {a} to {b} ns, {verdict}."


def identical_section(report, tour):
    lines = [agreement(tour, w, members) for component in COMPONENTS
             for members in identical_groups(tour.step_dirs, component)
             for w, name in enumerate(tour.names) if name.startswith(component + "_")]
    lines = [line for line in lines if line]
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
        texts = [[cell_text(c, s) for c, s in zip(cr, sr)] for cr, sr in zip(self.cells, self.stats)]
        self.texts, self.spreads = ([[t[k] for t in row] for row in texts] for k in (0, 1))

    def failures(self):
        """A step's failed result or check (the C++ columns never fail the tour)."""
        return [f"{self.columns[i]}: {name}: {self.cells[w][i].outcome()}"
                for w, name in enumerate(self.names) for i in range(self.nsteps)
                if self.cells[w][i].outcome() not in ("ok", "lacks the component")]

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


# ---- the program ------------------------------------------------------------------------

def parse_args():
    p = argparse.ArgumentParser(description="Every benchmark workload on every step, one table.")
    p.add_argument("--bench", action="append", default=[], metavar="PROGRAM", help="a step's benchmark (one per step, in order)")
    p.add_argument("--step", action="append", default=[], metavar="NAME", help="its step's name (01-mutex, ...)")
    p.add_argument("--step-dir", action="append", default=[], metavar="DIR", help="its step's directory")
    p.add_argument("--cxx", help="the articles' C++ benchmark (tests/bench/cxx), a column")
    p.add_argument("--peer", help="any program with bench.c's options and CSV (--csv), one more column")
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
    runner = Runner(args.from_raw)
    report = Report(args.width)
    columns, short, programs = columns_of(args)
    names = [row["workload"] for row in runner.run("list", [args.bench[0], "--list"])[1]]

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
    write_csv(args.out_dir, tour, COUNTED_KINDS)
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

