"""Which litmus files are registered as ctests, and why the others wait:
registry.tsv beside this file, which CMakeLists.txt reads too (one line per
file: NAME, then a tab and `registered`, or `waiting` and a tab and the
reason; `#` starts a comment line). Standard library only.
"""
from pathlib import Path

REGISTRY = Path(__file__).resolve().parent / "registry.tsv"


def entries(registry=REGISTRY):
    """[(NAME, status, reason or "")], in the file's order."""
    out = []
    for line in Path(registry).read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, status, *reason = line.split("\t")
            out.append((name, status, reason[0] if reason else ""))
    return out


def registered(registry=REGISTRY):
    """The names registered as ctests, in the file's order."""
    return [name for name, status, _ in entries(registry) if status == "registered"]


def waiting(registry=REGISTRY):
    """{NAME: REASON} of the files that wait."""
    return {name: reason for name, status, reason in entries(registry) if status == "waiting"}
