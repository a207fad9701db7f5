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
"""
import html
import re
from pathlib import Path

from lockstep_site import book, sitemap

MARK = 'data-pager="api"'  # on the pagers written here: a second run replaces none and adds none
# The pages of a step's HTML written from Markdown (pages_step.py): they have their pager.
OWN_PAGES = re.compile(r"^(index|deep|walkthrough|lab|md_docs_labs_answers_.*)\.html$")
# Doxygen's index and directory pages: no pager (see above).
INDEX_PAGES = re.compile(r"^(annotated|classes|files|functions.*|globals.*|dir_.*|graph_legend|pages)\.html$")


def read(path):
    return Path(path).read_text(encoding="utf-8", errors="replace")


def title_of(page_html):
    """A Doxygen page's title (its div.title), as text."""
    m = re.search(r'<div class="title">(.*?)</div>', page_html, re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip() if m else ""


def headers(html_dir):
    """[(file page, its listing or None, the file's name)] in files.html's order."""
    files = html_dir / "files.html"
    if not files.is_file():
        return []
    out = []
    for row in re.findall(r"<tr id=\"row_[^>]*>.*?</tr>", read(files), re.S):
        page = re.search(r'<a class="el" href="([^"#]+\.html)"[^>]*>([^<]*)</a>', row)
        if not page or page.group(1).startswith("dir_"):
            continue
        listing = re.search(r'<a href="([^"#]+_source\.html)">', row)
        out.append((page.group(1), listing.group(1) if listing else None, html.unescape(page.group(2))))
    return out


def struct_title(page_html):
    """A struct's page's title as the pager says it: "struct task_result"."""
    t = title_of(page_html)
    m = re.match(r"^(.*) (Struct|Union) Reference$", t)
    return f"{m.group(2).lower()} {m.group(1)}" if m else t


def structs_of(page_html):
    """The struct and union pages a header's page lists under "Data Structures", in order."""
    m = re.search(r'id="nested-classes".*?</table>', page_html, re.S)
    return list(dict.fromkeys(re.findall(r'href="((?:struct|union)[^"#]*\.html)"', m.group(0)))) if m else []


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
        for struct in structs_of(read(html_dir / page)):
            if struct not in seen and (html_dir / struct).is_file():
                chain.append((struct, struct_title(read(html_dir / struct))))
                seen.add(struct)
        if listing and (html_dir / listing).is_file():
            chain.append((listing, f"{name}, as written"))
        seen.update((page, listing))
    # Any other page Doxygen wrote (a struct no header lists, say) after them.
    for path in sorted(html_dir.glob("*.html")):
        if path.name not in seen and not OWN_PAGES.match(path.name) and not INDEX_PAGES.match(path.name):
            chain.append((path.name, title_of(read(path)) or path.stem))
            seen.add(path.name)
    return chain


def with_pager(page_html, pager):
    """The page with PAGER at the top of its contents and at their end (a pager written here before, replaced)."""
    page_html = re.sub(rf'<nav class="pager" {MARK}>.*?</nav>', "", page_html, flags=re.S)
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
