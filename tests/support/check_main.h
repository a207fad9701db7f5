/*
 * The runner every Check source in tests/ uses.
 *
 *   test_task_step03 --list     the case names, one per line (ctest runs each)
 *   test_task_step03 CASE       run one case; exit 0 pass, 1 fail, 77 skipped
 *   test_task_step03            run every case of this step
 *
 * A case that needs a later step (or that a later step makes moot) stays
 * registered: it is reported as skipped with its reason (exit 77, which ctest
 * shows as "Skipped"), never dropped.
 * Every case runs inside a fixture that asserts it ended with no live
 * allocation and clears any injected allocation failure, and that Check's
 * record of it in /tmp stayed under 1 MB (lockstep_assert_in_loop, below).
 *
 * A case can also pass every assertion it could make and report one check it
 * could not make as skipped (lockstep_skip_after_checks): a race test on a
 * machine with one CPU still checks every outcome that occurred, but cannot
 * produce both. It exits 77 with its reason, like a case for a later step.
 * Every "SKIPPED" line is printed again after ctest's summary (CTestCustom).
 *
 * A failed case's report is data too, for a program: Check's XML log
 * (CK_XML_LOG_FILE_NAME: each case's result, message and place) and the
 * file LOCKSTEP_CASE_LOG names (what each failed case checks, and where to
 * read about it: check_main.c, write_case_log). ctest gives each test both
 * (cmake/LockstepTests.cmake); tests/labs/report.py reads them.
 */
#ifndef LOCKSTEP_CHECK_MAIN_H
#define LOCKSTEP_CHECK_MAIN_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* A case of a suite. It names its test as &name: START_TEST(name) defines a
 * pointer `name`, whose address (unlike its value) a static table may hold. */
typedef struct lockstep_case {
    const TTest *const *test; /* &name, for START_TEST(name) */
    int since_step;           /* first step the case applies to (1: every step) */
    const char *why;          /* why it does not run outside its steps */
    int until_step;           /* last step it applies to (0, the default: every later step) */
    const char *checks;       /* what the case checks, in a sentence: printed when it fails */
    const char *read;         /* where that is explained: "steps/NN-name/README.md, section" */
} lockstep_case;

/* ck_assert_msg for a check made in every round of a long loop (a race run
 * a million times, a chain a million links long).
 *
 * Check records every ck_assert that passes: it writes where it was (the
 * file's name and the line, some 60 bytes) to a temporary file in /tmp and
 * flushes it, a write(2) each time, so that a case that crashes later can be
 * placed. In a loop that is 200 MB of /tmp for one stress case, 4 GB for
 * one run of the suite (a machine with a small disk fails the case when
 * Check reads the file back), and a system call per check in the middle of
 * the race being timed. This macro calls Check only when `expr` is false,
 * and then as ck_assert_msg does, with the same message: `expr` is
 * evaluated a second time, so it must have no side effects. */
#define lockstep_assert_in_loop(expr, ...)    \
    do {                                      \
        if (!(expr))                          \
            ck_assert_msg(expr, __VA_ARGS__); \
    } while (0)

/* Runs the cases of `suite` as compiled for step `step` (see above). */
int lockstep_check_main(const char *suite, int step, const lockstep_case *cases, size_t ncases, int argc,
                        char **argv);

/* The same for a suite whose cases live in several files (a topic each):
 * `topics` holds each file's table, which ends with {0}; the cases run in
 * the order of the topics, then of each table. */
int lockstep_check_topics(const char *suite, int step, const lockstep_case *const *topics, size_t ntopics,
                          int argc, char **argv);

/* Iterations for loops that race threads: LOCKSTEP_ITERATIONS from the
 * environment if set (ctest sets it per build: fewer under sanitizers),
 * else `dflt`. */
size_t lockstep_iterations(size_t dflt);

/* Inside a case: when the case ends having passed, report it as skipped with
 * this reason (printf format) instead of passed. For a check that cannot be
 * made here, never for one that failed. */
void lockstep_skip_after_checks(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The coverage check of a race test, at the end of the case: both outcomes
 * of the race occurred, `a` and `b` times over `iterations`. With two or
 * more CPUs a missing outcome fails the case, naming `readme` (where the
 * race is explained); with one (race_cpus()) no real race can happen, and
 * the check is reported skipped with that reason. Prints the counts either
 * way. */
void lockstep_check_race_coverage(const char *race, const char *outcome_a, uint64_t a, const char *outcome_b,
                                  uint64_t b, uint64_t iterations, const char *readme);

#endif
