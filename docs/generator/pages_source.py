#!/usr/bin/env python3
"""pages_source.py --site SITE --docs DOCS --steps NAME=DIR... --files PATH=FILE...:
the source pages, SITE/src/<PATH>.html for each FILE (every file of every
step but its README, common/'s coro.h, the files the course links to):
each line numbered and an anchor #L<n>, highlighted by Pygments when it is
installed; each step's list of its files, SITE/src/steps/<step>/index.html;
each page with its previous and next among the files of its step (or of
the course page that presents it);
and SITE/src/.sources, which tests/docs/check_browser.py reads
(lockstep_site/source_pages.py). Standard library, plus Pygments if there.
"""
import argparse
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
from lockstep_site.html_page import add_site_arguments, name_and_path, site_of  # noqa: E402 (beside this file)
from lockstep_site.source_pages import source_pages  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(":\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_site_arguments(p)
    p.add_argument("--files", nargs="+", type=name_and_path, required=True, metavar="PATH=FILE",
                   help="each page's path in the site and its file")
    return p.parse_args()


def main():
    args = parse_args()
    site, _ = site_of(args)
    source_pages(site, args.files)


if __name__ == "__main__":
    main()
