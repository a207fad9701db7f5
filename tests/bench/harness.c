/*
 * harness.c -- the process harness both benchmarks share (harness.h): the
 * parent re-executes this program (--one NAME) once per run, reads each
 * child's RESULT line, and prints the workload's report line (the median,
 * the spread, the notes, the checks); the child, set up here, runs its
 * workload's warm-up pass and timed pass (bench.c, cxx/harness.cpp) and
 * prints its RESULT line here. With --csv FILE, each report line is also a
 * row of FILE, the form programs read (tests/bench/tour.py).
 */
#include "harness.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* ---- the command line --------------------------------------------------------- */

bool harness_number(const char *text, unsigned long long lo, unsigned long long hi, unsigned long long *out)
{
    if (!isdigit((unsigned char)text[0])) /* (strtoull would take a sign, or blanks, before it) */
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* The options, one table (getopt_long): a long option with no short
 * letter has one of these. */
enum { OPT_TRIM = 256, OPT_ST, OPT_ONE, OPT_LIST, OPT_CSV };

static const struct option g_options[] = {
    {"trim", no_argument, NULL, OPT_TRIM},
    {"st", no_argument, NULL, OPT_ST},
    {"one", required_argument, NULL, OPT_ONE},
    {"list", no_argument, NULL, OPT_LIST},
    {"csv", required_argument, NULL, OPT_CSV},
    {"help", no_argument, NULL, 'h'},
    {0},
};

/* A bad argument: what is wrong with it (NULL: getopt_long said), then the usage. */
static harness_options bad(harness_options o, const char *argv0, const char *arg, const char *what, long limit)
{
    if (what) {
        fprintf(stderr, "%s: '%s': ", argv0, arg);
        fprintf(stderr, what, limit);
        fputc('\n', stderr);
    }
    harness_print_usage(stderr, argv0);
    o.bad = true;
    return o;
}

harness_options harness_parse_options(int argc, char **argv)
{
    harness_options o = {.n = 1000000, .runs = 5, .keep_heap = true, .multi_threaded = true};
    unsigned long long v;
    int c;
    opterr = 1; /* getopt_long says what is wrong with an option itself */
    while ((c = getopt_long(argc, argv, "n:r:h", g_options, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!harness_number(optarg, 1, SIZE_MAX, &v))
                return bad(o, argv[0], optarg, "-n needs a whole number of ops, %ld or more", 1);
            o.n = (size_t)v;
            break;
        case 'r':
            if (!harness_number(optarg, 1, MAX_RUNS, &v))
                return bad(o, argv[0], optarg, "-r needs a whole number of runs, 1 to %ld", MAX_RUNS);
            o.runs = (int)v;
            break;
        case OPT_TRIM: o.keep_heap = false; break;
        case OPT_ST: o.multi_threaded = false; break;
        case OPT_ONE: o.one = optarg; break;
        case OPT_LIST: o.one = ""; break;
        case OPT_CSV: o.csv = optarg; break;
        case 'h': o.help = true; break;
        default: return bad(o, argv[0], NULL, NULL, 0); /* (getopt_long said what) */
        }
    }
    for (int i = optind; i < argc; ++i) {
        if (o.nfilters == MAX_FILTERS)
            return bad(o, argv[0], argv[i], "more than %ld workload filters", MAX_FILTERS);
        o.filters[o.nfilters++] = argv[i];
    }
    return o;
}

void harness_print_usage(FILE *f, const char *argv0)
{
    fprintf(f, "usage: %s [-n N] [-r RUNS] [--st] [--trim] [--list] [--csv FILE] [NAME-SUBSTRING[$]...]\n", argv0);
}

bool harness_wanted(const char *name, const harness_options *o)
{
    if (o->nfilters == 0)
        return true;
    for (int i = 0; i < o->nfilters; ++i) {
        const char *f = o->filters[i];
        size_t len = strlen(f);
        bool anchored = len > 0 && f[len - 1] == '$';
        size_t want = anchored ? len - 1 : len;
        if (want == 0)
            return true;
        char pat[64];
        snprintf(pat, sizeof pat, "%.*s", (int)want, f);
        for (const char *p = strstr(name, pat); p; p = strstr(p + 1, pat))
            if (!anchored || p[want] == '\0')
                return true;
    }
    return false;
}

void harness_print_method(const harness_options *o)
{
    struct rlimit rl;
    getrlimit(RLIMIT_STACK, &rl);
    char stack[32];
    if (rl.rlim_cur == RLIM_INFINITY)
        snprintf(stack, sizeof stack, "unlimited");
    else
        snprintf(stack, sizeof stack, "%lluKiB", (unsigned long long)(rl.rlim_cur >> 10));
    printf("# N=%zu runs=%d (one process each: warm-up pass + timed pass) libc=%s heap=%s stack-limit=%s\n", o->n,
           o->runs, o->multi_threaded ? "multi-threaded" : "single-threaded", o->keep_heap ? "kept" : "trimmed", stack);
    printf("# %-32s %10s %9s\n", "name", "ns_per_op", "allocs/op");
    fflush(stdout);
}

/* ---- child: set up one run, report it ------------------------------------------ */

static void *empty_thread(void *arg)
{
    return arg;
}

void harness_child_setup(bool multi_threaded, bool keep_heap)
{
#ifdef __GLIBC__
    if (keep_heap) {
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        mallopt(M_MMAP_THRESHOLD, 1 << 30);
    }
#else
    (void)keep_heap;
#endif
    if (multi_threaded) { /* libc takes its multi-threaded paths from now on */
        pthread_t t;
        if (pthread_create(&t, NULL, empty_thread, NULL) != 0) {
            fprintf(stderr, "bench: cannot start a thread\n");
            exit(3);
        }
        pthread_join(t, NULL);
    }
}

void harness_print_result(double ns_per_op, double allocs_per_op, bool ok, const char *note)
{
    printf("RESULT %.4f %.6f %d %s\n", ns_per_op, allocs_per_op, ok ? 1 : 0, note);
    fflush(stdout);
}

void harness_print_figures(const char *values)
{
    printf("FIGURES %s\n", values);
}

/* ---- CSV ------------------------------------------------------------------------ */

FILE *harness_csv_open(const char *path, const char *head)
{
    if (!path)
        return NULL;
    FILE *csv = fopen(path, "w");
    if (!csv) {
        perror(path);
        exit(2);
    }
    fprintf(csv, "%s\n", head);
    return csv;
}

/* One field, quoted if it must be (RFC 4180), then `end`. */
static void csv_text(FILE *csv, const char *text, char end)
{
    if (!strpbrk(text, ",\"\r\n")) {
        fprintf(csv, "%s%c", text, end);
        return;
    }
    fputc('"', csv);
    for (const char *c = text; *c; ++c) {
        if (*c == '"')
            fputc('"', csv); /* a quote is written twice */
        fputc(*c, csv);
    }
    fprintf(csv, "\"%c", end);
}

void harness_csv_put(FILE *csv, char end, const char *fmt, ...)
{
    if (!csv)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    csv_text(csv, text, end);
}

bool harness_csv_close(FILE *csv)
{
    if (!csv)
        return true;
    bool ok = !ferror(csv);
    ok = fclose(csv) == 0 && ok;
    if (!ok)
        fprintf(stderr, "bench: writing the CSV failed\n");
    return ok;
}

/* ---- parent: runs in child processes, one report line ------------------------ */

static char g_self[4096]; /* this program, to re-execute */

void harness_find_self(const char *argv0)
{
    if (access("/proc/self/exe", X_OK) == 0) {
        snprintf(g_self, sizeof g_self, "/proc/self/exe");
        return;
    }
    /* no /proc (macOS): argv[0], made absolute */
    char cwd[2048];
    if (argv0[0] != '/' && getcwd(cwd, sizeof cwd))
        snprintf(g_self, sizeof g_self, "%s/%s", cwd, argv0);
    else
        snprintf(g_self, sizeof g_self, "%s", argv0);
}

/* Runs this program with `args`, appending its stdout to `out`. Returns the
 * wait status, or -1 if it could not be started. */
static int run_child(char *const args[], char *out, size_t out_size)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(g_self, args);
        _exit(127);
    }
    close(fd[1]);
    size_t len = strlen(out);
    ssize_t got;
    while ((got = read(fd[0], out + len, out_size - 1 - len)) > 0)
        len += (size_t)got;
    out[len] = '\0';
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

