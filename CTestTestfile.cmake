# Hand-written, not generated: ctest reads a CTestTestfile.cmake from the
# directory it runs in, and cmake writes one only into a build directory;
# this one lets a reader type `ctest` at the repository's root. Keep it in git.
#
# `ctest` run from the repository's root (not a build directory): the tests
# are those of build/test, the test preset's build, which this file forwards
# to. Without that build, say so instead of "No tests were found!!!".
# (ctest --preset test, or ctest --test-dir build/<preset>, needs no help.)
# ctest reads this file from its own directory, so the path is relative.
if(NOT EXISTS "build/test/CTestTestfile.cmake")
  message(FATAL_ERROR "lockstep: no tests here: this is the repository's root, and build/test is not built. "
                      "Build it first (cmake --workflow --preset quick, or cmake --preset test && "
                      "cmake --build --preset test), then run ctest --preset test -L step03 "
                      "(or ctest --test-dir build/<preset> for another build).")
endif()
subdirs(build/test)
