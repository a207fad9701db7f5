/*
 * The decision tree and schedule ids: which way each run goes, and how the
 * search tries the next way (loom's path.rs).
 *
 * A run is a sequence of decisions, each a node of one tree (branch), of
 * two kinds:
 *
 *   - a thread choice (path_schedule): at a scheduling point where two or
 *     more threads could go (thread.c), which one does;
 *   - a read choice (path_read): an atomic operation that may go more than
 *     one way (location.c says which: the store a load reads, the place of
 *     a store in modification order, a weak compare-exchange's spurious
 *     failure), which way it goes, 0 the default (the newest store, the
 *     last place).
 *
 * The search is stateless (CHESS): to try another schedule it runs the
 * scenario again from the start, replaying a prefix of the previous
 * decisions and then taking a different one (path_next: depth first, the
 * deepest decision with an untried option). A reduced round (run.c) tries
 * another thread at a decision only where a *race* asks for it, and never
 * a thread *asleep* there (step.c says which steps commute):
 *
 *   - source sets (Abdulla, Aronis, Jonsson and Sagonas, "Optimal Dynamic
 *     Partial Order Reduction", POPL 2014, Algorithm 2; reverse() below):
 *     two dependent steps of different threads that nothing else orders
 *     race, and the search must also try them the other way round; it adds
 *     at the earlier step's decision one thread that can start the
 *     reversed order, if none that it tries already can;
 *   - sleep sets (Godefroid, LNCS 1032, 1996): a thread already tried at a
 *     decision sleeps while the steps that follow commute with its own
 *     next step, for running it would only reorder a schedule explored.
 *
 * Both together explore at least one schedule of every execution (the
 * paper's theorem, for a dependence that is a correct independence
 * relation: step.c's). Under RC11, step.c's reads-from rule goes one step
 * beyond the paper: a sleeping load that a new store would let read
 * something new is *limited* (below), not woken; --check-reduction is
 * the evidence that this loses nothing. The read choices are not reduced:
 * every store a load may read is tried. A step in which the scenario peeks
 * (explore_unchecked) is dependent only on steps whose plain accesses meet
 * its own (path_touch records each step's footprint as it runs; step.c).
 *
 * The search is not optimal: an execution can still be met twice. Source
 * sets reverse a race by one thread where Abdulla et al.'s wakeup trees
 * (Algorithm 3) keep the whole reversed sequence, so a schedule can end
 * with every thread that could go asleep, a repeat run to its end (all
 * the surplus of the litmus files, most of steps 04-06's event's);
 * and two steps the scenario orders (its clock's ticks, a peek at what
 * another thread wrote) are dependent though the execution is the same.
 * Flanagan and Godefroid's rule (POPL 2005) that this replaces, "try the
 * racing thread p there", missed an execution: where p was asleep (LB+incMPs:
 * the reversal needed P3 to go first, so that P0's load could read P3's
 * store), it added nothing. --check-reduction compares the executions met
 * with every interleaving's, or with sleep sets alone (run.c).
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
#include "world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This file's part of the schedule's world, through the one pointer (world.h). */
static inline path_state *st(void) { return &world->path; }


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
        return __builtin_ctz(options);
    return (options & (1u << current)) ? current : __builtin_ctz(options);
}

const char *path_error(void) { return st()->error; }

/* A decision among options; asleep: options the reduction rules out here,
 * marked tried so that path_next never takes them. */
static int branch(enum branch_kind kind, unsigned options, int current, unsigned asleep)
{
    if (st()->depth >= MAX_DECISIONS) {
        snprintf(st()->error, sizeof st()->error, "more than %d decisions in one schedule: is the scenario looping?",
                 MAX_DECISIONS);
        return -1;
    }
    decision *d = &st()->path[st()->depth];
    unsigned awake = options & ~asleep;
    int dflt = fallback(kind, awake ? awake : options, current);
    if (st()->replay) {
        int c = st()->used[kind] < st()->nwanted[kind] ? st()->wanted[kind][st()->used[kind]++] : dflt;
        *d = (decision){.kind = kind, .options = options, .chosen = c, .current = current, .backtrack = options};
    } else if (st()->depth < st()->prefix) {
        d->options = options; /* replaying the prefix: the choice stays, from the last run */
        d->current = current;
    } else {
        /* blocked: a repeat, nothing below it is explored */
        unsigned tried = st()->blocked ? options : (1u << dflt) | asleep;
        /* a reduced round tries another thread only where a race asks (reverse) */
        unsigned backtrack = st()->races && kind == BRANCH_THREAD ? 1u << dflt : options;
        *d = (decision){.kind = kind, .options = options, .tried = tried, .chosen = dflt, .current = current,
                        .backtrack = backtrack};
    }
    if (d->chosen < 0 || d->chosen >= 32 || !(options & (1u << d->chosen))) {
        if (kind == BRANCH_THREAD)
            snprintf(st()->error, sizeof st()->error, "replay diverged at decision %d: T%d cannot run there (a wrong id, "
                     "or a scenario that does not behave the same way every time)", st()->depth, d->chosen);
        else
            snprintf(st()->error, sizeof st()->error, "replay diverged at decision %d: the load may read %d stores, not %d "
                     "back", st()->depth, __builtin_popcount(options), d->chosen);
        return -1;
    }
    d->cost = st()->depth > 0 ? st()->path[st()->depth - 1].cost + cost(&st()->path[st()->depth - 1], st()->path[st()->depth - 1].chosen) : 0;
    ++st()->depth;
    return d->chosen;
}

