/*
 * bench.c -- the lockstep benchmark, compiled for every step: the program
 * (its options, the table of workloads). Its files: bench.h.
 *
 * The workloads (what each timed region holds, per op):
 *   task_ready         co_await a task that has already completed, release it
 *   task_suspend       co_await a task suspended on a trigger; the harness
 *                      fires it, the task resumes the driver, which releases it
 *   task_abandon       release a suspended task unawaited, then complete it:
 *                      it frees itself
 *   task_race          N suspended tasks (set up untimed): thread A awaits
 *                      them in order while thread B completes them in order
 *   event_fanout/K     K waiters register, set() resumes them all (per
 *                      waiter per round)
 *   sequencer_chain/K  queue K tasks on an idle sequencer: each runs at once
 *   sequencer_backlog/K  queue K tasks behind a gate task, then open the
 *                      gate: the backlog drains
 * tests/bench/cxx runs the same workloads, names, method and report line on
 * the articles' C++, so the tour prints both side by side.
 *
 *   bench_stepNN [-n N] [-r RUNS] [--st] [--trim] [--list] [NAME-SUBSTRING[$]...]
 *
 * Each run of a workload is a fresh process (this program re-executed with
 * --one NAME): an untimed warm-up pass, then the timed pass, then a result
 * check and a leak check: with address-space randomization, the layout alone
 * moves some figures between processes while runs inside one process agree.
 * Before measuring, the child starts and joins one thread: glibc skips the
 * atomics in its mutexes and malloc while a process has never had a second
 * thread, which no threaded program sees (--st skips it). It also keeps
 * freed heap memory mapped, so the timed pass reuses the warm-up's pages
 * instead of timing page faults (--trim keeps libc's default).
 *
 * Report:  name  ns_per_op  allocs_per_op  # min .. med .. max .. (R runs) notes
 * ns_per_op is the median of the runs; allocs_per_op (lockstep_alloc calls in
 * the timed region / ops) is from the last run. The exit status is non-zero
 * only if a result or leak check failed: timings never fail anything.
 *
 * The counting build (LOCKSTEP_BENCH_COUNT, the tour's bench_count_stepNN:
 * the benchmark's files and the step's sources compiled with count_hook.h)
 * adds to each note what one op was made of in the timed region: "counted
 * per op:" the atomic operations, mutex locks, allocations and frees
 * (count.h). Its timings mean nothing: every operation also bumps a shared
 * counter.
 */
#include "bench.h"
#include "task_await.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static sample w_task_ready(size_t k, size_t n) { (void)k; return task_ready(n); }
static sample w_task_suspend(size_t k, size_t n) { (void)k; return task_suspend(n); }
static sample w_task_abandon(size_t k, size_t n) { (void)k; return task_abandon(n); }
static sample w_task_race(size_t k, size_t n) { (void)k; return task_race(n); }
#if LOCKSTEP_HAS_EVENT
#define W_EVENT_FANOUT event_fanout
#define LACKS_EVENT NULL
#else
#define W_EVENT_FANOUT NULL
#define LACKS_EVENT "has no awaitable_event (it arrives in step 04)"
#endif
#if LOCKSTEP_HAS_SEQUENCER
#define W_SEQUENCER_CHAIN sequencer_chain
#define W_SEQUENCER_BACKLOG sequencer_backlog
#define LACKS_SEQUENCER NULL
#else
#define W_SEQUENCER_CHAIN NULL
#define W_SEQUENCER_BACKLOG NULL
#define LACKS_SEQUENCER "has no task_sequencer (it arrives in step 06)"
#endif

static size_t make_table(workload *t)
{
    size_t n = 0;
    t[n++] = (workload){"task_ready", w_task_ready, 0, NULL};
    t[n++] = (workload){"task_suspend", w_task_suspend, 0, NULL};
    t[n++] = (workload){"task_abandon", w_task_abandon, 0, NULL};
    /* step 08: a lazy task starts in its await, so nothing races it */
    t[n++] = (workload){"task_race", TASK_IS_LAZY ? NULL : w_task_race, 0,
                        TASK_IS_LAZY ? "has a lazy task: its completion cannot race its await" : NULL};
    static const size_t fanout[] = {1, 64, 4096, 262144};
    for (size_t i = 0; i < 4; ++i) {
        t[n] = (workload){"", W_EVENT_FANOUT, fanout[i], LACKS_EVENT};
        snprintf(t[n++].name, sizeof t[0].name, "event_fanout/%zu", fanout[i]);
    }
    static const size_t seq[] = {1000, 1000000};
    for (size_t i = 0; i < 2; ++i) {
        t[n] = (workload){"", W_SEQUENCER_CHAIN, seq[i], LACKS_SEQUENCER};
        snprintf(t[n++].name, sizeof t[0].name, "sequencer_chain/%zu", seq[i]);
    }
    for (size_t i = 0; i < 2; ++i) {
        t[n] = (workload){"", W_SEQUENCER_BACKLOG, seq[i], LACKS_SEQUENCER};
        snprintf(t[n++].name, sizeof t[0].name, "sequencer_backlog/%zu", seq[i]);
    }
    return n;
}

