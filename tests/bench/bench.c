/*
 * bench.c -- the lockstep benchmark, compiled for every step: the program
 * (the table of workloads, a run of one; the command line and the process
 * harness are harness.c's, shared with the C++ column). Its files: bench.h.
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
 *   bench_stepNN [-n N] [-r RUNS] [--st] [--trim] [--list] [--csv FILE] [NAME-SUBSTRING[$]...]
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
 * the timed region / ops) is from the last run. --csv FILE writes the same
 * figures to FILE as CSV, a header row and one row per report line (the
 * columns: harness.h), the form a program reads (the tour); with --list, a
 * column of the workloads' names. The exit status is non-zero only if a
 * result or leak check failed: timings never fail anything.
 *
 * The counting build (LOCKSTEP_BENCH_COUNT, the tour's bench_count_stepNN:
 * the benchmark's files and the step's sources compiled with count_hook.h)
 * adds to each note what one op was made of in the timed region: "counted
 * per op:" the atomic operations, mutex locks, allocations and frees
 * (count.h), and to each CSV row the same counts, one column each. Its
 * timings mean nothing: every operation also bumps a shared counter.
 */
#include "bench.h"
#include "task_await.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The child: one warm-up pass and one timed pass of `w`, then its RESULT
 * line (the counting build adds what one op was made of to the note). */
static int run_one(const workload *w, const harness_options *o)
{
    harness_child_setup(o->multi_threaded, o->keep_heap);
    w->run(w->k, o->n); /* warm-up: page in the heap, warm caches and predictors */
    int64_t live0 = lockstep_alloc_live();
    counts_reset();
    sample s = w->run(w->k, o->n);
    int64_t leaked = lockstep_alloc_live() - live0;
    if (leaked != 0) {
        s.ok = false;
        add_note(&s, " LEAKED %lld allocations;", (long long)leaked);
    }
    counts_note(&s);
    harness_print_result(s.ns_per_op, s.allocs_per_op, s.ok, s.note);
    return 0;
}

/* The report's first lines: the step, the compiler, then the method (harness.c). */
static void print_header(const harness_options *o)
{
    printf("# bench (lockstep step %s), %s\n", LOCKSTEP_STEP_NAME, "cc " __VERSION__);
    harness_print_method(o);
}

/* One report line per wanted workload; false if a check failed or a child died. */
static bool measure_wanted(workload *table, size_t nwork, const harness_options *o, const char *argv0)
{
    bool all_ok = true;
    for (size_t i = 0; i < nwork; ++i) {
        if (!harness_wanted(table[i].name, o))
            continue;
        if (!table[i].run) {
            char note[160];
            snprintf(note, sizeof note, "step %s %s", LOCKSTEP_STEP_NAME, table[i].lacks);
            harness_report_lacking(table[i].name, note);
            continue;
        }
        all_ok = harness_measure(table[i].name, o, argv0, NULL) && all_ok;
    }
    return all_ok;
}

int main(int argc, char **argv)
{
    harness_options o = harness_parse_options(argc, argv);
    if (o.bad) /* (what and the usage printed) */
        return 2;
    if (o.help) {
        harness_print_usage(stdout, argv[0]);
        return 0;
    }
    workload table[16];
    size_t nwork = make_table(table);

    if (o.one && !*o.one) { /* --list: every workload name, available or not */
        FILE *csv = harness_csv_open(o.csv, "workload");
        for (size_t i = 0; i < nwork; ++i) {
            printf("%s\n", table[i].name);
            harness_csv_put(csv, '\n', "%s", table[i].name);
        }
        return harness_csv_close(csv) ? 0 : 3;
    }
    if (o.one) { /* child: one run of one workload */
        for (size_t i = 0; i < nwork; ++i)
            if (strcmp(table[i].name, o.one) == 0 && table[i].run)
                return run_one(&table[i], &o);
        fprintf(stderr, "unknown workload %s\n", o.one);
        return 2;
    }

    harness_find_self(argv[0]);
    harness_open_report(&o, counts_heads());
    print_header(&o);
    bool all_ok = measure_wanted(table, nwork, &o, argv[0]);
    if (!harness_close_report())
        return 3;
    return all_ok ? 0 : 1;
}
