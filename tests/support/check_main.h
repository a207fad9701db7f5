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
 * allocation and clears any injected allocation failure.
 */
#ifndef LOCKSTEP_CHECK_MAIN_H
#define LOCKSTEP_CHECK_MAIN_H

#include <check.h>
#include <stddef.h>

typedef struct lockstep_case {
    const TTest *test;   /* START_TEST(name) defines `name` */
    int since_step;      /* first step the case applies to (1: every step) */
    const char *why;     /* why it does not run outside its steps */
    int until_step;      /* last step it applies to (0, the default: every later step) */
} lockstep_case;

/* Runs the cases of `suite` as compiled for step `step` (see above). */
int lockstep_check_main(const char *suite, int step, const lockstep_case *cases, size_t ncases, int argc,
                        char **argv);

/* Iterations for loops that race threads: LOCKSTEP_ITERATIONS from the
 * environment if set (ctest sets it per build: fewer under sanitizers),
 * else `dflt`. */
size_t lockstep_iterations(size_t dflt);

#endif
