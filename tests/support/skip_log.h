/*
 * The run's list of skips: every test that reports itself skipped (exit 77)
 * appends its line here, and ctest prints the list after its summary
 * (CTestCustom.cmake.in), so that a skip is never silent. Shared by the
 * Check runner (check_main.c) and the explorer's (tests/explore/run/main.c).
 */
#ifndef LOCKSTEP_SKIP_LOG_H
#define LOCKSTEP_SKIP_LOG_H

/* Appends line and a newline to the file LOCKSTEP_SKIP_LOG names, when ctest
 * runs the test (it sets the variable); does nothing otherwise, or if the
 * file cannot be opened. Not thread safe: a test's main calls it. */
void lockstep_skip_log(const char *line);

#endif /* LOCKSTEP_SKIP_LOG_H */
