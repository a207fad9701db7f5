# The site's map: where each repository document lives in the generated
# docs (build/<preset>/docs/, "the site"), and the rewriting of a Markdown
# page's relative links into links to those pages. Included by
# teach_pages.cmake (a step's pages) and docs_course.cmake (the course's).
#
# Links in the repository are written for GitHub (`../../docs/ERRATA.md`,
# `../steps/03-no-refcount/src/task.c#L42`). In the site, each document is a
# page of its own, so every relative link is rewritten to the page that
# shows its target; a link to a file that is no document (a source file,
# `logic.tsv`) goes to its source page, `src/<path>.html`, line anchors
# `#L<n>` included (written by docs_render.py).

# The documents of the course project, by repository path, and the name of
# their page (the Doxygen label, so the file is <label>.html at the site's
# root). The step pages (README, walkthrough, lab) are in the steps' projects.
# The labs' README ends with the glossary, which gets a page of its own,
# glossary.html (docs_course.cmake).
set(LOCKSTEP_COURSE_DOCS
  "docs/ERRATA.md=errata"
  "docs/MUTANTS.md=mutants"
  "docs/labs/README.md=labs"
  "docs/walkthroughs/README.md=walkthroughs"
  "tests/mutants/README.md=mutants_readme"
  "tests/explore/README.md=explorer"
  "tests/bench/cxx/README.md=cxx_column")

# The course's pages a student reads after the last step's lab, in order:
# <label>=<repository path of the text whose first line is its title>
# (the glossary is the end of docs/labs/README.md: docs_course.cmake).
set(LOCKSTEP_COURSE_READING
  "litmus=docs/litmus.md"
  "explorer=tests/explore/README.md"
  "mutants=docs/MUTANTS.md"
  "errata=docs/ERRATA.md"
  "glossary=")

# lockstep_course_reading(<var> <repository root>): those of them the
# repository has, each as <label>=<title>.
function(lockstep_course_reading var root)
  set(out "")
  foreach(entry IN LISTS LOCKSTEP_COURSE_READING)
    string(REGEX REPLACE "=.*" "" label "${entry}")
    string(REGEX REPLACE "^[^=]*=" "" doc "${entry}")
    if(label STREQUAL "glossary")
      set(t "Glossary")
    elseif(EXISTS "${root}/${doc}")
      file(STRINGS "${root}/${doc}" t LIMIT_COUNT 1)
      string(REGEX REPLACE "^# +" "" t "${t}")
      string(REGEX REPLACE " *\\{#[^}]*\\}$" "" t "${t}")
      string(REPLACE "`" "" t "${t}")
      string(REPLACE ";" "," t "${t}")
      string(REPLACE "=" "-" t "${t}")
    else()
      continue()
    endif()
    list(APPEND out "${label}=${t}")
  endforeach()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

# lockstep_md_title(<var> <file>): the text of a Markdown file's first
# "# " line, without its {#anchor} and its code spans' backticks (a title
# is shown as plain text: in the pager, the bar's tooltips, a page's <title>).
function(lockstep_md_title var file)
  file(STRINGS "${file}" first LIMIT_COUNT 1)
  string(REGEX REPLACE "^# +" "" first "${first}")
  string(REGEX REPLACE " *\\{#[^}]*\\}$" "" first "${first}")
  string(REPLACE "`" "" first "${first}")
  set(${var} "${first}" PARENT_SCOPE)
endfunction()

# lockstep_pager(<var> <prev> <next> [<next's label>]): a page's previous and
# next, each "<href>=<title>" or "" (none), as HTML Doxygen passes through;
# docs_render.py writes it (and escapes it), with -DPYTHON and -DRENDER.
# Without Python: "" (no pager; the bar still links every page).
function(lockstep_pager var prev next)
  set(html "")
  if(PYTHON AND RENDER)
    execute_process(COMMAND "${PYTHON}" "${RENDER}" pager-html "${prev}" "${next}" ${ARGN}
                    OUTPUT_VARIABLE html RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "docs_render.py pager-html failed (${rc})")
    endif()
  endif()
  set(${var} "${html}" PARENT_SCOPE)
endfunction()

