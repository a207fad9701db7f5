# Every lockstep target compiles with the same strict warnings.
option(LOCKSTEP_WERROR "Treat warnings as errors" ON)

function(lockstep_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(LOCKSTEP_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# C11 plus POSIX 2008 (pthreads, clock_gettime, fork/exec in the benchmark).
add_compile_definitions(_POSIX_C_SOURCE=200809L)
if(APPLE)
  add_compile_definitions(_DARWIN_C_SOURCE)
endif()
