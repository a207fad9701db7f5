/*
 * The scheduler: real threads, one at a time, and the depth-first search
 * over the decisions of who runs next.
 *
 * Each scenario thread stops at every scheduling point (hook.h) and waits
 * until the scheduler names it. The thread that is running decides who goes
 * next when it reaches its next point (or ends), so at any moment exactly one
 * thread runs: the others wait on g_cv.
 *
 * A run is a sequence of decisions. The search is stateless (CHESS): to try
 * another schedule it runs the scenario again from the start, replaying a
 * prefix of the previous decisions and then taking a different one. Only
 * points where two or more threads could go are decisions; the schedule id
 * (`1.0.0.1`) lists the threads chosen there, so `--replay ID` runs the same
 * schedule again.
 *
 * Preemption bounding: switching away from a thread that could have gone on
 * is a preemption. Most concurrency bugs need very few of them, so the search
 * runs in rounds, CHESS's iterative bounding: every schedule with at most 0
 * preemptions, then at most 1, 2, ... A bug is therefore found first in a
 * schedule with as few preemptions as possible, whose trace is the shortest
 * to read. The rounds stop when one skipped nothing (every schedule was
 * explored: "exhaustive"), or at the bound P (default 2) once a round costs
 * more than SMALL_ROUND schedules; with --preemptions P, at P.
 *
 * Under the C11 model a thread's load may also read an older store than the
 * newest (history.c): which one is a decision too, of the running thread
 * (explore_choose), and reading an older store costs one unit of the bound,
 * like a preemption. So a round with bound P tries every schedule with at
 * most P preemptions and stale reads together, and the first failure found
 * needs as few of both as possible.
 */
#include "explore.h"
#include "model.h"

#include "lockstep/coro.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the threads ------------------------------------------------------- */

typedef struct xthread {
    pthread_t pt;
    void (*fn)(void);
    const char *name;
    bool arrived;            /* waiting at a scheduling point */
    bool done;
    pthread_mutex_t *wants;  /* its next operation locks this mutex */
    pthread_cond_t *waits;   /* inside pthread_cond_wait, not signalled yet */
    bool (*until)(void);     /* explore_wait_until: runnable once this is true */
    const char *until_what;
} xthread;

enum { MAIN = -1 };

static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static xthread g_threads[EXPLORE_MAX_THREADS];
static int g_nthreads;
static int g_running = MAIN;  /* who may run: a thread index, or MAIN */
static int g_arrived_at_start;
static _Thread_local int t_self = MAIN;

/* The modelled mutexes: which thread holds each (real mutexes are also
 * locked, but only ever when the model says they are free). */
typedef struct held { pthread_mutex_t *m; int owner; } held;
static held g_held[16];
static int g_nheld;

static int holder(pthread_mutex_t *m)
{
    for (int i = 0; i < g_nheld; ++i)
        if (g_held[i].m == m)
            return g_held[i].owner;
    return MAIN;
}

static void set_holder(pthread_mutex_t *m, int owner)
{
    for (int i = 0; i < g_nheld; ++i)
        if (g_held[i].m == m) {
            if (owner == MAIN)
                g_held[i] = g_held[--g_nheld];
            return;
        }
    if (owner != MAIN) {
        assert(g_nheld < 16);
        g_held[g_nheld++] = (held){m, owner};
    }
}

/* The scenario's predicate runs here on whichever thread decides: its
 * reads are the explorer's, not the program's (model_quiet). */
static bool until_holds(const xthread *t)
{
    model_quiet(true);
    bool ok = t->until();
    model_quiet(false);
    return ok;
}

static bool runnable(const xthread *t)
{
    return t->arrived && !t->done && !t->waits && !(t->wants && holder(t->wants) != MAIN) &&
           !(t->until && !until_holds(t));
}

/* ---- the decisions ----------------------------------------------------- */

typedef struct node {
    unsigned enabled; /* threads that could go; for a read, the stores it may read (bit 0: the newest) */
    unsigned tried;   /* options already explored from here */
    int chosen;
    int current;      /* the thread that reached the point (MAIN at the start) */
    int preemptions;  /* preemptions and stale reads in the schedule before this decision */
    bool read;        /* a load's choice of store (explore_choose), not a choice of thread */
} node;

#define MAX_DECISIONS 512
#define MAX_DECISIONS_ MAX_DECISIONS
static node g_nodes[MAX_DECISIONS];
static int g_depth;   /* decisions taken in this run */
static int g_prefix;  /* the first g_prefix decisions are replayed */
static int g_bound = 2;
static bool g_pruned; /* a schedule was skipped for the bound */
static bool g_truncated; /* a load could have read a store older than the history keeps */
static bool g_replay;

