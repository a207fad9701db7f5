#!/usr/bin/env python3
"""run_json_check.py EXPLORER_DIR: a scenario program's --json says what
happened, in a form a program reads with no pattern of its own
(run/main.c, report/report.c):

  - a scenario that passes: "passed", its executions and schedules, the
    search (reduced, with no bound) and that it met every execution;
  - the same scenario with an order weakened (--weaken): "failed", the
    failure's kind and message, the schedule's id and the command that
    replays it, the trace (numbered 1, 2, ... in order, each step in a
    thread the trace names) and the graph (its boxes, its edges between
    them, each named by its relation, and the failure's note); and the
    replay command, run with --json, fails the same way on the same
    schedule with the same trace;
  - where a trace was printed, the JSON names its table in the text (its
    header line, and how many lines it took): the header is a line of the
    output, and the table's last line is its last step's (or that step's
    text wrapped); a passing schedule replayed (--replay 0) gives
    "passed", its schedule and its trace, named so too;
  - a scenario the step does not have: "skipped", exit 77, and why;
  - a bad argument (a width of 0): exit 2 and no file written; a --weaken
    the program refuses (naming a function with no atomic operation, one
    with two and no /N, a second of one, a file it has no atomic operation
    in): exit 2 and "refused", the refusal by its name (no-function,
    ambiguous, no-nth, no-file) and why, with --json before or after it.

The failure is asked for as the pages do, --weaken FILE:FUNCTION=ORDER;
its replay command names the line, so the replay's agreement checks that
the two forms mean the same operation.

Standard library only.
"""
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

STEP03 = "explore_task_step03"
SCENARIO = "completion_vs_await"
WEAKEN = ["--weaken", "task.c:simple_promise_final_suspend=release"]


def run(exe, args, out, printed=None):
    """(exit status, the JSON written to out, or None); PRINTED, a list,
    gets what the run printed."""
    out.unlink(missing_ok=True)
    done = subprocess.run([str(exe)] + args + ["--json", str(out)], capture_output=True, text=True, timeout=300)
    if printed is not None:
        printed.append(done.stdout)
    return done.returncode, json.loads(out.read_text()) if out.exists() else None


def check_printed(trace, text, what, problems):
    """The trace's table is where the JSON says it is in the printed TEXT."""
    named = (trace or {}).get("printed")
    lines = text.split("\n")
    if not named or lines.count(named.get("head")) != 1:
        return problems.append(f"{what}: the JSON does not name the printed table's header line ({named})")
    at = lines.index(named["head"])
    last = lines[at + named["lines"] - 1] if at + named["lines"] - 1 < len(lines) else ""
    steps = trace.get("steps", [])
    if not steps or not last.strip() or not (last.split()[0] == str(steps[-1]["line"]) or last.startswith(" " * 6)):
        problems.append(f"{what}: the table the JSON names ends on {last!r}, not on its last step")
    if at + named["lines"] < len(lines) and lines[at + named["lines"]].startswith(" " * 6):
        problems.append(f"{what}: the table goes on past the lines the JSON names")


def check_passed(got, status, problems):
    if status != 0 or not got:
        return problems.append(f"{SCENARIO}: exit {status}, JSON {got}: not a pass")
    want = {"result": "passed", "step": 3, "component": "task", "scenario": SCENARIO, "search": "reduced",
            "complete": True}
    problems += [f"{SCENARIO}: {k} is {got.get(k)!r}, not {v!r}" for k, v in want.items() if got.get(k) != v]
    if not (isinstance(got.get("executions"), int) and 0 < got["executions"] <= got.get("schedules", 0)):
        problems.append(f"{SCENARIO}: executions {got.get('executions')}, schedules {got.get('schedules')}")


