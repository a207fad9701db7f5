# cmake -DEXE=explore_event_step07 -DSCENARIO=set_vs_two_awaits -P compare_reduction.cmake
#
# The reduction loses nothing: the reduced search (the default) meets as
# many executions as every interleaving does (--preemptions 99, the
# unreduced rounds, run to the end). A step that the reduction wrongly
# takes to commute with another shows here as an execution fewer.
function(executions out)
  execute_process(COMMAND "${EXE}" "${SCENARIO}" ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT text MATCHES "explore: ([0-9]+) executions?, ([0-9]+) schedules? explored")
    message(FATAL_ERROR "${EXE} ${SCENARIO} ${ARGN} exited with ${rc}:\n${text}")
  endif()
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

executions(reduced)
executions(every --preemptions 99)
if(NOT reduced EQUAL every)
  message(FATAL_ERROR "${SCENARIO}: the reduced search met ${reduced} executions, every interleaving ${every}")
endif()
message(STATUS "${SCENARIO}: ${reduced} executions, reduced and not")
