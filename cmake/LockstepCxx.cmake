# The C++ beside the C (tests/bench/cxx): the articles' code in C++20, built
# only when a C++ compiler with coroutines is found. The project stays a C
# project: without one, the tour has no C++ column and configuring says so
# in one line. Sets LOCKSTEP_WITH_CXX.
option(LOCKSTEP_CXX_BENCH "Build the articles' C++20 code for the tour's C++ column, if a C++20 compiler is found" ON)
set(LOCKSTEP_WITH_CXX OFF)
if(LOCKSTEP_CXX_BENCH)
  include(CheckLanguage)
  check_language(CXX)
  if(CMAKE_CXX_COMPILER)
    enable_language(CXX)
    # A compiler can be C++20 by name and still lack <coroutine> (libstdc++
    # before 10, Apple clang before 13): ask for the real thing.
    try_compile(lockstep_cxx_coroutines
      SOURCE_FROM_CONTENT coroutines.cpp [=[
#include <coroutine>
struct task {
  struct promise_type {
    task get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};
task f() { co_await std::suspend_never{}; }
int main() { f(); }
]=]
      CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
    if(lockstep_cxx_coroutines)
      set(LOCKSTEP_WITH_CXX ON)
    else()
      message(NOTICE "lockstep: no C++ column in the tour: ${CMAKE_CXX_COMPILER} does not compile C++20 coroutines (g++ 11+ or clang++ 14+ does)")
    endif()
  else()
    message(NOTICE "lockstep: no C++ column in the tour: no C++ compiler found (install g++ 11+ or clang++ 14+)")
  endif()
endif()
