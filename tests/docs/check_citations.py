#!/usr/bin/env python3
"""check_citations.py REPO [STEP=DIR...]: every `file.c:NN` cited in a step
README, a walkthrough or a lab points at the line it describes.

A citation is `name.c:NN` or `name.h:NN` (a path before the name is
allowed: `.../05-intrusive-list/src/event.c:31`). It is resolved in the
page's step (steps/NN-name/README.md, docs/walkthroughs/NN-name.md,
docs/labs/NN-name.md), or in the step its path names, as src/<name>,
include/lockstep/<name> or the path itself. STEP=DIR pairs replace a step's
directory (a student's copy: -DLOCKSTEP_STEP_DIR_NN).

Every citation must name a file of that step and a line that exists and
holds code (not blank, not only a comment). Then what is said next to it
must be on that line, by the first of these rules that applies:

  - the explorer's words, as its traces and reports print them (pasted into
    a README or a lab): `event.c:55 exchange state`, `locks the mutex at
    task.c:87`, `allocated at task.c:41`, `freed (trace line 5, task.c:29)`:
    the line holds the operation (`atomic_exchange`, `lock`, an allocation,
    a free) and, for an atomic operation, the object it names;
  - an assertion's report, `event.c:31: awaitable_event_destroy: Assertion`:
    the line holds `assert`;
  - in prose, a verb right before, in parentheses: "frees it (task.c:29)":
    the line does that (a free, a lock, an atomic exchange...);
  - in prose, a code span right after the citation, `task.c:29` (`free(p)`)
    or task.c:29, `lockstep_free`: the line holds the code span's text.

A page may cite code by name instead (`sequencer.c:queued_task_resume`,
`--weaken sequencer.c:abandon=relaxed`: the site's code anchors,
docs/generator/lockstep_site/anchors.py): each is resolved as the site resolves it,
an anchor that no longer resolves is wrong, and the line it resolves to is
then checked as above.

A citation in prose with no code span beside it fails: the convention is to
say which code is meant, so that a moved line is caught. `--weaken
task.c:102=release` cites an atomic operation: the line must hold a
memory order. Walkthrough trace and graph markers (`<!-- trace ... -->`,
`<!-- graph ... -->`), and the quoted output of a changed copy
(`<!-- sample: lab ...` or `mutant ...`, tests/docs/check_samples.py) are
not read: the explorer prints those traces from the real code at every
docs build, and the marker's `expect` already fails the build when they
change; check_samples.py runs the copies and compares their blocks.
Prints each wrong citation; exits 1 if there is any. Standard library only.
"""
import argparse
import os.path
import re
import sys
from pathlib import Path

# The site's code, for its code anchors: the one resolver of them.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "generator"))
from lockstep_site import anchors  # noqa: E402

CITE = re.compile(r"((?:[\w.-]+/)*)([A-Za-z_][\w-]*\.[ch]):(\d+)")
# What the explorer prints after a citation, and what the line must hold.
VERBS = {
    "load": "atomic_load", "store": "atomic_store", "exchange": "atomic_exchange",
    "compare_exchange": "atomic_compare_exchange", "fetch_sub": "atomic_fetch_sub",
    "fetch_add": "atomic_fetch_add", "lock": "lock", "unlock": "unlock",
    "allocate": "alloc", "free": "free",
}


def code_lines(path):
    return path.read_text(encoding="utf-8").split("\n")


def is_code(line, in_comment):
    s = line.strip()
    if not s or in_comment or s.startswith("//") or s.startswith("/*") or s.startswith("*"):
        return False
    return True


def comment_state(lines, n):
    """Whether line n (1-based) starts inside a /* comment."""
    inside = False
    for line in lines[:n - 1]:
        i = 0
        while i < len(line):
            if not inside and line.startswith("//", i):
                break
            if not inside and line.startswith("/*", i):
                inside, i = True, i + 2
            elif inside and line.startswith("*/", i):
                inside, i = False, i + 2
            else:
                i += 1
    return inside


