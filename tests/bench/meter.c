/*
 * meter.c -- measuring one pass: a sample's note, the stopwatch and the
 * allocation counter around its timed region, and, in the counting build
 * (LOCKSTEP_BENCH_COUNT), what the timed regions were made of.
 */
#include "bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void add_note(sample *s, const char *fmt, ...)
{
    size_t len = strlen(s->note);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->note + len, sizeof s->note - len, fmt, ap);
    va_end(ap);
}

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the counting build: what the timed regions were made of ------------ */
#ifdef LOCKSTEP_BENCH_COUNT
/* Summed over every timed region of a pass (sequencer_run has one per round). */
typedef struct op_counts {
    uint64_t ops, allocs, frees;
    uint64_t counted[LOCKSTEP_COUNT_KINDS];
} op_counts;

static op_counts g_counts;

static void counts_start(counts_mark *c)
{
    lockstep_count_read(c->counted);
}

static void counts_stop(const counts_mark *c, lockstep_alloc_counts a0, lockstep_alloc_counts a1, size_t ops)
{
    uint64_t now[LOCKSTEP_COUNT_KINDS];
    lockstep_count_read(now);
    for (int k = 0; k < LOCKSTEP_COUNT_KINDS; ++k)
        g_counts.counted[k] += now[k] - c->counted[k];
    g_counts.allocs += a1.allocs - a0.allocs;
    g_counts.frees += a1.frees - a0.frees;
    g_counts.ops += ops;
}

void counts_reset(void)
{
    memset(&g_counts, 0, sizeof g_counts);
}

/* What a timed pass was made of per op: names in the order of the note
 * and of the CSV's columns (the tour reads the columns: tests/bench/tour.py). */
#define NCOUNTED 9
static const char *const counted_names[NCOUNTED] = {"exchange", "compare_exchange", "fetch_op", "mutex", "cond",
                                                    "alloc",    "free",             "load",     "store"};

const char *counts_heads(void)
{
    static char heads[160];
    if (!heads[0])
        for (int i = 0; i < NCOUNTED; ++i)
            snprintf(heads + strlen(heads), sizeof heads - strlen(heads), "%s%s", i ? "," : "", counted_names[i]);
    return heads;
}

void counts_note(sample *s)
{
    double ops = g_counts.ops ? (double)g_counts.ops : 1.0;
    const uint64_t *c = g_counts.counted;
    const double per_op[NCOUNTED] = {
        (double)c[LOCKSTEP_COUNT_EXCHANGE] / ops, (double)c[LOCKSTEP_COUNT_COMPARE_EXCHANGE] / ops,
        (double)c[LOCKSTEP_COUNT_FETCH_OP] / ops, (double)c[LOCKSTEP_COUNT_MUTEX_LOCK] / ops,
        (double)c[LOCKSTEP_COUNT_COND] / ops,     (double)g_counts.allocs / ops,
        (double)g_counts.frees / ops,             (double)c[LOCKSTEP_COUNT_LOAD] / ops,
        (double)c[LOCKSTEP_COUNT_STORE] / ops};
    char figures[256] = "";
    add_note(s, " counted per op:");
    for (int i = 0; i < NCOUNTED; ++i) {
        add_note(s, " %s %.4f", counted_names[i], per_op[i]);
        snprintf(figures + strlen(figures), sizeof figures - strlen(figures), "%s%.4f", i ? "," : "", per_op[i]);
    }
    add_note(s, ";");
    harness_print_figures(figures);
}
#else
static void counts_start(counts_mark *c) { (void)c; }
static void counts_stop(const counts_mark *c, lockstep_alloc_counts a0, lockstep_alloc_counts a1, size_t ops)
{
    (void)c;
    (void)a0;
    (void)a1;
    (void)ops;
}
void counts_reset(void) {}
void counts_note(sample *s) { (void)s; }
const char *counts_heads(void) { return NULL; }
#endif

void meter_start(meter *m)
{
    m->a0 = lockstep_alloc_totals();
    counts_start(&m->c0);
    m->t0 = now_ns();
}

sample meter_stop(const meter *m, size_t ops)
{
    uint64_t t1 = now_ns();
    lockstep_alloc_counts a1 = lockstep_alloc_totals();
    counts_stop(&m->c0, m->a0, a1, ops);
    sample s;
    memset(&s, 0, sizeof s);
    s.ok = true;
    s.ns_per_op = (double)(t1 - m->t0) / (double)ops;
    s.allocs_per_op = (double)(a1.allocs - m->a0.allocs) / (double)ops;
    return s;
}

void die(const char *what)
{
    fprintf(stderr, "bench: %s\n", what);
    exit(3);
}
