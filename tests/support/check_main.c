#include "check_main.h"

#include "lockstep/alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIP_EXIT_CODE 77 /* ctest: SKIP_RETURN_CODE */

static int64_t g_live_before;

static void leak_setup(void)
{
    lockstep_alloc_fail_none();
    g_live_before = lockstep_alloc_live();
}

static void leak_teardown(void)
{
    lockstep_alloc_fail_none();
    int64_t leaked = lockstep_alloc_live() - g_live_before;
    ck_assert_msg(leaked == 0, "the case ended with %lld live allocation(s)", (long long)leaked);
}

static const lockstep_case *find_case(const lockstep_case *cases, size_t n, const char *name)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp(cases[i].test->name, name) == 0)
            return &cases[i];
    return NULL;
}

static void add_case(Suite *s, const lockstep_case *c)
{
    TCase *tc = tcase_create(c->test->name);
    tcase_add_checked_fixture(tc, leak_setup, leak_teardown);
    tcase_set_timeout(tc, 0); /* ctest owns the timeout */
    tcase_add_test(tc, c->test);
    suite_add_tcase(s, tc);
}

static bool applies(const lockstep_case *c, int step)
{
    return step >= c->since_step && (c->until_step == 0 || step <= c->until_step);
}

static void print_skip(const char *suite, int step, const lockstep_case *c)
{
    if (step < c->since_step)
        printf("SKIPPED %s.%s on step %02d: needs step %02d: %s\n", suite, c->test->name, step, c->since_step,
               c->why);
    else
        printf("SKIPPED %s.%s on step %02d: applies up to step %02d: %s\n", suite, c->test->name, step,
               c->until_step, c->why);
}

int lockstep_check_main(const char *suite, int step, const lockstep_case *cases, size_t ncases, int argc,
                        char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: %s [--list | CASE]\n", argv[0]);
        return 2;
    }
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < ncases; ++i)
            printf("%s\n", cases[i].test->name);
        return 0;
    }

    const lockstep_case *only = NULL;
    if (argc == 2) {
        only = find_case(cases, ncases, argv[1]);
        if (!only) {
            fprintf(stderr, "%s: no case named '%s' (try --list)\n", argv[0], argv[1]);
            return 2;
        }
        if (!applies(only, step)) {
            print_skip(suite, step, only);
            return SKIP_EXIT_CODE;
        }
    }

    Suite *s = suite_create(suite);
    size_t selected = 0;
    for (size_t i = 0; i < ncases; ++i) {
        if (only && &cases[i] != only)
            continue;
        if (!applies(&cases[i], step)) {
            print_skip(suite, step, &cases[i]);
            continue;
        }
        add_case(s, &cases[i]);
        ++selected;
    }

    SRunner *sr = srunner_create(s);
    /* One case per process under ctest already; not forking keeps sanitizer
     * reports and crashes attached to the case that caused them. */
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_VERBOSE);
    int failed = srunner_ntests_failed(sr);
    int run = srunner_ntests_run(sr);
    srunner_free(sr);
    printf("%s: %d passed, %d failed, %zu skipped\n", suite, run - failed, failed, (only ? 1 : ncases) - selected);
    return failed == 0 && run == (int)selected ? 0 : 1;
}

size_t lockstep_iterations(size_t dflt)
{
    const char *env = getenv("LOCKSTEP_ITERATIONS");
    if (!env || !*env)
        return dflt;
    char *end;
    unsigned long long n = strtoull(env, &end, 10);
    return *end == '\0' && n > 0 ? (size_t)n : dflt;
}
