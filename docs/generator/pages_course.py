#!/usr/bin/env python3
"""pages_course.py --src REPO --out DIR --site SITE --steps NAME=DIR... [options]:
the pages of the course project (docs/Doxyfile.course.in), whose HTML is
the site's root, build/<preset>/docs/:

  OUT/index.md        the home page: where to start, then every step (article,
                      what changes, its pages by their titles, in the reading
                      order: lockstep_site/book.py), then the course's other
                      pages, by their titles
  OUT/<path>          each document of sitemap.COURSE_DOCS that exists, labelled
                      so that its page is <label>.html, its links rewritten
                      to the site's pages
  OUT/glossary.md     the glossary, the end of docs/labs/README.md, as a page
  OUT/docs/litmus.md  docs/litmus.md, "Memory order through litmus tests"
                      (litmus.html), its litmus markers filled in by
                      docs/generator/docs_litmus.py: each test's RC11 states beside
                      explore_litmus's, run now, and its graphs
  OUT/docs/playground.md
                      docs/playground.md, the litmus playground (playground.html):
                      the chapter's tests embedded (lockstep_site/playground.py);
                      its script (docs/playground.js) and, when this build has
                      it, explore_litmus for the browser copied into SITE

The pages of the reading order (book.py: the memory-model chapter after
step 01's README, then the playground; the other course pages after the last step) get their
previous/next; every page is rewritten into what Doxygen 1.9 renders as
written, its source names linked to their source pages
(lockstep_site/prep.py). The bar is the Doxygen header's: pages_header.py. Standard
library only.
"""
import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
from lockstep_site import book, mutants, playground, prep, sitemap  # noqa: E402 (beside this file)

# The sources a course page may link by full path, besides the steps'.
LINKABLE = ("common/include/lockstep/coro.h", "tests/mutants/logic.tsv", "tests/mutants/tsan.tsv",
            "tests/mutants/explorer.tsv")

# What each course page holds, by its label (the home page says it beside
# the page's title, in the reading order).
WHAT = {
    "litmus":
        "each classic shape of the memory model under each order and fence: RC11's answer beside "
        "the explorer's, run when these pages were built, with its execution graphs, and the "
        "steps that rely on it. Step 01's memory-order table is the first to cite its tests",
    "playground":
        "the chapter's tests in your browser: edit one, run the explorer in the page, see its final "
        "states, its race verdict and why an outcome is forbidden",
    "errata":
        "every mistake found in the articles, numbered once for the series, with the step that "
        "fixes it and the test that shows it",
    "mutants":
        "every memory order weakened a notch, every logic mistake a README teaches, and the test "
        "that catches each",
    "mutants_readme": "how the mutation table is made: its two modes, its mutants, running it",
    "explorer":
        "a guide to the schedule explorer: running it on a step, reading its traces and graphs, the "
        "memory model it checks and how it searches every execution",
    "explorer_reference": "the explorer's reference: its options, its output, its model",
    "labs": "how to run a lab against your copy of a step",
    "glossary": "the series' terms",
    "walkthroughs": "how a step gets its diagram, walkthrough and lab",
    "cxx_column": "the C++ column of the benchmark tour: the articles' own code",
}

HOME = """# lockstep: the course

The lock-free coroutine primitives of Raymond Chen's *The Old New Thing*
articles, rebuilt in C11 one step at a time. Each step is a complete copy of
the library, one idea further than the step before; read it beside its
article, in order.

## Where to start

Start with {first}, and read it beside its article. Then follow **next**
at the top or the bottom of each page, in the order of the list below: a
step's README (the idea, the code's tour, the errata it fixes), its diff
from the step before (the code first, each file beside the README's word
on it, then the README's own changes), its depths, its walkthrough (a state
diagram and the schedule explorer's traces, printed from the real code when
these pages were built), its lab (break-it exercises to run against your
own copy, and questions), then the next step. The memory-model chapter
comes right after step 01's README, whose memory-order table first cites
its litmus tests, and its playground after it, where you run and edit
those tests in the page. The bar at the top of every page leads to any step, to
the step's diff, its source files (every line numbered and linkable) and
its API reference.

To build and run it all yourself: `cmake --workflow --preset test` (every
step's tests), `cmake --workflow --preset docs` (these pages and their
checks), then `cmake --workflow --preset tour` (the benchmark tour), as the
repository's README says.

**License.** The code is under the MIT License ([LICENSE](src/LICENSE.html)):
every source, header, build file, script and test, and the code these
pages quote. The prose is under Creative Commons Attribution 4.0
International ([LICENSE-docs](src/LICENSE-docs.html)): these pages, the
READMEs, the walkthroughs, labs and diagrams. Both let a teacher copy a
step or a page into a course of their own, change it and share it, as long
as the copy says where it came from ("lockstep, by the lockstep authors")
and keeps the license's notice.

{start}

## The steps

{contents}
## The course's other pages

{others}"""


