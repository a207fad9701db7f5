"""herd7's output for one test, as herd7 prints it and explore_litmus too.

    Test MP+na+rlx Allowed
    States 2
    1:r0=0;
    1:r0=1;
    Undef                          (or Ok, or No)
    Witnesses
    Positive: 2 Negative: 1
    Flag *undef*                   (a data race: C11's undefined behaviour)
    Condition exists (1:r0=1)
    Observation MP+na+rlx Sometimes 2 1
    Time MP+na+rlx 0.00

explore_litmus adds `Graph NAME N FILE.dot` (the N-th state's execution
graph) and `explore_litmus: ` lines (its verdict); herd7 adds `Hash=`.
Standard library only.
"""
from dataclasses import dataclass, field

RACE = "Flag *undef*"  # a state of its own in the `expect` lines and here
VERDICTS = ("Ok", "No", "Undef")


@dataclass
class Result:
    """What one test's block says."""
    states: list = field(default_factory=list)  # as printed, then RACE when flagged
    verdict: str = None        # Ok, No or Undef
    counts: str = None         # the `Positive: P Negative: N` line
    observation: tuple = None  # (Always|Sometimes|Never, positive, negative)
    graphs: dict = field(default_factory=dict)  # state -> its graph's .dot file


def parse(text):
    """The block in `text` (one test's output), or None when it has no States."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("States ")), None)
    if start is None:
        return None
    n = int(lines[start].split()[1])
    result = Result(states=[line.strip() for line in lines[start + 1:start + 1 + n]])
    for line in lines[start + 1 + n:]:
        read_line(result, line)
    if RACE in lines:
        result.states.append(RACE)
    return result


def read_line(result, line):
    """One line after the states."""
    words = line.split()
    if line in VERDICTS:
        result.verdict = line
    elif line.startswith("Positive: "):
        result.counts = line
    elif words[:1] == ["Observation"] and len(words) == 5:
        result.observation = (words[2], int(words[3]), int(words[4]))
    elif words[:1] == ["Graph"] and len(words) == 4:
        result.graphs[result.states[int(words[2]) - 1]] = words[3]
