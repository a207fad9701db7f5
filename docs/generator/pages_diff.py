#!/usr/bin/env python3
"""pages_diff.py --site SITE --docs DOCS --steps NAME=DIR... --prev NAME --this NAME:
the diff page SITE/diffs/<prev>..<this>.html: `diff -ruN` of the two
steps, one section per file, the code first and the README last, each
beside what the step README's "Files changed" list says of it, the README
shown section by section; with its previous and next in the reading order,
the step's README before it (lockstep_site/diff_page.py, book.py). Needs
Pygments (configure asks for diff pages only when it is there).
"""
import argparse
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
from lockstep_site import diff_page  # noqa: E402 (beside this file)
from lockstep_site.html_page import add_site_arguments, site_of  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(":\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_site_arguments(p)
    p.add_argument("--prev", required=True, help="the step before")
    p.add_argument("--this", required=True, help="the step the page shows")
    return p.parse_args()


def main():
    args = parse_args()
    if diff_page.highlight is None:
        sys.exit("pages_diff.py: Pygments is not installed (apt install python3-pygments)")
    site, dirs = site_of(args)
    diff_page.diff_page(site, args.prev, dirs[args.prev], args.this, dirs[args.this])


if __name__ == "__main__":
    main()
