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
 * a thread *asleep* there (step.c says which steps commute): Abdulla,
 * Aronis, Jonsson and Sagonas's Optimal-DPOR ("Source Sets: A Foundation
 * for Optimal Dynamic Partial Order Reduction", JACM 2017):
 *
 *   - races (reverse() below): two dependent steps of different threads
 *     that nothing else orders race, and the search must also run them
 *     the other way round: from the earlier step's decision, the steps
 *     after it that need not come after it, then the later step (v);
 *   - wakeup trees (insert() below): each thread decision keeps the
 *     sequences still to run from it as an ordered tree, so that a
 *     sequence that starts like one already there joins its branch. The
 *     run that explores a branch follows it (the *guide*, path_schedule)
 *     step by step; only past its end does the running thread go on;
 *   - sleep sets (Godefroid, LNCS 1032, 1996): a thread already tried at
 *     a decision sleeps while the steps that follow commute with its own
 *     next step, for running it would only reorder a schedule explored.
 *     A sequence is put in a tree only if its run would not repeat one
 *     (redundant()): one of its steps is by a thread that would still be
 *     asleep there.
 *
 * So a run that follows a tree's branch does not end with every thread
 * that could go asleep (the paper's theorem: each class of equivalent
 * schedules once; but see what is left, below), where source sets alone
 * (Algorithm 2 of the paper), which add one thread that can start v and
 * let the run go its own way from there, met an execution again in such
 * runs.
 *
 * Under RC11, step.c's reads-from rule goes two steps beyond the paper.
 * A sleeping load that a new store would let read something new is
 * *limited* (below), not woken. And a load after a store it did not
 * read from is not ordered after it, nor does it race with it
 * (reads_after): before the store it could read only what it read after
 * it. Both are the paper's rules over finer steps: a load reading store
 * s is a step of its own, which commutes with every store of another
 * thread but s (the README's "Why the reads-from rule and limited
 * threads lose nothing"). One thing the paper's search knows and this
 * one learns late: whether a thread is asleep, which for a limited load
 * shows only when its read finds nothing new (asleep_after_all).
 * --check-reduction and generated tests (litmus/fuzz.py) check it. The
 * read choices are not reduced: every store a load may read is tried,
 * each with the guide as it was (a read decision keeps a copy of it). A
 * step in which the scenario peeks (explore_unchecked) is dependent only
 * on steps whose plain accesses meet its own (path_touch records each
 * step's footprint as it runs; step.c).
 *
 * What is left over one schedule per execution: under --model c11, more
 * pairs are dependent (step.c). A race found where a load read an older
 * store is reversed with the read choices below it tried again, and
 * those that read otherwise can end asleep, or with a limited load that
 * has nothing new to read: the paper's steps are decided by the schedule
 * alone, where here a load's read is a branch of its own below its step,
 * which a tree does not carry. A guide whose thread's next
 * step is not the one it recorded (a read that read otherwise sent the
 * thread another way) is dropped there, and the run goes its own way.
 * --check-reduction compares the executions met with every
 * interleaving's, or with sleep sets alone (run.c).
 *
 * The trees' nodes come from a pool of WUT_NODES (no allocation in the
 * model); were it to run out, a race would be reversed by the source-set
 * rule instead, one thread that can start v. Objects in the trees are
 * named as the same in every run (stable()): an allocated block may lie
 * elsewhere in the next run.
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
#include "search/part.h"
#include "block.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This file's part of the schedule's world, through its layer's (search/part.h). */
static inline path_state *st(void) { return &search_now()->path; }


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

/* ---- the wakeup trees' nodes: a pool, no allocation in the model ---------------------- */

static wut_node *node(int n) { return &st()->nodes[n]; }

static int new_node(int thread, const step *s)
{
    int n = st()->free_nodes;
    if (n < 0)
        return -1;
    st()->free_nodes = node(n)->next;
    --st()->nfree;
    *node(n) = (wut_node){.thread = thread, .step = *s, .child = -1, .next = -1};
    node(n)->step.foot = NULL;
    return n;
}

/* Every node free, no guide. */
static void pool_reset(void)
{
    for (int n = 0; n < WUT_NODES; ++n)
        node(n)->next = n + 1 < WUT_NODES ? n + 1 : -1;
    st()->free_nodes = 0;
    st()->nfree = WUT_NODES;
    st()->guide = st()->staged = -1;
}

static void free_node(int n)
{
    node(n)->next = st()->free_nodes;
    st()->free_nodes = n;
    ++st()->nfree;
}

/* Frees the list from n on, each node with its subtree. */
static void free_list(int n)
{
    while (n >= 0) {
        int next = node(n)->next;
        free_list(node(n)->child);
        free_node(n);
        n = next;
    }
}

/* A copy of the list from n on, with their subtrees; -1 if the pool ran out. */
static int copy_list(int n)
{
    int head = -1, *link = &head;
    for (; n >= 0; n = node(n)->next) {
        int c = new_node(node(n)->thread, &node(n)->step);
        if (c < 0 || (node(n)->child >= 0 && (node(c)->child = copy_list(node(n)->child)) < 0)) {
            if (c >= 0)
                free_node(c);
            free_list(head);
            return -1;
        }
        *link = c;
        link = &node(c)->next;
    }
    return head;
}

/* The names stable() gives objects in allocated blocks: an entry each,
 * whose address is the name. An address, so that a step's object stays a
 * pointer, and one no object of the program can have, on a 32-bit
 * machine (WebAssembly's) as on a 64-bit one. The entries live as long as
 * the process, in chunks that never move, since a wakeup tree keeps the
 * names of every run of a round. */
typedef struct object_name {
    int thread, nth;  /* the allocating thread, and the block's place among its allocations */
    size_t offset;    /* the object's, in the block */
} object_name;

enum { NAMES_PER_CHUNK = 1024, NAME_CHUNKS = 64 };
static object_name *g_names[NAME_CHUNKS];
static int g_nnames;

/* Whether o is the name stable() gave an object in an allocated block. */
static bool is_key(const volatile void *o)
{
    for (int c = 0; c * NAMES_PER_CHUNK < g_nnames; ++c)
        if (g_names[c] && (const object_name *)o >= g_names[c] && (const object_name *)o < g_names[c] + NAMES_PER_CHUNK)
            return true;
    return false;
}

static const object_name *intern(object_name want)
{
    for (int i = 0; i < g_nnames; ++i) {
        const object_name *n = &g_names[i / NAMES_PER_CHUNK][i % NAMES_PER_CHUNK];
        if (n->thread == want.thread && n->nth == want.nth && n->offset == want.offset)
            return n;
    }
    int c = g_nnames / NAMES_PER_CHUNK;
    if (c == NAME_CHUNKS) {
        fprintf(stderr, "explore: more than %d objects in allocated blocks to name\n", NAMES_PER_CHUNK * NAME_CHUNKS);
        exit(2);
    }
    if (!g_names[c] && !(g_names[c] = malloc(NAMES_PER_CHUNK * sizeof *g_names[c]))) {
        fputs("explore: no memory for the objects' names\n", stderr);
        exit(2);
    }
    object_name *n = &g_names[c][g_nnames++ % NAMES_PER_CHUNK];
    *n = want;
    return n;
}

/* An object as the same in every run: an address in an allocated block,
 * which the next run may place elsewhere, as the allocating thread, its
 * place among that thread's allocations and the offset in it (interned:
 * one name each); any other address as it is. */
static const volatile void *stable_object(const volatile void *o)
{
    const block *b = o ? block_in(o) : NULL;
    if (!b)
        return o;
    int thread = event_at(b->alloc_event)->thread, nth = 0;
    for (const block *x = block_nth(0); x < b; ++x)
        nth += event_at(x->alloc_event)->thread == thread;
    return intern((object_name){thread, nth, (size_t)((const char *)o - b->p)});
}

/* Step s with its objects (the location or mutex, and a condition
 * variable) named as the same in every run: the wakeup trees keep steps
 * from one run to be compared with the steps of later ones. */
static step stable(const step *s)
{
    step r = *s;
    r.obj = stable_object(s->obj);
    r.cond = (const void *)stable_object(s->cond);
    return r;
}

const char *path_error(void) { return st()->error; }

/* A decision among options; asleep: options the reduction rules out here,
 * marked tried so that path_next never takes them; want: the guide's
 * thread (-1 none), rest the guide's other children, the decision's
 * wakeup tree; steps: each thread's next step (a thread choice). */
static int branch(enum branch_kind kind, unsigned options, int current, unsigned asleep, int want, int rest,
                  const step *steps)
{
    if (st()->depth >= MAX_DECISIONS) {
        snprintf(st()->error, sizeof st()->error, "more than %d decisions in one schedule: is the scenario looping?",
                 MAX_DECISIONS);
        free_list(rest);
        return -1;
    }
    decision *d = &st()->path[st()->depth];
    unsigned awake = options & ~asleep;
    int dflt = want >= 0 ? want : fallback(kind, awake ? awake : options, current);
    if (st()->replay) {
        int c = st()->used[kind] < st()->nwanted[kind] ? st()->wanted[kind][st()->used[kind]++] : dflt;
        *d = (decision){.kind = kind, .options = options, .chosen = c, .current = current, .backtrack = options,
                        .wut = -1, .guide = -1};
    } else if (st()->depth < st()->prefix) {
        d->options = options; /* replaying the prefix: the choice stays, from the last run */
        d->current = current;
    } else {
        /* blocked: a repeat, nothing below it is explored */
        unsigned tried = st()->blocked ? options : (1u << dflt) | asleep;
        /* a reduced round tries another thread only where a race asks (reverse) */
        unsigned backtrack = st()->races && kind == BRANCH_THREAD ? 1u << dflt : options;
        *d = (decision){.kind = kind, .options = options, .tried = tried, .chosen = dflt, .current = current,
                        .backtrack = backtrack, .wut = rest, .guide = -1};
        rest = -1;
        for (int t = 0; t < EXPLORE_MAX_THREADS && steps; ++t) {
            unsigned bit = 1u << t;
            if (!(options & bit))
                continue;
            d->next[t] = stable(&steps[t]);
            d->next[t].foot = NULL;
            if (asleep & bit) { /* its step as explored, where it fell asleep */
                d->foot[t] = st()->asleep_foot[t];
                d->touched |= st()->touchy & bit;
            }
        }
        if (kind == BRANCH_READ && (options & ~tried))
            d->guide = copy_list(st()->guide); /* -1 if the pool ran out: those options go their own way */
    }
    free_list(rest);
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
    if (++st()->depth == st()->prefix && !st()->replay) { /* the prefix replayed: the guide path_next chose */
        st()->guide = st()->staged;
        st()->staged = -1;
    }
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
            st()->asleep_foot[t] = d->foot[t];
        }
        step next = steps[t];
        next.scenario = st()->touchy & bit; /* as its step did when it was explored */
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
    return step_effect(a, b, st()->free_mo) != STEP_KEEP || step_effect(b, a, st()->free_mo) != STEP_KEEP;
}

