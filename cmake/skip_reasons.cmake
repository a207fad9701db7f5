# cmake -DLOG=<build>/Testing/skipped.txt -P skip_reasons.cmake
#
# Run by ctest after the tests (CTestCustom.cmake): ctest shows a skipped
# test as "***Skipped" and keeps its output to itself. Every skipped test
# appended its reason to LOG; print them, so that the reasons are in
# ctest's normal output.
if(NOT EXISTS "${LOG}")
  return()
endif()
file(STRINGS "${LOG}" reasons)
list(SORT reasons)
list(LENGTH reasons n)
if(n EQUAL 0)
  return()
endif()
message(NOTICE "\nWhy ${n} test(s) were skipped:")
foreach(line IN LISTS reasons)
  message(NOTICE "  ${line}")
endforeach()
