# cmake -DMODE=check -DPYTHON=python3 -DPREV=steps/01-x -DTHIS=steps/02-y -P step_diff.cmake
#   Fails unless the "## Files changed from ..." list in THIS/README.md names
#   exactly the files that differ between the two step directories (added,
#   removed or edited; the README itself excluded: it always differs).
# cmake -DMODE=write -DPREV=... -DTHIS=... -DOUT=file.diff [-DEXCLUDE=README.md] -P step_diff.cmake
#   Writes `diff -ruN PREV THIS` to OUT; with EXCLUDE, without the files of
#   that name (about half of a step's diff is its README's text).
cmake_minimum_required(VERSION 3.25)

if(MODE STREQUAL "write")
  get_filename_component(parent "${THIS}" DIRECTORY)
  get_filename_component(a "${PREV}" NAME)
  get_filename_component(b "${THIS}" NAME)
  get_filename_component(out_dir "${OUT}" DIRECTORY)
  file(MAKE_DIRECTORY "${out_dir}")
  set(exclude "")
  if(EXCLUDE)
    set(exclude -x "${EXCLUDE}")
  endif()
  execute_process(COMMAND diff -ruN ${exclude} "${a}" "${b}" WORKING_DIRECTORY "${parent}"
                  OUTPUT_FILE "${OUT}" RESULT_VARIABLE rc)
  if(rc GREATER 1)
    message(FATAL_ERROR "diff failed (${rc})")
  endif()
  return()
endif()

# The files that really differ.
file(GLOB_RECURSE before RELATIVE "${PREV}" "${PREV}/*")
file(GLOB_RECURSE after RELATIVE "${THIS}" "${THIS}/*")
set(all ${before} ${after})
list(REMOVE_DUPLICATES all)
list(REMOVE_ITEM all README.md)
set(changed "")
foreach(f IN LISTS all)
  if(NOT EXISTS "${PREV}/${f}" OR NOT EXISTS "${THIS}/${f}")
    list(APPEND changed "${f}")
  else()
    file(SHA256 "${PREV}/${f}" h1)
    file(SHA256 "${THIS}/${f}" h2)
    if(NOT h1 STREQUAL h2)
      list(APPEND changed "${f}")
    endif()
  endif()
endforeach()
list(SORT changed)

# The files the README says changed: its "## Files changed from" list, read
# by the one parser of it (step_readme.py, which the diff pages use too).
execute_process(COMMAND "${PYTHON}" "${CMAKE_CURRENT_LIST_DIR}/step_readme.py" files-changed "${THIS}/README.md"
                OUTPUT_VARIABLE listed ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${err}")
endif()
string(STRIP "${listed}" listed)
string(REPLACE "\n" ";" listed "${listed}")
list(REMOVE_ITEM listed README.md)
list(SORT listed)

if(NOT listed STREQUAL changed)
  set(missing ${changed})
  set(extra ${listed})
  if(listed)
    list(REMOVE_ITEM missing ${listed})
  endif()
  if(changed)
    list(REMOVE_ITEM extra ${changed})
  endif()
  message(FATAL_ERROR "README.md's list of changed files is not the diff.\n"
    "  changed but not listed: ${missing}\n  listed but not changed: ${extra}")
endif()
message(STATUS "README lists exactly the ${PREV} -> ${THIS} changes: ${changed}")
