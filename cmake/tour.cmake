# cmake -D BENCHES="a;b" -D STEPS="01-mutex;..." -D STEP_DIRS="/path/01-mutex;..."
#       [-D CXX=/path/bench_cxx] [-D PEER=/path/peer_bench] [-D OUT_DIR=dir]
#       [-D TOUR_RUNS=5] [-D TOUR_N=1000000] -P tour.cmake
#
# Runs every step's benchmark, and the articles' C++ (tests/bench/cxx) if it
# was built, workload by workload, interleaved, so that all columns see the
# same machine conditions. Prints one table (workload rows, step columns,
# each cell "ns/op (allocs/op)", the median of the runs), the spread of the
# runs, and notes; writes the same to OUT_DIR/tour.md, every figure to
# OUT_DIR/tour.csv, and a bar chart to OUT_DIR/tour.svg when gnuplot is
# installed. Fails only if a step's result or leak check failed: timings
# never fail anything, and neither does the C++ column (its crash on the
# 1,000,000 backlog is the articles' erratum 5, shown as such).
cmake_minimum_required(VERSION 3.25)
if(NOT TOUR_RUNS)
  set(TOUR_RUNS 5)
endif()
if(NOT TOUR_N)
  set(TOUR_N 1000000)
endif()
if(NOT OUT_DIR)
  set(OUT_DIR "${CMAKE_CURRENT_BINARY_DIR}")
endif()
list(GET BENCHES 0 first)
execute_process(COMMAND "${first}" --list OUTPUT_VARIABLE names OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REPLACE "\n" ";" names "${names}")

set(columns ${STEPS})
set(programs ${BENCHES})
list(LENGTH STEPS nsteps)
if(CXX)
  list(APPEND columns "C++ (articles)")
  list(APPEND programs "${CXX}")
endif()
if(PEER)
  list(APPEND columns "C++ peer")
  list(APPEND programs "${PEER}")
endif()
list(LENGTH programs ncols)
math(EXPR last "${ncols} - 1")

# "19.34" -> 1934: CMake's math() has integers only.
function(centi x out)
  if(x MATCHES "^([0-9]+)\\.([0-9])([0-9])?")
    set(hundredths "${CMAKE_MATCH_3}")
    if(hundredths STREQUAL "")
      set(hundredths 0)
    endif()
    math(EXPR v "${CMAKE_MATCH_1} * 100 + ${CMAKE_MATCH_2} * 10 + ${hundredths}")
  elseif(x MATCHES "^[0-9]+$")
    math(EXPR v "${x} * 100")
  else()
    set(v 0)
  endif()
  set(${out} ${v} PARENT_SCOPE)
endfunction()