/* Whether transition k happens before a step whose clock is vc. */
static bool before(const transition *k, const uint16_t *vc)
{
    return vc[k->thread] >= k->seq;
}

/* Whether, in the sequence v (st()->seq), step a happens before step b. */
static bool seq_before(const wut_step *a, const wut_step *b)
{
    return b->vc[a->thread] >= a->seq;
}

/* Where thread t's first step is in what is left of v (n steps), if it is
 * an initial (nothing left of v before it happens before it); -1 if t
 * has no step left in v (*in: false) or its first is no initial. */
static int initial(int t, int n, bool *in)
{
    wut_step *v = st()->seq;
    *in = false;
    for (int k = 0; k < n; ++k) {
        if (v[k].gone || v[k].thread != t)
            continue;
        *in = true;
        for (int m = 0; m < k; ++m)
            if (!v[m].gone && seq_before(&v[m], &v[k]))
                return -1;
        return k;
    }
    return -1;
}

/* Whether step s commutes with every step left of v. */
static bool independent_of(const step *s, int n)
{
    for (int k = 0; k < n; ++k)
        if (!st()->seq[k].gone && dependent(st()->seq[k].step, s))
            return false;
    return true;
}

/* The next step of thread t at decision d, as the sleep sets judge it:
 * its footprint over the runs that took it from d (or where it fell
 * asleep before d). */
