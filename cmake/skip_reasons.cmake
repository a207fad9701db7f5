# cmake -DLOG=<build>/Testing/skipped.txt -P skip_reasons.cmake
#
# Run by ctest after the tests (CTestCustom.cmake): ctest shows a skipped
# test as "***Skipped" and keeps its output to itself. Every skipped test
# appended its reason to LOG; print them, so that the reasons are in
# ctest's normal output. CMake, not Python: ctest's own hook, it must run
# wherever ctest does, and it only prints the lines, sorted.
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