/* After thread c was chosen: the threads asleep or limited before, and
 * those explored already at this decision (explored: they fall asleep
 * now), each as c's step leaves it (step.c). */
static void sleep_after(int c, const step *ran, unsigned explored, const decision *d, const step *steps, int now)
{
    unsigned sleep = 0, limited = 0;
    for (int t = 0; t < EXPLORE_MAX_THREADS; ++t) {
        unsigned bit = 1u << t;
        if (t == c || !((st()->sleep | st()->limited | explored) & bit))
            continue;
        bool asleep = (explored | st()->sleep) & bit;
        if (explored & bit) {
            st()->mark[t] = now;
            st()->touchy = (st()->touchy & ~bit) | (d->touched & bit);
            st()->ticky = (st()->ticky & ~bit) | (d->ticked & bit);
            st()->asleep_foot[t] = d->foot[t];
        }
        step next = steps[t];
        next.scenario = st()->touchy & bit; /* as its step did when it was explored */
        next.ticks = st()->ticky & bit;
        next.foot = &st()->asleep_foot[t];
        switch (step_effect(ran, &next, st()->free_mo)) {
        case STEP_KEEP: *(asleep ? &sleep : &limited) |= bit; break;
        case STEP_LIMIT: limited |= bit; break;
        case STEP_WAKE: break;
        }
    }
    st()->sleep = sleep;
    st()->limited = limited;
}

/* ---- the races: where the reduced search must try another order ---------------------- */


static bool dependent(const step *a, const step *b)
{
    if (a->ticks && b->ticks) /* the scenario's clock: which ticked first */
        return true;
    return step_effect(a, b, st()->free_mo) != STEP_KEEP || step_effect(b, a, st()->free_mo) != STEP_KEEP;
}

/* Whether transition k happens before a step whose clock is vc. */
static bool before(const transition *k, const uint16_t *vc)
{
    return vc[k->thread] >= k->seq;
}

/* A race: step e2 (thread p, clock vc; st()->trans[at] if it ran, else p's
 * pending step) and the earlier step j = st()->trans[i] of another thread are
 * dependent, and nothing else orders j before e2. To reverse it, the
 * search must try, where j was chosen, a thread that can start
 *
 *     v = the steps after j that do not happen after j, then e2
 *
 * (they can all run before j, in their order): one of v's *initials*,
 * the threads whose first step in v has nothing of v happening before
 * it. If the decision will already try one of them, nothing is added;
 * else one that is not asleep there. This is source-DPOR's rule (Abdulla,
 * Aronis, Jonsson and Sagonas, POPL 2014, Algorithm 2): unlike Flanagan
 * and Godefroid's "try p", it names a thread that can actually start the
 * reversal; p's own next step there may be another one, and p may be
 * asleep there while the reversal needs another thread to go first. */
static void reverse(int i, int p, const uint16_t *vc, int at)
{
    const transition *j = &st()->trans[i];
    if (j->decision < 0)
        return; /* j's thread was the only one that could go: nothing can go before j */
    decision *d = &st()->path[j->decision];
    unsigned initials = 0, seen = 0;
    int end = at >= 0 ? at : st()->ntrans;
    for (int k = i + 1; k < end; ++k) {
        const transition *e = &st()->trans[k];
        unsigned bit = 1u << e->thread;
        if (before(j, e->vc) || (seen & bit))
            continue; /* after j: not in v; or not its thread's first step in v */
        seen |= bit;
        bool first = true;
        for (int m = i + 1; m < k && first; ++m)
            first = before(j, st()->trans[m].vc) || !before(&st()->trans[m], e->vc);
        if (first)
            initials |= bit;
    }
    if (!(seen & (1u << p))) { /* e2 is p's first step in v */
        bool first = true;
        for (int m = i + 1; m < end && first; ++m)
            first = before(j, st()->trans[m].vc) || !before(&st()->trans[m], vc);
        if (first)
            initials |= 1u << p;
    }
    if (initials & d->backtrack)
        return;
    unsigned awake = initials & d->options & ~(d->tried & ~d->backtrack);
    if (awake)
        d->backtrack |= 1u << __builtin_ctz(awake);
    else if (!(initials & d->options))
        d->backtrack |= d->options; /* none could go there (a lock held): every thread, as unreduced */
}