/* A filter matches as a substring; a trailing '$' anchors it at the end. */
static bool wanted(const char *name, char *const *filters, int nfilters)
{
    if (nfilters == 0)
        return true;
    for (int i = 0; i < nfilters; ++i) {
        size_t len = strlen(filters[i]);
        bool anchored = len > 0 && filters[i][len - 1] == '$';
        size_t want = anchored ? len - 1 : len;
        if (want == 0)
            return true;
        char pat[64];
        snprintf(pat, sizeof pat, "%.*s", (int)want, filters[i]);
        for (const char *p = strstr(name, pat); p; p = strstr(p + 1, pat))
            if (!anchored || p[want] == '\0')
                return true;
    }
    return false;
}

/* The command line (see the top of this file). */
typedef struct options {
    size_t n;
    int runs;
    bool keep_heap, multi_threaded, help;
    const char *one; /* --one NAME: a child; "" for --list */
    char *filters[64];
    int nfilters;
} options;

static options parse_options(int argc, char **argv)
{
    options o = {.n = 1000000, .runs = 5, .keep_heap = true, .multi_threaded = true};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "-n") == 0 && i + 1 < argc)
            o.n = strtoull(argv[++i], NULL, 10);
        else if (strcmp(a, "-r") == 0 && i + 1 < argc)
            o.runs = atoi(argv[++i]);
        else if (strcmp(a, "--trim") == 0)
            o.keep_heap = false;
        else if (strcmp(a, "--st") == 0)
            o.multi_threaded = false;
        else if (strcmp(a, "--one") == 0 && i + 1 < argc)
            o.one = argv[++i];
        else if (strcmp(a, "--list") == 0)
            o.one = "";
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            o.help = true;
        else if (o.nfilters < 64)
            o.filters[o.nfilters++] = argv[i];
    }
    return o;
}

/* The report's first lines: the step, the compiler, the method, the stack limit. */
static void print_header(const options *o)
{
    struct rlimit rl;
    getrlimit(RLIMIT_STACK, &rl);
    char stack[32];
    if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(stack, sizeof stack, "unlimited");
    else
        snprintf(stack, sizeof stack, "%lluKiB", (unsigned long long)(rl.rlim_cur >> 10));
    printf("# bench (lockstep step %s), %s\n", LOCKSTEP_STEP_NAME, "cc " __VERSION__);
    printf("# N=%zu runs=%d (one process each: warm-up pass + timed pass) libc=%s heap=%s stack-limit=%s\n", o->n,
           o->runs, o->multi_threaded ? "multi-threaded" : "single-threaded", o->keep_heap ? "kept" : "trimmed", stack);
    printf("# %-32s %10s %9s\n", "name", "ns_per_op", "allocs/op");
    fflush(stdout);
}

/* One report line per wanted workload; false if a check failed or a child died. */
static bool measure_wanted(workload *table, size_t nwork, const options *o, char *argv0)
{
    bool all_ok = true;
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%zu", o->n);
    for (size_t i = 0; i < nwork; ++i) {
        if (!wanted(table[i].name, o->filters, o->nfilters))
            continue;
        if (!table[i].run) {
            printf("%-34s %10s %9s  # step %s %s\n", table[i].name, "-", "-", LOCKSTEP_STEP_NAME, table[i].lacks);
            continue;
        }
        char *args[8] = {argv0, "--one", table[i].name, "-n", nbuf, NULL, NULL, NULL};
        int a = 5;
        if (!o->multi_threaded)
            args[a++] = "--st";
        if (!o->keep_heap)
            args[a++] = "--trim";
        all_ok = measure_in_children(table[i].name, o->runs, args) && all_ok;
    }
    return all_ok;
}

int main(int argc, char **argv)
{
    options o = parse_options(argc, argv);
    if (o.help) {
        printf("usage: %s [-n N] [-r RUNS] [--st] [--trim] [--list] [NAME-SUBSTRING[$]...]\n", argv[0]);
        return 0;
    }
    if (o.n == 0 || o.runs < 1 || o.runs > MAX_RUNS) {
        fprintf(stderr, "bench: need N >= 1 and 1 <= RUNS <= %d\n", MAX_RUNS);
        return 2;
    }
    workload table[16];
    size_t nwork = make_table(table);

    if (o.one && !*o.one) { /* --list: every workload name, available or not */
        for (size_t i = 0; i < nwork; ++i)
            printf("%s\n", table[i].name);
        return 0;
    }
    if (o.one) { /* child: one run of one workload */
        for (size_t i = 0; i < nwork; ++i)
            if (strcmp(table[i].name, o.one) == 0 && table[i].run)
                return run_one(&table[i], o.n, o.multi_threaded, o.keep_heap);
        fprintf(stderr, "unknown workload %s\n", o.one);
        return 2;
    }

    find_self(argv[0]);
    print_header(&o);
    return measure_wanted(table, nwork, &o, argv[0]) ? 0 : 1;
}