class Course:
    """The course's pages: the repository, where they go, how each is finished."""

    def __init__(self, args):
        self.src, self.out, self.args = Path(args.src), Path(args.out), args
        self.docs = self.src / "docs"
        self.steps = [tuple(s.split("=", 1)) for s in args.steps]
        self.entries = [f"steps/{s}={d}" for s, d in self.steps]
        self.entries += [f"{f}={self.src / f}" for f in LINKABLE]

    def finish(self, text, label):
        """The page's text with its previous/next, if it is in the reading order."""
        pager = book.course_pager(self.steps, self.docs, self.src, label, self.args.diff_pages)
        return book.with_pager(text, pager) if pager else text

    def emit(self, rel_path, text, then=None):
        """Writes the page (then runs `then` on the file) and rewrites it as Doxygen renders it."""
        path = self.out / rel_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if then:
            then(str(path))
        prep.prep(str(path), ".", self.entries)


def split_glossary(course, text):
    """The labs README without its glossary, which becomes a page of its own."""
    at = text.find("\n## Glossary\n")
    if at <= 0:
        return text
    glossary = text[at + len("\n## Glossary\n"):]
    text = text[:at].replace("the glossary below", "the [glossary](glossary.html)")
    text += "\nThe series' terms are in the [glossary](glossary.html).\n"
    glossary = ("# Glossary {#glossary}\n\nThe terms of the series, as the READMEs, walkthroughs and labs use them.\n"
                + glossary)
    course.emit("glossary.md", course.finish(glossary, "glossary"))
    return text


def document_pages(course):
    """Each document of the course project, as the page <label>.html."""
    for doc, label in sitemap.COURSE_DOCS.items():
        if not (course.src / doc).exists():
            continue
        text = sitemap.site_label(sitemap.site_links((course.src / doc).read_text(encoding="utf-8"), doc, "."), label)
        if label == "labs":
            text = split_glossary(course, text)
        # The mutation table: each mutant's verdicts right after it, in view.
        course.emit(doc, course.finish(text, label), mutants.verdicts_first if label == "mutants" else None)


def litmus_page(course):
    """Memory order through litmus tests: each <!-- litmus --> marker filled
    in by docs_litmus.py, which fails if a test registered as agreeing with
    RC11 no longer agrees."""
    src = course.docs / "litmus.md"
    if not src.exists():
        return
    out = course.out / "docs" / "litmus.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(sitemap.site_label(sitemap.site_links(src.read_text(encoding="utf-8"), "docs/litmus.md", "."),
                                      "litmus"), encoding="utf-8")
    a = course.args
    litmus = course.src / "tests" / "explore" / "litmus"
    cmd = [sys.executable, str(Path(__file__).resolve().parent / "docs_litmus.py"), str(out), str(out),
           "--tests", str(litmus / "tests"), "--site", a.site, "--strict",
           "--registry", str(litmus / "registry.tsv"), "--agree", a.litmus_agree]
    cmd += ["--explorer", a.litmus_explorer] if a.litmus_explorer else []
    cmd += ["--dot", a.dot] if a.dot else []
    if subprocess.run(cmd).returncode != 0:
        sys.exit(f"docs_litmus.py {src} failed: see above")
    course.emit("docs/litmus.md", course.finish(out.read_text(encoding="utf-8"), "litmus"))


def playground_page(course):
    """The litmus playground: docs/playground.md with the chapter's tests
    embedded, and the scripts it loads copied beside it into the site."""
    src = course.docs / "playground.md"
    if not src.exists():
        return
    a, site = course.args, Path(course.args.site)
    text = sitemap.site_label(sitemap.site_links(src.read_text(encoding="utf-8"), "docs/playground.md", "."),
                              "playground")
    litmus = course.src / "tests" / "explore" / "litmus" / "tests"
    abouts = {}
    if a.litmus_explorer:  # (each test's description, as explore_litmus reads the files)
        sys.path.insert(0, str(litmus.parent))
        import litmus_file  # noqa: E402  (beside the litmus files: it asks explore_litmus)
        abouts = {p.stem: t.about for p, t in litmus_file.read_all(a.litmus_explorer, sorted(litmus.glob("*.litmus"))).items()}
    text = playground.fill(text, litmus, course.docs / "litmus.md", bool(a.playground_explorer), abouts)
    site.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(course.docs / playground.PAGE_SCRIPT, site / playground.PAGE_SCRIPT)
    stale = site / playground.EXPLORER_SCRIPT  # (a build without it must not keep an older one)
    if a.playground_explorer:
        shutil.copyfile(a.playground_explorer, stale)
    elif stale.exists():
        stale.unlink()
    course.emit("docs/playground.md", course.finish(text, "playground"))


