/*
 * The decision tree and schedule ids: which way each run goes, and how the
 * search tries the next way (loom's path.rs).
 *
 * A run is a sequence of decisions. A decision is one of two kinds, made
 * by one function, path_branch:
 *
 *   - a thread choice: at a scheduling point where two or more threads
 *     could go (thread.c), which one does;
 *   - a read choice: an atomic operation that may go more than one way
 *     (location.c says which: the store a load reads, the place of a store
 *     in modification order, a weak compare-exchange's spurious failure),
 *     which way it goes, 0 the default (the newest store, the last place).
 *
 * The search is stateless (CHESS): to try another schedule it runs the
 * scenario again from the start, replaying a prefix of the previous
 * decisions and then taking a different one (path_next: depth first, the
 * deepest decision with an untried option).
 *
 * Each choice has a cost against the round's bound: switching away from a
 * thread that could have gone on is a preemption, and any read choice but
 * the default (a stale read, a store placed before one that ran earlier)
 * counts one too. A round with
 * bound P tries every schedule with at most P of both together
 * (run.c runs the rounds), so a bug is found first with as few of both as
 * possible: the shortest trace to read.
 *
 * The schedule id lists the threads chosen at each thread choice
 * (`1.0.1`), then, if some load read an older store, `/` and the read
 * choices (`1.0.1/0.1`, trailing zeros left out). --replay ID takes the
 * choices of the id in order as the run meets decisions of each kind, and
 * the defaults after it ends (the running thread goes on, a load reads the
 * newest store).
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct decision {
    enum branch_kind kind;
    unsigned options;  /* threads that could go; the stores a load may read (bit 0: the newest) */
    unsigned tried;    /* options already explored from here, or asleep (never to be) */
    int chosen;
    int current;       /* the thread that reached the point (EXPLORE_MAIN at the start) */
    int cost;          /* preemptions and stale reads in the schedule before this decision */
} decision;

#define MAX_DECISIONS 512
static decision g_path[MAX_DECISIONS];
static int g_depth;    /* decisions taken in this run */
static int g_prefix;   /* the first g_prefix decisions are replayed */
static int g_bound = 2;
static bool g_pruned;  /* a schedule was skipped for the bound */
static char g_error[200];

/* The reduction (sleep sets): g_sleep holds the threads whose next step
 * the search has already explored from an equivalent state (step.c says
 * which steps commute). A thread stays asleep while the steps taken are
 * independent of its own: running it now would only reorder commuting
 * steps of a schedule already explored. When every thread that could go is
 * asleep, this schedule repeats an execution already explored: it is
 * *blocked*, runs to its end (its threads cannot be stopped midway) and
 * opens no new branch. */
static bool g_reduce;
static unsigned g_sleep;
static bool g_blocked;
static long g_nblocked;

/* --replay: the id's choices of each kind, and how many of each are used. */
static bool g_replay;
static int g_wanted[2][MAX_DECISIONS], g_nwanted[2], g_used[2];

/* What choosing c at d costs: a preemption, or a stale read. */
static int cost(const decision *d, int c)
{
    if (d->kind == BRANCH_READ)
        return c != 0;
    return (d->options & (1u << d->current)) && c != d->current;
}

static int fallback(enum branch_kind kind, unsigned options, int current)
{
    if (kind == BRANCH_READ)
        return 0;
    return (options & (1u << current)) ? current : __builtin_ctz(options);
}

const char *path_error(void) { return g_error; }

/* A decision among options; asleep: options the reduction rules out here,
 * marked tried so that path_next never takes them. */
static int branch(enum branch_kind kind, unsigned options, int current, unsigned asleep)
{
    if (g_depth >= MAX_DECISIONS) {
        snprintf(g_error, sizeof g_error, "more than %d decisions in one schedule: is the scenario looping?",
                 MAX_DECISIONS);
        return -1;
    }
    decision *d = &g_path[g_depth];
    unsigned awake = options & ~asleep;
    int dflt = fallback(kind, awake ? awake : options, current);
    if (g_replay) {
        int c = g_used[kind] < g_nwanted[kind] ? g_wanted[kind][g_used[kind]++] : dflt;
        *d = (decision){kind, options, 0, c, current, 0};
    } else if (g_depth < g_prefix) {
        d->options = options; /* replaying the prefix: the choice stays, from the last run */
        d->current = current;
    } else {
        /* blocked: a repeat, nothing below it is explored */
        unsigned tried = g_blocked ? options : (1u << dflt) | asleep;
        *d = (decision){kind, options, tried, dflt, current, 0};
    }
    if (d->chosen < 0 || d->chosen >= 32 || !(options & (1u << d->chosen))) {
        if (kind == BRANCH_THREAD)
            snprintf(g_error, sizeof g_error, "replay diverged at decision %d: T%d cannot run there (a wrong id, "
                     "or a scenario that does not behave the same way every time)", g_depth, d->chosen);
        else
            snprintf(g_error, sizeof g_error, "replay diverged at decision %d: the load may read %d stores, not %d "
                     "back", g_depth, __builtin_popcount(options), d->chosen);
        return -1;
    }
    d->cost = g_depth > 0 ? g_path[g_depth - 1].cost + cost(&g_path[g_depth - 1], g_path[g_depth - 1].chosen) : 0;
    ++g_depth;
    return d->chosen;
}