/* What a choice costs against the bound: a preemption, or a stale read. */
static bool is_preemption(const node *n, int choice)
{
    if (n->read)
        return choice != 0;
    return n->current != MAIN && (n->enabled & (1u << n->current)) && choice != n->current;
}

/* --replay: the thread choices and the read choices of the id, each taken
 * in order as the run meets its decisions of that kind. */
static int g_replay_threads[MAX_DECISIONS_], g_nreplay_threads, g_replay_reads[MAX_DECISIONS_], g_nreplay_reads;
static int g_next_thread, g_next_read;

static bool g_running_schedule;
bool explore_running(void) { return g_running_schedule; }

static void describe_blocked(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < g_nthreads && len < size; ++i) {
        const xthread *t = &g_threads[i];
        if (t->done)
            continue;
        if (t->waits)
            len += (size_t)snprintf(buf + len, size - len, " T%d waits on a condition variable nobody signals;", i);
        else if (t->wants)
            len += (size_t)snprintf(buf + len, size - len, " T%d wants a mutex held by T%d;", i, holder(t->wants));
        else if (t->until)
            len += (size_t)snprintf(buf + len, size - len, " T%d waits until %s;", i, t->until_what);
    }
}

/* Picks who runs next and wakes it. Called with g_mx held by the thread that
 * just reached a point or ended (current), or by main at the start. */
static void decide(int current)
{
    unsigned enabled = 0;
    bool all_done = true;
    for (int i = 0; i < g_nthreads; ++i) {
        all_done &= g_threads[i].done;
        if (runnable(&g_threads[i]))
            enabled |= 1u << i;
    }
    if (!enabled) {
        if (!all_done) {
            char why[256];
            describe_blocked(why, sizeof why);
            explore_fail("deadlock", "nobody can run, and not every thread has finished:%s", why);
        }
        g_running = MAIN;
        pthread_cond_broadcast(&g_cv);
        return;
    }
    int choice;
    if (enabled & (enabled - 1)) { /* two or more: a decision */
        if (g_depth >= MAX_DECISIONS)
            explore_fail("explorer", "more than %d decisions in one schedule: is the scenario looping?", MAX_DECISIONS);
        node *n = &g_nodes[g_depth];
        if (g_replay) {
            int c = g_next_thread < g_nreplay_threads ? g_replay_threads[g_next_thread++] : -1;
            int dflt = (current != MAIN && (enabled & (1u << current))) ? current : __builtin_ctz(enabled);
            if (c >= 0 && !(enabled & (1u << c)))
                explore_fail("explorer", "replay diverged at decision %d: T%d cannot run there (a wrong id, or a "
                             "scenario that does not behave the same way every time)", g_depth, c);
            *n = (node){enabled, 0, c >= 0 ? c : dflt, current, 0, false};
        } else if (g_depth < g_prefix) {
            if (!(enabled & (1u << n->chosen)))
                explore_fail("explorer", "replay diverged at decision %d: T%d cannot run there (a wrong id, or a "
                             "scenario that does not behave the same way every time)", g_depth, n->chosen);
            n->enabled = enabled;
            n->current = current;
        } else {
            /* By default, no preemption: the current thread goes on if it can. */
            int dflt = (current != MAIN && (enabled & (1u << current))) ? current : __builtin_ctz(enabled);
            *n = (node){enabled, 1u << dflt, dflt, current, 0, false};
        }
        n->preemptions = 0;
        if (g_depth > 0) {
            const node *prev = &g_nodes[g_depth - 1];
            n->preemptions = prev->preemptions + is_preemption(prev, prev->chosen);
        }
        choice = n->chosen;
        ++g_depth;
    } else {
        choice = __builtin_ctz(enabled);
    }
    g_running = choice;
    pthread_cond_broadcast(&g_cv);
}

/* After a run: the deepest decision with an untried thread within the bound
 * becomes the new last decision of the prefix. false: nothing left. */
static bool backtrack(void)
{
    for (int d = g_depth - 1; d >= 0; --d) {
        node *n = &g_nodes[d];
        int options = n->read ? 32 : g_nthreads;
        for (int c = 0; c < options; ++c) {
            unsigned bit = 1u << c;
            if (!(n->enabled & bit) || (n->tried & bit))
                continue;
            if (n->preemptions + is_preemption(n, c) > g_bound) {
                g_pruned = true;
                continue;
            }
            n->tried |= bit;
            n->chosen = c;
            g_prefix = g_depth = d + 1;
            return true;
        }
    }
    return false;
}