def check_failed(got, status, what, problems):
    if status != 1 or not got or got.get("result") != "failed":
        return problems.append(f"{what}: exit {status}, result {got and got.get('result')!r}: not a failure")
    for key in ("kind", "message", "schedule", "replay"):
        if not got.get(key):
            problems.append(f"{what}: no {key}")
    trace, graph = got.get("trace", {}), got.get("graph", {})
    steps = trace.get("steps", [])
    if [s["line"] for s in steps] != list(range(1, len(steps) + 1)) or not steps:
        problems.append(f"{what}: the trace's lines are {[s['line'] for s in steps]}, not 1, 2, ...")
    threads = len(trace.get("threads", []))
    if any(s["thread"] is not None and not 0 <= s["thread"] < threads for s in steps):
        problems.append(f"{what}: a step in a thread the trace does not name")
    ids = {b["id"] for b in graph.get("boxes", [])}
    edges = graph.get("edges", [])
    if not ids or not edges or any(e["from"] not in ids or e["to"] not in ids for e in edges):
        problems.append(f"{what}: the graph's edges do not join its boxes ({len(ids)} boxes, {len(edges)} edges)")
    if not any(e["relation"] == "rf" or e["relation"] == "rf, sw" for e in edges):
        problems.append(f"{what}: no reads-from edge in the graph")
    if not any(n.startswith(f"FAILED ({got.get('kind')}): ") for n in graph.get("notes", [])):
        problems.append(f"{what}: the graph's note does not say the failure")


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__.split("\n\n")[0])
    bin_dir = Path(argv[1])
    step03, step09 = bin_dir / STEP03, bin_dir / "explore_task_step09"
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        status, got = run(step03, [SCENARIO], out)
        check_passed(got, status, problems)

        printed = []
        status, failed = run(step03, [SCENARIO] + WEAKEN, out, printed)
        check_failed(failed, status, f"{SCENARIO} {' '.join(WEAKEN)}", problems)
        check_printed((failed or {}).get("trace"), printed[0], f"{SCENARIO} {' '.join(WEAKEN)}", problems)
        if failed and failed.get("replay"):
            replay = shlex.split(failed["replay"])
            status, again = run(Path(replay[0]), replay[1:], out)
            check_failed(again, status, "the replay", problems)
            for key in ("kind", "schedule", "trace"):
                if again and again.get(key) != failed.get(key):
                    problems.append(f"the replay: its {key} differs from the failure's")

        printed = []
        status, got = run(step03, [SCENARIO, "--replay", "0"], out, printed)
        if status != 0 or not got or got.get("result") != "passed" or not got.get("schedule") \
                or not (got.get("trace") or {}).get("steps"):
            problems.append(f"{SCENARIO} --replay 0: exit {status}: not a pass with its schedule and trace")
        else:
            check_printed(got["trace"], printed[0], f"{SCENARIO} --replay 0", problems)

        status, got = run(step09, [SCENARIO], out)
        if status != 77 or not got or got.get("result") != "skipped" or not got.get("why"):
            problems.append(f"step 09 {SCENARIO}: exit {status}, JSON {got}: not a skip with its reason")

        status, got = run(step03, [SCENARIO, "--graph-width", "0"], out)
        if status != 2 or got is not None:
            problems.append(f"--graph-width 0: exit {status}, a JSON file {'written' if got else 'not written'}")
        refused = ((["--weaken", "task.c:no_such_function=release"], "no-function"),
                   (["--weaken", "task.c:simple_promise_client_await_suspend=release"], "ambiguous"),  # (two: /1 or /2)
                   (["--weaken", "task.c:simple_promise_final_suspend/2=release"], "no-nth"),
                   (["--weaken", "event.c:10=relaxed"], "no-file"))  # (step 03's task program links no event.c)
        for args, refusal in refused:
            status, got = run(step03, args + [SCENARIO], out)  # (--json after the --weaken: known when it is taken)
            if status != 2 or not got or got.get("result") != "refused" or got.get("refusal") != refusal \
                    or not got.get("why"):
                problems.append(f"{' '.join(args)}: exit {status}, JSON {got}: not refused as {refusal}")
    for p in problems:
        print("run_json_check:", p)
    print(f"run_json_check: {'every' if not problems else 'NOT every'} result's JSON says what happened")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main(sys.argv)
