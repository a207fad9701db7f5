# cmake -DSTEP=03-no-refcount -DSTEP_DIR=... -DDOCS_DIR=... -DOUT=<dir> -DSTEPS="01-mutex;02-..."
#       -DEXPLORERS=<file> -DHAVE_DOT=YES|NO [-DDIFF_PAGES=YES] [-DSTEP_DIRS="01-mutex=<dir>;..."]
#       [-DPYTHON=<python3> -DRENDER=<docs_render.py> -DCOMMON_DIR=<common/>] -P teach_pages.cmake
#
# Writes the pages Doxygen reads for one step into OUT, laid out like the
# repository:
#
#   OUT/steps/<STEP>/README.md           the README, with previous/next (the main page, index.html)
#   OUT/docs/walkthroughs/<STEP>.md      docs/walkthroughs/<STEP>.md, markers filled in (walkthrough.html)
#   OUT/docs/labs/<STEP>.md              docs/labs/<STEP>.md, with previous/next (lab.html)
#
# Every relative link is rewritten to the site's page for its target
# (docs_links.cmake): the other steps' pages, the course's pages (errata,
# mutation table, glossary: the course project at the site's root), the
# source pages. The site's bar (home, steps, this step's pages, its diff)
# is the Doxygen header's: docs/CMakeLists.txt.
#
# Markers in a walkthrough (HTML comments, so GitHub shows nothing):
#   <!-- diagram -->                     the step's docs/diagrams/<STEP>.dot
#   <!-- trace TARGET ARGS... | expect REGEX -->
#       runs the explorer binary TARGET with ARGS at build time and puts its
#       trace in the page. If the output does not match REGEX, the build
#       fails: the prose beside the trace no longer describes it. (With
#       -DSTRICT=OFF, for a student's copy of the step, the page says so
#       instead: a copy under repair must not stop its own build.)
#       TARGET not built (yet): the page says so; the build goes on.
#   <!-- graph TARGET ARGS... -->
#       runs the explorer binary TARGET with ARGS and --graph, and draws the
#       execution graph of the failure it finds (po, rf, sw, the race). No
#       failure, no graph: the build fails (a copy's page says so instead).
# Every file but the README is optional: a missing one is a missing section.
cmake_minimum_required(VERSION 3.25)

foreach(v STEP STEP_DIR DOCS_DIR OUT STEPS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "teach_pages.cmake: -D${v}=... is required")
  endif()
endforeach()
include("${CMAKE_CURRENT_LIST_DIR}/docs_links.cmake")
if(EXPLORERS AND EXISTS "${EXPLORERS}")
  include("${EXPLORERS}") # set(EXPLORER_<target> /path/to/binary) per explorer
endif()

set(readme_out "${OUT}/steps/${STEP}/README.md")
set(walk_src "${DOCS_DIR}/walkthroughs/${STEP}.md")
set(walk_out "${OUT}/docs/walkthroughs/${STEP}.md")
set(lab_src "${DOCS_DIR}/labs/${STEP}.md")
set(lab_out "${OUT}/docs/labs/${STEP}.md")
set(dot_src "${DOCS_DIR}/diagrams/${STEP}.dot")
file(REMOVE_RECURSE "${OUT}")