static step next_at(const decision *d, int t)
{
    step s = d->next[t];
    s.scenario = d->touched & (1u << t);
    s.foot = &d->foot[t];
    return s;
}

/* Whether v, run from decision d, repeats what is explored: a step of v
 * is taken by a thread asleep at d that every step of v before it leaves
 * asleep (the sleep sets would stop the run there), or a thread asleep
 * at d, not in v, commutes with every step of v (its step could go
 * first: Abdulla et al.'s weak initials). */
static bool redundant(const decision *d, int n)
{
    unsigned sleep = d->tried & ~(1u << d->chosen) & d->options, in = 0;
    step asleep[EXPLORE_MAX_THREADS];
    for (int t = 0; t < EXPLORE_MAX_THREADS; ++t)
        if (sleep & (1u << t))
            asleep[t] = next_at(d, t);
    for (int k = 0; k < n; ++k) {
        const wut_step *x = &st()->seq[k];
        if (sleep & (1u << x->thread))
            return true;
        in |= 1u << x->thread;
        for (int t = 0; t < EXPLORE_MAX_THREADS; ++t)
            if ((sleep & (1u << t)) && step_effect(x->step, &asleep[t], st()->free_mo) != STEP_KEEP)
                sleep &= ~(1u << t);
    }
    for (int t = 0; t < EXPLORE_MAX_THREADS; ++t)
        if ((sleep & ~in & (1u << t)) && independent_of(&asleep[t], n))
            return true;
    return false;
}

