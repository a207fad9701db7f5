/*
 * harness.h -- the benchmarks' process harness (harness.c), shared by the C
 * benchmark (bench.c) and the C++ column (cxx/harness.cpp, which includes
 * this header as C): the command line both take, one process per run, the
 * RESULT line a run prints, and the report line the parent makes of the
 * runs. What a run measures is the program's own (its workloads, its
 * sample type); how runs are made and reported exists once, here.
 */
#ifndef LOCKSTEP_BENCH_HARNESS_H
#define LOCKSTEP_BENCH_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_RUNS 64
#define MAX_FILTERS 64

/* The command line: [-n N] [-r RUNS] [--st] [--trim] [--list] [--one NAME]
 * [NAME-SUBSTRING[$]...]. */
typedef struct harness_options {
    size_t n;                  /* ops per timed pass (-n, 1000000) */
    int runs;                  /* processes per workload (-r, 5) */
    bool keep_heap;            /* freed heap stays mapped (--trim: libc's default) */
    bool multi_threaded;       /* the child starts a thread first (--st: it does not) */
    bool help;                 /* -h, --help */
    const char *one;           /* --one NAME: a child; "" for --list; NULL: the parent */
    char *filters[MAX_FILTERS]; /* which workloads to run: all if none */
    int nfilters;
} harness_options;

/* Parses argv; never fails (an unknown word is a filter). */
harness_options harness_parse_options(int argc, char **argv);

/* Whether the options' filters select workload `name`: a filter matches as
 * a substring, and a trailing '$' anchors it at the end. */
bool harness_wanted(const char *name, const harness_options *o);

/* Prints the report's method line (N, runs, libc mode, heap, stack limit)
 * and its column heads: the header's lines after the program's own. */
void harness_print_method(const harness_options *o);

/* Remembers this program (argv[0]) to re-execute it for each run. */
void harness_find_self(const char *argv0);

/* The child, before its passes: keeps freed heap mapped (keep_heap), starts
 * and joins one thread (multi_threaded: libc's multi-threaded paths from
 * then on). Exits 3 if it cannot start the thread. */
void harness_child_setup(bool multi_threaded, bool keep_heap);

/* The line a child prints on its stdout before it dies of a stack overflow
 * (the C++ column's sequencer backlog: cxx/harness.cpp). */
#define HARNESS_OVERFLOW_LINE "# STACK OVERFLOW"

/* The child's last line: RESULT ns_per_op allocs_per_op ok note. */
void harness_print_result(double ns_per_op, double allocs_per_op, bool ok, const char *note);

/* The parent: o->runs children (this program re-executed with --one NAME
 * and the options), then the report line from their RESULT lines. A child
 * that died of a stack overflow is reported with overflow_note after
 * "stack overflow" and is a finding, not a failure, if overflow_note is not
 * NULL. Returns false if a check failed or a child died otherwise. */
bool harness_measure(const char *name, const harness_options *o, const char *argv0, const char *overflow_note);

#ifdef __cplusplus
}
#endif

#endif
