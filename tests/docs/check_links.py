#!/usr/bin/env python3
"""check_links.py SITE: every local link of every generated page resolves.

Reads every .html page under SITE (build/<preset>/docs), follows each local
href, src and data attribute, as a student's browser would: the file must
exist, and a #fragment must name an id (or a name) in the target page.
Links with a scheme (https:, mailto:) are not followed: they leave the site.
Any other scheme fails: `<a href="file:line">` is text Doxygen took for a
link (a table header "file:line"), dead and drawn as a link.
It also fails on a literal `**` in a page's text (outside code): Markdown
bold that Doxygen did not read (Doxygen 1.9 opens bold only before a letter,
not before a backtick or a quote: write <b>`code` ...</b> there).
And it fails on a link named `_Atomic`: Doxygen took a C11 atomic member,
`_Atomic(queued_task *) m_latest`, for a member function named _Atomic
(Doxyfile.in's PREDEFINED has it read the member as a member).
And it reads every diff page's README half as check_step_diff.py does
(tables and links rendered; a README that kept most of its sections shown
section by section, not as one whole-file hunk), against the READMEs of
the repository's steps/.
Prints each broken link with the page it is on, then the counts; exits 1
when any link is broken. Standard library only.
"""
import argparse
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.dont_write_bytecode = True  # nothing written into the source tree
import check_step_diff  # noqa: E402 (beside this file)

STEPS = Path(__file__).resolve().parents[2] / "steps"  # the READMEs a diff page's README half is read against


# The schemes a page may link to: the web, mail, and Doxygen's search box
# (javascript:, a script the browser check runs). file: would leave the
# site, and what Doxygen makes of "file:line" is no link at all.
LINK_SCHEMES = {"http", "https", "mailto", "javascript"}
# The pages Markdown becomes (a literal ** there is bold Doxygen missed): the
# site's top level, and a step's index, walkthrough and lab.
MARKDOWN_PAGES = ("index.html", "walkthrough.html", "lab.html")


class Page(HTMLParser):
    """One page's links, ids, and the ** it shows outside code."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.ids, self.code, self.stars = [], set(), 0, []
        self.divs = []  # for each open <div>: is it a line of a code block?

    def handle_starttag(self, tag, attrs):
        if tag in ("code", "pre", "script", "style", "td") and self.code >= 0:
            # td: Doxygen's member tables print C declarations (`coro **p`)
            self.code += 1
        if tag == "div":
            # A fenced code block's lines: <div class="line">, no <code> around them.
            line = ("class", "line") in attrs
            self.divs.append(line)
            self.code += line
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id",) or (name == "name" and tag == "a"):
                self.ids.add(value)
            elif name in ("href", "src") or (name == "data" and tag == "object"):
                self.links.append((tag, value))

    def handle_endtag(self, tag):
        if tag in ("code", "pre", "script", "style", "td") and self.code > 0:
            self.code -= 1
        if tag == "div" and self.divs and self.divs.pop():
            self.code -= 1

    def handle_data(self, data):
        if not self.code and "**" in data:
            self.stars.append(data.strip()[:60])


class Site:
    """The site's root and its pages, each parsed once."""

    def __init__(self, root):
        self.root, self.cache = root, {}

    def pages(self):
        return sorted((p for p in self.root.rglob("*.html") if p.is_file()), key=str)

    def rel(self, path):
        return path.relative_to(self.root).as_posix()

    def parse(self, path):
        if path not in self.cache:
            page = Page()
            page.feed(path.read_text(encoding="utf-8", errors="replace"))
            self.cache[path] = page
        return self.cache[path]


def stars(site, path):
    """The literal ** of a page Markdown became."""
    rel = path.relative_to(site.root)
    if len(rel.parts) > 1 and rel.name not in MARKDOWN_PAGES:
        return []
    return [f"{site.rel(path)}: a literal ** (bold Doxygen did not read): {text}" for text in site.parse(path).stars]


def atomic_functions(site, path):
    """A member `_Atomic(T) name` the page shows as a function named _Atomic, linked as one."""
    if ">_Atomic</a>" not in path.read_text(encoding="utf-8", errors="replace"):
        return []
    return [f"{site.rel(path)}: a link named _Atomic (an _Atomic(T) member shown as a function named _Atomic)"]


def local_target(path, parts):
    """The file a local link reaches: the page itself for a bare #fragment."""
    return path if not parts.path else (path.parent / unquote(parts.path)).resolve()


def check_link(site, path, tag, link):
    """(whether the link is checked, what is wrong with it or None)."""
    parts = urlsplit(link)
    where = site.rel(path)
    if parts.scheme and parts.scheme.lower() not in LINK_SCHEMES:
        return True, (f"{where}: <{tag} {link!r}>: '{parts.scheme}:' is no scheme "
                      "a browser can follow (text taken for a link)")
    if parts.scheme or link.startswith("//") or link.startswith("javascript:"):
        return False, None
    target = local_target(path, parts)
    if site.root not in target.parents:
        return True, f"{where}: {link}: leaves the site"
    if not target.exists():
        return True, f"{where}: {link}: no such file"
    if parts.fragment and target.name.endswith(".html") and unquote(parts.fragment) not in site.parse(target).ids:
        return True, f"{where}: {link}: no #{parts.fragment} in {site.rel(target)}"
    return True, None


def check_page(site, path):
    """(the local links checked, what is wrong) on one page."""
    broken, checked = stars(site, path) + atomic_functions(site, path), 0
    for tag, link in site.parse(path).links:
        counted, problem = check_link(site, path, tag, link)
        checked += counted
        if problem:
            broken.append(problem)
    return checked, broken


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("site", metavar="SITE", type=Path, help="the generated site, build/<preset>/docs")
    return p.parse_args()


def main():
    site = Site(parse_args().site.resolve())
    if not (site.root / "index.html").is_file():
        sys.exit(f"check_links: no {site.root}/index.html: build the docs first "
                 "(cmake --build --preset test --target docs)")
    pages, broken, checked = site.pages(), [], 0
    for path in pages:
        n, problems = check_page(site, path)
        checked, broken = checked + n, broken + problems
    halves, wrong = check_step_diff.check_pages(sorted((site.root / "diffs").glob("*.html")), STEPS)
    broken += [f"diffs/{w} (the README half)" for w in wrong]
    for b in broken:
        print("broken:", b)
    print(f"check_links: {len(pages)} pages, {checked} local links, {halves} diff pages' README halves, "
          f"{len(broken)} broken (links, a literal **, a link named _Atomic, a README half)")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
