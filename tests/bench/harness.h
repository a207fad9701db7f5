/*
 * harness.h -- the benchmarks' process harness (harness.c), shared by the C
 * benchmark (bench.c) and the C++ column (cxx/harness.cpp, which includes
 * this header as C): the command line both take, one process per run, the
 * RESULT line a run prints, and the report line the parent makes of the
 * runs, printed and, with --csv FILE, written as a CSV row for programs to
 * read (the tour, tests/bench/tour.py). What a run measures is the
 * program's own (its workloads, its sample type); how runs are made and
 * reported exists once, here.
 */
#ifndef LOCKSTEP_BENCH_HARNESS_H
#define LOCKSTEP_BENCH_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_RUNS 64
#define MAX_FILTERS 64

/* The command line: [-n N] [-r RUNS] [--st] [--trim] [--list] [--csv FILE]
 * [--one NAME] [NAME-SUBSTRING[$]...]. */
typedef struct harness_options {
    size_t n;                  /* ops per timed pass (-n, 1000000) */
    int runs;                  /* processes per workload (-r, 5) */
    bool keep_heap;            /* freed heap stays mapped (--trim: libc's default) */
    bool multi_threaded;       /* the child starts a thread first (--st: it does not) */
    bool help;                 /* -h, --help */
    bool bad;                  /* a bad argument: the message and the usage are printed (exit 2) */
    const char *one;           /* --one NAME: a child; "" for --list; NULL: the parent */
    const char *csv;           /* --csv FILE: the report as CSV too (NULL: none) */
    char *filters[MAX_FILTERS]; /* which workloads to run: all if none */
    int nfilters;
} harness_options;

/* Parses argv with getopt_long: the options above, each number checked
 * (1 <= N, 1 <= RUNS <= MAX_RUNS), every other word a filter. A bad
 * argument (an unknown option, a number out of range or not a number, more
 * than MAX_FILTERS filters) sets .bad, having printed what is wrong and
 * the usage to stderr: the program exits 2. */
harness_options harness_parse_options(int argc, char **argv);

/* Prints the usage line to f (-h, --help: stdout; a bad argument: stderr),
 * the same for every program on the harness. */
void harness_print_usage(FILE *f, const char *argv0);

/* Whether text is a whole number in [lo, hi], all of it (no sign, no
 * trailing characters, no overflow); *out is it. */
bool harness_number(const char *text, unsigned long long lo, unsigned long long hi, unsigned long long *out);

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

/* The child's own figures, before its RESULT line: FIGURES v1,v2,... (the
 * counting build's counts per op), one per column named by
 * harness_open_report's figure_heads; the parent reports the last run's. */
void harness_print_figures(const char *values);

/* The parent: o->runs children (this program re-executed with --one NAME
 * and the options), then the report line from their RESULT lines. A child
 * that died of a stack overflow is reported with overflow_note after
 * "stack overflow" and is a finding, not a failure, if overflow_note is not
 * NULL. Returns false if a check failed or a child died otherwise. */
bool harness_measure(const char *name, const harness_options *o, const char *argv0, const char *overflow_note);

/* The report line of a workload the program lacks: "-" for its figures,
 * then the note (why). */
void harness_report_lacking(const char *name, const char *note);

/* ---- the report as CSV (--csv FILE), for programs to read ------------------- */

/* The report's columns, one row per report line and the same figures: the
 * workload, its status (ok, check failed, lacking, crashed, stack overflow,
 * failed), the median, fastest and slowest ns/op of its runs, the last
 * run's allocs/op and the fewest and most of all runs, the runs, N, the
 * signal that killed a run; then the program's own figures; last, the
 * notes (the text's comment after the figures). */
#define HARNESS_REPORT_HEAD                                                                                         \
    "workload,status,ns_per_op,min_ns_per_op,max_ns_per_op,allocs_per_op,min_allocs_per_op,max_allocs_per_op,"     \
    "runs,n,signal"

/* Opens o->csv, if any, for the report's rows and writes its header:
 * HARNESS_REPORT_HEAD, figure_heads (comma-separated, or NULL), note. */
void harness_open_report(const harness_options *o, const char *figure_heads);

/* Closes the report's CSV; false if writing it failed (said on stderr). */
bool harness_close_report(void);

/* A CSV file of one's own (bench_floor, --list): opens `path` and writes
 * its header row `head` (comma-separated names); NULL if path is NULL.
 * Exits 2 if it cannot open it. */
FILE *harness_csv_open(const char *path, const char *head);

/* Writes one field (printf format, up to 1023 characters) to `csv`
 * (nothing if NULL), quoted when it holds a comma, a quote or a line break
 * (RFC 4180), then `end`: ',' or '\n' (the row's last). */
void harness_csv_put(FILE *csv, char end, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Closes `csv` (nothing if NULL); false if writing it failed (said on stderr). */
bool harness_csv_close(FILE *csv);

#ifdef __cplusplus
}
#endif

#endif
