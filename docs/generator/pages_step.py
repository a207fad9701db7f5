#!/usr/bin/env python3
"""pages_step.py --step NAME --out DIR --html DIR --docs DOCS --steps NAME=DIR... [options]:
the pages Doxygen reads for one step, laid out like the repository:

  OUT/steps/<STEP>/README.md          the README (the step's main page, index.html)
  OUT/docs/in-depth/<STEP>.md         docs/in-depth/<STEP>.md, the step in depth (deep.html)
  OUT/docs/walkthroughs/<STEP>.md     docs/walkthroughs/<STEP>.md, markers filled in (walkthrough.html)
  OUT/docs/labs/<STEP>.md             docs/labs/<STEP>.md (lab.html)
  OUT/docs/labs/answers/<STEP>.md     the lab's answer, linked from the lab

Each page is found by its file name, so a new step or a new deep page
appears without a change here. Every relative link is rewritten to the
site's page for its target (lockstep_site/sitemap.py); each page gets its
previous/next in the course's reading order (lockstep_site/book.py); a
walkthrough's markers are run, its diagrams drawn into the step's HTML
folder (lockstep_site/walkthrough.py); the code a page cites by name is
shown with its line number (lockstep_site/anchors.py); then each page is rewritten into
what Doxygen 1.9 renders as written, its source names linked to their
source pages (lockstep_site/prep.py). The site's bar is the Doxygen
header's: pages_header.py. Standard library only.
"""
import argparse
import re
import shutil
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # nothing written into the source tree
from lockstep_site import anchors, book, prep, sitemap, walkthrough  # noqa: E402 (beside this file)


def read(path):
    return Path(path).read_text(encoding="utf-8")


def write(path, text):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text, encoding="utf-8")


class Step:
    """One step's pages: where they come from, where they go, how each is finished."""

    def __init__(self, args):
        self.name, self.out, self.docs = args.step, Path(args.out), Path(args.docs)
        self.steps = [tuple(s.split("=", 1)) for s in args.steps]
        self.dir = Path(dict(self.steps)[self.name])
        self.common = args.common
        self.html_dir = f"{self.name}/html"
        self.strict = args.strict

    def text(self, path):
        """A page's Markdown, its code anchors resolved to the step's lines.
        One that does not resolve fails the build; in a student's copy it
        stays as written and is reported (a copy under repair must build)."""
        if self.strict:
            try:
                return anchors.resolve(read(path), self.dir)
            except anchors.AnchorError as e:
                sys.exit(f"pages_step.py: {path}: a code anchor no longer resolves: {e}")
        problems = []
        text = anchors.resolve(read(path), self.dir, problems)
        for problem in problems:
            print(f"pages_step.py: {path}: a code anchor does not resolve in this copy: {problem}", file=sys.stderr)
        return text

    def links(self, text, repo_path):
        """The page's relative links as links to the site's pages."""
        return sitemap.site_links(text, repo_path, self.html_dir)

    def finish(self, text, kind, label=None):
        """A page's text with its label (its page's name) and its pager."""
        if label:
            text = sitemap.site_label(text, label)
        pager = book.step_pager(self.steps, self.docs, self.docs.parent, f"{self.name}/{kind}")
        return book.with_pager(text, pager)

    def emit(self, rel_path, text):
        """Writes the page and rewrites it as Doxygen renders it (prep.py)."""
        entries = [f"+steps/{self.name}={self.dir}"]
        if self.common:
            entries.append(f"+common/include/lockstep/coro.h={self.common}/include/lockstep/coro.h")
        write(self.out / rel_path, text)
        prep.prep(str(self.out / rel_path), self.html_dir, entries)


def raw_details(text):
    """Doxygen 1.9.4 closes an HTML <details> block at every paragraph, so
    each fold is passed through as raw HTML around its Markdown body."""
    text = re.sub(r"<details>\n<summary>([^\n]*)</summary>\n",
                  r"\\htmlonly[block]<details><summary>\1</summary>\\endhtmlonly\n", text)
    return text.replace("</details>", "\\htmlonly[block]</details>\\endhtmlonly")


