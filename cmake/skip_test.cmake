# cmake -DLINE="<test>: <reason>" -P skip_test.cmake
#
# A test that reports itself skipped (lockstep_skipped_test): prints
# "SKIPPED <test>: <reason>" for ctest's SKIP_REGULAR_EXPRESSION, and adds
# the line to the run's list of skips (LOCKSTEP_SKIP_LOG), which ctest
# prints after its summary. CMake, like skip_reasons.cmake: it runs wherever
# ctest does.
execute_process(COMMAND "${CMAKE_COMMAND}" -E echo "SKIPPED ${LINE}")
if(NOT "$ENV{LOCKSTEP_SKIP_LOG}" STREQUAL "")
  file(APPEND "$ENV{LOCKSTEP_SKIP_LOG}" "${LINE}\n")
endif()