int explore_choose(int n)
{
    if (n < 2)
        return 0;
    if (n > 32)
        n = 32;
    if (g_depth >= MAX_DECISIONS)
        explore_fail("explorer", "more than %d decisions in one schedule: is the scenario looping?", MAX_DECISIONS);
    node *d = &g_nodes[g_depth];
    unsigned options = n == 32 ? ~0u : (1u << n) - 1;
    if (g_replay) {
        int c = g_next_read < g_nreplay_reads ? g_replay_reads[g_next_read++] : 0;
        if (c >= n)
            explore_fail("explorer", "replay diverged at decision %d: the load may read %d stores, not %d back",
                         g_depth, n, c);
        *d = (node){options, 0, c, t_self, 0, true};
    } else if (g_depth < g_prefix) {
        d->enabled = options;
        d->current = t_self;
        d->read = true;
    } else {
        *d = (node){options, 1u, 0, t_self, 0, true}; /* by default, the newest store */
    }
    d->preemptions = 0;
    if (g_depth > 0) {
        const node *prev = &g_nodes[g_depth - 1];
        d->preemptions = prev->preemptions + is_preemption(prev, prev->chosen);
    }
    ++g_depth;
    return d->chosen;
}

/* The id: the threads chosen at each decision ("1.0.1"), then, if some
 * load read an older store, "/" and the store each read chose, 0 the newest
 * (trailing 0s left out): "1.0.1/0.1". */
