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
And the reading order (docs/generator/lockstep_site/book.py writes it), on the
pages as a reader follows them:

  - every page has a pager (a <nav class="pager"> with a previous or a
    next), but Doxygen's indexes and directory pages (NO_PAGER says which,
    and why);
  - following "next" from the home page visits every page of the reading
    order exactly once, and stops: the home page, every step's README, deep
    page, walkthrough and lab, every diff page, every course page (a page at
    the site's root); each page's "previous" is the page it was reached from;
  - the memory-model chapter (litmus.html) comes before the second step's
    README (step 01's memory-order table cites its tests);
  - the home page lists the reading order's pages in that order (its links
    to them without a #fragment, first mention each, outside the pagers
    and the bar).

Prints each broken link with the page it is on, then the counts; exits 1
when any link is broken. Standard library only.
"""
import argparse
import re
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


# The pages without a pager: Doxygen's indexes and directory pages, a
# page to look a name up in, not one read in order. (path pattern from the
# site's root, why.)
NO_PAGER = (
    (r"(\d\d-[^/]+/html/)?pages\.html", "Doxygen's list of the project's pages (the course's home lists them)"),
    (r"(\d\d-[^/]+/html/)?dir_[^/]*\.html", "a directory page of Doxygen's (a step's file list is files.html, in the API's chain)"),
    (r"\d\d-[^/]+/html/(annotated|classes)\.html", "Doxygen's index of the structs (each struct's page is in the API's chain)"),
    (r"\d\d-[^/]+/html/(functions|globals)[^/]*\.html", "Doxygen's index of the members or globals, to look a name up in"),
    (r"\d\d-[^/]+/html/graph_legend\.html", "the legend of Doxygen's graphs, reached from a graph"),
)
# The pages of the reading order: the home page, a step's own pages, the
# diff pages, and the course's pages (at the site's root, but Doxygen's own).
STEP_PAGES = r"\d\d-[^/]+/html/(index|deep|walkthrough|lab)\.html"


def no_pager(rel):
    """Why the page at REL (from the site's root) has no pager, or None."""
    return next((why for pattern, why in NO_PAGER if re.fullmatch(pattern, rel)), None)


def in_reading_order(rel):
    """Whether the page at REL is one of the reading order's."""
    return (re.fullmatch(STEP_PAGES, rel) is not None or re.fullmatch(r"diffs/[^/]+\.html", rel) is not None
            or "/" not in rel and rel.endswith(".html") and not no_pager(rel))


class Page(HTMLParser):
    """One page's links, ids, and the ** it shows outside code; its pagers'
    links ({"prev"/"next": [(href, label)]}, in order), and the links of its
    text (outside the pagers and the bar), in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.ids, self.code, self.stars = [], set(), 0, []
        self.divs = []  # for each open <div>: is it a line of a code block?
        self.pagers, self.text_links, self.nav = [], [], []  # the pagers, each {which: (href, label)}; open <nav>s
        self.pager_link = None  # [which, href, label] of the pager's link being read

    def pager(self, which):
        """The pagers' links of WHICH ("prev", "next"): [(href, label)], one per pager that has one."""
        return [p[which] for p in self.pagers if which in p]

    def nav_start(self, tag, attrs):
        """A pager or the bar opens or a pager's link starts: noted."""
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "nav":
            self.nav.append("pager" in classes)
            if "pager" in classes:
                self.pagers.append({})
        elif tag == "a" and self.nav and self.nav[-1] and ("prev" in classes or "next" in classes):
            self.pager_link = ["prev" if "prev" in classes else "next", a.get("href"), ""]
        elif tag == "a" and not self.nav and a.get("href"):
            self.text_links.append(a["href"])

    def handle_starttag(self, tag, attrs):
        self.nav_start(tag, attrs)
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
        if tag == "nav" and self.nav:
            self.nav.pop()
        if tag == "a" and self.pager_link:
            which, href, label = self.pager_link
            self.pagers[-1][which] = (href, label.strip())
            self.pager_link = None
        if tag in ("code", "pre", "script", "style", "td") and self.code > 0:
            self.code -= 1
        if tag == "div" and self.divs and self.divs.pop():
            self.code -= 1

    def handle_data(self, data):
        if self.pager_link and not self.pager_link[2]:
            self.pager_link[2] = data  # (the first text: the link's label, "previous", "next", "back to")
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


def page_of(site, path, href):
    """The page (from the site's root) a local HREF on the page at PATH leads to, or None."""
    if not href or urlsplit(href).scheme or href.startswith("#"):
        return None
    target = local_target(path, urlsplit(href))
    return site.rel(target) if site.root in target.parents else None


def check_pagers(site, pages):
    """Every page's pager, but NO_PAGER's (a problem each)."""
    out = []
    for path in pages:
        rel = site.rel(path)
        p = site.parse(path)
        if no_pager(rel):
            continue
        if not p.pagers or not any(p.pagers):
            out.append(f"{rel}: no pager (previous / next)")
            continue
        tops = [tuple(sorted(x.items())) for x in p.pagers]
        if len(set(tops)) > 1:
            out.append(f"{rel}: its pagers differ (top and bottom)")
    return out


def follow_next(site):
    """The pages "next" leads through from the home page: ([page], problems)."""
    chain, problems, here = [], [], site.root / "index.html"
    while here is not None:
        rel = site.rel(here)
        if rel in chain:
            problems.append(f"{rel}: next leads back to a page already visited: {' -> '.join(chain[-2:] + [rel])}")
            break
        chain.append(rel)
        nexts = site.parse(here).pager("next")
        if not nexts or nexts[0][1] == "back to":
            break
        to = page_of(site, here, nexts[0][0])
        if to is None or not (site.root / to).is_file():
            problems.append(f"{rel}: next ({nexts[0][0]}) is no page of the site")
            break
        back = site.parse(site.root / to).pager("prev")
        if not back or page_of(site, site.root / to, back[0][0]) != rel:
            problems.append(f"{to}: previous is {back[0][0] if back else 'missing'}, but {rel} leads to it")
        here = site.root / to
    return chain, problems


def check_reading_order(site, pages):
    """Next from the home page: every page of the reading order once, every
    diff page among them, the memory-model chapter before step 02, the home
    page's list in the same order."""
    chain, out = follow_next(site)
    order = [site.rel(p) for p in pages if in_reading_order(site.rel(p))]
    missing = [p for p in order if p not in chain]
    out += [f"{p}: not on the reading path (next from the home page never reaches it)" for p in missing]
    out += [f"{p}: on the reading path but not one of its pages" for p in chain if not in_reading_order(p)]
    readmes = [p for p in chain if re.fullmatch(r"\d\d-[^/]+/html/index\.html", p)]
    if "litmus.html" in order and len(readmes) > 1:
        if "litmus.html" not in chain or chain.index("litmus.html") > chain.index(readmes[1]):
            out.append(f"litmus.html (the memory-model chapter) comes after {readmes[1]} on the reading path: "
                       "step 01's memory-order table cites its tests")
    home = site.root / "index.html"
    # (a link with a #fragment is a term's, to the glossary: not the list's)
    listed = [page_of(site, home, h) for h in site.parse(home).text_links if "#" not in h]
    listed = [p for p in dict.fromkeys(listed) if p in chain and p != "index.html"]
    if listed != [p for p in chain if p in listed]:
        first = next(i for i, (a, b) in enumerate(zip(listed, [p for p in chain if p in listed])) if a != b)
        out.append(f"the home page lists {listed[first]} where the reading path has "
                   f"{[p for p in chain if p in listed][first]} (its list and the pagers disagree)")
    missing_home = [p for p in chain if p not in listed and p != "index.html"]
    out += [f"index.html: the home page does not list {p}, a page of the reading path" for p in missing_home]
    return chain, out


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("site", metavar="SITE", type=Path, help="the generated site, build/<preset>/docs")
    return p.parse_args()


class LitmusHeads(HTMLParser):
    """The litmus chapter's tests as its HTML has them: for each rule and
    name (div.litmus-head), its h3's id and whether the last thing before
    it, blanks aside, was the end of a paragraph."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.last = None      # the last tag or text seen: ("start" or "end", tag), or ("text", None)
        self.opened = None    # a litmus-head just opened: whether a </p> came right before it
        self.found = []       # (its id, after a paragraph)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.opened is not None and tag == "h3":
            self.found.append((a.get("id", ""), self.opened))
            self.opened = None
        if tag == "div" and (a.get("class") or "").split() == ["litmus", "litmus-head"]:
            self.opened = self.last == ("end", "p")
        self.last = ("start", tag)

    def handle_endtag(self, tag):
        self.last = ("end", tag)

    def handle_data(self, data):
        if data.strip():
            self.last = ("text", None)


def check_litmus_leads(site):
    """The litmus chapter: a test's rule and name (div.litmus-head) come
    right after the previous test, a table or a heading, never right after
    a paragraph: a paragraph there is the test's lead, which belongs under
    its rule, not under the previous test's graph (issue 37)."""
    page = site.root / "litmus.html"
    if not page.is_file():
        return []
    heads = LitmusHeads()
    heads.feed(page.read_text(encoding="utf-8", errors="replace"))
    return [f"litmus.html#{ident}: a paragraph sits above the test's rule (its lead, read under the previous "
            "test's graph)" for ident, after_paragraph in heads.found if after_paragraph]


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
    broken += check_litmus_leads(site)
    pagers = check_pagers(site, pages)
    chain, order = check_reading_order(site, pages)
    for b in broken:
        print("broken:", b)
    for b in pagers + order:
        print("reading order:", b)
    exempt = sum(1 for p in pages if no_pager(site.rel(p)))
    print(f"check_links: {len(pages)} pages, {checked} local links, {halves} diff pages' README halves, "
          f"{len(broken)} broken (links, a literal **, a link named _Atomic, a README half); "
          f"pagers on {len(pages) - exempt} pages ({exempt} Doxygen indexes without), {len(chain)} pages from the "
          f"home page by next, {len(pagers) + len(order)} reading-order problems")
    broken += pagers + order
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
