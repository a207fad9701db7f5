"""A C litmus file (herd7's format, tests/*.litmus) as the Python tools use
it, read by explore_litmus, the one parser of the format: `explore_litmus
--parse --json FILE` reads the files, runs nothing, and writes each one's
parts as written and its stated states judged.

    C MP+rel+acq
    "what it shows"
    (* prose, then the states herd7's rc11.cat gives, which compare.py checks:
    expect 1:r0=0; 1:r1=0;
    expect-c11 STATE          a state C11 (c11_orig.cat) allows beyond RC11
    expect-counts Positive: P Negative: N   herd7's count of executions (RC11)
    herd-differs REASON       why herd7 disagrees with an `expect` line
    herd-counts-differ REASON why explore_litmus's counts of executions differ from herd7's
    herd-skip REASON          why herd7 is not run on it (the count it states is another oracle's)
    *)
    { x = 0; y = 0; }
    P0(atomic_int* x, atomic_int* y) { ... }
    exists (1:r0=1 /\\ 1:r1=0)

A keyword line is one that, stripped, starts with the keyword and a space;
the rest, stripped, is its value (parse_test.c). Standard library only.
"""
import json
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Test:
    """The parts of a litmus file the tools use."""
    path: Path
    name: str
    about: str          # the quoted line under `C NAME`
    init: str           # `{ x = 0; y = 0; }` on one line
    threads: list       # (P0, its code without the common indentation)
    condition: tuple    # (exists | ~exists | forall, the proposition), or None
    expect: list        # RC11's states, herd7's format
    expect_c11: list    # C11's states beyond them
    herd_differs: str   # why herd7 differs, or None
    herd_counts_differ: str  # why explore_litmus's counts of executions differ from herd7's, or None
    expect_counts: str = None  # herd7's `Positive: P Negative: N`, which explore_litmus --check compares too
    herd_skip: str = None      # why herd7 is not run on it, or None
    atoms: list = field(default_factory=list)   # the condition's equalities (`1:r0=1`), left to right
    judged: dict = field(default_factory=dict)  # {stated state: (condition holds, [each equality holds])}


class Refused(Exception):
    """explore_litmus refused a file: its message (FILE:LINE:COLUMN: reason)."""


def read_all(explorer, paths, timeout=300):
    """{path: Test} of the files, read by one run of explorer (explore_litmus)."""
    paths = [Path(p) for p in paths]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "parse.json"
        run = subprocess.run([str(explorer), "--parse", "--json", str(out)] + [str(p) for p in paths],
                             capture_output=True, text=True, timeout=timeout)
        if run.returncode != 0:
            raise Refused(run.stderr.strip() or f"explore_litmus --parse: exit {run.returncode}")
        tests = json.loads(out.read_text(encoding="utf-8"))["tests"]
    return {path: test_of(path, t) for path, t in zip(paths, tests)}


def read(path, explorer):
    """The litmus file at `path` (one run of explorer for it)."""
    return read_all(explorer, [path])[Path(path)]


def test_of(path, t):
    return Test(path=path, name=t["test"], about=t["about"] or "", init=t["init"] or "",
                threads=[(th["name"], th["code"]) for th in t["threads"]],
                condition=(t["quantifier"], t["proposition"]) if t["quantifier"] else None,
                expect=t["expect"], expect_c11=t["expect_c11"], herd_differs=t["herd_differs"],
                herd_counts_differ=t["herd_counts_differ"], expect_counts=t["expect_counts"],
                herd_skip=t["herd_skip"], atoms=t["atoms"],
                judged={e["state"]: (e["holds"], e["atoms_held"]) for e in t["expected"] if e["holds"] is not None})
