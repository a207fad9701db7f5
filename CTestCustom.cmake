# ctest from the repository's root (CTestTestfile.cmake here): build/test's
# own custom settings, which print why each skipped test was skipped.
include("build/test/CTestCustom.cmake" OPTIONAL)
