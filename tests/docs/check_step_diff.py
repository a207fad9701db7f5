#!/usr/bin/env python3
"""check_step_diff.py --step-diff STEP_DIFF PREV THIS: the test of the test
that a step README's "Files changed" list is the real diff; and the
diff pages' README half, as a reader reads it.

Copies the two step directories into a temporary directory (the repository
is never written) and runs `STEP_DIFF check` on the copies three times:

  - as they are: it must pass (the other cases fail for their edit alone);
  - a file left unchanged by the step edited in THIS, its README's list
    untouched: it must fail, saying "changed but not listed: FILE";
  - the same file, unedited, added to the README's list: it must fail,
    saying "listed but not changed: FILE".

Then it writes the diff page of every two consecutive steps beside PREV
(steps/01-mutex..02-atomic-handle to 08..09), with the site's own code
(docs/generator/lockstep_site/diff_page.py, beside STEP_DIFF; it needs Pygments, and
without it this part says it is skipped), into a temporary site, and reads
each page's README half as a reader does. It fails on:

  - a raw table row (`| a | b |`, `|---|`): a table not rendered;
  - a raw link (`[text](`, `](url)`, a `[` that never closes): a link
    not rendered, most often one whose text runs over two lines;
  - a README that kept most of its sections (at least half of the old
    README's `##` and `###` headings are the new one's, step names aside)
    shown as one whole-file hunk (`@@ -1,193 +1,224 @@`), or with fewer
    of those sections shown as kept (unchanged, or changed in place) than
    the two READMEs share: a rewrite shown as "all of it removed, all of
    it added" tells the reader nothing of what changed.

check_step_diff.py --site SITE [--steps DIR] reads a built site's diff
pages the same way (tests/docs/check_links.py does it for the docs build).

Prints each case's verdict; exits 1 if step_diff.py passed a wrong list,
failed a right one or failed without naming the file, or if a README half
reads wrong. Standard library only (and Pygments, through the site's code).
"""
import argparse
import filecmp
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from html.parser import HTMLParser
from pathlib import Path

README = "README.md"
HEADING = "## Files changed from"


def unchanged_file(prev, this):
    """The first file, README aside, that both steps hold byte for byte."""
    for path in sorted(p for p in this.rglob("*") if p.is_file()):
        name = path.relative_to(this).as_posix()
        if name != README and (prev / name).is_file() and filecmp.cmp(prev / name, path, shallow=False):
            return name
    sys.exit(f"check_step_diff.py: {prev} and {this} share no file")


def edit_file(this, name):
    """A change the README does not list: a line added to NAME."""
    with (this / name).open("a", encoding="utf-8") as f:
        f.write("\n")


def list_file(this, name):
    """The README's list names NAME, which the step does not change."""
    readme = this / README
    lines = readme.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(HEADING))
    lines.insert(at + 2, f"- `{name}`: listed, not changed.")
    readme.write_text("\n".join(lines), encoding="utf-8")