/* Inserts v (its n steps) into decision d's wakeup tree (Abdulla et al.,
 * JACM 2017, the insertion of Optimal-DPOR): down from the root, at each
 * level the first child whose thread can start what is left of v (its
 * first step there is an initial, or it is not in v and commutes with
 * all of it) is followed, its step taken off v; a leaf reached means
 * the tree's branch explores v already. Else what is left of v becomes a
 * new branch, after the children there. false: no node left. */
static bool insert(decision *d, int n)
{
    int *link = &d->wut;
    for (;;) {
        int c = *link, left = 0;
        for (int k = 0; k < n; ++k)
            left += !st()->seq[k].gone;
        if (left == 0)
            return true; /* v is a prefix of a branch */
        for (; c >= 0; c = node(c)->next) {
            bool in;
            int k = initial(node(c)->thread, n, &in);
            if (k >= 0 || (!in && independent_of(&node(c)->step, n))) {
                if (k >= 0)
                    st()->seq[k].gone = true;
                break;
            }
        }
        if (c < 0)
            break;
        if (node(c)->child < 0)
            return true; /* a leaf: its run goes on from there as v would */
        link = &node(c)->child;
    }
    int head = -1, *tail = &head, left = 0;
    for (int k = 0; k < n; ++k)
        left += !st()->seq[k].gone;
    if (left > st()->nfree)
        return false;
    for (int k = 0; k < n; ++k)
        if (!st()->seq[k].gone) {
            *tail = new_node(st()->seq[k].thread, st()->seq[k].step);
            tail = &node(*tail)->child;
        }
    while (*link >= 0)
        link = &node(*link)->next;
    *link = head;
    return true;
}

/* A race: step e2 (thread p, clock vc, step s2; st()->trans[at] if it
 * ran, else p's pending step) and the earlier step j = st()->trans[i] of
 * another thread are dependent, and nothing else orders j before e2. To
 * reverse it, the search must also run, from where j was chosen,
 *
 *     v = the steps after j that do not happen after j, then e2
 *
 * (they can all run before j, in their order). Optimal-DPOR (Abdulla,
 * Aronis, Jonsson and Sagonas, JACM 2017) keeps v whole, in the
 * decision's wakeup tree (insert), unless the sleep sets say that its
 * run would repeat one explored (redundant); the run that explores it
 * follows v (path_schedule), so that it never ends asleep. */