# ---- run -------------------------------------------------------------------
set(failed "")
set(rows "")
set(spread_rows "")
set(csv "workload,column,median_ns_per_op,min_ns_per_op,max_ns_per_op,allocs_per_op,runs,n,status")
set(dat "")
set(noisy OFF)
set(crashed OFF)
foreach(name IN LISTS names)
  message(NOTICE "tour: ${name}")
  set(row "| ${name} |")
  set(spread_row "| ${name} |")
  set(dat_row "${name}")
  foreach(i RANGE ${last})
    list(GET programs ${i} prog)
    list(GET columns ${i} col)
    execute_process(COMMAND "${prog}" -n ${TOUR_N} -r ${TOUR_RUNS} "${name}$"
                    OUTPUT_VARIABLE out RESULT_VARIABLE rc)
    string(REPLACE "\n" ";" lines "${out}")
    set(cell "not run")
    set(spread "")
    set(status "not run")
    set(med "")
    set(min "")
    set(max "")
    set(allocs "")
    foreach(line IN LISTS lines)
      if(NOT line MATCHES "^${name} ")
        continue()
      endif()
      if(line MATCHES "^${name} +([0-9.]+) +([0-9.]+) +# min ([0-9.]+) med [0-9.]+ max ([0-9.]+)")
        set(med "${CMAKE_MATCH_1}")
        set(allocs "${CMAKE_MATCH_2}")
        set(min "${CMAKE_MATCH_3}")
        set(max "${CMAKE_MATCH_4}")
        if(allocs MATCHES "\\.")
          string(REGEX REPLACE "0+$" "" allocs "${allocs}")
          string(REGEX REPLACE "\\.$" "" allocs "${allocs}")
        endif()
        set(cell "${med} (${allocs})")
        set(spread "${min}–${max}")
        set(status "ok")
        # Flag a cell whose runs spread over more than 10% of the median.
        centi("${med}" m)
        centi("${min}" lo)
        centi("${max}" hi)
        if(m GREATER 0)
          math(EXPR pct "(${hi} - ${lo}) * 100 / ${m}")
          if(pct GREATER 10)
            string(APPEND cell " *")
            set(noisy ON)
          endif()
        endif()
      elseif(line MATCHES "^${name} +- +-")
        set(cell "-")
        set(status "lacks the component")
      elseif(line MATCHES "CRASH")
        if(line MATCHES "stack overflow")
          set(cell "crashed (stack overflow)")
        elseif(line MATCHES "signal [0-9]+ \\(([^)]*)\\)")
          set(cell "crashed (${CMAKE_MATCH_1})")
        else()
          set(cell "crashed")
        endif()
        set(status "${cell}")
        set(crashed ON)
      elseif(line MATCHES "FAIL ")
        set(cell "failed")
        set(status "failed")
      endif()
      if(line MATCHES "CHECK FAILED")
        string(APPEND cell " CHECK FAILED")
        set(status "check failed")
      endif()
    endforeach()
    # The benchmark program itself died: rc is the signal's description.
    if(status STREQUAL "not run" AND NOT rc MATCHES "^[0-9]+$")
      set(cell "crashed (${rc})")
      set(status "${cell}")
      set(crashed ON)
    endif()
    if(i LESS nsteps AND NOT status MATCHES "^(ok|lacks the component)$")
      list(APPEND failed "${col}: ${name}: ${status}")
    endif()
    if(spread STREQUAL "")
      set(spread "${cell}")
    endif()
    string(APPEND row " ${cell} |")
    string(APPEND spread_row " ${spread} |")
    if(med STREQUAL "")
      string(APPEND dat_row " ?")
    else()
      string(APPEND dat_row " ${med}")
    endif()
    list(APPEND csv "${name},${col},${med},${min},${max},${allocs},${TOUR_RUNS},${TOUR_N},${status}")
  endforeach()
  list(APPEND rows "${row}")
  list(APPEND spread_rows "${spread_row}")
  string(APPEND dat "${dat_row}\n")
endforeach()

# ---- steps whose code for a workload is identical ------------------------------
# The same sources give the same code: what differs between such columns is
# the machine (and each binary's layout), which shows how far to trust a
# difference between steps whose code does differ.
set(same_notes "")
# task_wait.c (simple_task_wait) is not linked into a benchmark that never
# waits, so it does not count: step 06's assert there (a maker must not block
# its thread) changes no code the tour runs.
file(READ "${CMAKE_CURRENT_LIST_DIR}/../tests/bench/bench.c" bench_source)
set(unlinked "")
if(NOT bench_source MATCHES "simple_task_wait")
  set(unlinked "/task_wait\\.c$")
endif()
foreach(component task event sequencer)
  set(groups "") # hash=step,step;...
  set(i 0)
  foreach(dir IN LISTS STEP_DIRS)
    list(GET STEPS ${i} step)
    math(EXPR i "${i} + 1")
    file(GLOB files "${dir}/include/lockstep/${component}.h" "${dir}/src/${component}*.c")
    if(NOT files)
      continue()
    endif()
    if(component STREQUAL "sequencer") # its workloads run tasks too
      file(GLOB task_files "${dir}/include/lockstep/task.h" "${dir}/src/task*.c")
      list(APPEND files ${task_files})
    endif()
    if(unlinked)
      list(FILTER files EXCLUDE REGEX "${unlinked}")
    endif()
    list(SORT files)
    set(sums "")
    foreach(f IN LISTS files)
      file(SHA256 "${f}" sum)
      get_filename_component(base "${f}" NAME)
      string(APPEND sums "${base}:${sum};")
    endforeach()
    string(SHA256 key "${sums}")
    string(APPEND groups_${key} "${step}, ")
    list(APPEND groups ${key})
  endforeach()
  list(REMOVE_DUPLICATES groups)
  foreach(key IN LISTS groups)
    string(REGEX REPLACE ", $" "" members "${groups_${key}}")
    if(members MATCHES ", ")
      list(APPEND same_notes "${component}_* rows: ${members}")
    endif()
    unset(groups_${key})
  endforeach()
