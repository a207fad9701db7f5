# cmake -DSRC=<repository> -DDOCS_DIR=<docs/> -DOUT=<dir> -DSTEPS="01-mutex;..." [-DDIFF_PAGES=YES]
#       -P docs_course.cmake
#
# Writes the pages of the course project (docs/Doxyfile.course.in), whose
# HTML is the site's root, build/<preset>/docs/:
#
#   OUT/index.md        the home page: where to start, then every step (article,
#                       what changes, its pages by their titles), then the
#                       course's other pages, by their titles
#   OUT/<path>          each document of LOCKSTEP_COURSE_DOCS (docs_links.cmake):
#                       labelled so that its page is <label>.html, its links
#                       rewritten to the site's pages (the bar is the Doxygen
#                       header's: docs/CMakeLists.txt)
#   OUT/glossary.md     the glossary, the end of docs/labs/README.md, as a page
#   OUT/docs/litmus.md  docs/litmus.md, "Memory order through litmus tests" (litmus.html),
#                       its litmus markers filled in by cmake/docs_litmus.py: each test's
#                       RC11 states beside explore_litmus's, run now, and its graphs
#                       (-DLITMUS_EXPLORER=<explore_litmus> -DLITMUS_AGREE="MP+rlx,..."
#                       the tests registered as agreeing, -DSITE=<the site> -DDOT=<dot>)
#
# With -DPYTHON and -DRENDER (cmake/docs_render.py), each page goes through
# `docs_render.py prep`: what Doxygen 1.9 would print raw is rewritten, and
# source names link to their source pages. -DSTEP_DIRS="01-mutex=<dir>;..."
# gives the steps' READMEs (their titles, their sources).
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/docs_links.cmake")

foreach(v SRC DOCS_DIR OUT STEPS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "docs_course.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${OUT}")