/* One run as its RESULT line says, and its FIGURES line if it had one. */
typedef struct run_result {
    double ns_per_op, allocs_per_op;
    bool ok;
    char note[480];
    char figures[256];
} run_result;

/* Reads a child's output: its RESULT line into `res` (false if none), its
 * comment lines echoed if `echo`, a stack overflow noted in `overflow`. */
static bool read_child(char *out, bool echo, run_result *res, bool *overflow)
{
    bool parsed = false;
    res->figures[0] = '\0';
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        bool is_overflow = strcmp(line, HARNESS_OVERFLOW_LINE) == 0;
        *overflow = *overflow || is_overflow;
        if (line[0] == '#' && echo && !is_overflow)
            printf("%s\n", line);
        if (strncmp(line, "FIGURES ", 8) == 0)
            snprintf(res->figures, sizeof res->figures, "%s", line + 8);
        int ok = 0, used = 0;
        if (!parsed &&
            sscanf(line, "RESULT %lf %lf %d %n", &res->ns_per_op, &res->allocs_per_op, &ok, &used) >= 3) {
            res->ok = ok != 0;
            snprintf(res->note, sizeof res->note, "%s", line + used);
            parsed = true;
        }
    }
    return parsed;
}

/* ---- the report's CSV -------------------------------------------------------- */

