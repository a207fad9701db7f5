"""The course site's page generation. docs/CMakeLists.txt calls the entry
points beside this package in docs/generator/, one per kind of page: pages_step.py
(a step's README, deep page, walkthrough, lab), pages_course.py (the home
page and the course's documents), pages_source.py (the source pages),
pages_diff.py (a diff page), pages_header.py (the Doxygen pages' header,
with the bar), pages_api.py (the API pages' previous and next, after
Doxygen); and walkthrough_explorers.py (the explorers a walkthrough
runs, for the build's dependencies).

Modules:
  sitemap      where each repository document lives in the site, and a
               page's relative links rewritten to those pages
  book         the reading order (each step's README, diff, depths,
               walkthrough and lab, the memory-model chapter after step 01's
               README, then the course's pages) and the previous/next pager
               every page carries
  walkthrough  a walkthrough's markers: the state diagram, the explorer's
               traces and execution graphs, run at build time
  traces       an explorer trace as the pages show it: a table, a column per thread
  prep         a Markdown page rewritten into what Doxygen 1.9 renders as written
  markdown     Markdown read by the site: code spans, a line as HTML, table
               cells; a page's blocks rendered (the diff pages')
  mutants      the mutation table's columns, its verdicts first
  html_page    the pages the site writes itself: the document, its style; the
               bar of every page, the Doxygen pages' too
  source_pages the source pages and each step's list of its files
  diff_page    a diff page
  readme_diff  a diff page's README half: the two READMEs section by section
  api_pages    a step's API pages (Doxygen's) given previous and next
Standard library only.
"""