# lockstep_with_pager(<text var> <pager>): a page's previous/next (its
# HTML, passed through Doxygen) right after its first "# " title line and
# again at its end.
function(lockstep_with_pager var bar)
  set(text "${${var}}")
  string(FIND "${text}" "\n" eol)
  string(SUBSTRING "${text}" 0 ${eol} title)
  math(EXPR eol "${eol} + 1")
  string(SUBSTRING "${text}" ${eol} -1 rest)
  string(REGEX REPLACE "\n+$" "" rest "${rest}")
  set(${var} "${title}\n\n${bar}${rest}\n\n${bar}" PARENT_SCOPE)
endfunction()

# lockstep_site_page(<var> <repository path>): the page's path from the site's root.
function(lockstep_site_page var p)
  foreach(entry IN LISTS LOCKSTEP_COURSE_DOCS)
    string(REPLACE "=" ";" pair "${entry}")
    list(GET pair 0 doc)
    list(GET pair 1 label)
    get_filename_component(doc_dir "${doc}" DIRECTORY)
    if(p STREQUAL doc OR (doc MATCHES "/README.md$" AND p STREQUAL doc_dir))
      set(${var} "${label}.html" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  if(p STREQUAL "README.md" OR p STREQUAL "")
    set(page "index.html")
  elseif(p STREQUAL "docs/litmus.md") # its own page, the litmus runs filled in (docs_course.cmake)
    set(page "litmus.html")
  elseif(p MATCHES "^steps/([0-9][0-9]-[^/]+)(/README.md)?$")
    set(page "${CMAKE_MATCH_1}/html/index.html")
  elseif(p MATCHES "^docs/walkthroughs/([0-9][0-9]-[^/]+)[.]md$")
    set(page "${CMAKE_MATCH_1}/html/walkthrough.html")
  elseif(p MATCHES "^docs/deep/([0-9][0-9]-[^/]+)[.]md$")
    set(page "${CMAKE_MATCH_1}/html/deep.html")
  elseif(p MATCHES "^docs/labs/([0-9][0-9]-[^/]+)[.]md$")
    set(page "${CMAKE_MATCH_1}/html/lab.html")
  else()
    set(page "src/${p}.html")
  endif()
  set(${var} "${page}" PARENT_SCOPE)
endfunction()

# lockstep_site_links(<text var> <the page's repository path> <its HTML directory from the site's root>)
# Rewrites every relative Markdown link `](target)` of the text.
function(lockstep_site_links var md html_dir)
  set(text "${${var}}")
  get_filename_component(md_dir "${md}" DIRECTORY)
  string(REGEX MATCHALL "\\]\\([^)\n ]+\\)" links "${text}")
  # Without their "](": a "]" would make the list one element.
  string(REPLACE "](" "" targets "${links}")
  string(REPLACE ")" "" targets "${targets}")
  if(targets)
    list(REMOVE_DUPLICATES targets)
  endif()
  foreach(target IN LISTS targets)
    set(link "](${target})")
    if(target MATCHES "^[a-zA-Z][a-zA-Z+.-]*:" OR target MATCHES "^#")
      continue() # absolute (https:, mailto:) or in the same page
    endif()
    set(anchor "")
    set(path "${target}")
    if(target MATCHES "^([^#]*)(#.*)$")
      set(path "${CMAKE_MATCH_1}")
      set(anchor "${CMAKE_MATCH_2}")
    endif()
    if(md_dir)
      set(p "${md_dir}/${path}")
    else()
      set(p "${path}")
    endif()
    cmake_path(NORMAL_PATH p)
    string(REGEX REPLACE "/$" "" p "${p}")
    lockstep_site_page(page "${p}")
    file(RELATIVE_PATH rel "/site/${html_dir}" "/site/${page}")
    string(REPLACE "${link}" "](${rel}${anchor})" text "${text}")
  endforeach()
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# lockstep_site_label(<text var> <label>): `{#label}` on the page's first
# "# " title, which makes Doxygen name the page <label>.html.
function(lockstep_site_label var label)
  set(text "${${var}}")
  string(FIND "${text}" "\n" eol)
  string(SUBSTRING "${text}" 0 ${eol} title)
  string(SUBSTRING "${text}" ${eol} -1 rest)
  set(${var} "${title} {#${label}}${rest}" PARENT_SCOPE)
endfunction()