def readme_page(step):
    text = step.text(step.dir / "README.md")
    step.emit(f"steps/{step.name}/README.md", step.finish(step.links(text, f"steps/{step.name}/README.md"), "readme"))


def deep_page(step):
    """The step in depth: the errata's full traces, the cost analysis (after the README)."""
    src = step.docs / "in-depth" / f"{step.name}.md"
    if src.exists():
        rel = f"docs/in-depth/{step.name}.md"
        step.emit(rel, step.finish(step.links(step.text(src), rel), "deep", "deep"))


def walkthrough_page(step, args):
    src = step.docs / "walkthroughs" / f"{step.name}.md"
    if not src.exists():
        return
    walk = walkthrough.Walk(src, step.name, step.docs, step.out / "graphs", Path(args.html),
                            walkthrough.explorers(args.explorers), args.dot or "", args.strict)
    rel = f"docs/walkthroughs/{step.name}.md"
    text = step.links(walkthrough.fill_markers(walk, step.text(src)), rel)
    step.emit(rel, step.finish(text, "walkthrough", "walkthrough"))


def lab_page(step):
    """The lab; its challenge's answer, named by its path, becomes a link to the answer's page."""
    src = step.docs / "labs" / f"{step.name}.md"
    if not src.exists():
        return
    rel = f"docs/labs/{step.name}.md"
    text = step.links(step.text(src), rel)
    # The glossary is a page of its own (the course's: pages_course.py).
    text = text.replace("[glossary](../../labs.html)", "[glossary](../../glossary.html)")
    text = step.finish(text, "lab", "lab")
    answer = f"docs/labs/answers/{step.name}.md"
    if (step.docs / "labs" / "answers" / f"{step.name}.md").exists():
        text = text.replace(f"`{answer}`", f"[{answer}](answers/{step.name}.md)")
    step.emit(rel, raw_details(text))


def answer_page(step):
    """The lab's answer, with a way back to the lab at its top and bottom."""
    src = step.docs / "labs" / "answers" / f"{step.name}.md"
    if not src.exists():
        return
    back = ('\\htmlonly[block]<nav class="pager"><a class="prev" href="lab.html"><span>back to</span>'
            'the lab</a></nav>\\endhtmlonly\n')
    title, nl, rest = raw_details(step.text(src)).partition("\n")
    step.emit(f"docs/labs/answers/{step.name}.md", f"{title}\n\n{back}{nl}{rest}\n\n{back}")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--step", required=True, help="the step's name, 03-no-refcount")
    p.add_argument("--out", required=True, help="the pages' directory (PAGES_DIR); emptied first")
    p.add_argument("--docs", required=True, help="the repository's docs/")
    p.add_argument("--steps", nargs="+", required=True, help="every step as NAME=DIR, in order")
    p.add_argument("--common", help="the repository's common/ (coro.h's source page)")
    p.add_argument("--explorers", help="the explorers a walkthrough may run: a file of TARGET=BINARY lines")
    p.add_argument("--html", required=True,
                   help="the step's HTML folder (Doxygen's output): a walkthrough's diagrams are drawn there")
    p.add_argument("--dot", help="Graphviz's dot, to draw the diagrams and graphs (without it, the page says so)")
    p.add_argument("--copy", dest="strict", action="store_false",
                   help="the step is a student's copy: a trace that differs is noted, not fatal")
    return p.parse_args()


def main():
    args = parse_args()
    step = Step(args)
    shutil.rmtree(step.out, ignore_errors=True)
    readme_page(step)
    walkthrough_page(step, args)
    deep_page(step)
    lab_page(step)
    answer_page(step)


if __name__ == "__main__":
    main()
