"""A step's API pages (Doxygen's: a header's page, a struct's page, a
header's listing) get previous and next, written into the HTML Doxygen
made (Doxygen's header is one for every page of a project, so it cannot
hold a page's own neighbours): pages_api.py runs it right after Doxygen.

The order. An API page is reference, reached from the prose (a name the
README or the walkthrough uses, which Doxygen links, or the bar's "API");
the reader then looks around the same API, and goes back to the prose.
So the pages of one step form one chain, as Doxygen's file list
(files.html) shows the API, the step's own headers first (what the step
is about), then the ones every step shares (common/):

  the step's README, then the file list; for each header its page, the
  pages of the structs it declares (in the order its page lists them: a
  struct is read beside the header that declares it), and its listing;
  and after the last, back to the README.

Doxygen's other pages are indexes, left without a pager (check_links.py
names them): the lists of structs (annotated, classes), of members and
globals (functions*, globals*), the directory pages (dir_*), the legend of
its graphs (graph_legend) and its list of pages (pages).

Doxygen's pages are read with Python's HTML parser (html.parser), never
with patterns over their text: the file list's rows and their links, a
page's title, a header's "Data Structures" table. A page that is not laid
out so (a row without its link, a title or a table that never ends, a
struct's page without a title, a file list of no file) stops the build
with what was missing. Doxygen's XML output (GENERATE_XML) says the same
things, but it would be a second output of every Doxygen run, and the
order the chain follows is files.html's, the HTML the pagers go into.
"""
import sys
from html.parser import HTMLParser
from pathlib import Path

from lockstep_site import book, sitemap

MARK = 'data-pager="api"'  # on the pagers written here: a second run replaces none and adds none
# The pages of a step's HTML written from Markdown (pages_step.py): they have their pager.
OWN_PAGES = {"index.html", "deep.html", "walkthrough.html", "lab.html"}
OWN_PREFIX = "md_docs_labs_answers_"  # a lab's answers
# Doxygen's index and directory pages: no pager (see above), by name or by
# the start of their name (functions_vars.html, globals_func.html, dir_*.html).
INDEX_PAGES = {"annotated.html", "classes.html", "files.html", "graph_legend.html", "pages.html"}
INDEX_PREFIXES = ("functions", "globals", "dir_")


def own_page(name):
    return name in OWN_PAGES or (name.startswith(OWN_PREFIX) and name.endswith(".html"))


def index_page(name):
    return name in INDEX_PAGES or (name.startswith(INDEX_PREFIXES) and name.endswith(".html"))


def read(path):
    return Path(path).read_text(encoding="utf-8", errors="replace")


def complain(where, what):
    sys.exit(f"pages_api.py: {where}: {what}: has Doxygen's HTML changed its layout?")


def page_link(href):
    """HREF if it names a whole page (x.html, no #anchor), else None."""
    return href if href and href.endswith(".html") and "#" not in href else None


class DoxygenPage(HTMLParser):
    """What the pagers need of a page Doxygen wrote, read by Python's HTML
    parser: its title (the text of its <div class="title">, tags left
    out, entities decoded) and, on a header's page, the pages of the
    structs and unions its "Data Structures" table links (from the element
    of id "nested-classes" to the end of its table), in order."""

    def __init__(self, where):
        super().__init__(convert_charrefs=True)
        self.where = where
        self.title, self.structs = None, []
        self.title_depth = 0  # inside the title's div: how many divs deep
        self.nested = None  # None: not met yet; True: inside; False: its table ended

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if self.title_depth:
            self.title_depth += tag == "div"
        elif tag == "div" and a.get("class") == "title" and self.title is None:
            self.title_depth, self.title = 1, []
        if a.get("id") == "nested-classes" and self.nested is None:
            self.nested = True
        if self.nested:
            href = page_link(a.get("href"))
            if href and href.startswith(("struct", "union")) and href not in self.structs:
                self.structs.append(href)

    def handle_endtag(self, tag):
        if self.title_depth and tag == "div":
            self.title_depth -= 1
        if self.nested and tag == "table":
            self.nested = False

    def handle_data(self, data):
        if self.title_depth:
            self.title.append(data)

    def close(self):
        super().close()
        if self.title_depth:
            complain(self.where, "its title's <div class=\"title\"> never ends")
        if self.nested:
            complain(self.where, "its \"Data Structures\" table (id nested-classes) never ends")


def read_page(path):
    page = DoxygenPage(path)
    page.feed(read(path))
    page.close()
    return page


def title_of(path):
    """A Doxygen page's title (its div.title), as text; "" if it has none."""
    title = read_page(path).title
    return "".join(title).strip() if title is not None else ""


