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
import os
import re
import sys

CITE = re.compile(r"((?:[\w.-]+/)*)([A-Za-z_][\w-]*\.[ch]):(\d+)")
# What the explorer prints after a citation, and what the line must hold.
VERBS = {
    "load": "atomic_load", "store": "atomic_store", "exchange": "atomic_exchange",
    "compare_exchange": "atomic_compare_exchange", "fetch_sub": "atomic_fetch_sub",
    "fetch_add": "atomic_fetch_add", "lock": "lock", "unlock": "unlock",
    "allocate": "alloc", "free": "free",
}


def code_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")


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


def expectation(text, start, end):
    """(what the line must hold, why) from the words around a citation."""
    before = text[max(0, start - 40):start]
    after = text[end:end + 120]
    m = re.match(r" (load|store|exchange|compare_exchange|fetch_sub|fetch_add|lock|unlock|allocate|free)\b( (?:next of )?(\w+))?", after)
    if m:
        needs = [VERBS[m.group(1)]]
        if m.group(1) not in ("lock", "unlock", "allocate", "free") and m.group(3):
            needs.append(m.group(3))
        return needs, f"the trace's `{m.group(0).strip()}`"
    if re.search(r"allocated at $", before):
        # common's lockstep_alloc, or a coroutine frame's lockstep_coro_new
        # (the explorer names the first caller outside common/).
        return ["alloc|coro_new"], "allocated at"
    if re.search(r"trace line \d+, $", before):
        return ["free"], "the free the report points at"
    if re.search(r"locks the mutex at $", before):
        return ["lock"], "locks the mutex"
    if re.search(r"does the atomic operation at $", before):
        return ["atomic_"], "does the atomic operation"
    # The explorer's report of an access quotes the line: "reads at
    # event.c:72 (fifo = fifo->next;)".
    m = re.match(r" \((.+?)\)(?=[ ,]|$)", after) if re.search(r"\bat $", before) else None
    if m:
        return [m.group(1)], "the line the report quotes"
    if re.match(r"=(relaxed|acquire|release|acq_rel|consume)\b", after):
        return ["memory_order_"], "--weaken's atomic operation"
    if re.match(r": \w+: Assertion", after):
        return ["assert"], "an assertion's report"
    m = re.search(r"\b(frees|freed|locks|unlocks|allocates|exchanges|loads|stores)\b[^.`\n]{0,12}\($", before)
    if m:
        verb = {"frees": "free", "freed": "free", "allocates": "allocate", "locks": "lock",
                "unlocks": "unlock", "exchanges": "exchange", "loads": "load", "stores": "store"}[m.group(1)]
        return [VERBS[verb]], f"prose: {m.group(1)} (...)"
    m = re.match(r"[^`\n]{0,12}`([^`]+)`", after)
    if m:
        return [m.group(1)], f"the code span `{m.group(1)}`"
    return None, None


def check_page(page, step, step_dirs, repo, problems):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"<!-- (trace|graph) .*?-->", lambda m: " " * len(m.group(0)), text)
    # A quoted output of a changed copy of the step (check_samples.py's `lab`
    # and `mutant` samples) cites the copy's lines, not the step's; that
    # check runs the copy and compares the block.
    text = re.sub(r"<!-- sample: (?:lab|mutant) .*?-->\s*\n( *)```.*?\n\1```",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    count = 0
    for m in CITE.finditer(text):
        prefix, name, n = m.group(1), m.group(2), int(m.group(3))
        line_no = text.count("\n", 0, m.start()) + 1
        where = f"{os.path.relpath(page, repo)}:{line_no}: {prefix}{name}:{n}"
        this = step
        for part in prefix.split("/"):
            if part in step_dirs:
                this = part
        if this not in step_dirs:
            problems.append(f"{where}: which step? (the page names none)")
            continue
        base = step_dirs[this]
        rest = prefix.split(this + "/", 1)[1] if this + "/" in prefix else ""
        candidates = [os.path.join(base, rest, name), os.path.join(base, "src", name),
                      os.path.join(base, "include", "lockstep", name),
                      os.path.join(repo, "common", "include", "lockstep", name),  # every step's coro.h
                      os.path.join(repo, "tests", "explore", name)]  # a scenario's own allocation
        path = next((c for c in candidates if os.path.isfile(c)), None)
        count += 1
        if not path:
            problems.append(f"{where}: step {this} has no {name}")
            continue
        lines = code_lines(path)
        if n < 1 or n > len(lines):
            problems.append(f"{where}: {name} has {len(lines)} lines")
            continue
        line = lines[n - 1]
        if not is_code(line, comment_state(lines, n)):
            problems.append(f"{where}: line {n} holds no code: {line.strip()!r}")
            continue
        needs, why = expectation(text, m.start(), m.end())
        if needs is None:
            problems.append(f"{where}: say which code is meant (a code span after the citation); "
                            f"line {n} is {line.strip()!r}")
            continue
        missing = [w for w in needs if not any(alt in line for alt in w.split("|"))]
        if missing:
            near = [i + 1 for i in range(max(0, n - 30), min(len(lines), n + 30))
                    if all(any(alt in lines[i] for alt in w.split("|")) for w in needs)]
            problems.append(f"{where}: line {n} ({line.strip()!r}) lacks {', '.join(missing)} ({why})"
                            + (f"; it is on line {', '.join(map(str, near))}" if near else ""))
    return count


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    repo = os.path.abspath(sys.argv[1])
    step_dirs = {}
    steps_root = os.path.join(repo, "steps")
    for d in sorted(os.listdir(steps_root)):
        if re.match(r"\d\d-", d) and os.path.isdir(os.path.join(steps_root, d)):
            step_dirs[d] = os.path.join(steps_root, d)
    for pair in sys.argv[2:]:
        name, d = pair.split("=", 1)
        step_dirs[name] = d
    problems, pages, count = [], 0, 0
    for step, d in step_dirs.items():
        for page in (os.path.join(d, "README.md"),
                     os.path.join(repo, "docs", "walkthroughs", step + ".md"),
                     os.path.join(repo, "docs", "deep", step + ".md"),
                     os.path.join(repo, "docs", "labs", step + ".md")):
            if os.path.isfile(page):
                pages += 1
                count += check_page(page, step, step_dirs, repo, problems)
    for p in problems:
        print("wrong:", p)
    print(f"check_citations: {pages} pages, {count} citations, {len(problems)} wrong")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