static FILE *g_report; /* --csv FILE, or NULL */
static int g_nfigures; /* the program's own figures per row */

void harness_open_report(const harness_options *o, const char *figure_heads)
{
    char head[512];
    snprintf(head, sizeof head, "%s,%s%snote", HARNESS_REPORT_HEAD, figure_heads ? figure_heads : "",
             figure_heads ? "," : "");
    g_report = harness_csv_open(o->csv, head);
    g_nfigures = figure_heads ? 1 : 0;
    for (const char *c = figure_heads; c && *c; ++c)
        g_nfigures += *c == ',';
}

bool harness_close_report(void)
{
    return harness_csv_close(g_report);
}

/* A report line's row: `numbers`, its columns from ns_per_op to signal
 * (HARNESS_REPORT_HEAD), already comma-separated; the program's own
 * `figures` (NULL or "": none, empty fields); the note, however long. */
static void report_row(const char *name, const char *status, const char *numbers, const char *figures,
                       const char *note)
{
    if (!g_report)
        return;
    csv_text(g_report, name, ',');
    fprintf(g_report, "%s,%s,", status, numbers);
    if (figures && *figures)
        fprintf(g_report, "%s,", figures);
    else
        for (int i = 0; i < g_nfigures; ++i)
            fputc(',', g_report);
    csv_text(g_report, note, '\n');
    fflush(g_report);
}

/* ---- the report lines ---------------------------------------------------------- */

void harness_report_lacking(const char *name, const char *note)
{
    printf("%-34s %10s %9s  # %s\n", name, "-", "-", note);
    report_row(name, "lacking", ",,,,,,,,", NULL, note);
}

