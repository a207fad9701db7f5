"""The course site's page generation (docs/CMakeLists.txt calls the
entry points beside this package in cmake/: pages_step.py, pages_course.py).

Modules:
  sitemap      where each repository document lives in the site, and a
               page's relative links rewritten to those pages
  book         the reading order (the steps' pages, then the course's) and
               the previous/next pager every page carries
  walkthrough  a walkthrough's markers: the state diagram, the explorer's
               traces and execution graphs, run at build time
Standard library only.
"""
