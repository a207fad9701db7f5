# cmake -DPROGRAMS="a|b" -P usage_check.cmake: each benchmark program
# refuses a bad argument with exit status 2 (its usage on stderr, nothing
# run), and --help exits 0: the harness's getopt_long table and checked
# numbers (harness.c), floor.c's. The statuses are the check: no output is
# read back.
set(bad_arguments "-n,0" "-n,12x" "-n,-5" "-n" "-r,0" "-r,65" "-r,abc" "--no-such-option")
string(REPLACE "|" ";" PROGRAMS "${PROGRAMS}")
foreach(program IN LISTS PROGRAMS)
  foreach(arguments IN LISTS bad_arguments)
    string(REPLACE "," " " shown "${arguments}")
    string(REPLACE "," ";" arguments "${arguments}")
    execute_process(COMMAND "${program}" ${arguments} RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
    if(NOT status EQUAL 2)
      message(SEND_ERROR "${program} ${shown}: exit status ${status}, not 2 (a bad argument)")
    endif()
  endforeach()
  execute_process(COMMAND "${program}" --help RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
  if(NOT status EQUAL 0)
    message(SEND_ERROR "${program} --help: exit status ${status}, not 0")
  endif()
endforeach()