void explore_schedule_id(char *buf, size_t size)
{
    size_t len = 0;
    int last_stale = -1;
    buf[0] = '\0';
    for (int d = 0; d < g_depth && len + 4 < size; ++d) {
        if (g_nodes[d].read) {
            if (g_nodes[d].chosen)
                last_stale = d;
            continue;
        }
        len += (size_t)snprintf(buf + len, size - len, len ? ".%d" : "%d", g_nodes[d].chosen);
    }
    if (len == 0)
        len = (size_t)snprintf(buf, size, "-");
    bool first = true;
    for (int d = 0; d <= last_stale && len + 4 < size; ++d)
        if (g_nodes[d].read) {
            len += (size_t)snprintf(buf + len, size - len, first ? "/%d" : ".%d", g_nodes[d].chosen);
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

static int thread_decisions(void)
{
    int n = 0;
    for (int d = 0; d < g_depth; ++d)
        n += !g_nodes[d].read;
    return n;
}

/* Parses an id from explore_schedule_id for --replay. */
static bool parse_id(const char *id)
{
    char threads[4 * MAX_DECISIONS];
    snprintf(threads, sizeof threads, "%s", id);
    char *slash = strchr(threads, '/');
    const char *reads = "";
    if (slash) {
        *slash = '\0';
        reads = slash + 1;
    }
    g_next_thread = g_next_read = 0;
    return parse_list(threads, g_replay_threads, &g_nreplay_threads, EXPLORE_MAX_THREADS) &&
           parse_list(reads, g_replay_reads, &g_nreplay_reads, 32);
}

/* ---- the scheduling points --------------------------------------------- */

/* The calling thread reached a point: let the scheduler pick, and wait
 * until it is this thread's turn. */
static void wait_turn(int self)
{
    pthread_mutex_lock(&g_mx);
    g_threads[self].arrived = true;
    decide(self);
    while (g_running != self)
        pthread_cond_wait(&g_cv, &g_mx);
    g_threads[self].arrived = false;
    pthread_mutex_unlock(&g_mx);
}

int explore_self(void) { return t_self; }
int explore_nthreads(void) { return g_nthreads; }
const char *explore_thread_name(int i) { return g_threads[i].name; }
bool explore_replaying(void) { return g_replay; }

static const char *base(const char *file)
{
    const char *slash = strrchr(file, '/');
    return slash ? slash + 1 : file;
}

void explore_point(const volatile void *obj, size_t size, const char *file, int line)
{
    explore_site_file = file;
    explore_site_line = line;
    if (t_self != MAIN)
        wait_turn(t_self);
    char what[96];
    snprintf(what, sizeof what, "does the atomic operation at %s:%d on", base(file), line);
    explore_check_access(obj, size, what);
}

int explore_mutex_lock(pthread_mutex_t *m, const char *text, const char *file, int line)
{
    if (t_self == MAIN) {
        model_mutex_lock(m);
        return pthread_mutex_lock(m);
    }
    g_threads[t_self].wants = m;
    wait_turn(t_self); /* runnable only once m is free */
    g_threads[t_self].wants = NULL;
    char what[96];
    snprintf(what, sizeof what, "locks the mutex at %s:%d in", base(file), line);
    explore_check_access(m, sizeof *m, what);
    set_holder(m, t_self);
    model_mutex_lock(m);
    char f[64];
    explore_trace_add(t_self, "%s:%d lock %s", base(file), line, explore_field(text, f, sizeof f));
    return pthread_mutex_lock(m);
}

int explore_mutex_unlock(pthread_mutex_t *m, const char *text, const char *file, int line)
{
    if (t_self == MAIN) {
        model_mutex_unlock(m);
        return pthread_mutex_unlock(m);
    }
    wait_turn(t_self);
    char what[96];
    snprintf(what, sizeof what, "unlocks the mutex at %s:%d in", base(file), line);
    explore_check_access(m, sizeof *m, what);
    set_holder(m, MAIN);
    model_mutex_unlock(m);
    char f[64];
    explore_trace_add(t_self, "%s:%d unlock %s", base(file), line, explore_field(text, f, sizeof f));
    return pthread_mutex_unlock(m);
}

/* Waiting releases the mutex and makes the thread unrunnable until a
 * signal; then it is runnable again once it can relock. Spurious wake-ups
 * are not modelled. */
int explore_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const char *text, const char *file, int line)
{
    if (t_self == MAIN)
        return pthread_cond_wait(c, m);
    char f[64];
    xthread *t = &g_threads[t_self];
    wait_turn(t_self);
    set_holder(m, MAIN);
    model_mutex_unlock(m); /* waiting unlocks the mutex... */
    pthread_mutex_unlock(m);
    explore_trace_add(t_self, "%s:%d wait on %s (unlocks the mutex)", base(file), line, explore_field(text, f, sizeof f));
    pthread_mutex_lock(&g_mx);
    t->waits = c;
    t->wants = m;
    pthread_mutex_unlock(&g_mx);
    wait_turn(t_self);
    t->wants = NULL;
    set_holder(m, t_self);
    model_mutex_lock(m); /* ...and relocks it: the signal itself orders nothing (POSIX), the mutex does */
    explore_trace_add(t_self, "%s:%d woken up, relocks the mutex", base(file), line);
    return pthread_mutex_lock(m);
}

static int wake(pthread_cond_t *c, bool all, const char *what, const char *text, const char *file, int line)
{
    if (t_self == MAIN)
        return all ? pthread_cond_broadcast(c) : pthread_cond_signal(c);
    wait_turn(t_self);
    int woken = 0;
    pthread_mutex_lock(&g_mx);
    for (int i = 0; i < g_nthreads && (all || !woken); ++i)
        if (g_threads[i].waits == c) {
            g_threads[i].waits = NULL;
            ++woken;
        }
    pthread_mutex_unlock(&g_mx);
    char f[64];
    explore_trace_add(t_self, "%s:%d %s %s (wakes %d)", base(file), line, what, explore_field(text, f, sizeof f), woken);
    return 0;
}

int explore_cond_signal(pthread_cond_t *c, const char *text, const char *file, int line)
{
    return wake(c, false, "signal", text, file, line);
}

int explore_cond_broadcast(pthread_cond_t *c, const char *text, const char *file, int line)
{
    return wake(c, true, "broadcast", text, file, line);
}

void explore_wait_until(bool (*ready)(void), const char *what)
{
    if (t_self == MAIN)
        return;
    g_threads[t_self].until = ready;
    g_threads[t_self].until_what = what;
    wait_turn(t_self);
    g_threads[t_self].until = NULL;
    explore_trace_add(t_self, "(waited until %s)", what);
}

/* ---- one run ------------------------------------------------------------- */

static void *thread_main(void *arg)
{
    int self = (int)(intptr_t)arg;
    t_self = self;
    pthread_mutex_lock(&g_mx);
    ++g_arrived_at_start;
    g_threads[self].arrived = true;
    pthread_cond_broadcast(&g_cv);
    while (g_running != self)
        pthread_cond_wait(&g_cv, &g_mx);
    g_threads[self].arrived = false;
    pthread_mutex_unlock(&g_mx);

    g_threads[self].fn();

    pthread_mutex_lock(&g_mx);
    g_threads[self].done = true;
    explore_trace_add(self, "(finished)");
    decide(self);
    pthread_mutex_unlock(&g_mx);
    return NULL;
}

static long g_schedules; /* run so far, over every round: the failure report says how many */

/* ---- how deep the step's trampolines nest ------------------------------------ */

static _Thread_local int t_nesting;
static int g_max_nesting;

void explore_coro_resume(struct lockstep_coro *h)
{
    if (++t_nesting > g_max_nesting)
        g_max_nesting = t_nesting;
    lockstep_coro_resume(h);
    --t_nesting;
}

int explore_resume_nesting(void) { return g_max_nesting; }

static void run_once(const explore_scenario *s)
{
    ++g_schedules;
    explore_alloc_reset();
    explore_trace_reset();
    model_clock_reset();
    model_history_reset();
    model_race_reset();
    g_running_schedule = true;
    g_depth = 0;
    g_nheld = 0;
    g_next_thread = g_next_read = 0;
    g_nthreads = s->nthreads;
    for (int i = 0; i < s->nthreads; ++i)
        g_threads[i] = (xthread){.fn = s->threads[i], .name = s->thread_names[i]};
    s->setup();

    g_arrived_at_start = 0;
    g_running = MAIN;
    g_max_nesting = 0; /* the setup's own starts do not count */
    for (int i = 0; i < s->nthreads; ++i)
        model_thread_start(i);
    for (int i = 0; i < s->nthreads; ++i)
        if (pthread_create(&g_threads[i].pt, NULL, thread_main, (void *)(intptr_t)i) != 0) {
            fputs("explore: pthread_create failed\n", stderr);
            exit(2);
        }
    pthread_mutex_lock(&g_mx);
    while (g_arrived_at_start < s->nthreads)
        pthread_cond_wait(&g_cv, &g_mx);
    decide(MAIN); /* every thread waits at its start: the first decision */
    do
        pthread_cond_wait(&g_cv, &g_mx);
    while (g_running != MAIN);
    pthread_mutex_unlock(&g_mx);
    for (int i = 0; i < s->nthreads; ++i) {
        pthread_join(g_threads[i].pt, NULL);
        model_thread_join(i);
    }

    s->check();
    explore_check_leaks();
    g_truncated |= model_history_truncated();
    g_running_schedule = false;
}

static const explore_scenario *g_scenario;
static const char *g_program;

void explore_failure_footer(void)
{
    char id[4 * MAX_DECISIONS];
    explore_schedule_id(id, sizeof id);
    char weaken[512];
    explore_weaken_args(weaken, sizeof weaken);
    if (!g_replay)
        printf("explore: found after %ld schedule%s (bound %d: at most %d preemptions and stale reads)\n",
               g_schedules, g_schedules == 1 ? "" : "s", g_bound, g_bound);
    printf("explore: step %02d %s %s, schedule %s; replay it with:\n    %s %s%s --replay %s\n", explore_step,
           explore_component, g_scenario ? g_scenario->name : "?", id, g_program ? g_program : "explore",
           g_scenario ? g_scenario->name : "?", weaken, id);
}

/* Rounds with a bound this high and still no end are not small any more. */
#define SMALL_ROUND 5000
#define MAX_BOUND 64

static long search(const explore_scenario *s, int bound)
{
    g_bound = bound;
    g_pruned = false;
    g_truncated = false;
    g_prefix = 0;
    if (s->begin)
        s->begin();
    long schedules = 0;
    do {
        run_once(s);
        ++schedules;
    } while (backtrack());
    return schedules;
}

long explore_run(const explore_scenario *s, const char *program, int bound, bool bound_is_hard,
                 const char *replay_id)
{
    g_scenario = s;
    g_program = program;
    g_replay = replay_id != NULL;
    if (g_replay) {
        if (!parse_id(replay_id)) {
            fprintf(stderr, "explore: '%s' is not a schedule id (threads chosen at each decision: 0.1.1.0)\n",
                    replay_id);
            exit(2);
        }
        g_bound = MAX_BOUND;
        run_once(s);
        if (g_next_thread < g_nreplay_threads || g_next_read < g_nreplay_reads)
            printf("explore: the schedule ended before the id did; the rest of the id was not used\n");
        else if (thread_decisions() > g_nreplay_threads)
            printf("explore: the id ended before the schedule did: the decisions after it took the default "
                   "(the thread that ran goes on; a load reads the newest store)\n");
        char id[4 * MAX_DECISIONS];
        explore_schedule_id(id, sizeof id);
        printf("explore: schedule %s of %s (passes every check):\n", id, s->name);
        explore_trace_print();
        return 1;
    }
    long schedules;
    for (int k = 0;; ++k) {
        schedules = search(s, k);
        if (!g_pruned || k == MAX_BOUND || (k >= bound && (bound_is_hard || schedules > SMALL_ROUND)))
            break;
    }
    if (s->summary)
        s->summary();
    return schedules;
}

int explore_bound(void) { return g_bound; }
bool explore_exhaustive(void) { return !g_pruned && !g_truncated; }
