# cmake -DSRC=<repository> -DDOCS_DIR=<docs/> -DOUT=<dir> -DSTEPS="01-mutex;..." [-DDIFF_PAGES=YES]
#       -P docs_course.cmake
#
# Writes the pages of the course project (docs/Doxyfile.course.in), whose
# HTML is the site's root, build/<preset>/docs/:
#
#   OUT/index.md        the home page: every step (article, what changes, its
#                       pages and diff), then the course's other documents
#   OUT/<path>          each document of LOCKSTEP_COURSE_DOCS (docs_links.cmake):
#                       labelled so that its page is <label>.html, with a
#                       navigation bar, its links rewritten to the site's pages
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/docs_links.cmake")

foreach(v SRC DOCS_DIR OUT STEPS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "docs_course.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${OUT}")

set(steps_bar "")
foreach(s IN LISTS STEPS)
  list(APPEND steps_bar "[${s}](${s}/html/index.html)")
endforeach()
list(JOIN steps_bar " · " steps_bar)
set(bar "> [lockstep: the course](index.html) · steps: ${steps_bar}\n")

# --- The documents -------------------------------------------------------------
set(reference "")
foreach(entry IN LISTS LOCKSTEP_COURSE_DOCS)
  string(REPLACE "=" ";" pair "${entry}")
  list(GET pair 0 doc)
  list(GET pair 1 label)
  if(NOT EXISTS "${SRC}/${doc}")
    continue()
  endif()
  file(READ "${SRC}/${doc}" text)
  lockstep_site_links(text "${doc}" ".")
  lockstep_site_label(text "${label}")
  string(FIND "${text}" "\n" eol)
  string(SUBSTRING "${text}" 0 ${eol} title)
  math(EXPR eol "${eol} + 1")
  string(SUBSTRING "${text}" ${eol} -1 rest)
  file(WRITE "${OUT}/${doc}" "${title}\n\n${bar}${rest}")
endforeach()

# --- The home page ---------------------------------------------------------------
# Each step's article and "what changes" come from the top-level README's
# table (one row per step: `| [NN-name](steps/NN-name/README.md) | article | what changes |`).
file(STRINGS "${SRC}/README.md" rows REGEX "^\\| \\[[0-9][0-9]-")
set(table "| step | article | what changes | read it |\n|---|---|---|---|\n")
set(prev "")
foreach(s IN LISTS STEPS)
  set(article "")
  set(what "")
  foreach(row IN LISTS rows)
    if(row MATCHES "^\\| \\[${s}\\]\\([^)]*\\) \\| (.*) \\| (.*) \\|$")
      set(article "${CMAKE_MATCH_1}")
      set(what "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  set(read "[README](${s}/html/index.html)")
  if(EXISTS "${DOCS_DIR}/walkthroughs/${s}.md")
    string(APPEND read " · [walkthrough](${s}/html/walkthrough.html)")
  endif()
  if(EXISTS "${DOCS_DIR}/labs/${s}.md")
    string(APPEND read " · [lab](${s}/html/lab.html)")
  endif()
  if(prev AND DIFF_PAGES)
    string(APPEND read " · [diff](diffs/${prev}..${s}.html)")
  elseif(prev)
    string(APPEND read " · diff: [code](diffs/${prev}..${s}.code.diff), [all](diffs/${prev}..${s}.diff)")
  endif()
  string(APPEND table "| [${s}](${s}/html/index.html) | ${article} | ${what} | ${read} |\n")
  set(prev "${s}")
endforeach()

set(docs_list "")
foreach(item
    "docs/ERRATA.md=**Errata**: every mistake found in the articles, numbered once for the series, with the step that fixes it and the test that shows it"
    "docs/MUTANTS.md=**The mutation table**: every memory order weakened a notch, every logic mistake a README teaches, and the test that catches each"
    "tests/mutants/README.md=How the mutation table is made (`tests/mutants/run.sh`)"
    "docs/labs/README.md=**The labs, and the glossary**: how to run a lab against your copy of a step; the series' terms"
    "tests/explore/README.md=**The schedule explorer**: how the walkthroughs' traces are made, and how to replay one"
    "docs/walkthroughs/README.md=How a step gets its diagram, walkthrough and lab"
    "tests/bench/cxx/README.md=The C++ column of the benchmark tour: the articles' own code")
  string(FIND "${item}" "=" eq)
  string(SUBSTRING "${item}" 0 ${eq} doc)
  math(EXPR eq "${eq} + 1")
  string(SUBSTRING "${item}" ${eq} -1 what)
  if(EXISTS "${SRC}/${doc}")
    lockstep_site_page(p "${doc}")
    string(APPEND docs_list "- [${doc}](${p}): ${what}\n")
  endif()
endforeach()

file(WRITE "${OUT}/index.md" "# lockstep: the course

The lock-free coroutine primitives of Raymond Chen's *The Old New Thing*
articles, rebuilt in C11 one step at a time. Each step is a complete copy of
the library; read it beside its article, in order.

For each step: its **README** (the idea, the code's tour, the errata it
fixes, how its tests show them), the **walkthrough** (a state diagram and
the schedule explorer's traces, printed from the real code when these pages
were built), the **lab** (break-it exercises to run against your own copy,
and questions), and the **diff** from the step before (the code first, the
README last, with what each change is for). The reference pages of the
step's headers are under its README (\"Files\", \"Data Structures\").

${table}
## The course's other pages

${docs_list}
The repository's top-level README has the two commands that build
everything: `cmake --workflow --preset test` (every step's tests and these
pages) and `cmake --workflow --preset tour` (the benchmark tour).
")
