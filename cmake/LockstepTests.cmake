# lockstep_check_test(TARGET SOURCES PREFIX p LABELS labels... [TIMEOUT s] [ENVIRONMENT env...])
#
# Registers one ctest test per Check case of an already defined executable:
# the cases are the START_TEST(name) lines of SOURCES (a list), found at configure
# time, and each test runs `TARGET name`. ctest names them PREFIX.name, where
# PREFIX is e.g. step03.task.
# Exit code 77 means "skipped" (a case that needs a later step).
# Reading the case names is configuration, as any test registration: ctest
# needs one test per case when the build is configured, before the suite's
# binary, which lists its cases (`TARGET --list`, its table of cases), exists.
# A START_TEST that the table leaves out fails loudly ("no case named ...").

set(LOCKSTEP_ITERATIONS "" CACHE STRING "Iterations for the stress tests (empty: each test's default)")

# Every skipped test appends its reason here; ctest empties the file before a
# run and prints it after (tests/support/CTestCustom.cmake.in).
set(LOCKSTEP_SKIP_LOG "${PROJECT_BINARY_DIR}/Testing/skipped.txt")

# Each test's results as data, one file per test (ctest runs them in
# parallel), read by tests/labs/report.py instead of their printed text: a
# Check case's XML log (<test>.xml, CK_XML_LOG_FILE_NAME, which Check's
# srunner_run_all writes) and what a failed case checks (<test>.case.json,
# LOCKSTEP_CASE_LOG: tests/support/check_main.c), an explorer scenario's
# --json (<test>.json: tests/explore/CMakeLists.txt).
set(LOCKSTEP_RESULTS_DIR "${PROJECT_BINARY_DIR}/results")
file(MAKE_DIRECTORY "${LOCKSTEP_RESULTS_DIR}")

function(lockstep_check_test target source)
  cmake_parse_arguments(ARG "" "PREFIX;TIMEOUT" "LABELS;ENVIRONMENT" ${ARGN})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}")
  set(lines "")
  foreach(file IN LISTS source) # a suite split by topic: its entry and its topic files
    file(STRINGS "${file}" file_lines REGEX "^START_TEST\\(")
    list(APPEND lines ${file_lines})
  endforeach()
  if(NOT lines)
    message(FATAL_ERROR "${source}: no START_TEST cases")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set(env ${ARG_ENVIRONMENT} "LOCKSTEP_SKIP_LOG=${LOCKSTEP_SKIP_LOG}")
  if(LOCKSTEP_ITERATIONS)
    list(APPEND env "LOCKSTEP_ITERATIONS=${LOCKSTEP_ITERATIONS}")
  endif()
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^START_TEST\\(([A-Za-z0-9_]+)\\).*" "\\1" case "${line}")
    add_test(NAME ${ARG_PREFIX}.${case} COMMAND ${target} ${case})
    set_tests_properties(${ARG_PREFIX}.${case} PROPERTIES
      LABELS "${ARG_LABELS}"
      SKIP_RETURN_CODE 77
      TIMEOUT ${ARG_TIMEOUT})
    set_tests_properties(${ARG_PREFIX}.${case} PROPERTIES ENVIRONMENT "${env}")
    # As ENVIRONMENT_MODIFICATION, not ENVIRONMENT: a runner that gives the
    # program logs of its own (tests/mutants/build.py) lets a test's
    # ENVIRONMENT override its settings, and keeps its own for these.
    set(results "${LOCKSTEP_RESULTS_DIR}/${ARG_PREFIX}.${case}")
    set_tests_properties(${ARG_PREFIX}.${case} PROPERTIES ENVIRONMENT_MODIFICATION
      "CK_XML_LOG_FILE_NAME=set:${results}.xml;LOCKSTEP_CASE_LOG=set:${results}.case.json")
    if(case MATCHES "race|thread|fast_path")
      # Races spin two or more threads: alone, they meet as they would in use.
      set_tests_properties(${ARG_PREFIX}.${case} PROPERTIES RUN_SERIAL TRUE)
    endif()
  endforeach()
endfunction()

# lockstep_skipped_test(NAME REASON LABELS labels...)
# A test that reports itself skipped, for a suite whose component a step lacks.
function(lockstep_skipped_test name reason)
  cmake_parse_arguments(ARG "" "" "LABELS" ${ARGN})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DLINE=${name}: ${reason}" -P "${PROJECT_SOURCE_DIR}/cmake/skip_test.cmake")
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" SKIP_REGULAR_EXPRESSION "^SKIPPED "
    ENVIRONMENT "LOCKSTEP_SKIP_LOG=${LOCKSTEP_SKIP_LOG}")
endfunction()
