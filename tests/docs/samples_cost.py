"""The `explore-cost` sample of check_samples.py: the explorer's cost table,
every scenario on every step, "executions / schedules, seconds" per cell,
"(P=k)" when the search stopped at k preemptions. What each run did comes
from its --json (the scenarios from --list --json), not from its text."""
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

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
        listing = run_json([find_program(build, f"explore_{component}_step{have[-1]}", CACHE), "--list"])[1]
        for scenario in listing["scenarios"]:
            cells = []
            for nn in steps:
                applies = nn in have and int(nn) >= scenario["min_step"]
                cell, err = cost_cell(build, component, scenario["name"], nn) if applies else ("—", None)
                if err:
                    return None, err
                cells.append(cell)
            rows.append(f"| `{component}.{scenario['name']}` | " + " | ".join(cells) + " |")
    head = "| scenario | " + " | ".join(steps) + " |\n|---|" + "--:|" * len(steps) + "\n"
    return head + "\n".join(rows) + "\n", None


def cost_cell(build, component, scenario, nn):
    """One cell: (executions / schedules, seconds, None), or (None, why not)."""
    exe = find_program(build, f"explore_{component}_step{nn}", CACHE)
    env = {k: v for k, v in os.environ.items() if k != "LOCKSTEP_EXPLORE_PREEMPTIONS"}
    start = time.monotonic()
    out, got = run_json([exe, scenario], env)
    seconds = time.monotonic() - start
    if got and got["result"] == "skipped":  # a scenario that applies only up to an earlier step
        return "—", None
    if not got or got["result"] != "passed":
        return None, f"explore_{component}_step{nn} {scenario} did not pass:\n{out[-2000:]}"
    bound = f" (P={got['bound']})" if got["search"] == "bounded" else ""
    return f"{got['executions']} / {got['schedules']}{bound}, {seconds:.2f}s", None


def run_json(argv, env=None):
    """(its output, its --json or None) of one run of an explorer program."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        out = subprocess.run(argv + ["--json", str(result)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env, timeout=TIMEOUT).stdout
        return out, json.loads(result.read_text()) if result.is_file() else None
