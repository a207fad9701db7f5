# cmake -DEXE=explore_litmus -DTEST=Shape.litmus -DHERD=Shape.herd -P compare_shape.cmake
#
# explore_litmus prints a test's result in herd7's shape: this compares its
# output with herd7's, recorded in HERD, line by line, the counts of
# executions too (Positive, Negative, the Observation's two numbers), but
# for what the README says differs: Time, herd's Hash line, and
# explore_litmus's last line, the schedules its search ran.
execute_process(COMMAND "${EXE}" "${TEST}" OUTPUT_VARIABLE ours RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "explore_litmus ${TEST} exited with ${rc}:\n${ours}")
endif()
file(READ "${HERD}" theirs)

function(comparable text out)
  string(REGEX REPLACE "\n(Time |Hash=|Schedules )[^\n]*" "" text "\n${text}")
  string(STRIP "${text}" text)
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

comparable("${ours}" a)
comparable("${theirs}" b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "explore_litmus's output is not herd7's:\n--- explore_litmus\n${a}\n--- herd7\n${b}")
endif()
message(STATUS "explore_litmus prints herd7's lines for ${TEST}")
