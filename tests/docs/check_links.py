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
Prints each broken link with the page it is on, then the counts; exits 1
when any link is broken. Standard library only.
"""
import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit


# The schemes a page may link to: the web, mail, and Doxygen's search box
# (javascript:, a script the browser check runs). file: would leave the
# site, and what Doxygen makes of "file:line" is no link at all.
LINK_SCHEMES = {"http", "https", "mailto", "javascript"}


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.ids, self.code, self.stars = [], set(), 0, []

    def handle_starttag(self, tag, attrs):
        if tag in ("code", "pre", "script", "style", "td") and self.code >= 0:
            # td: Doxygen's member tables print C declarations (`coro **p`)
            self.code += 1
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

    def handle_data(self, data):
        if not self.code and "**" in data:
            self.stars.append(data.strip()[:60])


def parse(path, cache):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8", errors="replace") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    site = os.path.abspath(sys.argv[1])
    if not os.path.isfile(os.path.join(site, "index.html")):
        sys.exit(f"check_links: no {site}/index.html: build the docs first "
                 "(cmake --build --preset test --target docs)")
    pages = sorted(os.path.join(d, f) for d, _, fs in os.walk(site) for f in fs if f.endswith(".html"))
    cache, broken, checked = {}, [], 0
    for path in pages:
        where = os.path.relpath(path, site)
        markdown = os.sep not in where or os.path.basename(where) in ("index.html", "walkthrough.html", "lab.html")
        for text in parse(path, cache).stars if markdown else []:
            broken.append(f"{os.path.relpath(path, site)}: a literal ** (bold Doxygen did not read): {text}")
        for tag, link in parse(path, cache).links:
            parts = urlsplit(link)
            if parts.scheme and parts.scheme.lower() not in LINK_SCHEMES:
                checked += 1
                broken.append(f"{os.path.relpath(path, site)}: <{tag} {link!r}>: '{parts.scheme}:' is no scheme "
                              "a browser can follow (text taken for a link)")
                continue
            if parts.scheme or link.startswith("//") or link.startswith("javascript:"):
                continue
            checked += 1
            target = path if not parts.path else os.path.normpath(
                os.path.join(os.path.dirname(path), unquote(parts.path)))
            where = os.path.relpath(path, site)
            if not target.startswith(site + os.sep):
                broken.append(f"{where}: {link}: leaves the site")
            elif not os.path.exists(target):
                broken.append(f"{where}: {link}: no such file")
            elif parts.fragment and target.endswith(".html") and \
                    unquote(parts.fragment) not in parse(target, cache).ids:
                broken.append(f"{where}: {link}: no #{parts.fragment} in {os.path.relpath(target, site)}")
    for b in broken:
        print("broken:", b)
    print(f"check_links: {len(pages)} pages, {checked} local links, {len(broken)} broken (links or a literal **)")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