class FileList(HTMLParser):
    """Doxygen's file list (files.html), read by Python's HTML parser: each
    row of its tree (<tr id="row_...">) as the links in it, each (its
    attributes, its text)."""

    def __init__(self, where):
        super().__init__(convert_charrefs=True)
        self.where = where
        self.rows, self.row, self.link = [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and (a.get("id") or "").startswith("row_"):
            if self.row is not None:
                complain(self.where, "a row of its file tree starts inside another")
            self.row = []
        elif tag == "a" and self.row is not None:
            self.link = (a, [])
            self.row.append(self.link)

    def handle_endtag(self, tag):
        if tag == "a":
            self.link = None
        elif tag == "tr" and self.row is not None:
            self.rows.append([(a, "".join(text)) for a, text in self.row])
            self.row = None

    def handle_data(self, data):
        if self.link:
            self.link[1].append(data)

    def close(self):
        super().close()
        if self.row is not None:
            complain(self.where, "a row of its file tree never ends")


def headers(html_dir):
    """[(file page, its listing or None, the file's name)] in files.html's order:
    each row's page is its first link of class "el" (a directory's page,
    dir_*, is no file's: its row is left out), its listing the row's
    link to a *_source.html page."""
    files = html_dir / "files.html"
    if not files.is_file():
        return []
    found = FileList(files)
    found.feed(read(files))
    found.close()
    out = []
    for row in found.rows:
        page = next(((a, text) for a, text in row if a.get("class") == "el" and page_link(a.get("href"))), None)
        if not page:
            complain(files, f"a row of its file tree links no page: {row}")
        if page[0]["href"].startswith("dir_"):
            continue
        listing = next((a["href"] for a, _ in row
                        if "class" not in a and (page_link(a.get("href")) or "").endswith("_source.html")), None)
        out.append((page[0]["href"], listing, page[1]))
    if not out:
        complain(files, "its file tree (rows <tr id=\"row_...\">) lists no file")
    return out


def struct_title(path):
    """A struct's page's title as the pager says it: "struct task_result"."""
    t = title_of(path)
    if not t:
        complain(path, "a struct's page with no title (<div class=\"title\">)")
    for kind in ("Struct", "Union"):
        if t.endswith(f" {kind} Reference"):
            return f"{kind.lower()} {t[:-len(f' {kind} Reference')]}"
    return t


def structs_of(path):
    """The struct and union pages a header's page lists under "Data Structures", in order."""
    return read_page(path).structs


def api_chain(html_dir, step, step_dir):
    """[(page, title)]: the step's API pages in their reading order (above),
    the file list first."""
    own = {p.name for p in (Path(step_dir) / "include").rglob("*.h")} if step_dir else set()
    found = headers(html_dir)
    found.sort(key=lambda h: h[2] not in own)  # (stable: files.html's order within each)
    chain, seen = [("files.html", f"The API of step {step}: its headers")], {"files.html"}
    for page, listing, name in found:
        if not (html_dir / page).is_file():
            continue
        chain.append((page, name))
        for struct in structs_of(html_dir / page):
            if struct not in seen and (html_dir / struct).is_file():
                chain.append((struct, struct_title(html_dir / struct)))
                seen.add(struct)
        if listing and (html_dir / listing).is_file():
            chain.append((listing, f"{name}, as written"))
        seen.update((page, listing))
    # Any other page Doxygen wrote (a struct no header lists, say) after them.
    for path in sorted(html_dir.glob("*.html")):
        if path.name not in seen and not own_page(path.name) and not index_page(path.name):
            chain.append((path.name, title_of(path) or path.stem))
            seen.add(path.name)
    return chain


def without_pager(page_html):
    """The page without the pagers written here before (marked MARK): the
    text from each one's start to its </nav> (a pager holds no other nav)."""
    start_tag = f'<nav class="pager" {MARK}>'
    while (start := page_html.find(start_tag)) >= 0:
        end = page_html.find("</nav>", start)
        if end < 0:
            sys.exit(f"pages_api.py: a pager written before has no </nav>: {page_html[start:start + 200]}")
        page_html = page_html[:start] + page_html[end + len("</nav>"):]
    return page_html


def with_pager(page_html, pager):
    """The page with PAGER at the top of its contents and at their end (a pager written here before, replaced)."""
    page_html = without_pager(page_html)
    pager = pager.replace('<nav class="pager">', f'<nav class="pager" {MARK}>', 1)
    page_html = page_html.replace('<div class="contents">', f'<div class="contents">\n{pager}', 1)
    return page_html.replace("</div><!-- contents -->", f"{pager}\n</div><!-- contents -->", 1)


def api_pagers(html_dir, step, step_dir):
    """Writes previous and next into every API page of the step's HTML
    directory; the number of pages."""
    html_dir = Path(html_dir)
    readme_md = Path(step_dir) / "README.md" if step_dir else None
    readme = ("index.html", sitemap.md_title(readme_md) if readme_md and readme_md.is_file() else f"Step {step}")
    chain = [readme] + api_chain(html_dir, step, step_dir)
    for i in range(1, len(chain)):
        last = i + 1 == len(chain)
        nxt = chain[0] if last else chain[i + 1]
        pager = book.pager_html(chain[i - 1], nxt, "back to" if last else "next")
        path = html_dir / chain[i][0]
        path.write_text(with_pager(read(path), pager), encoding="utf-8")
    return len(chain) - 1