def readme_rows(src):
    """{step: (article, what changes)} from the top-level README's table
    (`| [NN-name](steps/NN-name/README.md) | article | what changes |`)."""
    rows = {}
    for line in (src / "README.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| \[([0-9][0-9]-[^\]]*)\]\([^)]*\) \| (.*) \| (.*) \|$", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3))
    return rows


def step_entry(course, step, prev, rows, book_pages):
    """A step's lines of the home page's list: its README, then its other
    pages of the reading order (BOOK_PAGES, [(id, href, title)]: a chapter,
    the diff, the deep page, the walkthrough, the lab), in that order."""
    article, what = rows.get(step, ("", ""))
    readme = next(p for p in book_pages if p[0] == f"{step}/readme")
    out = f"- **[{readme[2]}]({readme[1]})**"
    out += f": {what} ({article})\n" if article else "\n"
    if prev and not course.args.diff_pages:  # (no diff pages: the plain diffs)
        out += (f"  - The diff from {prev} to {step}: [the code](diffs/{prev}..{step}.code.diff), "
                f"[with the README](diffs/{prev}..{step}.diff)\n")
    for page_id, href, title in book_pages:
        if page_id != readme[0]:
            out += f"  - [{title}]({href})" + (f": {WHAT[page_id]}\n" if page_id in WHAT else "\n")
    return out


def pages_of(book_order, step):
    """The pages of the reading order from step STEP's README to the next step's."""
    ids = [p[0] for p in book_order]
    start = ids.index(f"{step}/readme")
    end = next((i for i in range(start + 1, len(ids)) if ids[i].endswith("/readme")), len(ids))
    return book_order[start:end]


def other_pages(course, book_order):
    """The home page's list of the course's pages after the steps, in the reading order, by their titles."""
    labels = {label for label, _ in sitemap.course_reading(course.src)}
    return "".join(f"- [{title}]({href}): {WHAT.get(page_id, '')}\n".replace(": \n", "\n")
                   for page_id, href, title in book_order if page_id in labels)


def home_page(course):
    """index.md: where to start, every step and its pages, the course's other
    pages; the list in the reading order the pagers follow (book.py)."""
    book_order = book.whole_book(course.steps, course.docs, course.src, course.args.diff_pages)
    steps = [step for step, _ in course.steps]
    # (the steps' pages end where the course's pages begin)
    course_start = next((i for i, p in enumerate(book_order) if p[0] in dict(sitemap.course_reading(course.src))),
                        len(book_order))
    step_part = book_order[:course_start]
    rows = readme_rows(course.src)
    contents = "".join(step_entry(course, step, steps[n - 1] if n else None, rows, pages_of(step_part, step))
                       for n, step in enumerate(steps))
    first_step, first_dir = course.steps[0]
    title = sitemap.md_title(Path(first_dir) / "README.md")
    start = book.doxygen_pager(None, (f"{first_step}/html/index.html", title), "start here")
    course.emit("index.md", HOME.format(first=f"[{title}]({first_step}/html/index.html)", start=start,
                                        contents=contents, others=other_pages(course, book_order)))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", required=True, help="the repository")
    p.add_argument("--out", required=True, help="the pages' directory (COURSE_PAGES); emptied first")
    p.add_argument("--site", required=True, help="the site's root (the litmus graphs go in SITE/litmus)")
    p.add_argument("--steps", nargs="+", required=True, help="every step as NAME=DIR, in order")
    p.add_argument("--diff-pages", action="store_true", help="the diffs have HTML pages (Pygments is there)")
    p.add_argument("--litmus-explorer", help="explore_litmus (none: the litmus page says the runs are missing)")
    p.add_argument("--litmus-agree", default="", help="the litmus tests registered as agreeing with RC11, ,-separated")
    p.add_argument("--dot", help="Graphviz's dot, to draw the litmus graphs")
    p.add_argument("--playground-explorer", help="explore_litmus for the browser, the page's script "
                   "(tests/explore/playground: none without Emscripten, and the playground says how to get it)")
    return p.parse_args()


def main():
    course = Course(parse_args())
    shutil.rmtree(course.out, ignore_errors=True)
    document_pages(course)
    litmus_page(course)
    playground_page(course)
    home_page(course)


if __name__ == "__main__":
    main()
