#!/usr/bin/env python3
"""report.py: the lab's report, after tests/labs/run.sh has built the
student's copy and run its tests (`ctest -T Test`).

Reads ctest's results from the XML it keeps (Testing/<tag>/Test.xml: each
test's status, verdict and output; never its terminal text), what each
failed test wrote as data (the build's results/: Check's XML log and
check_main.c's case log, the explorer's --json; the output only for what has
no other form: an assert()'s line, a program that wrote none), the run's
skip reasons (Testing/skipped.txt, which every skipped test appends to), and
the lab page (lab_page.py). Prints the tests that failed and what each said,
then, for each exercise (or the one named, or the challenge), which of the
tests the lab names under it failed, the skipped tests and why, and a last
line with the counts. Exits 0 when every test that ran passed, else 1.
Standard library only.
"""
import argparse
import json
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import lab_page


# ---- ctest's results ----------------------------------------------------------

@dataclass
class Result:
    name: str
    status: str  # Test.xml's: passed, failed, notrun
    verdict: str  # ctest's word for it: Passed, Failed, Timeout, SEGFAULT, ...
    completion: str  # "Completed", "SKIP_RETURN_CODE=77", "Unable to find executable", ...
    output: str

    def skipped(self):
        return self.status == "notrun" and self.completion.startswith("SKIP_")

    def failed(self):
        """As ctest counts it: a test that could not be run failed too."""
        return self.status == "failed" or (self.status == "notrun" and not self.skipped())


def measurement(test, name):
    value = test.find(f"Results/NamedMeasurement[@name='{name}']/Value")
    return value.text or "" if value is not None else ""


def test_xml(build):
    """Testing/<tag>/Test.xml of the last `ctest -T Test` run in `build`, or None."""
    tag = build / "Testing" / "TAG"
    if not tag.exists():
        return None
    xml = build / "Testing" / tag.read_text().split("\n", 1)[0] / "Test.xml"
    return xml if xml.exists() else None


def results(build):
    """Every test of the last `ctest -T Test` run in `build`, in the order they ran."""
    xml = test_xml(build)
    if not xml:
        return []
    found = []
    for test in ET.parse(xml).getroot().iter("Test"):
        if test.get("Status") is None:  # the TestList's entries: names only
            continue
        status = test.get("Status")
        verdict = measurement(test, "Exit Code") or ("Not Run" if status == "notrun" else status.capitalize())
        output = test.findtext("Results/Measurement/Value") or ""
        found.append(Result(test.findtext("Name"), status, verdict, measurement(test, "Completion Status"), output))
    return found


# ---- what a failing test said ---------------------------------------------------------
#
# Read from what each test wrote as data during the run, one file per test in
# the build's results/ (cmake/LockstepTests.cmake): a Check case's XML log
# (<test>.xml, Check's own), what a failed case checks (<test>.case.json,
# tests/support/check_main.c) and an explorer scenario's verdict (<test>.json,
# its --json). A file older than the run is a previous run's, and not read.

CHECK_NS = "{http://check.sourceforge.net/ns}"


def run_started(build):
    """When the last `ctest -T Test` run in `build` started (Test.xml's
    StartTestTime, seconds since the epoch), or None."""
    xml = test_xml(build)
    start = ET.parse(xml).getroot().findtext("Testing/StartTestTime") if xml else None
    return int(start) if start and start.isdigit() else None


def written(path, since):
    """PATH, if the run that started at SINCE wrote it; else None."""
    try:
        return path if since is not None and path.stat().st_mtime >= since else None
    except OSError:
        return None


def read_json(path):
    """The object in the JSON file at PATH; None if there is none or it
    is not JSON (a program stopped while writing it)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def field(data, key, path):
    """DATA[KEY], a string: a file its program wrote without it is not what
    that program writes, and the report stops rather than guess."""
    value = data.get(key)
    if not isinstance(value, str):
        raise SystemExit(f"report: {path} has no {key} (a string): not as its program writes it")
    return value


def check_failures(path):
    """The messages of the cases that did not pass in Check's XML log at PATH,
    in the order they ran; None if there is no log, or only the start of one
    (a program stopped before Check closed it: a crash, an abort, a timeout)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    failed = []
    for t in root.iter(f"{CHECK_NS}test"):
        if t.get("result") is None or t.findtext(f"{CHECK_NS}message") is None:
            raise SystemExit(f"report: {path}: a test with no result or message: not Check's XML log")
        if t.get("result") != "success":
            failed.append(t.findtext(f"{CHECK_NS}message"))
    return failed