int path_branch(enum branch_kind kind, unsigned options, int current)
{
    return branch(kind, options, current, 0);
}

/* After thread c was chosen: the sleeping threads, and the ones already
 * explored at this decision (tried), whose next step commutes with c's
 * stay asleep; the others wake. */
static void sleep_after(int c, unsigned tried, const step *steps)
{
    unsigned candidates = (g_sleep | tried) & ~(1u << c), next = 0;
    for (int t = 0; t < EXPLORE_MAX_THREADS; ++t)
        if ((candidates & (1u << t)) && !step_dependent(&steps[t], &steps[c]))
            next |= 1u << t;
    g_sleep = next;
}

int path_schedule(unsigned enabled, int current, const step *steps)
{
    unsigned asleep = g_reduce ? g_sleep & enabled : 0;
    if (asleep == enabled)
        asleep = 0, g_blocked = g_reduce;
    int c = __builtin_ctz(enabled);
    unsigned tried = 0;
    if (enabled & (enabled - 1)) { /* two or more: a decision */
        c = branch(BRANCH_THREAD, enabled, current, asleep);
        if (c < 0)
            return -1;
        tried = g_path[g_depth - 1].tried & enabled;
    }
    if (g_reduce && !g_blocked)
        sleep_after(c, tried, steps);
    return c;
}

void path_begin_round(int bound, bool reduce)
{
    g_bound = bound;
    g_reduce = reduce && !g_replay;
    g_pruned = false;
    g_prefix = 0;
    g_nblocked = 0;
}

void path_begin_schedule(void)
{
    g_nblocked += g_blocked;
    g_sleep = 0;
    g_blocked = false;
    g_depth = 0;
    g_used[BRANCH_THREAD] = g_used[BRANCH_READ] = 0;
}

bool path_next(void)
{
    for (int i = g_depth - 1; i >= 0; --i) {
        decision *d = &g_path[i];
        for (int c = 0; c < 32; ++c) {
            unsigned bit = 1u << c;
            if (!(d->options & bit) || (d->tried & bit))
                continue;
            if (d->cost + cost(d, c) > g_bound) {
                g_pruned = true;
                continue;
            }
            d->tried |= bit;
            d->chosen = c;
            g_prefix = g_depth = i + 1;
            return true;
        }
    }
    return false;
}

bool path_pruned(void) { return g_pruned; }
bool path_reduced(void) { return g_reduce; }
long path_blocked(void) { return g_nblocked + g_blocked; }
int path_bound(void) { return g_bound; }
bool path_replaying(void) { return g_replay; }

void path_id(char *buf, size_t size)
{
    size_t len = 0;
    int last_stale = -1;
    buf[0] = '\0';
    for (int i = 0; i < g_depth && len + 4 < size; ++i) {
        if (g_path[i].kind == BRANCH_READ) {
            if (g_path[i].chosen)
                last_stale = i;
            continue;
        }
        len += (size_t)snprintf(buf + len, size - len, len ? ".%d" : "%d", g_path[i].chosen);
    }
    if (len == 0)
        len = (size_t)snprintf(buf, size, "-");
    bool first = true;
    for (int i = 0; i <= last_stale && len + 4 < size; ++i)
        if (g_path[i].kind == BRANCH_READ) {
            len += (size_t)snprintf(buf + len, size - len, first ? "/%d" : ".%d", g_path[i].chosen);
            first = false;
        }
}

static bool parse_list(const char *s, int *out, int *n, int limit)
{
    *n = 0;
    if (strcmp(s, "-") == 0 || !*s)
        return true;
    while (*s) {
        char *end;
        long c = strtol(s, &end, 10);
        if (end == s || c < 0 || c >= limit || *n >= MAX_DECISIONS)
            return false;
        out[(*n)++] = (int)c;
        if (*end != '.' && *end != '\0')
            return false;
        s = *end == '.' ? end + 1 : end;
    }
    return true;
}

bool path_replay(const char *id)
{
    char threads[4 * MAX_DECISIONS];
    snprintf(threads, sizeof threads, "%s", id);
    char *slash = strchr(threads, '/');
    const char *reads = "";
    if (slash) {
        *slash = '\0';
        reads = slash + 1;
    }
    g_replay = true;
    g_bound = 64;
    return parse_list(threads, g_wanted[BRANCH_THREAD], &g_nwanted[BRANCH_THREAD], EXPLORE_MAX_THREADS) &&
           parse_list(reads, g_wanted[BRANCH_READ], &g_nwanted[BRANCH_READ], 32);
}

void path_replay_report(void)
{
    int threads = 0;
    for (int i = 0; i < g_depth; ++i)
        threads += g_path[i].kind == BRANCH_THREAD;
    if (g_used[BRANCH_THREAD] < g_nwanted[BRANCH_THREAD] || g_used[BRANCH_READ] < g_nwanted[BRANCH_READ])
        printf("explore: the schedule ended before the id did; the rest of the id was not used\n");
    else if (threads > g_nwanted[BRANCH_THREAD])
        printf("explore: the id ended before the schedule did: the decisions after it took the default "
               "(the thread that ran goes on; a load reads the newest store)\n");
}
