"""The `explore-cost` sample of check_samples.py: the explorer's cost table,
every scenario on every step, "executions / schedules, seconds" per cell,
"(P=k)" when the search stopped at k preemptions."""
import os
import re
import subprocess
import time

from samples_program import CACHE, ROOT, TIMEOUT, find_program


def explore_cost(build):
    """The Markdown table of tests/explore/README.md's *Cost*: one row per
    scenario (in --list order of the last step), one column per step."""
    steps = sorted(p.name[:2] for p in (ROOT / "steps").glob("[0-9][0-9]-*"))
    rows = []
    for component in ("task", "event", "sequencer"):
        have = [nn for nn in steps if find_program(build, f"explore_{component}_step{nn}", CACHE)]
        if not have:
            continue
        listing = subprocess.run([find_program(build, f"explore_{component}_step{have[-1]}", CACHE), "--list"],
                                 stdout=subprocess.PIPE, text=True).stdout
        for m in re.finditer(r"^(\w+) +\(from step (\d\d)\)", listing, re.M):
            cells = []
            for nn in steps:
                applies = nn in have and nn >= m.group(2)
                cell, err = cost_cell(build, component, m.group(1), nn) if applies else ("—", None)
                if err:
                    return None, err
                cells.append(cell)
            rows.append(f"| `{component}.{m.group(1)}` | " + " | ".join(cells) + " |")
    head = "| scenario | " + " | ".join(steps) + " |\n|---|" + "--:|" * len(steps) + "\n"
    return head + "\n".join(rows) + "\n", None


def cost_cell(build, component, scenario, nn):
    """One cell: (executions / schedules, seconds, None), or (None, why not)."""
    exe = find_program(build, f"explore_{component}_step{nn}", CACHE)
    env = {k: v for k, v in os.environ.items() if k != "LOCKSTEP_EXPLORE_PREEMPTIONS"}
    start = time.monotonic()
    out = subprocess.run([exe, scenario], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, env=env, timeout=TIMEOUT).stdout
    seconds = time.monotonic() - start
    if out.startswith("SKIPPED: "):  # a scenario that applies only up to an earlier step
        return "—", None
    n = re.search(r"explore: (\d+) executions?, (\d+) schedules? explored", out)
    if not n:
        return None, f"explore_{component}_step{nn} {scenario} printed no count:\n{out[-2000:]}"
    bound = re.search(r"at most (\d+) preemptions \(bounded", out)
    return (f"{n.group(1)} / {n.group(2)}" + (f" (P={bound.group(1)})" if bound else "") +
            f", {seconds:.2f}s"), None