# --- Previous and next: the course read as a book ----------------------------
# Every step's README, walkthrough and lab, in order; each page has the one
# before it and the one after it at its top and at its bottom, by title.
# The site's bar (docs/CMakeLists.txt, the Doxygen header) has the rest.
set(book_hrefs "../../index.html")
set(book_titles "lockstep: the course")
set(book_ids "home")
foreach(s IN LISTS STEPS)
  set(dir "")
  foreach(entry IN LISTS STEP_DIRS)
    if(entry MATCHES "^${s}=(.*)$")
      set(dir "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(s STREQUAL STEP)
    set(dir "${STEP_DIR}")
  endif()
  foreach(kind readme deep walkthrough lab)
    if(kind STREQUAL "readme")
      set(src "${dir}/README.md")
      set(page "index.html")
    elseif(kind STREQUAL "deep")
      set(src "${DOCS_DIR}/deep/${s}.md")
      set(page "deep.html")
    elseif(kind STREQUAL "walkthrough")
      set(src "${DOCS_DIR}/walkthroughs/${s}.md")
      set(page "walkthrough.html")
    else()
      set(src "${DOCS_DIR}/labs/${s}.md")
      set(page "lab.html")
    endif()
    if(dir AND EXISTS "${src}")
      lockstep_md_title(t "${src}")
      string(REPLACE ";" "," t "${t}")
      list(APPEND book_hrefs "../../${s}/html/${page}")
      list(APPEND book_titles "${t}")
      list(APPEND book_ids "${s}/${kind}")
    endif()
  endforeach()
endforeach()
# After the last step: the course's pages, in their reading order
# (docs_links.cmake), the first of them next after the last lab.
lockstep_course_reading(reading "${DOCS_DIR}/..")
if(reading)
  list(GET reading 0 first)
  string(REPLACE "=" ";" first "${first}")
  list(GET first 0 label)
  list(GET first 1 t)
  list(APPEND book_hrefs "../../${label}.html")
  list(APPEND book_titles "${t}")
else()
  list(APPEND book_hrefs "../../index.html")
  list(APPEND book_titles "lockstep: the course")
endif()
list(APPEND book_ids "end")

# pager(<var> <id: STEP/readme, STEP/walkthrough, STEP/lab>): the page's previous and next, as HTML.
function(pager var id)
  list(FIND book_ids "${id}" i)
  if(i LESS 1)
    set(${var} "" PARENT_SCOPE)
    return()
  endif()
  math(EXPR ip "${i} - 1")
  math(EXPR in "${i} + 1")
  set(ends "")
  foreach(k ${ip} ${in})
    list(GET book_hrefs ${k} href)
    list(GET book_titles ${k} title)
    list(APPEND ends "${href}=${title}")
  endforeach()
  list(GET ends 0 prev)
  list(GET ends 1 next)
  lockstep_pager(html "${prev}" "${next}")
  if(html)
    string(APPEND html "\n")
  endif()
  set(${var} "${html}" PARENT_SCOPE)
endfunction()

# with_nav(<text var> <id>): previous/next right after the page's first "# "
# title and again at its end.
function(with_nav var id)
  pager(bar "${id}")
  set(text "${${var}}")
  lockstep_with_pager(text "${bar}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# prep(<file> <kind>): the page as Doxygen 1.9 renders it, its source names
# linked to their source pages (docs_render.py prep). Without Python the
# site has no source pages, and the page stays as written.
function(prep file)
  if(NOT PYTHON)
    return()
  endif()
  set(entries "+steps/${STEP}=${STEP_DIR}")
  if(COMMON_DIR)
    list(APPEND entries "+common/include/lockstep/coro.h=${COMMON_DIR}/include/lockstep/coro.h")
  endif()
  execute_process(COMMAND "${PYTHON}" "${RENDER}" prep "${file}" "${STEP}/html" ${entries}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "docs_render.py prep ${file} failed (${rc})")
  endif()
endfunction()

# The legend, before a page's first trace.
set(trace_legend "<b>How to read a trace.</b> The explorer runs the scenario's threads one step at a time, in the order its schedule chooses, and prints one numbered line per step: the text cites the lines by these numbers. The <b>T0</b> and <b>T1</b> columns say which thread took the step (each named by its role). A step that touches shared memory names its source line (<code>event.c:55</code>), the operation, the object and the value read or written; <code>(took out: ...)</code> is the value an exchange replaced, <code>(found: ...)</code> the value a compare-exchange found; <code>[acquire]</code>, <code>[release]</code>, <code>[acq_rel]</code>, <code>[relaxed]</code> are the memory orders the code asks for, and the explorer runs each under the C11 memory model: <code>(syncs with line 5)</code> marks an acquire that synchronized with the release on line 5, <code>(stale: reads line 3's store, not line 7's)</code> a load that read an older store than the newest, which C11 allows, and <code>[relaxed, weakened from acq_rel]</code> an order changed by <code>--weaken</code>. A data race names both accesses and the synchronization that is missing. <code>main:</code> lines (shaded) run on the main thread after both threads finished: the scenario's clean-up and final checks. <code>(finished)</code> ends a thread. Addresses print as <code>0x...</code>. <code>explore: FAILED</code> names the check a schedule broke, and <code>--replay ID</code> runs that one schedule again.")

# --- The README ---------------------------------------------------------------
file(READ "${STEP_DIR}/README.md" readme)
lockstep_site_links(readme "steps/${STEP}/README.md" "${STEP}/html")
with_nav(readme "${STEP}/readme")
file(WRITE "${readme_out}" "${readme}")
prep("${readme_out}")

# --- The walkthrough ----------------------------------------------------------
if(EXISTS "${walk_src}")
  # Whole-text replacement, marker by marker: no line splitting, so the
  # page's semicolons and brackets reach Doxygen untouched.
  file(READ "${walk_src}" page)
  if(NOT EXISTS "${dot_src}")
    set(diagram "*(No state diagram for this step yet: it goes in `docs/diagrams/${STEP}.dot`.)*")
  elseif(HAVE_DOT)
    set(diagram "\\dotfile ${STEP}.dot")
  else()
    set(diagram "*(The diagram is `docs/diagrams/${STEP}.dot`: install Graphviz to see it here.)*")
  endif()
  string(REPLACE "<!-- diagram -->" "${diagram}" page "${page}")
  string(REGEX MATCHALL "<!-- trace [^\n]* -->" markers "${page}")
  foreach(marker IN LISTS markers)
    if(NOT marker MATCHES "^<!-- trace ([A-Za-z0-9_]+) ([^|]*)[|] expect (.*) -->$")
      message(FATAL_ERROR "${walk_src}: a trace marker is `<!-- trace TARGET ARGS... | expect REGEX -->`, not: ${marker}")
    endif()
    set(target "${CMAKE_MATCH_1}")
    string(STRIP "${CMAKE_MATCH_2}" args)
    set(expect "${CMAKE_MATCH_3}")
    separate_arguments(argv UNIX_COMMAND "${args}")
    if(NOT EXPLORER_${target})
      set(block "*(This trace is generated from `${target} ${args}`, which this build does not have: "
                "configure with `-DLOCKSTEP_TESTS=ON`, or the explorer scenario is still to be written.)*")
      string(CONCAT block ${block})
    else()
      execute_process(COMMAND "${EXPLORER_${target}}" ${argv} TIMEOUT 120
                      OUTPUT_VARIABLE trace ERROR_VARIABLE trace RESULT_VARIABLE rc)
      set(note "")
      if(NOT trace MATCHES "${expect}")
        if(NOT DEFINED STRICT OR STRICT)
          message(FATAL_ERROR "${walk_src}: `${target} ${args}` (exit ${rc}) no longer prints '${expect}', "
                              "which the walkthrough's prose relies on. Its output:\n${trace}")
        endif()
        set(note "\n\n*(This step is built from a copy, whose trace does not show what the text "
                 "describes: it was to print `${expect}`.)*")
        string(CONCAT note ${note})
      endif()
      # The replay hint names the binary by its full path: this machine's.
      get_filename_component(bin_dir "${EXPLORER_${target}}" DIRECTORY)
      string(REPLACE "${bin_dir}/" "./" trace "${trace}")
      # Addresses differ from run to run; trailing blanks are column padding.
      string(REGEX REPLACE "0x[0-9a-f]+" "0x..." trace "${trace}")
      string(REGEX REPLACE " +\n" "\n" trace "${trace}")
      string(REGEX REPLACE "\n+$" "" trace "${trace}")
      # As a table, one column per thread (docs_render.py trace-html); HTML
      # the page passes through untouched (\htmlonly): Doxygen must not read
      # a trace as Markdown. Without Python, a code block.
      if(PYTHON)
        set(trace_file "${OUT}/.trace.${target}.txt")
        file(WRITE "${trace_file}" "${trace}")
        execute_process(COMMAND "${PYTHON}" "${RENDER}" trace-html "./${target} ${args}" "${trace_file}"
                        OUTPUT_VARIABLE block RESULT_VARIABLE rc)
        file(REMOVE "${trace_file}")
        if(NOT rc EQUAL 0)
          message(FATAL_ERROR "docs_render.py trace-html failed (${rc})")
        endif()
      else()
        set(block "~~~\n$ ./${target} ${args}\n${trace}\n~~~")
      endif()
      if(NOT legend_done)
        set(block "\\htmlonly\n<p class=\"trace-legend\">${trace_legend}</p>\n\\endhtmlonly\n\n${block}")
        set(legend_done ON)
      endif()
      string(APPEND block "${note}")
    endif()
    string(REPLACE "${marker}" "${block}" page "${page}")
  endforeach()
  # Execution graphs: <!-- graph TARGET ARGS... --> runs the explorer with
  # --graph and draws the failing execution it writes (graph.c).
  string(REGEX MATCHALL "<!-- graph [^\n]* -->" markers "${page}")
  set(graph_count 0)
  foreach(marker IN LISTS markers)
    if(NOT marker MATCHES "^<!-- graph ([A-Za-z0-9_]+) (.*) -->$")
      message(FATAL_ERROR "${walk_src}: a graph marker is `<!-- graph TARGET ARGS... -->`, not: ${marker}")
    endif()
    set(target "${CMAKE_MATCH_1}")
    string(STRIP "${CMAKE_MATCH_2}" args)
    separate_arguments(argv UNIX_COMMAND "${args}")
    math(EXPR graph_count "${graph_count} + 1")
    set(graph_name "${STEP}-graph-${graph_count}.dot")
    set(graph_file "${OUT}/graphs/${graph_name}")
    file(MAKE_DIRECTORY "${OUT}/graphs")
    if(NOT EXPLORER_${target})
      set(block "*(The execution graph of `${target} ${args}` needs the explorer: configure with `-DLOCKSTEP_TESTS=ON`.)*")
    else()
      execute_process(COMMAND "${EXPLORER_${target}}" ${argv} --graph "${graph_file}" TIMEOUT 120
                      OUTPUT_QUIET ERROR_QUIET)
      if(NOT EXISTS "${graph_file}")
        if(NOT DEFINED STRICT OR STRICT)
          message(FATAL_ERROR "${walk_src}: `${target} ${args}` wrote no execution graph: it no longer fails")
        endif()
        set(block "*(This step is built from a copy, where `${target} ${args}` does not fail: no graph to draw.)*")
      elseif(HAVE_DOT)
        set(block "\\dotfile ${graph_name} \"The failing execution, one column per thread: the legend under it says what each edge is\"")
      else()
        set(block "*(The execution graph is written by `${target} ${args} --graph FILE.dot`: install Graphviz to see it here.)*")
      endif()
    endif()
    string(REPLACE "${marker}" "${block}" page "${page}")
  endforeach()
  lockstep_site_links(page "docs/walkthroughs/${STEP}.md" "${STEP}/html")
  lockstep_site_label(page walkthrough)
  with_nav(page "${STEP}/walkthrough")
  file(WRITE "${walk_out}" "${page}")
  prep("${walk_out}")
endif()

# --- The step in depth (docs/deep/<STEP>.md): what the README leaves out --------------------------
# The full traces of the errata, the cost analysis: a page of the step's
# own (deep.html), after the README in the book's order.
set(deep_src "${DOCS_DIR}/deep/${STEP}.md")
if(EXISTS "${deep_src}")
  file(READ "${deep_src}" deep)
  lockstep_site_links(deep "docs/deep/${STEP}.md" "${STEP}/html")
  lockstep_site_label(deep deep)
  with_nav(deep "${STEP}/deep")
  file(WRITE "${OUT}/docs/deep/${STEP}.md" "${deep}")
  prep("${OUT}/docs/deep/${STEP}.md")
endif()

# --- The lab (the glossary is a page of the course) -------------------------------------------------
# raw_details(<var>): Doxygen 1.9.4 closes an HTML <details> block at every
# paragraph, so each fold is passed through as raw HTML around its
# Markdown body (whose code blocks Doxygen still renders).
function(raw_details var)
  set(text "${${var}}")
  string(REGEX REPLACE "<details>\n<summary>([^\n]*)</summary>\n"
         "\\\\htmlonly[block]<details><summary>\\1</summary>\\\\endhtmlonly\n" text "${text}")
  string(REPLACE "</details>" "\\htmlonly[block]</details>\\endhtmlonly" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

set(answer_src "${DOCS_DIR}/labs/answers/${STEP}.md")
if(EXISTS "${lab_src}")
  file(READ "${lab_src}" lab)
  lockstep_site_links(lab "docs/labs/${STEP}.md" "${STEP}/html")
  # The glossary is a page of its own (the course's: docs_course.cmake).
  string(REPLACE "[glossary](../../labs.html)" "[glossary](../../glossary.html)" lab "${lab}")
  lockstep_site_label(lab lab)
  with_nav(lab "${STEP}/lab")
  # The challenge's answer is a page of this step's site, named on the lab
  # page by its path: make that a link (Doxygen resolves it to the page).
  if(EXISTS "${answer_src}")
    string(REPLACE "`docs/labs/answers/${STEP}.md`" "[docs/labs/answers/${STEP}.md](answers/${STEP}.md)" lab "${lab}")
  endif()
  raw_details(lab)
  file(WRITE "${lab_out}" "${lab}")
  prep("${lab_out}")
endif()
if(EXISTS "${answer_src}")
  file(READ "${answer_src}" answer)
  raw_details(answer)
  # Back to the lab, at the top and at the bottom.
  set(back "\\htmlonly[block]<nav class=\"pager\"><a class=\"prev\" href=\"lab.html\"><span>back to</span>the lab</a></nav>\\endhtmlonly\n")
  string(FIND "${answer}" "\n" eol)
  string(SUBSTRING "${answer}" 0 ${eol} title)
  string(SUBSTRING "${answer}" ${eol} -1 rest)
  set(answer "${title}\n\n${back}${rest}\n\n${back}")
  file(WRITE "${OUT}/docs/labs/answers/${STEP}.md" "${answer}")
  prep("${OUT}/docs/labs/answers/${STEP}.md")
endif()