def run_check(step_diff, prev, this):
    """step_diff.py check on the copies: (its exit status, its output)."""
    run = subprocess.run([sys.executable, str(step_diff), "check", str(prev), str(this)],
                         capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def case(step_diff, steps, edit, expected):
    """One case on fresh copies of the steps: whether step_diff.py's verdict is the expected one.
    EDIT changes THIS's copy (None: as is); EXPECTED is the failure message's text (None: a pass)."""
    with tempfile.TemporaryDirectory(prefix="check_step_diff.") as tmp:
        prev, this = (shutil.copytree(step, Path(tmp) / step.name) for step in steps)
        if edit:
            edit(this)
        status, output = run_check(step_diff, prev, this)
    right = status == 0 if expected is None else status != 0 and expected in output
    want = "pass" if expected is None else f"fail with {expected!r}"
    print(f"{'ok' if right else 'WRONG'}: expected {want}; step_diff.py exited {status}:")
    print(textwrap.indent(output.strip(), "    "))
    return right


# --- The diff pages' README half --------------------------------------------

README_SECTION = "f-README-md"  # the README's section of a diff page (diff_page.py's anchor)
# The elements whose end ends a line of text as a reader sees it.
BLOCK_TAGS = {"div", "p", "li", "ul", "ol", "td", "th", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6",
              "section", "details", "summary", "br", "blockquote", "dt", "dd", "figure", "figcaption"}
VOID_TAGS = {"br", "img", "hr", "input", "meta", "link", "wbr"}
TABLE_ROW = re.compile(r"^[-+]?\s*(\|.*\||\|?\s*:?-{3,}:?\s*\|.*)$")  # (after a diff's + or - mark)
LINK_TAIL = re.compile(r"\]\(")            # `](url)`: the end of a link not rendered
LINK_OPEN = re.compile(r"\[[^\]]*$")       # `[text` and no `]` after it: a link's first line
WHOLE_HUNK = re.compile(r"@@ -1,(\d+) \+1,(\d+) @@")


class ReadmeHalf(HTMLParser):
    """A diff page's README half as a reader sees it: its lines of text
    (outside code, the note beside it left out), and how many sections it
    shows as kept (an element of class "sec" and "same" or "changed")."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.inside, self.skip = [], None, None  # open tags; the README section's and the note's depth
        self.code, self.line, self.lines, self.kept = 0, "", [], 0

    def flush(self):
        if self.line.strip():
            self.lines.append(self.line.strip())
        self.line = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag not in VOID_TAGS:
            self.stack.append(tag)
        if self.inside is None:
            if a.get("id") == README_SECTION:
                self.inside = len(self.stack)
            return
        if self.skip is None and "note" in classes and tag != "span":
            self.skip = len(self.stack)
        if tag in ("code", "pre"):
            self.code += 1
        if tag in BLOCK_TAGS:
            self.flush()
        if "sec" in classes and ("same" in classes or "changed" in classes):
            self.kept += 1

    def handle_endtag(self, tag):
        if tag in VOID_TAGS or tag not in self.stack:
            return
        while self.stack:  # (a tag left open, as HTML allows, is closed with its parent)
            depth, top = len(self.stack), self.stack.pop()
            if self.inside is not None:
                if top in ("code", "pre"):
                    self.code = max(0, self.code - 1)
                if top in BLOCK_TAGS:
                    self.flush()
                if self.skip == depth:
                    self.skip = None
                if self.inside == depth:
                    self.inside = None
            if top == tag:
                break

    def handle_data(self, data):
        if self.inside is not None and self.skip is None and not self.code:
            self.line += data.replace("\n", " ")


def sections(readme):
    """The `##` and `###` headings of a README, as a key each: lower case,
    step names left out ("Files changed from 07-lock-free-event")."""
    keys = []
    for line in Path(readme).read_text(encoding="utf-8").splitlines():
        m = re.match(r"^#{2,3} +(.*?)\s*$", line)
        if m:
            key = re.sub(r"\b\d\d-[a-z0-9-]+", "", m.group(1).lower().replace("`", ""))
            keys.append(" ".join(key.split()))
    return keys


def readme_half_problems(page_html, old_readme, new_readme):
    """What reads wrong in a diff page's README half: ["what: where", ...]."""
    half = ReadmeHalf()
    half.feed(page_html)
    half.close()
    if not half.lines:
        return ["no README half (no section id=f-README-md with text)"]
    problems = []
    for line in half.lines:
        if TABLE_ROW.match(line):
            problems.append(f"a raw table row: {line[:70]}")
        elif LINK_TAIL.search(line) or LINK_OPEN.search(line):
            problems.append(f"a raw link: {line[:70]}")
    old, new = sections(old_readme), sections(new_readme)
    kept = [k for k in dict.fromkeys(old) if k in new]
    if old and len(kept) * 2 >= len(old):  # a README that kept most of its sections
        old_n = len(Path(old_readme).read_text(encoding="utf-8").splitlines())
        new_n = len(Path(new_readme).read_text(encoding="utf-8").splitlines())
        for line in half.lines:
            m = WHOLE_HUNK.search(line)
            if m and abs(int(m.group(1)) - old_n) <= 1 and abs(int(m.group(2)) - new_n) <= 1:
                problems.append(f"one whole-file hunk ({m.group(0)}) for a README that kept "
                                f"{len(kept)} of its {len(old)} sections")
        if half.kept < len(kept):
            problems.append(f"{half.kept} sections shown as kept (unchanged or changed in place), "
                            f"but the two READMEs share {len(kept)}: {', '.join(kept)}")
    return problems


def check_pages(pages, steps_dir):
    """Each diff page's README half, its READMEs from STEPS_DIR/<step>/README.md:
    (pages checked, [problem lines])."""
    out, checked = [], 0
    for page in pages:
        m = re.match(r"^(.+)\.\.(.+)\.html$", page.name)
        old, new = (Path(steps_dir) / m.group(i) / README for i in (1, 2)) if m else (None, None)
        if not (m and old.is_file() and new.is_file()):
            continue  # (a student's step outside steps/: nothing to read it against)
        checked += 1
        found = readme_half_problems(page.read_text(encoding="utf-8"), old, new)
        out += [f"{page.name}: {p}" for p in found]
    return checked, out


def render_pages(site_code, steps_dir, out):
    """The diff page of every two consecutive steps of STEPS_DIR, written by
    the site's code (SITE_CODE/lockstep_site/diff_page.py) into the site OUT;
    the pages, or None without Pygments."""
    sys.dont_write_bytecode = True  # nothing written into the source tree
    sys.path.insert(0, str(site_code))
    from lockstep_site import diff_page  # noqa: E402 (the site's code, found at run time)
    from lockstep_site.html_page import Site  # noqa: E402
    if diff_page.highlight is None:
        return None
    steps = sorted(d for d in Path(steps_dir).iterdir() if re.match(r"\d\d-", d.name) and (d / README).is_file())
    site = Site(Path(out), [d.name for d in steps], Path(site_code).parent)
    for prev, this in zip(steps, steps[1:]):
        diff_page.diff_page(site, prev.name, prev, this.name, this)
    return sorted((Path(out) / "diffs").glob("*.html"))


def report_pages(checked, problems, what):
    """Prints the README halves' verdict; whether they all read right."""
    for p in problems:
        print(f"WRONG: {p}")
    print(f"check_step_diff: {checked} README halves of {what}, {len(problems)} problems")
    return not problems and checked > 0


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--step-diff", type=Path, help="docs/generator/step_diff.py, the test under test")
    p.add_argument("--site", type=Path, help="instead: a built site, whose diff pages' README halves are read")
    p.add_argument("--steps", type=Path, default=Path(__file__).resolve().parents[2] / "steps",
                   help="with --site: the steps' directory, their READMEs (the repository's steps/)")
    p.add_argument("prev", metavar="PREV", type=Path, nargs="?", help="the step before, steps/05-intrusive-list")
    p.add_argument("this", metavar="THIS", type=Path, nargs="?", help="the step, steps/06-sequencer")
    args = p.parse_args()
    if not args.site and not (args.step_diff and args.prev and args.this):
        p.error("give --step-diff STEP_DIFF PREV THIS, or --site SITE")
    return args


def main():
    args = parse_args()
    if args.site:
        checked, problems = check_pages(sorted((args.site / "diffs").glob("*.html")), args.steps)
        sys.exit(0 if report_pages(checked, problems, f"{args.site}/diffs") else 1)
    steps = (args.prev.resolve(), args.this.resolve())
    name = unchanged_file(*steps)
    results = [case(args.step_diff, steps, None, None),
               case(args.step_diff, steps, lambda this: edit_file(this, name), f"changed but not listed: {name}"),
               case(args.step_diff, steps, lambda this: list_file(this, name), f"listed but not changed: {name}")]
    print(f"check_step_diff: {len(results)} cases, {results.count(False)} wrong")
    with tempfile.TemporaryDirectory(prefix="check_step_diff.site.") as tmp:
        pages = render_pages(args.step_diff.resolve().parent, steps[0].parent, tmp)
        if pages is None:
            print("check_step_diff: the README halves: skipped (Pygments is not installed; the diff pages need it)")
        else:
            results.append(report_pages(*check_pages(pages, steps[0].parent), "the diff pages written now"))
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
