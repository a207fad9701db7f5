#include "check_main.h"

#include "skip_log.h"
#include "timing.h"

#include "lockstep/alloc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SKIP_EXIT_CODE 77 /* ctest: SKIP_RETURN_CODE */
#define MAX_CHECK_RECORD (1 << 20) /* bytes: some 15,000 passing ck_asserts (check_main.h) */

static int64_t g_live_before;

/* Checks that the cases of this process reported as skipped after passing
 * (lockstep_skip_after_checks). One case per process under ctest; a whole
 * suite run may have several. */
#define MAX_SKIPS 32
static struct skip_record {
    char tcase[128];
    char why[512];
} g_skips[MAX_SKIPS];
static size_t g_nskips;

static void leak_setup(void)
{
    lockstep_alloc_fail_none();
    g_live_before = lockstep_alloc_live();
}

/* Check's record of the running case: a file it creates in /tmp and
 * unlinks at once (tmpfile(3)), so the one open regular file of the process
 * that has no name left. Its size in bytes, or -1 if there is none. */
static long long check_record_size(void)
{
    long long size = -1;
    long max = sysconf(_SC_OPEN_MAX);
    for (int fd = 0; fd < (max > 0 && max < 4096 ? max : 4096); ++fd) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0 && st.st_size > size)
            size = st.st_size;
    }
    return size;
}

static void leak_teardown(void)
{
    lockstep_alloc_fail_none();
    int64_t leaked = lockstep_alloc_live() - g_live_before;
    ck_assert_msg(leaked == 0, "the case ended with %lld live allocation(s)", (long long)leaked);
    long long recorded = check_record_size();
    ck_assert_msg(recorded < MAX_CHECK_RECORD,
                  "Check recorded %lld bytes in /tmp for this case (limit %d): a ck_assert that passes writes where "
                  "it was, so one in a long loop fills the disk; use lockstep_assert_in_loop (check_main.h)",
                  recorded, MAX_CHECK_RECORD);
}

static const lockstep_case *find_case(const lockstep_case *cases, size_t n, const char *name)
{
    for (size_t i = 0; i < n; ++i)
        if (strcmp((*cases[i].test)->name, name) == 0)
            return &cases[i];
    return NULL;
}

static void add_case(Suite *s, const lockstep_case *c)
{
    TCase *tc = tcase_create((*c->test)->name);
    tcase_add_checked_fixture(tc, leak_setup, leak_teardown);
    tcase_set_timeout(tc, 0); /* ctest owns the timeout */
    tcase_add_test(tc, *c->test);
    suite_add_tcase(s, tc);
}

static bool applies(const lockstep_case *c, int step)
{
    return step >= c->since_step && (c->until_step == 0 || step <= c->until_step);
}

/* Prints "SKIPPED <what>" and, when ctest runs us (LOCKSTEP_SKIP_LOG, see
 * CTestCustom.cmake.in), appends the same line to the run's list of skips,
 * which ctest prints after its summary. */
static void report_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report_skip(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("SKIPPED %s\n", line);
    lockstep_skip_log(line);
}

static void print_skip(const char *suite, int step, const lockstep_case *c)
{
    if (step < c->since_step)
        report_skip("step%02d.%s.%s: needs step %02d: %s", step, suite, (*c->test)->name, c->since_step, c->why);
    else
        report_skip("step%02d.%s.%s: applies up to step %02d: %s", step, suite, (*c->test)->name, c->until_step,
                    c->why);
}

void lockstep_skip_after_checks(const char *fmt, ...)
{
    if (g_nskips == MAX_SKIPS)
        return;
    struct skip_record *r = &g_skips[g_nskips++];
    snprintf(r->tcase, sizeof r->tcase, "%s", tcase_name());
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
}

static const char *skip_reason(const char *tcase)
{
    for (size_t i = 0; i < g_nskips; ++i)
        if (strcmp(g_skips[i].tcase, tcase) == 0)
            return g_skips[i].why;
    return NULL;
}

void lockstep_check_race_coverage(const char *race, const char *outcome_a, uint64_t a, const char *outcome_b,
                                  uint64_t b, uint64_t iterations, const char *readme)
{
    printf("%s: %llu %s, %llu %s (%llu iterations, %d CPU%s)\n", race, (unsigned long long)a, outcome_a,
           (unsigned long long)b, outcome_b, (unsigned long long)iterations, race_cpus(), race_cpus() == 1 ? "" : "s");
    if (a > 0 && b > 0)
        return;
    const char *missing = a == 0 ? outcome_a : outcome_b;
    if (race_cpus() < 2) {
        lockstep_skip_after_checks("coverage: '%s' never occurred, and on one CPU it cannot be forced: the "
                                   "threads take turns instead of racing (every outcome that occurred was "
                                   "checked)",
                                   missing);
        return;
    }
    ck_abort_msg("%s: expected both outcomes over %llu iterations, but '%s' never occurred (%llu %s, %llu %s) "
                 "with %d CPUs, although the steer (tests/support/timing.h) delays whichever side keeps "
                 "winning. See %s",
                 race, (unsigned long long)iterations, missing, (unsigned long long)a, outcome_a,
                 (unsigned long long)b, outcome_b, race_cpus(), readme);
}