/* The step a race of transition i with a later step s is reversed at. A
 * lock races with the lock of the critical section before it, not with
 * its unlock: the lock cannot go before that unlock (the mutex is held),
 * but it can go before that lock, where the mutex was free. So, for an
 * unlock of the mutex s acquires, the unlocking thread's lock of it. A
 * blocked lock attempt is no step, as in GenMC, where it is an assume. */
static int race_at(int i, const step *s)
{
    const step *j = &st()->trans[i].step;
    if (j->kind != STEP_SYNC || j->reads || s->kind != STEP_SYNC || !s->reads || j->obj != s->obj)
        return i;
    for (int k = i - 1; k >= 0; --k) {
        const transition *e = &st()->trans[k];
        if (e->thread == st()->trans[i].thread && e->step.kind == STEP_SYNC && e->step.reads && e->step.obj == j->obj)
            return k;
    }
    return i;
}

/* Records step s of thread p, about to run, and the races it makes. */
static void dpor_step(int p, const step *s, int decision)
{
    if (st()->ntrans == MAX_TRANSITIONS) { /* too long to follow: every thread at every decision, as unreduced */
        for (int i = 0; i < st()->depth; ++i)
            st()->path[i].backtrack = st()->path[i].options;
        return;
    }
    transition *t = &st()->trans[st()->ntrans];
    *t = (transition){.thread = p, .step = *s, .decision = decision};
    if (s->foot) {
        st()->trans_foot[st()->ntrans] = *s->foot;
        t->step.foot = &st()->trans_foot[st()->ntrans];
    }
    if (st()->last[p] >= 0)
        memcpy(t->vc, st()->trans[st()->last[p]].vc, sizeof t->vc);
    static int races[MAX_TRANSITIONS];
    int nraces = 0;
    for (int i = st()->ntrans - 1; i >= 0; --i) {
        const transition *j = &st()->trans[i];
        if (j->thread == p || !dependent(&j->step, s))
            continue;
        if (!before(j, t->vc))
            races[nraces++] = i;
        for (int u = 0; u < EXPLORE_MAX_THREADS; ++u)
            if (j->vc[u] > t->vc[u])
                t->vc[u] = j->vc[u];
    }
    t->seq = t->vc[p] = (uint16_t)(st()->last[p] >= 0 ? st()->trans[st()->last[p]].seq + 1 : 1);
    st()->last[p] = st()->ntrans++;
    for (int r = 0; r < nraces; ++r)
        reverse(race_at(races[r], s), p, t->vc, st()->ntrans - 1);
}


void path_ran(const step *what)
{
    if (!st()->chosen.pending)
        return;
    bool touched = st()->chosen.ran.scenario, ticks = st()->chosen.ran.ticks;
    st()->chosen.ran = *what;
    st()->chosen.ran.scenario = touched;
    st()->chosen.ran.ticks = ticks;
    st()->chosen.ran.foot = &st()->chosen.foot;
}

/* Adds the bytes [lo, hi) to set s: to a range they overlap or touch,
 * else as a range of their own; past FOOTPRINT_RANGES, s is any memory. */
static void add_range(byte_ranges *s, uintptr_t lo, uintptr_t hi)
{
    if (s->all || lo >= hi)
        return;
    for (int i = 0; i < s->n; ++i)
        if (lo <= s->r[i].hi && s->r[i].lo <= hi) {
            s->r[i].lo = lo < s->r[i].lo ? lo : s->r[i].lo;
            s->r[i].hi = hi > s->r[i].hi ? hi : s->r[i].hi;
            return;
        }
    if (s->n == FOOTPRINT_RANGES) {
        s->all = true;
        return;
    }
    s->r[s->n].lo = lo;
    s->r[s->n].hi = hi;
    ++s->n;
}