def assert_line(output):
    """The line an assert() printed before it aborted: its only form, on
    stderr (the C library's, "prog: file:line: function: Assertion `...'
    failed."), with no exit status or file of its own but SIGABRT."""
    return next((line.lstrip(" ") for line in output.split("\n") if "Assertion" in line), "")


def first_line(output):
    """The first line a program printed that wrote none of the files above
    (a usage error, a crash after flushing its output): all there is. Check's
    "Running suite(s): ..." is its own chatter, not the test's."""
    return next((line for line in output.split("\n") if line.strip() and not line.startswith("Running suite")), "")


def said(r, results, since):
    """What the failed test R said: its explorer verdict, Check failure or
    assert (failing those, when Check wrote no complete log, the first line
    it printed); then, for a unit case, what it checks and where to read
    about it (check_main.c's "what it checks:" and "read:" lines).
    "" first when it said nothing (a crash, a timeout)."""
    verdict, xml_log, case_path = (results / f"{r.name}{end}" for end in (".json", ".xml", ".case.json"))
    explored = read_json(verdict) if written(verdict, since) else None
    checked = check_failures(xml_log) if written(xml_log, since) else None
    case_log = read_json(case_path) if written(case_path, since) else None
    found = ""
    # (A reduction that missed executions, --check-reduction, fails with no
    # failure of its own: run/main.c's passed_json, reduction_checked false.)
    if explored and field(explored, "result", verdict) == "failed" and explored.get("reduction_checked") is not False:
        kind, message = field(explored, "kind", verdict), field(explored, "message", verdict)
        # An assert() in the step's code: the explorer's message says only that
        # the C library printed one; the line it printed says which.
        found = (kind == "assert" and assert_line(r.output)) or f"explore: FAILED ({kind}): {message}"
    elif checked:
        found = checked[0]
    elif r.verdict == "Subprocess aborted":  # ctest's word for SIGABRT: assert(), or a message and abort()
        found = assert_line(r.output) or first_line(r.output)
    elif checked is None:  # (a complete log with no failure: Check's chatter is all it printed)
        found = first_line(r.output)
    lines = [found]
    # check_main.c writes its case log once Check has written its own: one
    # without the other is a run's results not as the programs write them.
    if checked is not None and case_log is None:
        raise SystemExit(f"report: {xml_log} has no {case_path.name} beside it (check_main.c writes both)")
    if case_log is not None and checked is None:
        raise SystemExit(f"report: {case_path} has no complete Check XML log {xml_log.name} beside it")
    cases = case_log.get("failed") if case_log is not None else []
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise SystemExit(f"report: {case_path} has no failed (a list of cases): not as check_main.c writes it")
    failed = next((c for c in cases if c.get("checks") is not None), None)
    if failed:
        lines += [f"what it checks: {field(failed, 'checks', case_path)}", f"read: {field(failed, 'read', case_path)}"]
    return lines


def read_here(line, this_readme):
    """A case's "read:" names the README where its idea is explained first,
    often an earlier step's: point at this step's README too, which is the
    code the student changed."""
    if line.startswith("read: ") and this_readme not in line:
        return f"read: {this_readme} (this step), and where the idea began: {line[len('read: '):]}"
    return line


def print_failures(failed, nn, this_readme, results, since):
    print()
    if not failed:
        print(f"lab: every test of step {nn} passed. Either your copy is right, or your change got past them:")
        print("     which test should have caught it, and why did it not?")
        return
    print("lab: tests that failed, and what each said:")
    for r in failed:
        print(f"  {r.name}")
        lines = said(r, results, since)
        if not lines[0]:  # no message of its own (a crash, a timeout): ctest's verdict
            lines = [f"ctest: ({r.verdict})"]
        for line in lines:
            print("      " + read_here(line, this_readme)[:300])


# ---- the lab page: which of each exercise's tests failed ---------------------------------

def challenge_report(entries, page, failed_names):
    print()
    print(f'lab: the challenge of {page} ("Build it"), and its tests')
    found = [e for e in entries if e.section == "challenge" and e.always]
    for e in found:
        print(f"  {e.title}:")
        for t in e.always:
            print(f"    {'FAILED' if t in failed_names else 'passed'}  {t}")
    if not found:
        print("  (this lab has no challenge yet)")


