/*
 * floor.c -- what the operations the workloads are made of cost on this
 * machine, one at a time, with nothing else in the loop.
 *
 * The tour counts, for each workload on each step, how many of these
 * operations one op performs (count.h); their sum is the floor a cell cannot
 * go below, and the cell's ratio to it says how much of the time is the
 * design's own (calls, branches, cache misses, waiting for the other thread)
 * rather than the machine's price for its atomics and its allocator.
 *
 *   bench_floor [-n N] [-r ROUNDS] [--csv FILE]
 *
 * Prints one line per operation:  name  ns  # what was timed; min, median
 * ns is the fastest of ROUNDS rounds of N operations each (the rounds
 * interleave the operations, so a burst of load lands on all of them
 * alike). The rounds are short (100,000 operations, under 2 ms) and many
 * (31): load only ever adds time, so the fastest round is the price of the
 * operation itself, the floor; on a busy machine the median is already
 * the price plus someone else's time slice. --csv FILE writes the same
 * figures to FILE as CSV, the form a program reads (the tour): a header
 * row, then one row per operation (operation, ns_per_op, median_ns_per_op,
 * rounds, n, what, detail).
 *
 * Measured as the benchmark measures: after a thread has been started and
 * joined (glibc's mutexes and malloc skip their atomics until then), and
 * through the steps' own allocator, lockstep_alloc/lockstep_free (common/
 * src/alloc.c: a per-thread counter, plain moves, then malloc/free), of a
 * 64-byte block (a small coroutine frame).
 */
#include "harness.h"
#include "lockstep/alloc.h"

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Each operation works on its own cache line, owned by this thread: the
 * uncontended price, which is what every step pays on its fast paths. */
static _Alignas(64) _Atomic(uintptr_t) g_word;
static _Alignas(64) pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

/* An exchange whose result feeds the next one, so none can be dropped. */
static double time_exchange(size_t n)
{
    uintptr_t v = 1;
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < n; ++i)
        v = atomic_exchange_explicit(&g_word, v + 1, memory_order_acq_rel);
    uint64_t t1 = now_ns();
    atomic_store_explicit(&g_word, v, memory_order_relaxed);
    return (double)(t1 - t0) / (double)n;
}

/* A compare-exchange that succeeds (the expected value is the current one). */
static double time_compare_exchange(size_t n)
{
    uintptr_t expected = atomic_load_explicit(&g_word, memory_order_relaxed);
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < n; ++i) {
        uintptr_t desired = expected + 1;
        if (atomic_compare_exchange_strong_explicit(&g_word, &expected, desired, memory_order_acq_rel,
                                                    memory_order_acquire))
            expected = desired;
    }
    uint64_t t1 = now_ns();
    return (double)(t1 - t0) / (double)n;
}

/* fetch_add/fetch_sub: a reference count's price (steps 01 and 02). */
static double time_fetch_add(size_t n)
{
    uintptr_t sum = 0;
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < n; ++i)
        sum += atomic_fetch_add_explicit(&g_word, 1, memory_order_acq_rel);
    uint64_t t1 = now_ns();
    atomic_store_explicit(&g_word, sum, memory_order_relaxed);
    return (double)(t1 - t0) / (double)n;
}

static double time_alloc_free(size_t n)
{
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < n; ++i) {
        void *p = lockstep_alloc(64);
        if (!p) {
            fputs("bench_floor: out of memory\n", stderr);
            exit(3);
        }
        *(volatile char *)p = 1; /* a frame is written, as a task's is */
        lockstep_free(p);
    }
    uint64_t t1 = now_ns();
    return (double)(t1 - t0) / (double)n;
}

static double time_mutex(size_t n)
{
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < n; ++i) {
        pthread_mutex_lock(&g_mutex);
        pthread_mutex_unlock(&g_mutex);
    }
    uint64_t t1 = now_ns();
    return (double)(t1 - t0) / (double)n;
}

typedef struct operation {
    const char *name;
    double (*time)(size_t n);
    const char *what;   /* what was timed */
    const char *detail; /* about it, after a colon ("": nothing) */
} operation;

