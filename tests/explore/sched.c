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
 */
#include "explore.h"

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

static bool runnable(const xthread *t)
{
    return t->arrived && !t->done && !t->waits && !(t->wants && holder(t->wants) != MAIN) &&
           !(t->until && !t->until());
}

/* ---- the decisions ----------------------------------------------------- */

typedef struct node {
    unsigned enabled; /* threads that could go */
    unsigned tried;   /* threads already explored from here */
    int chosen;
    int current;      /* the thread that reached the point (MAIN at the start) */
    int preemptions;  /* preemptions in the schedule before this decision */
} node;

#define MAX_DECISIONS 512
static node g_nodes[MAX_DECISIONS];
static int g_depth;   /* decisions taken in this run */
static int g_prefix;  /* the first g_prefix decisions are replayed */
static int g_bound = 2;
static bool g_pruned; /* a schedule was skipped for the bound */
static bool g_replay;

static bool is_preemption(const node *n, int choice)
{
    return n->current != MAIN && (n->enabled & (1u << n->current)) && choice != n->current;
}

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
        if (g_depth < g_prefix) {
            if (!(enabled & (1u << n->chosen)))
                explore_fail("explorer", "replay diverged at decision %d: T%d cannot run there (a wrong id, or a "
                             "scenario that does not behave the same way every time)", g_depth, n->chosen);
            n->enabled = enabled;
            n->current = current;
        } else {
            /* By default, no preemption: the current thread goes on if it can. */
            int dflt = (current != MAIN && (enabled & (1u << current))) ? current : __builtin_ctz(enabled);
            *n = (node){enabled, 1u << dflt, dflt, current, 0};
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
        for (int c = 0; c < g_nthreads; ++c) {
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

void explore_schedule_id(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int d = 0; d < g_depth && len + 4 < size; ++d)
        len += (size_t)snprintf(buf + len, size - len, d ? ".%d" : "%d", g_nodes[d].chosen);
    if (g_depth == 0)
        snprintf(buf, size, "-");
}

/* Parses an id from explore_schedule_id into the replay prefix. */
static bool parse_id(const char *id)
{
    g_prefix = g_depth = 0;
    if (strcmp(id, "-") == 0)
        return true;
    for (const char *s = id; *s;) {
        char *end;
        long c = strtol(s, &end, 10);
        if (end == s || c < 0 || c >= EXPLORE_MAX_THREADS || g_prefix >= MAX_DECISIONS)
            return false;
        g_nodes[g_prefix++] = (node){0, 1u << c, (int)c, MAIN, 0};
        if (*end != '.' && *end != '\0')
            return false;
        s = *end == '.' ? end + 1 : end;
    }
    return true;
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
    if (t_self == MAIN)
        return pthread_mutex_lock(m);
    g_threads[t_self].wants = m;
    wait_turn(t_self); /* runnable only once m is free */
    g_threads[t_self].wants = NULL;
    char what[96];
    snprintf(what, sizeof what, "locks the mutex at %s:%d in", base(file), line);
    explore_check_access(m, sizeof *m, what);
    set_holder(m, t_self);
    char f[64];
    explore_trace_add(t_self, "%s:%d lock %s", base(file), line, explore_field(text, f, sizeof f));
    return pthread_mutex_lock(m);
}

int explore_mutex_unlock(pthread_mutex_t *m, const char *text, const char *file, int line)
{
    if (t_self == MAIN)
        return pthread_mutex_unlock(m);
    wait_turn(t_self);
    char what[96];
    snprintf(what, sizeof what, "unlocks the mutex at %s:%d in", base(file), line);
    explore_check_access(m, sizeof *m, what);
    set_holder(m, MAIN);
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
    pthread_mutex_unlock(m);
    explore_trace_add(t_self, "%s:%d wait on %s (unlocks the mutex)", base(file), line, explore_field(text, f, sizeof f));
    pthread_mutex_lock(&g_mx);
    t->waits = c;
    t->wants = m;
    pthread_mutex_unlock(&g_mx);
    wait_turn(t_self);
    t->wants = NULL;
    set_holder(m, t_self);
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

static void run_once(const explore_scenario *s)
{
    explore_alloc_reset();
    explore_trace_reset();
    g_depth = 0;
    g_nheld = 0;
    g_nthreads = s->nthreads;
    for (int i = 0; i < s->nthreads; ++i)
        g_threads[i] = (xthread){.fn = s->threads[i], .name = s->thread_names[i]};
    s->setup();

    g_arrived_at_start = 0;
    g_running = MAIN;
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
    for (int i = 0; i < s->nthreads; ++i)
        pthread_join(g_threads[i].pt, NULL);

    s->check();
    explore_check_leaks();
}

static const explore_scenario *g_scenario;
static const char *g_program;

void explore_failure_footer(void)
{
    char id[4 * MAX_DECISIONS];
    explore_schedule_id(id, sizeof id);
    printf("explore: step %02d %s %s, schedule %s; replay it with:\n    %s %s --replay %s\n", explore_step,
           explore_component, g_scenario ? g_scenario->name : "?", id, g_program ? g_program : "explore",
           g_scenario ? g_scenario->name : "?", id);
}

/* Rounds with a bound this high and still no end are not small any more. */
#define SMALL_ROUND 5000
#define MAX_BOUND 64

static long search(const explore_scenario *s, int bound)
{
    g_bound = bound;
    g_pruned = false;
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
        int given = g_prefix;
        run_once(s);
        if (g_depth < given)
            printf("explore: the schedule ended after %d decisions; the rest of the id was not used\n", g_depth);
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
bool explore_exhaustive(void) { return !g_pruned; }
