# The `tour` target (`cmake --build --preset tour`): every step's benchmark,
# plus the articles' C++ (if built), one table; kept in
# build/tour/tour.{md,csv,svg}. Included by tests/CMakeLists.txt.
#
# CMake only builds the programs and calls tests/bench/tour.py, which runs
# them, reads the CSV each writes (--csv), computes the statistics and
# writes the report (its docstring says how). The tour needs a C compiler
# and Python 3, not Check.
#
# -DLOCKSTEP_PEER_BENCH=/path/to/other_bench adds one more column: any
# program with the benchmark's options, --csv among them, and its CSV
# (tests/bench/harness.h; a program on tests/bench/harness.c has both),
# named -DLOCKSTEP_PEER_NAME=cppcoro (say what it is), and a table of every
# column over it.
set(LOCKSTEP_PEER_BENCH "" CACHE FILEPATH "Another benchmark with bench.c's options and CSV, for one more column in the tour")
set(LOCKSTEP_PEER_NAME "peer" CACHE STRING "The name of that column (e.g. cppcoro)")
set(LOCKSTEP_TOUR_RUNS 5 CACHE STRING "Runs (processes) per workload and column in the tour")
set(LOCKSTEP_TOUR_N 1000000 CACHE STRING "Operations per timed pass in the tour")

# The steps' benchmarks (bench_stepNN): one column each.
set(tour_args "")
get_property(benches GLOBAL PROPERTY LOCKSTEP_BENCHES)
foreach(b IN LISTS benches)
  string(REGEX REPLACE "^bench_step" "" nn "${b}")
  get_property(step_name GLOBAL PROPERTY LOCKSTEP_STEP_${nn}_NAME)
  get_property(step_dir GLOBAL PROPERTY LOCKSTEP_STEP_${nn}_DIR)
  list(APPEND tour_args --bench "$<TARGET_FILE:${b}>" --step "${step_name}" --step-dir "${step_dir}")
endforeach()
if(TARGET bench_cxx)
  list(APPEND tour_args --cxx "$<TARGET_FILE:bench_cxx>")
  list(APPEND benches bench_cxx)
endif()
if(LOCKSTEP_PEER_BENCH)
  list(APPEND tour_args --peer "${LOCKSTEP_PEER_BENCH}" --peer-name "${LOCKSTEP_PEER_NAME}")
endif()

# The floor (bench_floor) and the counting builds (bench_count_stepNN).
add_subdirectory(bench)
list(APPEND tour_args --floor "$<TARGET_FILE:bench_floor>")
get_property(counters GLOBAL PROPERTY LOCKSTEP_BENCH_COUNTERS)
foreach(c IN LISTS counters)
  list(APPEND tour_args --counter "$<TARGET_FILE:${c}>")
endforeach()

find_package(Python3 QUIET COMPONENTS Interpreter)
if(Python3_EXECUTABLE)
  set(tour_command "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/tests/bench/tour.py" ${tour_args}
      --runs "${LOCKSTEP_TOUR_RUNS}" -n "${LOCKSTEP_TOUR_N}" --out-dir "${PROJECT_BINARY_DIR}")
else()
  set(tour_command ${CMAKE_COMMAND} -E echo "tour: needs Python 3 (tests/bench/tour.py), which was not found" &&
      ${CMAKE_COMMAND} -E false)
endif()
add_custom_target(tour
  COMMAND ${tour_command}
  DEPENDS ${benches} bench_floor ${counters}
  USES_TERMINAL
  VERBATIM
  COMMENT "Benchmark tour: every workload on every step")

# tour.py's own test (tests/bench/test_tour.py): its quartiles, noise mark
# and busy-machine headline on made-up timings, its reading of the
# benchmarks' CSV on made-up rows; it runs no benchmark.
if(Python3_EXECUTABLE AND lockstep_with_tests)
  add_test(NAME bench.tour_noise COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/tests/bench/test_tour.py")
  set_tests_properties(bench.tour_noise PROPERTIES LABELS "bench;unit")
endif()