def exercise_line(e, failed_names):
    caught = "".join(f" {t}" for t in e.always if t in failed_names)
    missed = "".join(f" {t}" for t in e.always if t not in failed_names)
    raced = "".join(f" {t}" for t in e.maybe if t in failed_names)
    also = f" (and, this run, the race test(s){raced}, which fail on some runs only)" if raced else ""
    if caught and not missed:
        return f"  {e.title}: caught by every test it lists:{caught}{also}"
    if caught:
        return f"  {e.title}: caught by{caught}{also}; these passed:{missed}"
    if raced:
        return f"  {e.title}: caught only by the race test(s){raced}; the tests that always catch it passed:{missed}"
    return f"  {e.title}: not applied, or not caught: its tests passed ({missed[1:]})"


def exercises_report(entries, page, exercise, failed_names):
    print()
    if exercise:
        print(f"lab: exercise {exercise} of {page}, and which of the tests named under it failed")
    else:
        print(f"lab: the exercises of {page}, and which of the tests named under each failed")
        print("     (their tests overlap: one change can make another exercise's tests fail too):")
    found = [e for e in entries if e.section == "exercise" and e.always and (not exercise or e.n == exercise)]
    for e in found:
        print(exercise_line(e, failed_names))
    if not found:
        print(f"  (no exercise {exercise} in this lab)")


def lab_report(args, failed_names):
    page = args.lab.relative_to(args.root) if args.lab.is_relative_to(args.root) else args.lab
    if args.only:
        print()
        print(f"lab: only the tests matching {args.only} ran: no report per exercise (it needs every test)")
    elif not args.lab.is_file():
        print()
        print(f"lab: no lab page {args.lab}: nothing to report per exercise")
    elif args.challenge:
        challenge_report(lab_page.entries(args.lab.read_text()), page, failed_names)
    else:
        exercises_report(lab_page.entries(args.lab.read_text()), page, args.exercise, failed_names)


# ---- skipped tests, and the last line ---------------------------------------------------

def skip_reasons(skip_log, skipped):
    """The reasons the skipped tests gave (sorted, as ctest prints them after
    its summary), or, if none did, their names."""
    reasons = sorted(line for line in skip_log.read_text().split("\n") if line) if skip_log.exists() else []
    return reasons or [r.name for r in skipped]


def parse_args():
    p = argparse.ArgumentParser(description="A lab's report from ctest's results (run by tests/labs/run.sh).")
    p.add_argument("--root", type=Path, required=True, help="the repository")
    p.add_argument("--build", type=Path, required=True, help="the lab's build directory (ctest ran there)")
    p.add_argument("--log", type=Path, required=True, help="ctest's output, for the reader")
    p.add_argument("--lab", type=Path, required=True, help="the lab page, docs/labs/NN-name.md")
    p.add_argument("--step", required=True, help="the step's directory name, NN-name")
    p.add_argument("--exercise", default="", help="report only this exercise")
    p.add_argument("--challenge", action="store_true", help="report the challenge instead of the exercises")
    p.add_argument("--only", default="", help="the ctest -R regex, if only some tests ran")
    p.add_argument("--ctest-rc", type=int, required=True, help="ctest's exit status")
    return p.parse_args()


def main():
    args = parse_args()
    nn = args.step[:2]
    ran_tests = results(args.build)
    if not ran_tests:
        print("\n".join(args.log.read_text(errors="replace").splitlines()[-20:]))
        print(f"lab: ctest ran no test (full output: {args.log})")
        return 1
    failed = sorted((r for r in ran_tests if r.failed()), key=lambda r: r.name)
    skipped = [r for r in ran_tests if r.skipped()]
    print_failures(failed, nn, f"steps/{args.step}/README.md", args.build / "results", run_started(args.build))
    lab_report(args, {r.name for r in failed})

    ran = len(ran_tests) - len(skipped)
    also = ""
    if skipped:
        print()
        print(f"lab: {len(skipped)} test(s) of step {nn} skipped, and why:")
        for line in skip_reasons(args.build / "Testing" / "skipped.txt", skipped):
            print(f"  {line}")
        also = f" ({len(skipped)} more skipped, listed above)"
    print()
    print(f"lab: full ctest output: {args.log}")
    if not failed and args.ctest_rc == 0:
        print(f"lab: all {ran} tests that ran passed{also}")
        return 0
    print(f"lab: {len(failed)} of {ran} tests failed{also}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