static void add_ranges(byte_ranges *to, const byte_ranges *from)
{
    to->all |= from->all;
    for (int i = 0; i < from->n; ++i)
        add_range(to, from->r[i].lo, from->r[i].hi);
}

void path_touch(int thread, const volatile void *p, size_t size, bool write, bool quiet)
{
    if (!st()->chosen.pending || st()->paused || thread != st()->chosen.thread)
        return; /* not a step being followed: setup, the checks, an unreduced round */
    footprint *f = &st()->chosen.foot;
    add_range(write ? &f->writes : &f->reads, (uintptr_t)p, (uintptr_t)p + size);
    if (quiet)
        st()->chosen.ran.scenario = true;
}

void path_footprint_pause(bool on) { st()->paused = on; }

void path_scenario_touched(void)
{
    st()->chosen.ran.scenario = true;
}

void path_scenario_ticked(void)
{
    st()->chosen.ran.ticks = true;
}

static void settle(const step *steps)
{
    if (!st()->chosen.pending)
        return;
    st()->chosen.pending = false;
    dpor_step(st()->chosen.thread, &st()->chosen.ran, st()->chosen.decision);
    decision none = {0};
    decision *d = &none;
    if (st()->chosen.decision >= 0) {
        d = &st()->path[st()->chosen.decision];
        if (st()->chosen.ran.scenario)
            d->touched |= 1u << st()->chosen.thread;
        if (st()->chosen.ran.ticks)
            d->ticked |= 1u << st()->chosen.thread;
        footprint *f = &d->foot[st()->chosen.thread];
        add_ranges(&f->reads, &st()->chosen.foot.reads);
        add_ranges(&f->writes, &st()->chosen.foot.writes);
    }
    sleep_after(st()->chosen.thread, &st()->chosen.ran, st()->chosen.explored, d, steps, st()->chosen.now);
}

/* Thread q's next step, not run yet, a mutex or condition call or a wait
 * on a predicate (q may be unable to run: a lock held), against the last
 * step of another thread it depends on that does not happen before q's
 * point: the other order is to be tried there (as Flanagan and Godefroid
 * check every thread's next step at every state; checking only steps
 * that ran would miss a lock that the other thread's later unlock hides).
 * An atomic operation is never unable to run: its races are those of the
 * steps that ran (dpor_step), as source-DPOR has them. */
static void race_pending(int q, const step *next)
{
    step s = *next;
    s.scenario = s.ticks = false; /* its bookkeeping, if any, is judged when it has run */
    uint16_t vc[EXPLORE_MAX_THREADS] = {0};
    if (st()->last[q] >= 0)
        memcpy(vc, st()->trans[st()->last[q]].vc, sizeof vc);
    int race = -1;
    for (int i = st()->ntrans - 1; i >= 0; --i) {
        const transition *j = &st()->trans[i];
        if (j->thread == q || !dependent(&j->step, &s))
            continue;
        if (race < 0 && !before(j, vc))
            race = i;
        for (int u = 0; u < EXPLORE_MAX_THREADS; ++u)
            if (j->vc[u] > vc[u])
                vc[u] = j->vc[u];
    }
    if (race >= 0)
        reverse(race_at(race, &s), q, vc, -1);
}

int path_schedule(unsigned enabled, unsigned waiting, int current, const step *steps, int now)
{
    settle(steps);
    if (st()->reduce && !st()->blocked && st()->ntrans < MAX_TRANSITIONS)
        for (int q = 0; q < EXPLORE_MAX_THREADS; ++q)
            if (waiting & (1u << q))
                if (steps[q].kind == STEP_SYNC || steps[q].kind == STEP_ANY)
                    race_pending(q, &steps[q]);
    unsigned asleep = st()->reduce ? st()->sleep & enabled : 0;
    if (asleep && asleep == enabled)
        asleep = 0, st()->blocked = true;
    int c = __builtin_ctz(enabled);
    unsigned explored = 0;
    int at = -1;
    if (enabled & (enabled - 1)) { /* two or more: a decision */
        c = branch(BRANCH_THREAD, enabled, current, asleep);
        if (c < 0)
            return -1;
        at = st()->depth - 1;
        explored = st()->path[at].tried & enabled & ~asleep & ~(1u << c);
    }
    st()->floor = -1;
    if (st()->reduce && !st()->blocked) {
        if (st()->limited & (1u << c))
            st()->floor = st()->mark[c];
        st()->chosen.pending = true;
        st()->chosen.thread = c;
        st()->chosen.decision = at;
        st()->chosen.now = now;
        st()->chosen.explored = explored;
        st()->chosen.ran = steps[c];
        st()->chosen.ran.scenario = false; /* until it does (path_scenario_touched) */
        st()->chosen.ran.ticks = false;     /* (path_scenario_ticked) */
        st()->chosen.foot = (footprint){0}; /* (path_touch) */
        st()->chosen.ran.foot = &st()->chosen.foot;
    }
    return c;
}