static void reverse(int i, int p, const uint16_t *vc, const step *s2, int at)
{
    const transition *j = &st()->trans[i];
    if (j->decision < 0 || !st()->races)
        return; /* j's thread was the only one that could go: nothing can go before j */
    decision *d = &st()->path[j->decision];
    wut_step *v = st()->seq;
    int n = 0, end = at >= 0 ? at : st()->ntrans;
    for (int k = i + 1; k < end; ++k) {
        const transition *e = &st()->trans[k];
        if (!before(j, e->vc))
            v[n++] = (wut_step){.thread = e->thread, .seq = e->seq, .step = &e->step, .vc = e->vc};
    }
    v[n++] = (wut_step){.thread = p, .seq = UINT16_MAX, .step = s2, .vc = vc};
    unsigned initials = 0;
    for (int t = 0; t < EXPLORE_MAX_THREADS; ++t) {
        bool in;
        if (initial(t, n, &in) >= 0)
            initials |= 1u << t;
    }
    if (!(initials & d->options)) {
        d->backtrack |= d->options; /* none could go there (a lock held): every thread, as unreduced */
        return;
    }
    if (redundant(d, n) || insert(d, n))
        return;
    /* no node left: source-DPOR's rule (Algorithm 2), one initial */
    if (initials & d->backtrack)
        return;
    unsigned awake = initials & d->options & ~(d->tried & ~d->backtrack);
    if (awake)
        d->backtrack |= 1u << __builtin_ctz(awake);
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

/* Under RC11, a step e that reads (a load, a read-modify-write) after a
 * store j to its location, and that does not limit j (step.c),
 * never races with j: e before j reads only what e after j may read too
 * (an older store), an execution met there. 1: such a pair, e read j's
 * store (or a later one of j's thread): e is ordered after j; 0: such a
 * pair, e read an older store: e could have run before j, they are not
 * ordered; -1: not such a pair. */
static int reads_after(const transition *j, const transition *e)
{
    step may = e->step; /* a compare-exchange that failed: one that may store, which j's read would order */
    may.writes |= e->may_write;
    if (!st()->free_mo || step_effect(&may, &j->step, true) != STEP_KEEP ||
        step_effect(&j->step, &e->step, true) != STEP_LIMIT)
        return -1;
    return e->read >= j->first_event && event_at(e->read)->thread == j->thread;
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
    *t = (transition){.thread = p, .step = stable(s), .decision = decision, .first_event = st()->chosen.now,
                      .read = st()->chosen.read, .may_write = st()->chosen.may_write};
    if (s->foot) {
        st()->trans_foot[st()->ntrans] = *s->foot;
        t->step.foot = &st()->trans_foot[st()->ntrans];
    }
    if (st()->last[p] >= 0)
        memcpy(t->vc, st()->trans[st()->last[p]].vc, sizeof t->vc);
    else if (st()->created_by[p] >= 0 && st()->created_by[p] < st()->ntrans) /* a created thread's first step */
        memcpy(t->vc, st()->trans[st()->created_by[p]].vc, sizeof t->vc);
    if (st()->chosen.joined >= 0 && st()->last[st()->chosen.joined] >= 0) /* after every step of the joined */
        for (int u = 0; u < EXPLORE_MAX_THREADS; ++u)
            if (st()->trans[st()->last[st()->chosen.joined]].vc[u] > t->vc[u])
                t->vc[u] = st()->trans[st()->last[st()->chosen.joined]].vc[u];
    int *races = st()->racing, nraces = 0;
    for (int i = st()->ntrans - 1; i >= 0; --i) {
        const transition *j = &st()->trans[i];
        if (j->thread == p || !dependent(&j->step, &t->step))
            continue;
        int rf = reads_after(j, t);
        if (rf == 0)
            continue;
        if (rf < 0 && !before(j, t->vc))
            races[nraces++] = i;
        for (int u = 0; u < EXPLORE_MAX_THREADS; ++u)
            if (j->vc[u] > t->vc[u])
                t->vc[u] = j->vc[u];
    }
    t->seq = t->vc[p] = (uint16_t)(st()->last[p] >= 0 ? st()->trans[st()->last[p]].seq + 1 : 1);
    st()->last[p] = st()->ntrans++;
    for (int r = 0; r < nraces; ++r)
        reverse(race_at(races[r], &t->step), p, t->vc, &t->step, st()->ntrans - 1);
}


void path_ran(const step *what)
{
    if (!st()->chosen.pending)
        return;
    bool touched = st()->chosen.ran.scenario;
    st()->chosen.ran = *what;
    st()->chosen.ran.scenario = touched;
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
    step s = stable(next);
    s.scenario = false; /* its bookkeeping, if any, is judged when it has run */
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
        reverse(race_at(race, &s), q, vc, &s, -1);
}

/* The guide's step at this point, if it can go: its thread, the guide
 * moved on to that node's subtree, and *rest its other children (-1 at
 * a point where only one thread can go). A node whose thread cannot go
 * there, is asleep or is at another step than recorded (another kind, or
 * another object where both are allocated ones: an object elsewhere,
 * on a thread's stack, may move from run to run) is dropped, its subtree
 * with it: a read that read otherwise than where the sequence was found
 * sent its thread another way. */
static int follow(unsigned enabled, unsigned asleep, const step *steps, int *rest)
{
    int list = st()->guide;
    st()->guide = -1;
    *rest = -1;
    while (list >= 0) {
        int n = list, t = node(n)->thread;
        list = node(n)->next;
        node(n)->next = -1;
        step next = (enabled & (1u << t)) ? stable(&steps[t]) : (step){0};
        bool can = (enabled & ~asleep & (1u << t)) && next.kind == node(n)->step.kind &&
                   (next.obj == node(n)->step.obj || (!is_key(next.obj) && !is_key(node(n)->step.obj)));
        if (!can) {
            free_list(n);
            continue;
        }
        st()->guide = node(n)->child;
        free_node(n);
        if (enabled & (enabled - 1))
            *rest = list;
        else
            free_list(list);
        return t;
    }
    return -1;
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
    if (asleep && asleep == enabled) {
        asleep = 0, st()->blocked = true;
        free_list(st()->guide);
        st()->guide = -1;
    }
    int rest = -1, want = st()->guide >= 0 ? follow(enabled, asleep, steps, &rest) : -1;
    int c = want >= 0 ? want : __builtin_ctz(enabled);
    unsigned explored = 0;
    int at = -1;
    if (enabled & (enabled - 1)) { /* two or more: a decision */
        c = branch(BRANCH_THREAD, enabled, current, asleep, want, rest, steps);
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
        st()->chosen.read = -1;
        st()->chosen.joined = -1;
        st()->chosen.may_write = steps[c].writes;
        st()->chosen.thread = c;
        st()->chosen.decision = at;
        st()->chosen.now = now;
        st()->chosen.explored = explored;
        st()->chosen.ran = steps[c];
        st()->chosen.ran.scenario = false; /* until it does (path_scenario_touched) */
        st()->chosen.foot = (footprint){0}; /* (path_touch) */
        st()->chosen.ran.foot = &st()->chosen.foot;
    }
    return c;
}

/* The running step is a limited thread's read (sleep_after) and every
 * store it may read is older than its mark: everything it can do here
 * was explored where it fell asleep, so the thread was asleep at the
 * decision that chose it after all. Had the search known, it would have
 * chosen an awake thread there (branch), and found the races of that
 * run. So that thread is to be tried there: without it, an execution in
 * which the other threads go first and the read then reads one of their
 * stores is met only if a race of some run asks for it, and a run that
 * is blocked reverses none (the read choices of an earlier step, each
 * run with the guide as it was when that step ran, do not carry the
 * races their sibling runs found; XCHG+W+WR.litmus). */
static void asleep_after_all(void)
{
    if (!st()->chosen.pending || st()->chosen.decision < 0)
        return; /* the only thread that could go: the state is a repeat */
    decision *d = &st()->path[st()->chosen.decision];
    unsigned awake = d->options & ~d->tried;
    if (awake && !(awake & d->backtrack))
        d->backtrack |= 1u << fallback(BRANCH_THREAD, awake, d->current);
}

int path_read(unsigned options, int current, const int *reads_from)
{
    unsigned barred = 0;
    for (int c = 0; c < 32 && st()->floor >= 0; ++c)
        if ((options & (1u << c)) && reads_from[c] < st()->floor)
            barred |= 1u << c;
    st()->floor = -1;
    if (barred && barred == options) { /* nothing new to read: a repeat */
        barred = 0, st()->blocked = true;
        asleep_after_all();
    }
    int c = options & (options - 1) ? branch(BRANCH_READ, options, current, barred, -1, -1, NULL)
                                    : __builtin_ctz(options);
    /* The chosen step's own read only: the main thread's checks read the
     * final values while the schedule's last step is still pending (its
     * races are settled in path_next), and the store they read is no
     * store that step read (RW+W+CAS.litmus: a compare-exchange that read
     * the initial value, taken to have read the last store, and its race
     * with an earlier load was never reversed). */
    if (c >= 0 && st()->chosen.pending && current == st()->chosen.thread)
        st()->chosen.read = reads_from[c];
    return c;
}

int path_choose(unsigned options, int current)
{
    return options & (options - 1) ? branch(BRANCH_READ, options, current, 0, -1, -1, NULL) : __builtin_ctz(options);
}

/* The step that creates a thread is settled (dpor_step) at the next
 * decision, before the new thread can take a step of its own: it will be
 * transition ntrans. Outside a reduced round nothing is recorded. */
void path_spawn(int child, int creator)
{
    st()->created_by[child] = st()->chosen.pending && st()->chosen.thread == creator ? st()->ntrans : -1;
}

void path_join(int joiner, int child)
{
    if (st()->chosen.pending && st()->chosen.thread == joiner)
        st()->chosen.joined = child;
}

void path_begin_round(int bound, enum search_kind kind, bool free_mo)
{
    st()->bound = bound;
    st()->reduce = kind != SEARCH_EVERY && !st()->replay;
    st()->races = kind == SEARCH_SOURCE && !st()->replay;
    st()->free_mo = free_mo;
    st()->pruned = false;
    st()->prefix = 0;
    pool_reset();
}

void path_begin_schedule(void)
{
    st()->sleep = st()->limited = st()->touchy = 0;
    st()->floor = -1;
    st()->chosen.pending = false;
    st()->ntrans = 0;
    for (int t = 0; t < EXPLORE_MAX_THREADS; ++t)
        st()->last[t] = st()->created_by[t] = -1;
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
    free_list(st()->guide); /* the run ended before its guide did */
    st()->guide = -1;
    for (int i = st()->depth - 1; i >= 0; --i) {
        decision *d = &st()->path[i];
        while (d->kind == BRANCH_THREAD && d->wut >= 0) { /* the wakeup tree's next child, and its subtree */
            int n = d->wut, c = node(n)->thread;
            d->wut = node(n)->next;
            /* A child whose thread cannot go here came with a guide, from a
             * run where a read read otherwise (follow() drops such a node
             * where the guide meets it; this is one of its siblings). */
            bool can = d->options & (1u << c);
            if ((d->tried & (1u << c)) || !can || d->cost + cost(d, c) > st()->bound) {
                st()->pruned |= can && !(d->tried & (1u << c));
                free_list(node(n)->child);
                free_node(n);
                continue;
            }
            d->tried |= 1u << c;
            d->chosen = c;
            st()->staged = node(n)->child;
            free_node(n);
            st()->prefix = st()->depth = i + 1;
            return true;
        }
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
            st()->staged = -1;
            if (d->kind == BRANCH_READ)
                st()->staged = copy_list(d->guide);
            st()->prefix = st()->depth = i + 1;
            return true;
        }
        if (d->kind == BRANCH_READ) {
            free_list(d->guide);
            d->guide = -1;
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
    pool_reset();
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
