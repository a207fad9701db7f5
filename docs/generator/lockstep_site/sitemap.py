"""The site's map: where each repository document lives in the generated
docs (build/<preset>/docs/, "the site"), and the rewriting of a Markdown
page's relative links into links to those pages.

Links in the repository are written for GitHub (`../../docs/ERRATA.md`,
`../steps/03-no-refcount/src/task.c#L42`). In the site each document is a
page of its own, so every relative link is rewritten to the page that
shows its target; a link to a file that is no document (a source file,
`logic.tsv`) goes to its source page, `src/<path>.html`, line anchors
`#L<n>` included.
"""
import posixpath
import re
from pathlib import Path

# The documents of the course project, by repository path, and the name of
# their page (the Doxygen label, so the file is <label>.html at the site's
# root). The step pages (README, walkthrough, lab) are in the steps'
# projects. The labs' README ends with the glossary, which gets a page of
# its own, glossary.html (pages_course.py).
COURSE_DOCS = {
    "docs/ERRATA.md": "errata",
    "docs/MUTANTS.md": "mutants",
    "docs/labs/README.md": "labs",
    "docs/walkthroughs/README.md": "walkthroughs",
    "tests/mutants/README.md": "mutants_readme",
    "tests/explore/README.md": "explorer",
    "tests/explore/REFERENCE.md": "explorer_reference",
    "tests/bench/cxx/README.md": "cxx_column",
}

# The course's chapters read between a step's pages, where the step first
# needs them: (label, repository path, the step (its index in the steps),
# the step's page it follows). The memory-model chapter comes right after
# step 01's README: that README's memory-order table is the first page to
# cite its tests (Mutex, FetchAdd+rlx, MP+na+rel+acq), and step 01's
# walkthrough, next, already reasons with release and acquire. The
# playground follows it: the chapter's tests, run and edited in the page.
STEP_CHAPTERS = (
    ("litmus", "docs/litmus.md", 0, "readme"),
    ("playground", "docs/playground.md", 0, "readme"),
)

# The course's pages a student reads after the last step's lab, in order:
# (label, repository path of the text whose first line is its title); the
# glossary is the end of docs/labs/README.md. First the explorer (its
# guide, then its reference), then the mutation table and how it is made,
# the errata; then the documents on how the course itself works (the labs,
# how a step gets its pages, the C++ column of the benchmark tour); the
# glossary last, as a book ends with its own.
COURSE_READING = (
    ("explorer", "tests/explore/README.md"),
    ("explorer_reference", "tests/explore/REFERENCE.md"),
    ("mutants", "docs/MUTANTS.md"),
    ("mutants_readme", "tests/mutants/README.md"),
    ("errata", "docs/ERRATA.md"),
    ("labs", "docs/labs/README.md"),
    ("walkthroughs", "docs/walkthroughs/README.md"),
    ("cxx_column", "tests/bench/cxx/README.md"),
    ("glossary", None),
)

STEP_PAGES = (  # a step's documents other than its README: (directory under docs/, page)
    ("walkthroughs", "walkthrough.html"),
    ("in-depth", "deep.html"),
    ("labs", "lab.html"),
)


def md_title(path):
    """The text of a Markdown file's first line, without its "# ", its
    {#anchor} and its code spans' backticks (a title is shown as plain
    text: in the pager, the bar's tooltips, a page's <title>)."""
    with Path(path).open(encoding="utf-8") as f:
        first = f.readline().rstrip("\n")
    first = re.sub(r"^# +", "", first)
    first = re.sub(r" *\{#[^}]*\}$", "", first)
    return first.replace("`", "")


def course_reading(root):
    """[(label, title)] of the course's pages after the steps that the repository at root has."""
    out = []
    for label, doc in COURSE_READING:
        if label == "glossary":  # (its page exists when the labs' README ends with it: pages_course.py)
            labs = Path(root) / "docs/labs/README.md"
            if labs.exists() and "\n## Glossary\n" in labs.read_text(encoding="utf-8"):
                out.append((label, "Glossary"))
        elif (Path(root) / doc).exists():
            out.append((label, md_title(Path(root) / doc)))
    return out


def step_chapters(root, index, kind):
    """[(label, title)] of the chapters read right after step INDEX's page KIND."""
    return [(label, md_title(Path(root) / doc)) for label, doc, at, after in STEP_CHAPTERS
            if (at, after) == (index, kind) and (Path(root) / doc).exists()]


def site_page(p):
    """The page showing repository path p, from the site's root."""
    for doc, label in COURSE_DOCS.items():
        if p == doc or doc.endswith("/README.md") and p == posixpath.dirname(doc):
            return f"{label}.html"
    if p in ("README.md", ""):
        return "index.html"
    if p == "docs/litmus.md":  # its own page, the litmus runs filled in (pages_course.py)
        return "litmus.html"
    if p == "docs/playground.md":  # its own page, the chapter's tests embedded (pages_course.py)
        return "playground.html"
    m = re.match(r"^steps/([0-9][0-9]-[^/]+)(/README\.md)?$", p)
    if m:
        return f"{m.group(1)}/html/index.html"
    for directory, page in STEP_PAGES:
        m = re.match(rf"^docs/{directory}/([0-9][0-9]-[^/]+)\.md$", p)
        if m:
            return f"{m.group(1)}/html/{page}"
    return f"src/{p}.html"


def site_href(target, md_dir, html_dir):
    """A relative link's target as the link from the page in html_dir (from the site's root)."""
    path, hash_, anchor = target.partition("#")
    p = posixpath.normpath(posixpath.join(md_dir, path))
    here, there = "/site/" + html_dir, "/site/" + site_page(p)
    rel = "" if posixpath.normpath(here) == posixpath.normpath(there) else posixpath.relpath(there, here)
    return rel + hash_ + anchor


def site_links(text, md, html_dir):
    """The text with every relative Markdown link `](target)` rewritten to its
    site page: md is the page's repository path, html_dir its HTML directory
    from the site's root."""
    md_dir = posixpath.dirname(md)
    targets = dict.fromkeys(m.group(1) for m in re.finditer(r"\]\(([^)\n ]+)\)", text))
    for target in targets:
        if re.match(r"^[a-zA-Z][a-zA-Z+.-]*:", target) or target.startswith("#"):
            continue  # absolute (https:, mailto:) or in the same page
        text = text.replace(f"]({target})", f"]({site_href(target, md_dir, html_dir)})")
    return text


def site_label(text, label):
    """`{#label}` on the page's first line, its "# " title: Doxygen names the page <label>.html."""
    title, nl, rest = text.partition("\n")
    return f"{title} {{#{label}}}{nl}{rest}"
