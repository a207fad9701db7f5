"""A C litmus file (herd7's format, tests/*.litmus) as the Python tools read it.

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

One rule for the keyword lines: a line that, stripped, starts with the
keyword and a space; the rest, stripped, is its value. The condition is
kept as text, to show: explore_litmus judges it (its --json). Standard
library only.
"""
import re
from dataclasses import dataclass
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


def keyword_lines(text, keyword):
    """The values of the file's `KEYWORD VALUE` lines, in order."""
    prefix = keyword + " "
    lines = (line.strip() for line in text.splitlines())
    return [line[len(prefix):].strip() for line in lines if line.startswith(prefix)]


def read(path):
    """The litmus file at `path`."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    body = re.sub(r"\(\*.*?\*\)", "", text, flags=re.S)
    differs, counts_differ = keyword_lines(text, "herd-differs"), keyword_lines(text, "herd-counts-differ")
    counts = keyword_lines(text, "expect-counts")
    skip = keyword_lines(text, "herd-skip")
    return Test(path=path, name=re.search(r"^C\s+(\S+)", text, re.M).group(1),
                about=first(r'^"(.*)"\s*$', text), init=" ".join(first(r"^\s*(\{[^}]*\})", body).split()),
                threads=threads(body), condition=condition(body),
                expect=keyword_lines(text, "expect"), expect_c11=keyword_lines(text, "expect-c11"),
                herd_differs=differs[0] if differs else None,
                herd_counts_differ=counts_differ[0] if counts_differ else None,
                expect_counts=counts[0] if counts else None, herd_skip=skip[0] if skip else None)


def first(pattern, text):
    """The first group of the first match, or ''."""
    m = re.search(pattern, text, re.M)
    return m.group(1) if m else ""


def threads(body):
    """Each thread's name and code, its common indentation removed."""
    found = []
    for m in re.finditer(r"^(P\d+)\s*\(([^)]*)\)\s*\{\n(.*?)^\}", body, re.M | re.S):
        lines = [line for line in m.group(3).split("\n") if line.strip()]
        indent = min((len(line) - len(line.lstrip()) for line in lines), default=0)
        found.append((m.group(1), "\n".join(line[indent:] for line in lines)))
    return found


def condition(body):
    """(quantifier, proposition) of the file's final condition, or None."""
    m = re.search(r"^\s*((?:~\s*)?exists|forall)\s*(.*\S)\s*$", body, re.M)
    return (m.group(1), m.group(2)) if m else None
