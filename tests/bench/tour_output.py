"""tour_output.py: how the tour (tour.py) shows and keeps what it found.

Figures as text, printed from whole numbers; tables on the terminal, fitted
to its width, and in Markdown; the files a reader keeps: tour.md (all that
was said), tour.csv (every figure of every cell) and tour.svg (a bar chart,
when gnuplot is installed). What the tour says is tour.py's; how, this
file's. Standard library only.
"""
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path


# ---- numbers -----------------------------------------------------------------
# A figure is kept as an integer count of 10^-digits ("19.34" with 2 digits
# -> 1934) and printed back from it, rounded half up: the printed figures do
# not depend on binary floating point.

def from_fixed(v, digits, shown):
    """v (in 10^-digits) printed with `shown` decimals, rounded half up."""
    drop = digits - shown
    if drop > 0:
        v = (v + 5 * 10 ** (drop - 1)) // 10**drop
    if shown == 0:
        return str(v)
    return f"{v // 10**shown}.{v % 10**shown:0{shown}d}"


def shortest(text):
    """A decimal without its trailing zeros: '2.0000' -> '2', '3.0030' -> '3.003'."""
    return text.rstrip("0").rstrip(".") if "." in text else text


def count_text(v):
    """A count (in 10^-4) as few digits as it needs: 20000 -> 2, 70080 -> 7.01; 0 -> ''."""
    t = shortest(from_fixed(v, 4, 2))
    return "" if t == "0" else t


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
        words = text.lstrip(" ").split(" ") if text.lstrip(" ") else []
        indent = text[: len(text) - len(text.lstrip(" "))]
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
        widths = [max(len(row[c]) for row in rows if c < len(row)) for c in range(max(map(len, rows)))]
        for part in table_parts(widths, self.width):
            print()
            print_part(rows, widths, part, left_last)
        print()
        self.md += f"{title}\n\n{markdown(rows, left_last)}\n"


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
            line += "  " + row[c] if left_last and c == last else row[c].rjust(widths[c] + 2)
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
    model, chip, cores = None, None, set()
    for line in cpuinfo.read_text().split("\n"):  # "key<tabs>: value"
        key, _, value = (part.strip() for part in line.partition(":"))
        if key == "model name" and model is None:
            model = value
        elif key == "physical id":
            chip = value
        elif key == "core id" and chip is not None:
            cores.add((chip, value))
    return f"{len(cores) or os.cpu_count()} core {model or platform.processor()}"


def write_md(out_dir, when, report):
    (out_dir / "tour.md").write_text(f"# lockstep tour, {when}\n\nMachine: {machine()}.\n\n{report.md}")


def write_csv(out_dir, tour, kinds):
    """Every figure of every cell; `kinds`: what the counting builds count (tour.COUNTED_KINDS)."""
    head = ["workload", "column", "median_ns_per_op", "min_ns_per_op", "max_ns_per_op", "allocs_per_op", "runs", "n",
            "status"] + kinds + ["floor_ns", "ratio_to_floor", "q1_ns_per_op", "q3_ns_per_op"]
    lines = [",".join(head)]
    for w, name in enumerate(tour.names):
        for i, col in enumerate(tour.columns):
            cell, st = tour.cells[w][i], tour.stats[w][i]
            figures = [from_fixed(v, 2, 2) for v in (st.med, st.min, st.max)] if st else ["", "", ""]
            counts = [from_fixed(cell.counts[k], 4, 4) if tour.counted(w, i) else "" for k in kinds]
            ratio = list(tour.ratio(w, i) or ("", ""))
            quartiles = [from_fixed(v, 2, 2) for v in (st.q1, st.q3)] if st else ["", ""]
            lines.append(",".join([name, col] + figures + [cell.allocs, str(tour.runs), str(tour.n), cell.outcome()]
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
