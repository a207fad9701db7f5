#!/usr/bin/env python3
"""json_check.py EXPLORE_LITMUS FILE.litmus...: explore_litmus --json writes
what its text says: for each file, the JSON's states (in order), herd's
verdict, Positive and Negative, the race flag and the condition equal the
text block's (herd.py reads it), and each state's executions add up to
Positive + Negative. Exit status 1 on a difference. Standard library only.
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
    return differs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("explorer")
    p.add_argument("files", nargs="+", type=Path)
    args = p.parse_args()
    failed = 0
    for path in args.files:
        for d in check(args.explorer, path):
            print(f"json_check: {path.name}: {d}")
            failed += 1
    print(f"json_check: {len(args.files)} files, the JSON {'differs' if failed else 'says what the text says'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