int path_read(unsigned options, int current, const int *reads_from)
{
    unsigned barred = 0;
    for (int c = 0; c < 32 && st()->floor >= 0; ++c)
        if ((options & (1u << c)) && reads_from[c] < st()->floor)
            barred |= 1u << c;
    st()->floor = -1;
    if (barred && barred == options) /* nothing new to read: a repeat */
        barred = 0, st()->blocked = true;
    if (!(options & (options - 1)))
        return __builtin_ctz(options);
    return branch(BRANCH_READ, options, current, barred);
}

void path_begin_round(int bound, enum search_kind kind, bool free_mo)
{
    st()->bound = bound;
    st()->reduce = kind != SEARCH_EVERY && !st()->replay;
    st()->races = kind == SEARCH_SOURCE && !st()->replay;
    st()->free_mo = free_mo;
    st()->pruned = false;
    st()->prefix = 0;
}

void path_begin_schedule(void)
{
    st()->sleep = st()->limited = st()->touchy = st()->ticky = 0;
    st()->floor = -1;
    st()->chosen.pending = false;
    st()->ntrans = 0;
    for (int t = 0; t < EXPLORE_MAX_THREADS; ++t)
        st()->last[t] = -1;
    st()->blocked = false;
    st()->depth = 0;
    st()->used[BRANCH_THREAD] = st()->used[BRANCH_READ] = 0;
}

bool path_next(void)
{
    if (st()->chosen.pending) { /* the schedule's last step: its races too */
        st()->chosen.pending = false;
        dpor_step(st()->chosen.thread, &st()->chosen.ran, st()->chosen.decision);
    }
    for (int i = st()->depth - 1; i >= 0; --i) {
        decision *d = &st()->path[i];
        for (int c = 0; c < 32; ++c) {
            unsigned bit = 1u << c;
            if (!(d->options & d->backtrack & bit) || (d->tried & bit))
                continue;
            if (d->cost + cost(d, c) > st()->bound) {
                st()->pruned = true;
                continue;
            }
            d->tried |= bit;
            d->chosen = c;
            st()->prefix = st()->depth = i + 1;
            return true;
        }
    }
    return false;
}

bool path_pruned(void) { return st()->pruned; }
bool path_reduced(void) { return st()->reduce; }
int path_bound(void) { return st()->bound; }
bool path_replaying(void) { return st()->replay; }

void path_id(char *buf, size_t size)
{
    size_t len = 0;
    int last_stale = -1;
    buf[0] = '\0';
    for (int i = 0; i < st()->depth && len + 4 < size; ++i) {
        if (st()->path[i].kind == BRANCH_READ) {
            if (st()->path[i].chosen)
                last_stale = i;
            continue;
        }
        len += (size_t)snprintf(buf + len, size - len, len ? ".%d" : "%d", st()->path[i].chosen);
    }
    if (len == 0)
        len = (size_t)snprintf(buf, size, "-");
    bool first = true;
    for (int i = 0; i <= last_stale && len + 4 < size; ++i)
        if (st()->path[i].kind == BRANCH_READ) {
            len += (size_t)snprintf(buf + len, size - len, first ? "/%d" : ".%d", st()->path[i].chosen);
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
    st()->replay = true;
    st()->bound = 64;
    return parse_list(threads, st()->wanted[BRANCH_THREAD], &st()->nwanted[BRANCH_THREAD], EXPLORE_MAX_THREADS) &&
           parse_list(reads, st()->wanted[BRANCH_READ], &st()->nwanted[BRANCH_READ], 32);
}

void path_replay_report(void)
{
    int threads = 0;
    for (int i = 0; i < st()->depth; ++i)
        threads += st()->path[i].kind == BRANCH_THREAD;
    if (st()->used[BRANCH_THREAD] < st()->nwanted[BRANCH_THREAD] || st()->used[BRANCH_READ] < st()->nwanted[BRANCH_READ])
        printf("explore: the schedule ended before the id did; the rest of the id was not used\n");
    else if (threads > st()->nwanted[BRANCH_THREAD])
        printf("explore: the id ended before the schedule did: the decisions after it took the default "
               "(the thread that ran goes on; a load reads the newest store)\n");
}