# The explorer's reports, the words before a citation: what the line holds, and why.
REPORT_WORDS = (
    # common's lockstep_alloc, or a coroutine frame's lockstep_coro_new
    # (the explorer names the first caller outside common/).
    (r"allocated at $", "alloc|coro_new", "allocated at"),
    (r"trace line \d+, $", "free", "the free the report points at"),
    (r"locks the mutex at $", "lock", "locks the mutex"),
    (r"does the atomic operation at $", "atomic_", "does the atomic operation"),
)
# A verb of prose before "(file.c:NN)", as the explorer's word for it.
PROSE_VERBS = {"frees": "free", "freed": "free", "allocates": "allocate", "locks": "lock",
               "unlocks": "unlock", "exchanges": "exchange", "loads": "load", "stores": "store"}


def explorer_words(before, after):
    """What the explorer's trace or report around a citation requires of its line, or None."""
    m = re.match(r" (load|store|exchange|compare_exchange|fetch_sub|fetch_add|lock|unlock|allocate|free)\b"
                 r"( (?:next of )?(\w+))?", after)
    if m:
        needs = [VERBS[m.group(1)]]
        if m.group(1) not in ("lock", "unlock", "allocate", "free") and m.group(3):
            needs.append(m.group(3))
        return needs, f"the trace's `{m.group(0).strip()}`"
    for words, needs, why in REPORT_WORDS:
        if re.search(words, before):
            return [needs], why
    # The explorer's report of an access quotes the line: "reads at
    # event.c:72 (fifo = fifo->next;)".
    m = re.match(r" \((.+?)\)(?=[ ,]|$)", after) if re.search(r"\bat $", before) else None
    return ([m.group(1)], "the line the report quotes") if m else None


def tool_words(before, after):
    """--weaken's argument or an assertion's report around a citation, or None."""
    if re.match(r"=(relaxed|acquire|release|acq_rel|consume)\b", after):
        return ["memory_order_"], "--weaken's atomic operation"
    if re.match(r": \w+: Assertion", after):
        return ["assert"], "an assertion's report"
    return None


def prose_words(before, after):
    """A verb right before "(citation)", or a code span right after it, or None."""
    m = re.search(r"\b(" + "|".join(PROSE_VERBS) + r")\b[^.`\n]{0,12}\($", before)
    if m:
        return [VERBS[PROSE_VERBS[m.group(1)]]], f"prose: {m.group(1)} (...)"
    m = re.match(r"[^`\n]{0,12}`([^`]+)`", after)
    return ([m.group(1)], f"the code span `{m.group(1)}`") if m else None


def expectation(text, start, end):
    """(what the line must hold, why) from the words around a citation, by
    the first rule that applies (the docstring's order); (None, None) if none."""
    before = text[max(0, start - 40):start]
    after = text[end:end + 120]
    for rule in (explorer_words, tool_words, prose_words):
        found = rule(before, after)
        if found:
            return found
    return None, None


