/*
 * harness.c -- one process per run: the parent re-executes this program
 * (--one NAME) once per run, reads each child's RESULT line, and prints the
 * workload's report line (the median, the spread, the notes, the checks);
 * the child runs a warm-up pass and the timed pass, then checks for leaks.
 * tests/bench/cxx/harness.cpp is the same method for the C++ column.
 */
#include "bench.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* ---- child: one run of one workload --------------------------------------- */

static void *empty_thread(void *arg)
{
    return arg;
}

int run_one(const workload *w, size_t n, bool multi_threaded, bool keep_heap)
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
        if (pthread_create(&t, NULL, empty_thread, NULL) != 0)
            die("cannot start a thread");
        pthread_join(t, NULL);
    }
    w->run(w->k, n); /* warm-up: page in the heap, warm caches and predictors */
    int64_t live0 = lockstep_alloc_live();
    counts_reset();
    sample s = w->run(w->k, n);
    int64_t leaked = lockstep_alloc_live() - live0;
    if (leaked != 0) {
        s.ok = false;
        add_note(&s, " LEAKED %lld allocations;", (long long)leaked);
    }
    counts_note(&s);
    printf("RESULT %.4f %.6f %d %s\n", s.ns_per_op, s.allocs_per_op, s.ok ? 1 : 0, s.note);
    fflush(stdout);
    return 0;
}

/* ---- parent: runs in child processes, one report line ------------------------ */

static char g_self[4096]; /* this program, to re-execute */

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Returns false if a check failed or a child died. */
bool measure_in_children(const char *name, int runs, char *const args[])
{
    sample v[MAX_RUNS] = {{0}}; /* runs >= 1; the zeroing quiets gcc 12's -Wmaybe-uninitialized */
    for (int r = 0; r < runs; ++r) {
        static char out[1 << 16];
        out[0] = '\0';
        int status = run_child(args, out, sizeof out);
        bool parsed = false;
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            if (line[0] == '#' && r == 0)
                printf("%s\n", line);
            int ok = 0, used = 0;
            if (!parsed &&
                sscanf(line, "RESULT %lf %lf %d %n", &v[r].ns_per_op, &v[r].allocs_per_op, &ok, &used) >= 3) {
                v[r].ok = ok != 0;
                snprintf(v[r].note, sizeof v[r].note, "%s", line + used);
                parsed = true;
            }
        }
        if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || !parsed) {
            if (status != -1 && WIFSIGNALED(status))
                printf("%-34s %10s %9s  # CRASHED: killed by signal %d (%s)\n", name, "CRASH", "-", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
            else
                printf("%-34s %10s %9s  # child failed (status %d)\n", name, "FAIL", "-", status);
            fflush(stdout);
            return false;
        }
    }
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
    for (int i = 0; i < runs; ++i) { /* each distinct note once, in run order */
        bool seen = false;
        for (int j = 0; j < i; ++j)
            seen = seen || strcmp(v[i].note, v[j].note) == 0;
        if (!seen && v[i].note[0])
            printf(" %s%s", i ? "| " : "", v[i].note);
    }
    printf("%s\n", ok ? "" : " ** CHECK FAILED **");
    fflush(stdout);
    return ok;
}

void find_self(const char *argv0)
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