/* The directory of PATH, made if it is missing: Check ends the process when
 * it cannot open its XML log (CK_XML_LOG_FILE_NAME), and the build makes
 * the directory ctest names only when it is configured. */
static void make_parent(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    char dir[4096];
    if (!slash || slash == path || (size_t)(slash - path) >= sizeof dir)
        return;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    mkdir(dir, 0777); /* an error (it exists, or cannot be made) is Check's to report */
}

static void json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* LOCKSTEP_CASE_LOG names a file: what the report of each failed case says
 * besides Check's own result (its message and place are in Check's XML
 * log), as data for a program (tests/labs/report.py), so that none reads
 * the printed text:
 *
 *   {"suite": "task", "step": 3, "failed": [{"case": NAME, "checks": TEXT, "read": TEXT}, ...]}
 *
 * "checks" and "read" are the lines "  what it checks: " and "  read: "
 * print, null for a case with no such lines (no `checks` in its table).
 * Written after every case ran, so a case that crashed leaves none. */
static void write_case_log(const char *suite, int step, const lockstep_case *cases, size_t ncases,
                           TestResult **results, int run)
{
    const char *path = getenv("LOCKSTEP_CASE_LOG");
    if (!path || !*path)
        return;
    make_parent(path);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s\n", suite, path);
        return;
    }
    fputs("{\"suite\": ", f);
    json_string(f, suite);
    fprintf(f, ", \"step\": %d, \"failed\": [", step);
    const char *sep = "";
    for (int i = 0; i < run; ++i) {
        if (tr_rtype(results[i]) == CK_PASS)
            continue;
        const lockstep_case *c = find_case(cases, ncases, tr_tcname(results[i]));
        fprintf(f, "%s{\"case\": ", sep);
        json_string(f, tr_tcname(results[i]));
        fputs(", \"checks\": ", f);
        json_string(f, c ? c->checks : NULL);
        fputs(", \"read\": ", f);
        json_string(f, c && c->checks ? (c->read ? c->read : "the step's README") : NULL);
        fputc('}', f);
        sep = ", ";
    }
    fputs("]}\n", f);
    if (fclose(f) != 0)
        fprintf(stderr, "%s: cannot write %s\n", suite, path);
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
            printf("%s\n", (*cases[i].test)->name);
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
    make_parent(getenv("CK_XML_LOG_FILE_NAME")); /* srunner_run_all writes it, when set */
    srunner_run_all(sr, CK_VERBOSE);
    int failed = srunner_ntests_failed(sr);
    int run = srunner_ntests_run(sr);
    int skipped_after_checks = 0;
    TestResult **results = srunner_results(sr);
    for (int i = 0; i < run; ++i) {
        const lockstep_case *c = find_case(cases, ncases, tr_tcname(results[i]));
        if (tr_rtype(results[i]) != CK_PASS && c && c->checks) {
            printf("\nFAILED step%02d.%s.%s\n  what failed: %s (%s:%d)\n  what it checks: %s\n  read: %s\n\n", step,
                   suite, (*c->test)->name, tr_msg(results[i]), tr_lfile(results[i]), tr_lno(results[i]), c->checks,
                   c->read ? c->read : "the step's README");
        }
        const char *why = skip_reason(tr_tcname(results[i]));
        if (tr_rtype(results[i]) == CK_PASS && why) {
            report_skip("step%02d.%s.%s: %s", step, suite, tr_tcname(results[i]), why);
            ++skipped_after_checks;
        }
    }
    write_case_log(suite, step, cases, ncases, results, run);
    free(results);
    srunner_free(sr);
    printf("%s: %d passed, %d failed, %zu skipped\n", suite, run - failed - skipped_after_checks, failed,
           (only ? 1 : ncases) - selected + (size_t)skipped_after_checks);
    if (failed != 0 || run != (int)selected)
        return 1;
    return only && skipped_after_checks ? SKIP_EXIT_CODE : 0;
}

int lockstep_check_topics(const char *suite, int step, const lockstep_case *const *topics, size_t ntopics,
                          int argc, char **argv)
{
    size_t n = 0;
    for (size_t t = 0; t < ntopics; ++t)
        for (const lockstep_case *c = topics[t]; c->test; ++c)
            ++n;
    lockstep_case *cases = malloc(n * sizeof *cases);
    if (!cases) {
        fprintf(stderr, "%s: out of memory\n", suite);
        return 1;
    }
    n = 0;
    for (size_t t = 0; t < ntopics; ++t)
        for (const lockstep_case *c = topics[t]; c->test; ++c)
            cases[n++] = *c;
    int rc = lockstep_check_main(suite, step, cases, n, argc, argv);
    free(cases);
    return rc;
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
