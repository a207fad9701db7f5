#!/usr/bin/env python3
"""test_tour.py: the tour's quartiles, its noise mark and its busy-machine
headline, on made-up timings, and its reading of the benchmarks' CSV, on
made-up rows (no benchmark runs).

A cell is marked noisy (*) when the middle half of its runs spans more than
tour.NOISY_PERCENT of its median: an idle machine's runs, a few of which
met an interrupt, are not marked, however many runs there are; a busy
machine's, half of them slowed, are. The headline "THE MACHINE WAS BUSY"
comes when most cells are noisy, and only then. Standard library only.
"""
import contextlib
import csv
import io
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tour  # noqa: E402 (beside this file)


def idle(runs):
    """RUNS timings (1/100 ns) of an idle machine: within 2% of 10.00 ns,
    but one run in ten slowed by an interrupt or a cold page (+15% to +60%)."""
    out = [1000 + (i * 7) % 41 - 20 for i in range(runs)]
    for k, i in enumerate(range(3, runs, 10)):
        out[i] = 1600 if k % 2 == 0 else 1150
    return out


def busy(runs):
    """RUNS timings of a busy machine: every other run slowed by 30%."""
    return [1300 + i % 3 if i % 2 else 1000 + i % 3 for i in range(runs)]


def stats(ns):
    return tour.stats_of(tour.Cell(status="ok", ns=list(ns)))


def spread_percent(st):
    """The fastest-to-slowest range over the median: the rule the mark used to read."""
    return (st.max - st.min) * 100 // st.med


class Quartiles(unittest.TestCase):
    def quartiles(self, ns):
        st = stats(ns)
        return [st.q1, st.med, st.q3]

    def test_odd_and_even_counts(self):
        self.assertEqual(self.quartiles([500, 100, 400, 200, 300]), [200, 300, 400])
        # between two runs: linear ('inclusive'); the median is the upper one, a run's own
        self.assertEqual(self.quartiles([100, 200, 300, 400]), [175, 300, 325])
        self.assertEqual(self.quartiles([700]), [700, 700, 700])

    def test_rounded_down_to_whole_hundredths(self):
        # 100.25 and 100.75: down, as the tour always has
        self.assertEqual(self.quartiles([100, 101]), [100, 101, 100])


class ReadsTheCsv(unittest.TestCase):
    HEAD = "workload,status,ns_per_op,allocs_per_op,signal,exchange,alloc,free,note\n"

    def rows(self, text):
        return list(csv.DictReader(io.StringIO(self.HEAD + text)))

    def test_each_status(self):
        cases = [("ok", "", "ok"), ("check failed", "", "check failed"), ("lacking", "", "-"),
                 ("crashed", "6", "crashed (Aborted)"), ("stack overflow", "11", "crashed (stack overflow)"),
                 ("failed", "", "failed")]
        for status, sig, want in cases:
            with self.subTest(status=status):
                cell = tour.Cell()
                tour.read_run(cell, "w", 0, self.rows(f'w,{status},12.34,3.0030,{sig},,,,"a, b"\n'))
                self.assertEqual(cell.status, want)
                timed = status in ("ok", "check failed")
                self.assertEqual((cell.ns, cell.allocs), ([1234], "3.003") if timed else ([], ""))

    def test_no_row(self):
        cell = tour.Cell()
        tour.read_run(cell, "w", 0, self.rows("x,ok,1.00,1.0000,,,,,\n"))
        self.assertEqual(cell.status, "not run")
        tour.read_run(cell, "w", -9, [])
        self.assertEqual(cell.status, "crashed (Killed)")

    def test_counts(self):
        head = "workload,status," + ",".join(tour.COUNTED_KINDS) + ",note\n"
        counted = dict(zip(tour.COUNTED_KINDS, ["2.0000"] + ["0.0000"] * 8), alloc="1.0000", free="0.5000")
        text = head + "w,ok," + ",".join(counted[k] for k in tour.COUNTED_KINDS) + ",\nv,lacking" + "," * 10 + "\n"

        class Counter:
            def run(self, key, argv):
                return 0, list(csv.DictReader(io.StringIO(text)))

        cells = [[tour.Cell()], [tour.Cell()]]
        with contextlib.redirect_stdout(io.StringIO()):
            tour.count_steps(Counter(), cells, ["w", "v"], ["counter"], ["01"], 1)
        self.assertEqual(cells[0][0].counts["exchange"], 20000)  # in 10^-4
        self.assertEqual(cells[0][0].counts["alloc_free"], 7500)  # an allocation and half a free, halved
        self.assertIsNone(cells[1][0].counts)


class NoiseMark(unittest.TestCase):
    def test_idle_runs_not_marked_at_any_count(self):
        for runs in (5, 11, 21, 51):
            st = stats(idle(runs))
            with self.subTest(runs=runs):
                if runs >= 11:  # the old rule marked these: its range grew with the runs
                    self.assertGreater(spread_percent(st), 10)
                self.assertFalse(st.noisy(), st)

    def test_busy_runs_marked_at_any_count(self):
        for runs in (5, 11, 21, 51):
            with self.subTest(runs=runs):
                self.assertTrue(stats(busy(runs)).noisy())

    def test_the_threshold(self):
        # the middle half spans 10% of the median: not noisy; 11%: noisy
        self.assertFalse(stats([900, 950, 1000, 1050, 1100]).noisy())
        self.assertTrue(stats([900, 945, 1000, 1055, 1100]).noisy())


def tour_of(columns):
    """A Tour of one workload per list of timings, one column each."""
    names = [f"w{i}" for i in range(len(columns[0]))]
    cells = [[tour.Cell(status="ok", ns=list(col[w])) for col in columns] for w in range(len(names))]
    short = [f"{i + 1:02}" for i in range(len(columns))]
    t = tour.Tour(names, short, short, [], len(columns), len(columns[0][0]), 1000000, cells)
    t.summarise()
    return t


def said(t):
    """What main_tables says of tour T (tour.md's text)."""
    report = tour.Report(100)
    with contextlib.redirect_stdout(io.StringIO()):
        tour.main_tables(report, t)
    return report.md


class Headline(unittest.TestCase):
    def test_idle_tour_has_no_mark_and_no_headline(self):
        text = said(tour_of([[idle(21)] * 4, [idle(21)] * 4]))
        self.assertNotIn("*", text.split("Columns:")[0])
        self.assertNotIn("noisy", text)
        self.assertNotIn("BUSY", text)

    def test_busy_tour_is_marked_and_says_so(self):
        text = said(tour_of([[busy(21)] * 4, [busy(21)] * 4]))
        self.assertEqual(text.split("Columns:")[0].count("\\*"), 8)  # (Markdown escapes the mark)
        self.assertIn("*: noisy: the middle half of its 21 runs", text)
        self.assertIn("THE MACHINE WAS BUSY: 8 of 8 cells noisy", text)

    def test_a_few_noisy_cells_are_marked_without_the_headline(self):
        # 3 of 8: more than a third (the headline's old rule), not most
        text = said(tour_of([[busy(21)] * 3 + [idle(21)], [idle(21)] * 4]))
        self.assertEqual(text.split("Columns:")[0].count("\\*"), 3)
        self.assertIn("*: noisy", text)
        self.assertNotIn("BUSY", text)

    def test_headline_needs_most_cells(self):
        self.assertFalse(tour.busy(4, 8))
        self.assertTrue(tour.busy(5, 8))


if __name__ == "__main__":
    unittest.main()
