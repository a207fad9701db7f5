"""lab_page.py: the one reader of a lab page (docs/labs/NN-name.md), for
tests/labs/report.py (run.sh's report) and tests/labs/challenge.py.

Each exercise is "### N. title" under "## Break it", the challenge is the
"### title" under "## Build it", and below each title:

    **Caught by:** `test`, ...       tests that fail on every run (exercises)
    **May catch it:** `test`, ...    race tests that fail on some runs only
    **Checked by:** `test`, ...      the challenge's tests

(a test is a `stepNN....` in backquotes; other backquoted words are text).
The challenge also names the function to write,

    **Write:** `function_name` in `src/file.c`

and its first ```c block is the stub the student starts from. Standard
library only.
"""
import re
from dataclasses import dataclass, field

SECTIONS = {"## Build it": "challenge", "## Break it": "exercise"}
TEST_NAME = re.compile(r"`(step[0-9][0-9]\.[^`]+)`")


@dataclass
class Entry:
    """An exercise or the challenge: its title, number, and the tests it names."""
    section: str  # "exercise" or "challenge"
    title: str
    n: str  # the title up to its first '.' ("1" for "1. Forget ...")
    always: list = field(default_factory=list)  # Caught by / Checked by
    maybe: list = field(default_factory=list)  # May catch it


def section_of(heading):
    return next((kind for prefix, kind in SECTIONS.items() if heading.startswith(prefix)), None)


def entries(text):
    """Every exercise and challenge of the page, in its order."""
    found, section, entry = [], None, None
    for line in text.split("\n"):
        if line.startswith("## "):
            section, entry = section_of(line), None
        elif line.startswith("### ") and section:
            title = line[len("### "):]
            entry = Entry(section, title, title.split(".", 1)[0])
            found.append(entry)
        elif entry and re.match(r"\*\*(Caught by|Checked by):\*\*", line):
            entry.always += TEST_NAME.findall(line)
        elif entry and line.startswith("**May catch it:**"):
            entry.maybe += TEST_NAME.findall(line)
    return found


def first_c_block(text, where):
    """The code of the first ```c block; SystemExit naming `where` if there is none."""
    m = re.search(r"^```c\n(.*?)^```", text, re.S | re.M)
    if not m:
        raise SystemExit(f"lab page: no ```c block in {where}")
    return m.group(1)


def build_it(text, where):
    """(function, file, stub) of the page's challenge ("## Build it")."""
    start = text.find("\n## Build it")
    if start < 0:
        raise SystemExit(f"lab page: {where} has no '## Build it' section")
    section = text[start + 1:]
    end = section.find("\n## ")
    section = section if end < 0 else section[:end]
    m = re.search(r"^\*\*Write:\*\* `([A-Za-z0-9_]+)` in `([^`]+)`", section, re.M)
    if not m:
        raise SystemExit(f"lab page: {where}: no '**Write:** `function` in `src/file.c`' line")
    return m.group(1), m.group(2), first_c_block(section, f"{where} (Build it)")