def shown_text(text):
    """The page's text, what this check does not read blanked (same offsets)."""
    text = re.sub(r"<!-- (trace|graph) .*?-->", lambda m: " " * len(m.group(0)), text)
    # A quoted output of a changed copy of the step (check_samples.py's `lab`
    # and `mutant` samples) cites the copy's lines, not the step's; that
    # check runs the copy and compares the block.
    return re.sub(r"<!-- sample: (?:lab|mutant) .*?-->\s*\n( *)```.*?\n\1```",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def step_named(prefix, step, step_dirs):
    """The step a citation's path names, else the page's own step."""
    for part in prefix.split("/"):
        if part in step_dirs:
            step = part
    return step


def cited_file(repo, base, prefix, this, name):
    """The file a citation names in step directory BASE, or None."""
    rest = prefix.split(this + "/", 1)[1] if this + "/" in prefix else ""
    candidates = [base / rest / name, base / "src" / name, base / "include" / "lockstep" / name,
                  repo / "common" / "include" / "lockstep" / name,  # every step's coro.h
                  repo / "tests" / "explore" / "scenarios" / name]  # a scenario's own allocation
    return next((c for c in candidates if c.is_file()), None)


def line_problem(text, m, name, n, path):
    """What is wrong with citing line N of PATH at match M, or None."""
    lines = code_lines(path)
    if n < 1 or n > len(lines):
        return f"{name} has {len(lines)} lines"
    line = lines[n - 1]
    if not is_code(line, comment_state(lines, n)):
        return f"line {n} holds no code: {line.strip()!r}"
    needs, why = expectation(text, m.start(), m.end())
    if needs is None:
        return f"say which code is meant (a code span after the citation); line {n} is {line.strip()!r}"
    missing = [w for w in needs if not any(alt in line for alt in w.split("|"))]
    if not missing:
        return None
    near = [i + 1 for i in range(max(0, n - 30), min(len(lines), n + 30))
            if all(any(alt in lines[i] for alt in w.split("|")) for w in needs)]
    return (f"line {n} ({line.strip()!r}) lacks {', '.join(missing)} ({why})"
            + (f"; it is on line {', '.join(map(str, near))}" if near else ""))


def relative(path, repo):
    """PATH as seen from REPO, with .. when it is outside (a student's copy);
    os.path.relpath, since PurePath.relative_to walks up only from 3.12."""
    return os.path.relpath(path, repo)


def check_page(page, step, step_dirs, repo, problems):
    """Every citation of one page checked; returns how many it has."""
    wrong = []
    text = anchors.resolve(page.read_text(encoding="utf-8"), step_dirs[step], wrong)
    problems.extend(f"{relative(page, repo)}: a code anchor does not resolve: {w}" for w in wrong)
    text, count = shown_text(text), len(wrong)
    for m in CITE.finditer(text):
        prefix, name, n = m.group(1), m.group(2), int(m.group(3))
        line_no = text.count("\n", 0, m.start()) + 1
        where = f"{relative(page, repo)}:{line_no}: {prefix}{name}:{n}"
        this = step_named(prefix, step, step_dirs)
        if this not in step_dirs:
            problems.append(f"{where}: which step? (the page names none)")
            continue
        path = cited_file(repo, step_dirs[this], prefix, this, name)
        count += 1
        problem = line_problem(text, m, name, n, path) if path else f"step {this} has no {name}"
        if problem:
            problems.append(f"{where}: {problem}")
    return count


def pages_of(repo, step, step_dir):
    """The step's pages that exist: README, walkthrough, deep page, lab."""
    docs = repo / "docs"
    pages = (step_dir / "README.md", docs / "walkthroughs" / f"{step}.md",
             docs / "in-depth" / f"{step}.md", docs / "labs" / f"{step}.md")
    return [p for p in pages if p.is_file()]


def step_pair(text):
    name, _, directory = text.partition("=")
    if not directory:
        raise argparse.ArgumentTypeError(f"{text!r} is not STEP=DIR")
    return name, Path(directory)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("repo", metavar="REPO", type=Path, help="the repository (its steps/ and docs/)")
    p.add_argument("steps", metavar="STEP=DIR", nargs="*", default=[], type=step_pair,
                   help="a step's directory instead of REPO/steps/STEP (-DLOCKSTEP_STEP_DIR_NN)")
    return p.parse_args()


def steps_of(repo, replaced):
    """Each step's name and directory: REPO/steps/NN-*, and those replaced."""
    steps = {d.name: d for d in sorted((repo / "steps").iterdir(), key=lambda d: d.name)
             if re.match(r"\d\d-", d.name) and d.is_dir()}
    steps.update(replaced)
    return steps


def main():
    args = parse_args()
    repo = args.repo.absolute()
    step_dirs = steps_of(repo, args.steps)
    problems, pages, count = [], 0, 0
    for step, d in step_dirs.items():
        for page in pages_of(repo, step, d):
            pages += 1
            count += check_page(page, step, step_dirs, repo, problems)
    for p in problems:
        print("wrong:", p)
    print(f"check_citations: {pages} pages, {count} citations, {len(problems)} wrong")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