static const operation operations[] = {
    {"exchange", time_exchange, "atomic_exchange_explicit, acq_rel", ""},
    {"compare_exchange", time_compare_exchange, "atomic_compare_exchange_strong_explicit, acq_rel, succeeding", ""},
    {"fetch_add", time_fetch_add, "atomic_fetch_add_explicit, acq_rel (fetch_sub is the same instruction)", ""},
    {"alloc_free", time_alloc_free, "lockstep_alloc(64) + lockstep_free", "the steps' counting allocator over malloc"},
    {"mutex_pair", time_mutex, "pthread_mutex_lock + pthread_mutex_unlock, uncontended", ""},
};
#define NOPS (sizeof operations / sizeof operations[0])
#define MAX_ROUNDS 64

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *empty_thread(void *arg)
{
    return arg;
}

static bool usage(FILE *f, const char *argv0)
{
    fprintf(f, "usage: %s [-n N] [-r ROUNDS] [--csv FILE]\n", argv0);
    return false;
}

/* The command line, one getopt_long table, every number checked
 * (harness_number): false, having said what is wrong and the usage, or
 * the usage asked for (*help). */
static bool parse_options(int argc, char **argv, size_t *n, int *rounds, const char **csv_path, bool *help)
{
    static const struct option options[] = {{"csv", required_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'},
                                            {0}};
    unsigned long long v;
    int c;
    while ((c = getopt_long(argc, argv, "n:r:h", options, NULL)) != -1) {
        if (c == 'h')
            return !(*help = true);
        if (c == 'n' && harness_number(optarg, 1, SIZE_MAX, &v))
            *n = (size_t)v;
        else if (c == 'r' && harness_number(optarg, 1, MAX_ROUNDS, &v))
            *rounds = (int)v;
        else if (c == 'c')
            *csv_path = optarg;
        else {
            if (c == 'n' || c == 'r')
                fprintf(stderr, "%s: '%s': -%c needs a whole number, 1 to %llu\n", argv[0], optarg, c,
                        c == 'n' ? (unsigned long long)SIZE_MAX : (unsigned long long)MAX_ROUNDS);
            return usage(stderr, argv[0]);
        }
    }
    return optind == argc || usage(stderr, argv[0]);
}

int main(int argc, char **argv)
{
    size_t n = 100000;
    int rounds = 31;
    const char *csv_path = NULL;
    bool help = false;
    if (!parse_options(argc, argv, &n, &rounds, &csv_path, &help)) {
        if (help)
            usage(stdout, argv[0]);
        return help ? 0 : 2;
    }
    pthread_t t; /* libc's multi-threaded mode, as in the benchmark */
    if (pthread_create(&t, NULL, empty_thread, NULL) != 0 || pthread_join(t, NULL) != 0) {
        fputs("bench_floor: cannot start a thread\n", stderr);
        return 3;
    }
    for (size_t op = 0; op < NOPS; ++op) /* warm-up: page in, warm caches */
        operations[op].time(n / 10 + 1);
    double ns[NOPS][MAX_ROUNDS];
    for (int r = 0; r < rounds; ++r)
        for (size_t op = 0; op < NOPS; ++op)
            ns[op][r] = operations[op].time(n);
    FILE *csv = harness_csv_open(csv_path, "operation,ns_per_op,median_ns_per_op,rounds,n,what,detail");
    for (size_t op = 0; op < NOPS; ++op) {
        const operation *o = &operations[op];
        qsort(ns[op], (size_t)rounds, sizeof ns[op][0], cmp_double);
        printf("%-17s %6.2f  # %s%s%s; min %.2f med %.2f of %d rounds of %zu\n", o->name, ns[op][0], o->what,
               o->detail[0] ? ": " : "", o->detail, ns[op][0], ns[op][rounds / 2], rounds, n);
        harness_csv_put(csv, ',', "%s", o->name);
        harness_csv_put(csv, ',', "%.2f", ns[op][0]);
        harness_csv_put(csv, ',', "%.2f", ns[op][rounds / 2]);
        harness_csv_put(csv, ',', "%d", rounds);
        harness_csv_put(csv, ',', "%zu", n);
        harness_csv_put(csv, ',', "%s", o->what);
        harness_csv_put(csv, '\n', "%s", o->detail);
    }
    return harness_csv_close(csv) ? 0 : 3;
}