endforeach()

# ---- report --------------------------------------------------------------------
string(REPLACE ";" " | " header "${columns}")
set(rule "|---|")
foreach(i RANGE ${last})
  string(APPEND rule "--:|")
endforeach()
set(report "")
list(APPEND report
  "ns/op (allocs/op): median of ${TOUR_RUNS} runs, N=${TOUR_N}, one process per run, multi-threaded libc mode"
  ""
  "| workload | ${header} |"
  "${rule}"
  ${rows}
  "")
if(noisy)
  list(APPEND report "Marked *: its ${TOUR_RUNS} runs spread over more than 10% of the median (see the spread below)." "")
endif()
list(APPEND report "-: the step lacks the component." "")
if(same_notes)
  string(REPLACE ";" ". " same "${same_notes}")
  list(APPEND report "Identical code, so any difference between these columns is the machine's noise (and each binary's layout), not the steps: ${same}." "")
endif()
if(crashed)
  list(APPEND report "crashed (stack overflow): the articles' task_sequencer resumes each queued task inside its predecessor's completion, so a 1,000,000-task backlog nests a million frames deep and overflows the stack (erratum 5 in docs/ERRATA.md). Step 06 drains any backlog in constant stack." "")
endif()
if(TOUR_RUNS GREATER 1)
  list(APPEND report
    "Spread: fastest and slowest of the ${TOUR_RUNS} runs, ns/op"
    ""
    "| workload | ${header} |"
    "${rule}"
    ${spread_rows})
endif()
message(NOTICE "")
foreach(line IN LISTS report)
  message(NOTICE "${line}")
endforeach()

# ---- files a reader can keep -----------------------------------------------------
string(TIMESTAMP when "%Y-%m-%d %H:%M UTC" UTC)
cmake_host_system_information(RESULT cpu QUERY PROCESSOR_DESCRIPTION)
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
cmake_host_system_information(RESULT os QUERY OS_NAME OS_RELEASE)
string(REPLACE ";" " " os "${os}")
string(REPLACE ";" "\n" md "${report}")
file(WRITE "${OUT_DIR}/tour.md" "# lockstep tour, ${when}\n\nMachine: ${cpu}, ${cores} logical CPUs, ${os}.\n\n${md}\n")
string(REPLACE ";" "\n" csv "${csv}")
file(WRITE "${OUT_DIR}/tour.csv" "${csv}\n")
set(written "${OUT_DIR}/tour.md, ${OUT_DIR}/tour.csv")

# Grouped bars, one group per workload, one bar per column, log scale (the
# figures span 10 ns to several hundred). A missing bar: the step lacks the
# component, or the run crashed (tour.md says which).
find_program(GNUPLOT gnuplot)
if(GNUPLOT)
  set(head "workload")
  foreach(col IN LISTS columns)
    string(APPEND head " \"${col}\"")
  endforeach()
  file(WRITE "${OUT_DIR}/tour.dat" "${head}\n${dat}")
  math(EXPR lastcol "${ncols} + 1")
  file(WRITE "${OUT_DIR}/tour.gp" "\
set terminal svg size 1200,560 dynamic font 'sans,11' noenhanced
set output '${OUT_DIR}/tour.svg'
set title 'lockstep tour, ${when}: ns/op, median of ${TOUR_RUNS} runs (log scale; no bar: the step lacks the component or the run crashed)'
set datafile missing '?'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set yrange [5:*]
set ylabel 'ns/op'
set grid ytics
set xtics rotate by 30 right scale 0
set key outside right top vertical
plot for [i=2:${lastcol}] '${OUT_DIR}/tour.dat' using i:xtic(1) title columnheader(i)
")
  execute_process(COMMAND "${GNUPLOT}" "${OUT_DIR}/tour.gp" RESULT_VARIABLE gp_rc ERROR_VARIABLE gp_err)
  if(gp_rc EQUAL 0)
    string(APPEND written ", ${OUT_DIR}/tour.svg")
  else()
    message(NOTICE "tour: gnuplot failed, no plot: ${gp_err}")
  endif()
else()
  message(NOTICE "tour: no plot (gnuplot is not installed)")
endif()
message(NOTICE "tour: written ${written}")

if(failed)
  string(REPLACE ";" "\n" failed "${failed}")
  message(FATAL_ERROR "a benchmark check failed:\n${failed}")
endif()
