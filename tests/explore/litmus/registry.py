"""Which litmus files CMakeLists.txt (beside this file) registers as ctests,
and why the others wait: its `set(litmus_registered NAME...)` and its
`# waiting: NAME REASON` lines. Standard library only.
"""
import re
from pathlib import Path

CMAKELISTS = Path(__file__).resolve().parent / "CMakeLists.txt"


def registered(cmakelists=CMAKELISTS):
    """The names CMakeLists.txt registers, in its order."""
    block = re.search(r"set\(litmus_registered(.*?)\)", read(cmakelists), re.S)
    return block.group(1).split() if block else []


def waiting(cmakelists=CMAKELISTS):
    """{NAME: REASON} of its `# waiting: NAME REASON` lines."""
    return dict(re.findall(r"^# waiting: (\S+)\s+(.*)$", read(cmakelists), re.M))


def read(cmakelists):
    return Path(cmakelists).read_text(encoding="utf-8")