function(step_dir var s)
  set(dir "${SRC}/steps/${s}")
  foreach(entry IN LISTS STEP_DIRS)
    if(entry MATCHES "^${s}=(.*)$")
      set(dir "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${var} "${dir}" PARENT_SCOPE)
endfunction()
# prep(<file>): docs_render.py prep, every step's sources linkable by full path.
set(prep_entries "")
foreach(s IN LISTS STEPS)
  step_dir(dir "${s}")
  list(APPEND prep_entries "steps/${s}=${dir}")
endforeach()
foreach(f common/include/lockstep/coro.h tests/mutants/logic.tsv tests/mutants/tsan.tsv tests/mutants/explorer.tsv)
  list(APPEND prep_entries "${f}=${SRC}/${f}")
endforeach()
function(prep file)
  if(PYTHON)
    execute_process(COMMAND "${PYTHON}" "${RENDER}" prep "${file}" . ${prep_entries} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "docs_render.py prep ${file} failed (${rc})")
    endif()
  endif()
endfunction()

# --- Previous and next ------------------------------------------------------------
# After the steps (teach_pages.cmake's book), the course's pages in their
# reading order (docs_links.cmake): the first after the last step's last page.
lockstep_course_reading(reading "${SRC}")
list(GET STEPS -1 last_step)
step_dir(last_dir "${last_step}")
set(before_reading "${last_step}/html/index.html=${last_dir}/README.md")
foreach(kind walkthroughs=walkthrough labs=lab)
  string(REPLACE "=" ";" kind "${kind}")
  list(GET kind 0 d)
  list(GET kind 1 page)
  if(EXISTS "${DOCS_DIR}/${d}/${last_step}.md")
    set(before_reading "${last_step}/html/${page}.html=${DOCS_DIR}/${d}/${last_step}.md")
  endif()
endforeach()
# course_pager(<var> <label>): the page's previous and next as HTML, or "".
function(course_pager var label)
  set(labels "")
  foreach(entry IN LISTS reading)
    string(REGEX REPLACE "=.*" "" l "${entry}")
    list(APPEND labels "${l}")
  endforeach()
  list(FIND labels "${label}" i)
  if(i LESS 0)
    set(${var} "" PARENT_SCOPE)
    return()
  endif()
  if(i EQUAL 0)
    string(REGEX REPLACE "=.*" "" href "${before_reading}")
    string(REGEX REPLACE "^[^=]*=" "" f "${before_reading}")
    lockstep_md_title(t "${f}")
    set(prev "${href}=${t}")
  else()
    math(EXPR ip "${i} - 1")
    list(GET reading ${ip} prev)
  endif()
  course_href(prev)
  set(next "")
  list(LENGTH reading n)
  math(EXPR in "${i} + 1")
  if(in LESS n)
    list(GET reading ${in} next)
    course_href(next)
  endif()
  lockstep_pager(html "${prev}" "${next}")
  if(html)
    string(APPEND html "\n")
  endif()
  set(${var} "${html}" PARENT_SCOPE)
endfunction()
# course_href(<var>): "<label or page>=<title>" with its href a page (a
# label is a course page, <label>.html).
function(course_href var)
  string(REGEX REPLACE "=.*" "" href "${${var}}")
  string(REGEX REPLACE "^[^=]*=" "" t "${${var}}")
  if(NOT href MATCHES "[.]html$")
    set(href "${href}.html")
  endif()
  set(${var} "${href}=${t}" PARENT_SCOPE)
endfunction()
# with_course_nav(<text var> <label>): previous/next after the page's title
# line and again at its end.
function(with_course_nav var label)
  course_pager(bar "${label}")
  if(bar)
    set(text "${${var}}")
    lockstep_with_pager(text "${bar}")
    set(${var} "${text}" PARENT_SCOPE)
  endif()
endfunction()

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
  if(label STREQUAL "labs")
    # The glossary, the labs README's last section: a page of its own.
    string(FIND "${text}" "\n## Glossary\n" at)
    if(at GREATER 0)
      math(EXPR from "${at} + 13")
      string(SUBSTRING "${text}" ${from} -1 glossary)
      string(SUBSTRING "${text}" 0 ${at} text)
      string(REPLACE "the glossary below" "the [glossary](glossary.html)" text "${text}")
      string(APPEND text "\nThe series' terms are in the [glossary](glossary.html).\n")
      set(glossary "# Glossary {#glossary}\n\nThe terms of the series, as the READMEs, walkthroughs and labs use them.\n${glossary}")
      with_course_nav(glossary glossary)
      file(WRITE "${OUT}/glossary.md" "${glossary}")
      prep("${OUT}/glossary.md")
    endif()
  endif()
  with_course_nav(text "${label}")
  file(WRITE "${OUT}/${doc}" "${text}")
  if(label STREQUAL "mutants" AND PYTHON)
    execute_process(COMMAND "${PYTHON}" "${RENDER}" verdicts-first "${OUT}/${doc}")
  endif()
  prep("${OUT}/${doc}")
endforeach()

# --- Memory order through litmus tests -----------------------------------------------
# Each `<!-- litmus NAME -->` marker becomes the test, RC11's final states
# beside the explorer's run of it now, and its execution graphs
# (docs_litmus.py says how). A test registered as agreeing with RC11 that
# no longer agrees fails the build; a test that waits on the model says so.
set(litmus_src "${SRC}/docs/litmus.md")
if(EXISTS "${litmus_src}")
  file(READ "${litmus_src}" text)
  lockstep_site_links(text "docs/litmus.md" ".")
  lockstep_site_label(text "litmus")
  set(litmus_out "${OUT}/docs/litmus.md")
  file(WRITE "${litmus_out}" "${text}")
  if(PYTHON)
    set(args --tests "${SRC}/tests/explore/litmus/tests" --site "${SITE}" --strict
             --cmakelists "${SRC}/tests/explore/litmus/CMakeLists.txt" --agree "${LITMUS_AGREE}")
    if(LITMUS_EXPLORER)
      list(APPEND args --explorer "${LITMUS_EXPLORER}")
    endif()
    if(DOT)
      list(APPEND args --dot "${DOT}")
    endif()
    execute_process(COMMAND "${PYTHON}" "${SRC}/cmake/docs_litmus.py" "${litmus_out}" "${litmus_out}" ${args}
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "docs_litmus.py ${litmus_src} failed (${rc}): see above")
    endif()
  else()
    string(REGEX REPLACE "<!-- litmus[^\n]* -->"
           "*(A litmus test goes here: its states and graphs are generated with Python 3.)*" text "${text}")
    file(WRITE "${litmus_out}" "${text}")
  endif()
  file(READ "${litmus_out}" text)
  with_course_nav(text litmus)
  file(WRITE "${litmus_out}" "${text}")
  prep("${litmus_out}")
endif()

# --- The home page ---------------------------------------------------------------
# Each step's article and "what changes" come from the top-level README's
# table (one row per step: `| [NN-name](steps/NN-name/README.md) | article | what changes |`);
# each page is named by its title (its first line).
file(STRINGS "${SRC}/README.md" rows REGEX "^\\| \\[[0-9][0-9]-")
set(contents "")
set(prev "")
set(first "")
foreach(s IN LISTS STEPS)
  set(article "")
  set(what "")
  foreach(row IN LISTS rows)
    if(row MATCHES "^\\| \\[${s}\\]\\([^)]*\\) \\| (.*) \\| (.*) \\|$")
      set(article "${CMAKE_MATCH_1}")
      set(what "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  step_dir(dir "${s}")
  lockstep_md_title(title "${dir}/README.md")
  if(NOT first)
    set(first "[${title}](${s}/html/index.html)")
    lockstep_pager(start "" "${s}/html/index.html=${title}" "start here")
  endif()
  string(APPEND contents "- **[${title}](${s}/html/index.html)**")
  if(article)
    string(APPEND contents ": ${what} (${article})")
  endif()
  string(APPEND contents "\n")
  if(EXISTS "${DOCS_DIR}/walkthroughs/${s}.md")
    lockstep_md_title(t "${DOCS_DIR}/walkthroughs/${s}.md")
    string(APPEND contents "  - [${t}](${s}/html/walkthrough.html)\n")
  endif()
  if(EXISTS "${DOCS_DIR}/labs/${s}.md")
    lockstep_md_title(t "${DOCS_DIR}/labs/${s}.md")
    string(APPEND contents "  - [${t}](${s}/html/lab.html)\n")
  endif()
  if(prev AND DIFF_PAGES)
    string(APPEND contents "  - [The diff from ${prev} to ${s}](diffs/${prev}..${s}.html)\n")
  elseif(prev)
    string(APPEND contents "  - The diff from ${prev} to ${s}: [the code](diffs/${prev}..${s}.code.diff), [with the README](diffs/${prev}..${s}.diff)\n")
  endif()
  set(prev "${s}")
endforeach()

set(docs_list "")
foreach(item
    "litmus=each classic shape of the memory model under each order and fence: RC11's answer beside the explorer's, run when these pages were built, with its execution graphs, and the steps that rely on it"
    "docs/ERRATA.md=every mistake found in the articles, numbered once for the series, with the step that fixes it and the test that shows it"
    "docs/MUTANTS.md=every memory order weakened a notch, every logic mistake a README teaches, and the test that catches each"
    "tests/explore/README.md=how the walkthroughs' traces are made, and how to replay one"
    "docs/labs/README.md=how to run a lab against your copy of a step"
    "glossary=the series' terms"
    "docs/walkthroughs/README.md=how a step gets its diagram, walkthrough and lab"
    "tests/bench/cxx/README.md=the C++ column of the benchmark tour: the articles' own code")
  string(FIND "${item}" "=" eq)
  string(SUBSTRING "${item}" 0 ${eq} doc)
  math(EXPR eq "${eq} + 1")
  string(SUBSTRING "${item}" ${eq} -1 what)
  if(doc STREQUAL "litmus")
    if(EXISTS "${OUT}/docs/litmus.md")
      lockstep_md_title(t "${SRC}/docs/litmus.md")
      string(APPEND docs_list "- [${t}](litmus.html): ${what}\n")
    endif()
  elseif(doc STREQUAL "glossary")
    if(EXISTS "${OUT}/glossary.md")
      string(APPEND docs_list "- [Glossary](glossary.html): ${what}\n")
    endif()
  elseif(EXISTS "${SRC}/${doc}")
    lockstep_site_page(p "${doc}")
    lockstep_md_title(t "${SRC}/${doc}")
    string(APPEND docs_list "- [${t}](${p}): ${what}\n")
  endif()
endforeach()

file(WRITE "${OUT}/index.md" "# lockstep: the course

The lock-free coroutine primitives of Raymond Chen's *The Old New Thing*
articles, rebuilt in C11 one step at a time. Each step is a complete copy of
the library, one idea further than the step before; read it beside its
article, in order.

## Where to start

Start with ${first}, and read it beside its article. Then follow **next**
at the bottom of each page: a step's README (the idea, the code's tour, the
errata it fixes), its walkthrough (a state diagram and the schedule
explorer's traces, printed from the real code when these pages were built),
its lab (break-it exercises to run against your own copy, and questions),
then the next step. The bar at the top of every page leads to any step, to
the step's diff from the one before (the code first, the README last), its
source files (every line numbered and linkable) and its API reference.

To build and run it all yourself: `cmake --workflow --preset test` (every
step's tests), `cmake --workflow --preset docs` (these pages and their
checks), then `cmake --workflow --preset tour` (the benchmark tour), as the
repository's README says.

${start}

## The steps

${contents}
## The course's other pages

${docs_list}")
prep("${OUT}/index.md")