/* The report line of a child that failed: its signal, or its status. */
static void print_failed_child(const char *name, int status, bool overflow, const char *overflow_note)
{
    char why[512], numbers[32] = ",,,,,,,,";
    if (status != -1 && WIFSIGNALED(status)) {
        snprintf(why, sizeof why, "CRASHED: killed by signal %d (%s)%s%s", WTERMSIG(status),
                 strsignal(WTERMSIG(status)), overflow ? ": stack overflow" : "",
                 overflow && overflow_note ? overflow_note : "");
        printf("%-34s %10s %9s  # %s\n", name, "CRASH", "-", why);
        snprintf(numbers, sizeof numbers, ",,,,,,,,%d", WTERMSIG(status));
        report_row(name, overflow ? "stack overflow" : "crashed", numbers, NULL, why);
    } else {
        snprintf(why, sizeof why, "child failed (status %d)", status);
        printf("%-34s %10s %9s  # %s\n", name, "FAIL", "-", why);
        report_row(name, "failed", numbers, NULL, why);
    }
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The report line of `runs` runs: the median and the spread of ns/op, the
 * last run's allocs/op, each distinct note once. Returns whether every
 * run's checks passed. */
static bool print_report(const char *name, const run_result *v, int runs, size_t n)
{
    double ns[MAX_RUNS];
    bool ok = true;
    double amin = v[0].allocs_per_op, amax = amin;
    for (int r = 0; r < runs; ++r) {
        ns[r] = v[r].ns_per_op;
        ok = ok && v[r].ok;
        amin = v[r].allocs_per_op < amin ? v[r].allocs_per_op : amin;
        amax = v[r].allocs_per_op > amax ? v[r].allocs_per_op : amax;
    }
    qsort(ns, (size_t)runs, sizeof ns[0], cmp_double);
    printf("%-34s %10.2f %9.4f  # min %.2f med %.2f max %.2f (%d runs)", name, ns[runs / 2], v[runs - 1].allocs_per_op,
           ns[0], ns[runs / 2], ns[runs - 1], runs);
    if (amax - amin > 1e-9)
        printf(" allocs/op varied %.4f..%.4f", amin, amax);
    static char notes[MAX_RUNS * (sizeof v[0].note + 3)];
    size_t len = 0;
    notes[0] = '\0';
    for (int i = 0; i < runs; ++i) { /* each distinct note once, in run order */
        bool seen = false;
        for (int j = 0; j < i; ++j)
            seen = seen || strcmp(v[i].note, v[j].note) == 0;
        if (!seen && v[i].note[0])
            len += (size_t)snprintf(notes + len, sizeof notes - len, " %s%s", i ? "| " : "", v[i].note);
    }
    printf("%s%s\n", notes, ok ? "" : " ** CHECK FAILED **");
    fflush(stdout);
    char numbers[256];
    snprintf(numbers, sizeof numbers, "%.2f,%.2f,%.2f,%.4f,%.4f,%.4f,%d,%zu,", ns[runs / 2], ns[0], ns[runs - 1],
             v[runs - 1].allocs_per_op, amin, amax, runs, n);
    report_row(name, ok ? "ok" : "check failed", numbers, v[runs - 1].figures, notes[0] ? notes + 1 : notes);
    return ok;
}

bool harness_measure(const char *name, const harness_options *o, const char *argv0, const char *overflow_note)
{
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%zu", o->n);
    char *args[8] = {(char *)argv0, "--one", (char *)name, "-n", nbuf, NULL, NULL, NULL};
    int a = 5;
    if (!o->multi_threaded)
        args[a++] = "--st";
    if (!o->keep_heap)
        args[a++] = "--trim";
    static run_result v[MAX_RUNS]; /* runs >= 1 */
    for (int r = 0; r < o->runs; ++r) {
        static char out[1 << 16];
        out[0] = '\0';
        int status = run_child(args, out, sizeof out);
        bool overflow = false;
        bool parsed = read_child(out, r == 0, &v[r], &overflow);
        if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !parsed) {
            print_failed_child(name, status, overflow, overflow_note);
            return overflow && overflow_note;
        }
    }
    return print_report(name, v, o->runs, o->n);
}
