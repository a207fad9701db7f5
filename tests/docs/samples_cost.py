"""The `explore-cost` sample of check_samples.py: the explorer's cost table,
every scenario on every step, "executions / schedules, seconds" per cell,
"(P=k)" when the search stopped at k preemptions."""
import glob
import os
import re
import subprocess
import time

from samples_program import CACHE, ROOT, TIMEOUT, find_program


def explore_cost(build):
    """The Markdown table of tests/explore/README.md's *Cost*: one row per
    scenario (in --list order of the last step), one column per step."""
    steps = sorted(os.path.basename(p)[:2] for p in glob.glob(os.path.join(ROOT, "steps", "[0-9][0-9]-*")))
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
                if nn not in have or nn < m.group(2):
                    cells.append("—")
                    continue
                exe = find_program(build, f"explore_{component}_step{nn}", CACHE)
                env = {k: v for k, v in os.environ.items() if k != "LOCKSTEP_EXPLORE_PREEMPTIONS"}
                start = time.monotonic()
                out = subprocess.run([exe, m.group(1)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, env=env, timeout=TIMEOUT).stdout
                seconds = time.monotonic() - start
                if out.startswith("SKIPPED: "):  # a scenario that applies only up to an earlier step
                    cells.append("—")
                    continue
                n = re.search(r"explore: (\d+) executions?, (\d+) schedules? explored", out)
                if not n:
                    return None, f"explore_{component}_step{nn} {m.group(1)} printed no count:\n{out[-2000:]}"
                bound = re.search(r"at most (\d+) preemptions \(bounded", out)
                cells.append(f"{n.group(1)} / {n.group(2)}" + (f" (P={bound.group(1)})" if bound else "") +
                             f", {seconds:.2f}s")
            rows.append(f"| `{component}.{m.group(1)}` | " + " | ".join(cells) + " |")
    head = "| scenario | " + " | ".join(steps) + " |\n|---|" + "--:|" * len(steps) + "\n"
    return head + "\n".join(rows) + "\n", None
