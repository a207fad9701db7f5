"""Code anchors: a page names the code it cites, the site shows its line.

A step's page (its README, walkthrough, lab, deep page) cites a line of the
step's code by the function that holds it, never by its number, so that the
code can go where a reader expects it and the pages follow:

  `sequencer.c:queued_task_resume`
      a code span: the function's first line, shown as
      `sequencer.c:277` (a link to that line, like any `file.c:NN`);
  --weaken sequencer.c:abandon=relaxed
      the explorer's --weaken (in a trace or graph marker, or in the prose
      that shows the command): the one atomic operation of the function
      (the line that calls an atomic_..._explicit), shown and run as
      --weaken sequencer.c:207=relaxed. A function with more than one
      atomic operation is ambiguous: cite it as FUNCTION/N, its N-th.

The file is looked up in the step (src/, include/lockstep/). An anchor that
no longer resolves (the function renamed or gone, its atomic operations
now two) fails the build: the page must say again what it means. Tools
that check pages (tests/docs/check_citations.py) resolve them the same way.
"""
import re
from pathlib import Path

IDENT = r"[A-Za-z_]\w*"
FILE = r"[A-Za-z_][\w-]*\.[ch]"
# `file.c:function` alone in a code span.
CODE_SPAN = re.compile(rf"`({FILE}):({IDENT})`")
# --weaken file.c:function=order, or file.c:function/2=order.
WEAKEN = re.compile(rf"(--weaken )({FILE}):({IDENT})(?:/([0-9]+))?(?==)")


# An atomic operation with an explicit memory order: what --weaken changes.
ATOMIC_CALL = re.compile(r"\batomic_\w+_explicit\(")


class AnchorError(Exception):
    """An anchor that does not resolve, and why."""


def source(step_dir, name):
    """The step's file NAME: src/NAME or include/lockstep/NAME."""
    for sub in ("src", "include/lockstep"):
        path = Path(step_dir) / sub / name
        if path.is_file():
            return path
    raise AnchorError(f"{name}: no such file in {step_dir}/src or include/lockstep")


def function_span(lines, name):
    """(first, last) 1-based lines of function NAME's definition: from the
    line that starts it (at column 0, its name followed by '(') to its
    closing brace at column 0."""
    head = re.compile(rf"^[A-Za-z_].*\b{re.escape(name)}\(")
    starts = [i for i, line in enumerate(lines) if head.match(line) and not line.rstrip().endswith(";")]
    if len(starts) != 1:
        raise AnchorError(f"function {name}: {'not defined' if not starts else 'defined more than once'}")
    first = starts[0]
    for i in range(first, len(lines)):
        if lines[i].startswith("}"):
            return first + 1, i + 1
    raise AnchorError(f"function {name}: no closing brace at column 0")


def function_line(step_dir, name, function):
    """The line where FUNCTION of the step's file NAME starts."""
    lines = source(step_dir, name).read_text(encoding="utf-8").split("\n")
    return function_span(lines, function)[0]


def atomic_line(step_dir, name, function, nth=None):
    """The line of FUNCTION's atomic operation (its NTH, 1-based, if given)."""
    lines = source(step_dir, name).read_text(encoding="utf-8").split("\n")
    first, last = function_span(lines, function)
    found = [n for n in range(first, last + 1) if ATOMIC_CALL.search(lines[n - 1])]
    if nth is not None:
        if not 1 <= nth <= len(found):
            raise AnchorError(f"{name}:{function}/{nth}: {function} has {len(found)} atomic operation(s)")
        return found[nth - 1]
    if not found:
        raise AnchorError(f"{name}:{function}: {function} has no atomic operation to weaken")
    if len(found) > 1:
        raise AnchorError(f"{name}:{function}: {function} has {len(found)} atomic operations (lines "
                          f"{', '.join(map(str, found))}): say which, {name}:{function}/N")
    return found[0]


def resolve(text, step_dir, problems=None):
    """TEXT with every anchor replaced by its line number. An anchor that
    does not resolve raises AnchorError, or, with a PROBLEMS list, is added
    to it and left as written."""
    def attempt(m, line):
        try:
            return line()
        except AnchorError as e:
            if problems is None:
                raise
            problems.append(str(e))
            return None

    def weaken(m):
        nth = int(m.group(4)) if m.group(4) else None
        n = attempt(m, lambda: atomic_line(step_dir, m.group(2), m.group(3), nth))
        return m.group(0) if n is None else f"{m.group(1)}{m.group(2)}:{n}"

    def span(m):
        n = attempt(m, lambda: function_line(step_dir, m.group(1), m.group(2)))
        return m.group(0) if n is None else f"`{m.group(1)}:{n}`"

    return CODE_SPAN.sub(span, WEAKEN.sub(weaken, text))
