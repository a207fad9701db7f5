#!/usr/bin/env python3
"""json_check.py EXPLORE_LITMUS FILE.litmus...: explore_litmus --json writes
what its text says: for each file, the JSON's states (in order), herd's
verdict, Positive and Negative, the race flag and the condition equal the
text block's (herd.py reads it), and each state's executions add up to
Positive + Negative. And --parse judges the file's stated states as the
run judges the states it finds: every stated state read (the race flag
aside), the condition and each of its equalities judged, the same way as
the run where the run found that state (the judgment docs_litmus.py asks
for, instead of evaluating the condition again). And every line of each
state's trace that cites a source line cites the litmus file's own, never
the interpreter's (exec.c: a reader of `MP.litmus:17 load y` opens
MP.litmus). Exit status 1 on a difference. Standard library only.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import herd  # noqa: E402


def check(explorer, path):
    """What differs between the text and the JSON for one file (empty: nothing)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        out = subprocess.run([explorer, "--json", str(result), str(path)], capture_output=True, text=True,
                             check=False)
        test = json.loads(result.read_text())["tests"][0]
    text = out.stdout
    block = herd.parse(text)
    differs = []
    states = [s["state"] for s in test["states"]] + ([herd.RACE] if test["race"] else [])
    if states != block.states:
        differs.append(f"states {states} != {block.states}")
    if f"Positive: {test['positive']} Negative: {test['negative']}" != block.counts:
        differs.append(f"counts {test['positive']}/{test['negative']} != {block.counts}")
    if test["verdict"] != block.verdict:
        differs.append(f"verdict {test['verdict']} != {block.verdict}")
    if sum(s["executions"] for s in test["states"]) != test["positive"] + test["negative"]:
        differs.append("the states' executions do not add up to Positive + Negative")
    if f"Condition {test['condition']}" not in text:
        differs.append(f"condition {test['condition']!r} is not the text's")
    differs += foreign_citations(test, Path(path).name)
    return differs, test


def foreign_citations(test, litmus_name):
    """The trace lines of test's states that cite a file other than LITMUS_NAME.

    A trace line's text begins with its citation, `FILE:LINE what it did`,
    or has none (`(finished)`, `free x`)."""
    out = []
    for s in test["states"]:
        for step in s["execution"]["trace"]["steps"]:
            cited, _, line = step["text"].partition(" ")[0].rpartition(":")
            if cited and line.isdigit() and cited != litmus_name:
                out.append(f"{s['state']}: trace line {step['line']} cites {cited}, not {litmus_name}: "
                           f"{step['text']!r}")
    return out


def check_parse(explorer, paths, runs):
    """What differs between --parse's judgments of the stated states and the runs' of those found."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "parse.json"
        out = subprocess.run([explorer, "--parse", "--json", str(result)] + [str(p) for p in paths],
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            return [f"--parse: exit {out.returncode}: {out.stderr.strip()}"], 0
        tests = json.loads(result.read_text())["tests"]
    differs, judged = [], 0
    for t in tests:
        found = {s["state"]: s for s in runs.get(t["test"], {}).get("states", [])}
        for e in t["expected"]:
            if e["state"] == herd.RACE:
                continue
            if e["holds"] is None or len(e.get("atoms_held", [])) != len(t["atoms"]):
                differs.append(f"{t['test']}: --parse did not judge its stated state {e['state']}")
                continue
            judged += 1
            s = found.get(e["state"])
            if s and (s["holds"], s["atoms_held"]) != (e["holds"], e["atoms_held"]):
                differs.append(f"{t['test']}: {e['state']}: --parse judges it {e['holds']} {e['atoms_held']}, "
                               f"the run {s['holds']} {s['atoms_held']}")
    return differs, judged


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("explorer")
    p.add_argument("files", nargs="+", type=Path)
    args = p.parse_args()
    failed, runs = 0, {}
    for path in args.files:
        differs, test = check(args.explorer, path)
        runs[test["test"]] = test
        for d in differs:
            print(f"json_check: {path.name}: {d}")
            failed += 1
    differs, judged = check_parse(args.explorer, args.files, runs)
    for d in differs:
        print(f"json_check: {d}")
        failed += 1
    print(f"json_check: {len(args.files)} files, the JSON {'differs' if failed else 'says what the text says'}; "
          f"--parse judged {judged} stated states as the runs do")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
