/*
 * bench.h -- what the benchmark's files share (one program, compiled for
 * every step; bench.c says what it measures and how):
 *
 *   meter.c            a sample, the stopwatch and allocation counter around
 *                      a timed region, and the counting build's tallies
 *   bench_task.c       the simple_task workloads
 *   bench_event.c      the awaitable_event workload (steps that have it)
 *   bench_sequencer.c  the task_sequencer workloads (steps that have it)
 *   harness.c          one process per run, the command line, the report line
 *                      from the runs (harness.h: the C++ column's too)
 *   bench.c            the program: the workloads' table, a run of one
 */
#ifndef LOCKSTEP_BENCH_H
#define LOCKSTEP_BENCH_H

#include "harness.h"
#include "lockstep/alloc.h"
#include "lockstep/coro.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- measuring (meter.c) ---------------------------------------------------- */

/* One timed pass: its time and allocations per op, its checks, its notes. */
typedef struct sample {
    double ns_per_op, allocs_per_op;
    bool ok;
    char note[480]; /* fixed buffer: a note must not allocate */
} sample;

/* Appends to the sample's note (printf format). */
void add_note(sample *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void);

/* The counting build's mark at the start of a timed region. */
#ifdef LOCKSTEP_BENCH_COUNT
#include "count.h"
typedef struct counts_mark {
    uint64_t counted[LOCKSTEP_COUNT_KINDS];
} counts_mark;
#else
typedef struct counts_mark {
    char unused;
} counts_mark;
#endif

/* Stopwatch + allocation counter around the timed region of one pass. */
typedef struct meter {
    uint64_t t0;
    lockstep_alloc_counts a0;
    counts_mark c0;
} meter;

void meter_start(meter *m);
sample meter_stop(const meter *m, size_t ops);

/* The counting build: forget the warm-up's tallies; add the timed pass's to
 * the note and print them as the run's figures (harness_print_figures); the
 * names of those figures, comma-separated, for the CSV's header (no-ops and
 * NULL in the timed build). */
void counts_reset(void);
void counts_note(sample *s);
const char *counts_heads(void);

/* Prints "bench: what" and exits 3 (out of memory, no thread). */
void die(const char *what);

/* ---- the workloads (bench_task.c, bench_event.c, bench_sequencer.c) ------- */

/* A finished driver: report it done and stay put (C++: final_suspend = suspend_always). */
lockstep_coro *driver_finish(lockstep_coro *self);

sample task_ready(size_t n);
sample task_suspend(size_t n);
sample task_abandon(size_t n);
sample task_race(size_t n);
#if LOCKSTEP_HAS_EVENT
sample event_fanout(size_t k, size_t n);
#endif
#if LOCKSTEP_HAS_SEQUENCER
sample sequencer_chain(size_t k, size_t n);
sample sequencer_backlog(size_t k, size_t n);
#endif

/* ---- the program (bench.c; the process harness: harness.h) ------------------- */

typedef sample (*workload_fn)(size_t k, size_t n);

typedef struct workload {
    char name[48];
    workload_fn run; /* NULL: this step lacks the component */
    size_t k;
    const char *lacks; /* why run is NULL */
} workload;

#endif
